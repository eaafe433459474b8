"""-o markdown, junit, sarif and html written as the pods are scheduled (report/stream_docs.py):
the whole report's document byte for byte, with and without results, and memory that does not
grow with the number of pods; the records escaping and building share from pod to pod
(EscapeCache(keep=True), EntryCache) leave every output as it was."""

from __future__ import annotations

import dataclasses
import io
import tracemalloc
from typing import Any

import pytest

from kwhatif.config.defaults import default_configuration
from kwhatif.escape import EscapeCache, escape_strings, visible
from kwhatif.framework.types import PodOutcome
from kwhatif.report import stream_docs
from kwhatif.report.base import OutputFormat
from kwhatif.report.compact import Digester
from kwhatif.report.formats.output import get_formatter
from kwhatif.report.schedule import (
    EntryCache,
    FilterEntry,
    NodeEntry,
    PodRef,
    PodResult,
    ScheduleReport,
    Summary,
    labels_of,
    pod_result,
    schedule_report,
)
from kwhatif.report.stream import ScheduleStream
from kwhatif.report.stream_docs import Spool, SpoolWriter, document_writer
from kwhatif.scheduling.scheduler import Scheduler
from kwhatif.sink import Sink

from builders import PINNED, make_cluster, make_node, make_pod

AT_END = [OutputFormat.MARKDOWN, OutputFormat.JUNIT, OutputFormat.SARIF, OutputFormat.HTML]


def _cluster(workers: int) -> Any:
    objs = [
        make_node()
        .name(f"worker-{i:02d}")
        .capacity(cpu="2" if i % 3 else "4", memory="4Gi", pods="110")
        .label("topology.kubernetes.io/zone", f"zone-{i % 2}")
        .dict()
        for i in range(workers)
    ]
    objs.append(
        make_node().name("tainted").capacity(cpu="8", memory="8Gi", pods="110").taint("dedicated", "infra").dict()
    )
    return make_cluster(objs)


def _pods() -> list[Any]:
    """A pod that fits nowhere first (tried again in a second round, after the others: their
    results wait for it), pods that fit, a gated one, one that takes a whole node, one that
    cannot fit either."""
    return [
        make_pod().name("huge").req(cpu="16").obj(),
        make_pod().name("small-1").req(cpu="500m").obj(),
        make_pod().name("gated").req(cpu="100m").gate("wait").obj(),
        make_pod().name("whole").req(cpu="3500m").obj(),
        make_pod().name("small-2").req(cpu="500m").obj(),
        make_pod().name("huge-2").req(cpu="12").obj(),
    ]


def _whole(fmt: OutputFormat, pods: list[Any]) -> str:
    sched = Scheduler(_cluster(3), default_configuration(PINNED))
    attempts = sched.run(pods, skip_unchanged=True)
    nodes = [ni.node for ni in sched.snapshot.node_infos]
    report = schedule_report(attempts, sched.snapshot.num_nodes, "default-scheduler", ["a note"], nodes=nodes)
    return str(get_formatter(fmt).format(report))


def _streamed(fmt: OutputFormat, pods: list[Any]) -> tuple[str, ScheduleStream]:
    sched = Scheduler(_cluster(3), default_configuration(PINNED))
    out = io.StringIO()
    spool = Spool()
    at_end = document_writer(fmt.value)
    head = ScheduleReport("default-scheduler", (), sched.snapshot.num_nodes)
    stream = ScheduleStream(SpoolWriter(at_end), spool.sink, pod_result, head)
    stream.run(sched.iter_run(pods, skip_unchanged=True))
    tail = ScheduleReport(
        "default-scheduler",
        (),
        sched.snapshot.num_nodes,
        notes=("a note",),
        node_labels=labels_of(stream.named, [ni.node for ni in sched.snapshot.node_infos]),
        counted=stream.summary,
    )
    stream.close(tail)
    at_end.document(Sink(out), tail, stream.summary.pods, spool.records)
    spool.close()
    return out.getvalue(), stream


@pytest.mark.parametrize("fmt", AT_END)
def test_a_streamed_document_is_the_whole_reports(fmt: OutputFormat) -> None:
    pods = _pods()
    text, stream = _streamed(fmt, pods)
    assert text == _whole(fmt, pods)
    s = stream.summary
    assert (s.pods, s.scheduled, s.unschedulable, s.gated) == (6, 3, 2, 1)
    assert stream._spool is not None  # the results after "huge" waited for its second attempt


@pytest.mark.parametrize("fmt", AT_END)
def test_a_streamed_document_of_pods_that_all_fit_or_of_none(fmt: OutputFormat) -> None:
    fitting = [p for p in _pods() if p.name.startswith("small")]
    assert _streamed(fmt, fitting)[0] == _whole(fmt, fitting)  # SARIF: no result, no rule
    assert _streamed(fmt, [])[0] == _whole(fmt, [])


def test_the_streamed_documents_open_with_the_counts_known_at_the_end() -> None:
    pods = _pods()
    markdown = _streamed(OutputFormat.MARKDOWN, pods)[0]
    assert markdown.startswith("### kwhatif: 3/6 pods fit\n")
    junit = _streamed(OutputFormat.JUNIT, pods)[0]
    assert '<testsuites name="kwhatif" tests="6">' in junit
    assert 'tests="6" failures="3" errors="0" skipped="0">' in junit
    html = _streamed(OutputFormat.HTML, pods)[0]
    assert "<title>kwhatif ScheduleReport: default/huge, default/small-1, default/gated and 3 more</title>" in html
    assert "3/6 pods scheduled, 2 unschedulable" in html


def _synthetic(i: int, nodes: int) -> PodResult:
    """A pod that fits nowhere: each of ``nodes`` nodes fails with a reason of its own."""
    entries = tuple(
        NodeEntry(
            f"node-{i:05d}-{n:03d}",
            False,
            (FilterEntry("NodeResourcesFit", "Unschedulable", (f"Insufficient cpu ({i}/{n})",)),),
        )
        for n in range(nodes)
    )
    return PodResult(
        pod=PodRef("default", f"pod-{i:05d}"),
        status=PodOutcome.UNSCHEDULABLE,
        profile="default-scheduler",
        priority=0,
        node=None,
        tie=(),
        best_score=None,
        message=f"0/{nodes} nodes are available: {nodes} Insufficient cpu.",
        pre_filter=(),
        nodes=entries,
        preemption=None,
        binding=None,
        weights={},
    )


class _Count(io.RawIOBase):
    def __init__(self) -> None:
        self.n = 0

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.n += len(b)
        return len(b)


def _peak(fmt: OutputFormat, pods: int) -> tuple[int, int]:
    """Peak traced memory and bytes written of a document of ``pods`` synthetic pods."""
    tracemalloc.start()
    try:
        at_end = document_writer(fmt.value)
        spool = Spool()
        writer = SpoolWriter(at_end)
        for i in range(pods):
            spool.write(writer.result(_synthetic(i, 10)))
        sink = _Count()
        summary = Summary(pods=pods, scheduled=0, unschedulable=pods)
        at_end.document(Sink(sink), ScheduleReport("default-scheduler", (), 10, counted=summary), pods, spool.records)
        spool.close()
        return tracemalloc.get_traced_memory()[1], sink.n
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fmt", AT_END)
def test_memory_does_not_grow_with_the_number_of_pods(fmt: OutputFormat, monkeypatch: pytest.MonkeyPatch) -> None:
    # each pod names 10 nodes and 10 reasons of its own: the strings escaped are kept up to a
    # bound (stream_docs._ESCAPED), here a small one, reached by the first pods
    monkeypatch.setattr(stream_docs, "_ESCAPED", 200)
    monkeypatch.setattr(stream_docs, "_KEPT", 300)  # the records kept as met, likewise
    _peak(fmt, 20)  # what the first use of a module allocates once
    small, small_out = _peak(fmt, 100)
    large, large_out = _peak(fmt, 800)
    assert large_out > 6 * small_out  # eight times the pods: about eight times the document
    # a writer that held the pods would grow by at least what they write
    assert large - small < (large_out - small_out) / 5, (small, large, small_out, large_out)


def test_escaping_that_keeps_what_it_met_escapes_every_result_as_one_call_does() -> None:
    cache = EscapeCache(visible, keep=True)
    shared = (FilterEntry("TaintToleration", "Unschedulable", ("taint {a: \x1b[31mred}",)),)
    plain = (FilterEntry("NodeResourcesFit", "Success"),)
    for i in range(3):
        r = dataclasses.replace(
            _synthetic(i, 0),
            nodes=(NodeEntry("bad", False, shared), NodeEntry(f"good-{i}", True, plain)),
            weights={"TaintToleration": 3},
        )
        got = escape_strings(r, visible, cache)
        assert got == escape_strings(r, visible)
        assert got.nodes[0].filters[0].reasons == ("taint {a: ^[[31mred}",)  # escaped on every call
        assert got.nodes[1] is r.nodes[1]  # nothing to escape: the record itself
    # what it keeps is bounded
    small = EscapeCache(visible, keep=True, keep_limit=5)
    for i in range(20):
        escape_strings(_synthetic(i, 3), visible, small)
        assert len(small.kept) <= 5 + 40


def test_results_built_with_an_entry_cache_are_those_built_without() -> None:
    sched = Scheduler(_cluster(30), default_configuration(PINNED))
    pods = [make_pod().name(f"web-{i}").req(cpu="100m").obj() for i in range(8)] + _pods()[:1]
    attempts = sched.run(pods, rounds=1)
    cache = EntryCache()
    digest = Digester()
    for a in attempts:
        assert pod_result(a, cache=cache) == pod_result(a)
        compact = digest(a)
        assert compact.nodes == Digester()(a).nodes
    # pods of one template meet the same nodes' records again: one entry each
    first, second = pod_result(attempts[1], cache=cache), pod_result(attempts[2], cache=cache)
    same = [n for n in first.nodes if n.name != attempts[1].node and n.name != attempts[2].node]
    by_name = {n.name: n for n in second.nodes}
    assert any(by_name[n.name] is n for n in same)
    # a table needs no binding object
    assert pod_result(attempts[0], manifests=False).binding is not None
    assert pod_result(attempts[0], manifests=False).binding.manifest == {}  # type: ignore[union-attr]
    assert pod_result(attempts[0]).binding.manifest  # type: ignore[union-attr]
