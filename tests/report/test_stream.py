"""A schedule report written pod by pod (report/stream.py) is the whole report's document, byte
for byte, in every streamed format; the compact form of report/digest.py; writes that a stream
takes in pieces (kwhatif/sink.py), and a document of more than 2 GiB written whole."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kwhatif.config.defaults import default_configuration
from kwhatif.framework.types import PodOutcome
from kwhatif.report.base import OutputFormat
from kwhatif.report.compact import Digester
from kwhatif.report.digest import SHOW_ALL_NODES
from kwhatif.report.formats.formatter import RenderOptions
from kwhatif.report.formats.output import get_formatter
from kwhatif.report.formats.table import TableFormatter
from kwhatif.report.schedule import (
    PodRef,
    PodResult,
    ScheduleReport,
    labels_of,
    pod_result,
    schedule_report,
)
from kwhatif.report.stream import JsonWriter, ResultWriter, ScheduleStream, TableWriter, YamlWriter
from kwhatif.scheduling.scheduler import Scheduler
from kwhatif.sink import Sink

from builders import PINNED, make_cluster, make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]


def _cluster(workers: int, pods: list[dict[str, Any]]) -> Any:
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
    return make_cluster([*objs, *pods])


def _pods() -> list[Any]:
    """A pod that fits nowhere first (it is tried again in a second round, after the others),
    then pods that fit, one that takes a whole 4-cpu node, and one that cannot fit either."""
    return [
        make_pod().name("huge").req(cpu="16").obj(),
        make_pod().name("small-1").req(cpu="500m").obj(),
        make_pod().name("whole").req(cpu="3500m").obj(),
        make_pod().name("small-2").req(cpu="500m").obj(),
        make_pod().name("huge-2").req(cpu="12").obj(),
    ]


def _render(fmt: OutputFormat, explain_all: bool = True) -> Any:
    return get_formatter(fmt, RenderOptions(explain_all=explain_all))


def _writer(fmt: OutputFormat, num_nodes: int, explain_all: bool = True) -> ResultWriter:
    if fmt is OutputFormat.JSON:
        return JsonWriter()
    if fmt is OutputFormat.YAML:
        return YamlWriter()
    formatter = _render(fmt, explain_all)
    assert isinstance(formatter, TableFormatter)
    return TableWriter(formatter, num_nodes)


def _whole(workers: int, fmt: OutputFormat) -> str:
    sched = Scheduler(_cluster(workers, []), default_configuration(PINNED))
    attempts = sched.run(_pods(), skip_unchanged=True)
    nodes = [ni.node for ni in sched.snapshot.node_infos]
    report = schedule_report(attempts, sched.snapshot.num_nodes, "default-scheduler", ["a note"], nodes=nodes)
    return str(_render(fmt).format(report))


def _streamed(workers: int, fmt: OutputFormat, build: Any = pod_result, explain_all: bool = True) -> tuple[str, Any]:
    sched = Scheduler(_cluster(workers, []), default_configuration(PINNED))
    out = io.StringIO()
    head = ScheduleReport("default-scheduler", (), sched.snapshot.num_nodes)
    stream = ScheduleStream(_writer(fmt, sched.snapshot.num_nodes, explain_all), Sink(out), build, head)
    stream.run(sched.iter_run(_pods(), skip_unchanged=True))
    tail = ScheduleReport(
        "default-scheduler",
        (),
        sched.snapshot.num_nodes,
        notes=("a note",),
        node_labels=labels_of(stream.named, [ni.node for ni in sched.snapshot.node_infos]),
        counted=stream.summary,
    )
    stream.close(tail)
    return out.getvalue(), stream


@pytest.mark.parametrize("fmt", [OutputFormat.JSON, OutputFormat.YAML, OutputFormat.TABLE, OutputFormat.WIDE])
def test_a_streamed_report_is_the_whole_reports_document(fmt: OutputFormat) -> None:
    text, stream = _streamed(3, fmt)
    assert text == _whole(3, fmt)
    # the first pod fails in both rounds: the results after it waited in the temporary file
    assert stream._spool is not None
    assert stream.summary.pods == 5 and stream.summary.scheduled == 3 and stream.summary.unschedulable == 2


def test_a_streamed_json_report_without_results() -> None:
    out = io.StringIO()
    head = ScheduleReport("default-scheduler", (), 3)
    stream = ScheduleStream(JsonWriter(), Sink(out), pod_result, head)
    stream.run([])
    tail = ScheduleReport("default-scheduler", (), 3, counted=stream.summary)
    stream.close(tail)
    whole = get_formatter(OutputFormat.JSON).format(ScheduleReport("default-scheduler", (), 3))
    assert out.getvalue() == whole
    assert json.loads(out.getvalue())["results"] == []


def test_the_compact_form_counts_and_groups_the_nodes_it_does_not_show() -> None:
    workers = 30
    sched = Scheduler(_cluster(workers, []), default_configuration(PINNED))
    digest = Digester()
    results = [digest(a) for a in sched.run(_pods()[1:2] + _pods()[:1], rounds=1)]
    fits, misfit = results
    assert fits.status is PodOutcome.SCHEDULED and fits.digest is not None
    d = fits.digest
    # 30 workers fit, the tainted node does not
    assert (d.feasible, d.infeasible) == (30, 1)
    assert len(d.best) == 5 and d.best[0] == fits.node
    assert [(g.node, g.count, g.examples, g.failures) for g in d.groups] == [("tainted", 1, ("tainted",), 1)]
    assert d.closest == ()
    assert {n.name for n in fits.nodes} == {*d.best, "tainted"}
    # the pod that fits nowhere: the 4-cpu workers lack cpu, the 2-cpu ones too, the tainted
    # node is tainted and lacks cpu; closest are the nodes failing one filter, the largest group first
    m = misfit.digest
    assert m is not None and misfit.status is PodOutcome.UNSCHEDULABLE
    assert (m.feasible, m.infeasible, m.best) == (0, 31, ())
    assert [(g.count, g.failures) for g in m.groups] == [(30, 1), (1, 2)]
    assert m.groups[0].examples == ("worker-00", "worker-01", "worker-02", "worker-03")
    assert m.closest == ("worker-00", "worker-01", "worker-02", "worker-03", "worker-04")


def test_the_table_of_a_large_cluster_shows_the_best_nodes_and_counts_the_rest() -> None:
    text, _ = _streamed(30, OutputFormat.TABLE, Digester(), explain_all=False)
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("FITS default/small-1")))
    block = lines[start : start + 12]
    assert sum(1 for line in block if line.startswith("  worker-")) == 5
    assert "  ... 25 more feasible nodes (--explain all lists every node)" in block
    assert "  1 node do not fit, grouped by reason (* = reported by upstream; --explain all lists each):" in block
    huge = lines.index("DOES NOT FIT default/huge (attempt 1 of 2)")
    assert lines[huge + 1].startswith("  0/31 nodes are available:")
    assert lines[huge + 3 : huge + 8] == [
        "     30 x *NodeResourcesFit: Insufficient cpu",
        "          worker-00, worker-01, worker-02, worker-03, ... (+26)",
        "      1 x *TaintToleration: node(s) had untolerated taint {dedicated: infra} | NodeResourcesFit: Insufficient cpu",
        "          tainted",
        "  closest to fitting (fewest failing filters): worker-00, worker-01, worker-02, worker-03, worker-04",
    ]


def test_a_small_cluster_is_shown_whole_by_the_compact_builder() -> None:
    assert SHOW_ALL_NODES == 20
    assert _streamed(3, OutputFormat.TABLE, Digester())[0] == _whole(3, OutputFormat.TABLE)


def test_the_compact_json_follows_the_schema() -> None:
    text, _ = _streamed(30, OutputFormat.JSON, Digester())
    doc = json.loads(text)
    schema = json.loads((ROOT / "docs" / "schema" / "schedule-report.schema.json").read_text())
    jsonschema.validate({**doc, "detail": "summary"}, schema)
    first = doc["results"][1]
    assert first["pod"]["name"] == "small-1"
    assert first["nodeSummary"]["feasibleNodes"] == 30
    assert len(first["nodes"]) == 6  # the 5 best and the tainted node
    assert first["attempts"][0]["nodeSummary"] == first["nodeSummary"]


# --- writing whole ------------------------------------------------------------------------------


class _Trickle(io.RawIOBase):
    """A raw stream that takes at most ``most`` bytes per call, as a pipe or a full socket may."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.data = bytearray()
        self.calls = 0

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.calls += 1
        n = min(len(b), self.most)
        self.data += bytes(b[:n])
        return n


def test_a_stream_that_takes_a_few_bytes_at_a_time_gets_every_byte() -> None:
    raw = _Trickle(1000)
    text = "".join(f"line {i} é\n" for i in range(200_000))
    sink = Sink(raw)
    sink.write(text)
    assert raw.data.decode() == text
    assert raw.calls > 1000
    # through a text layer (standard output): the same
    raw = _Trickle(333)
    out = io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8")
    Sink(out).write(text)
    out.flush()
    assert raw.data.decode() == text


class _TakesNothing(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return 0


def test_a_stream_that_takes_nothing_is_an_error() -> None:
    with pytest.raises(OSError, match="took none"):
        Sink(_TakesNothing()).write("x")


class _Counter(io.RawIOBase):
    """Counts what it is given and keeps the last bytes; like Linux, one call takes at most
    2,147,479,552 bytes."""

    def __init__(self) -> None:
        self.count = 0
        self.calls = 0
        self.last = b""

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.calls += 1
        n = min(len(b), 2_147_479_552)
        self.count += n
        self.last = (self.last + bytes(b[max(0, n - 200) : n]))[-200:]
        return n


def test_a_report_of_more_than_2_gib_is_written_whole() -> None:
    """A streamed JSON report of 2.1 GiB fed to a stream that counts it: 130 results of 16 MiB
    each, one at a time (the writer renders the one result once and hands it on each time)."""
    note = "n" * (1 << 20)
    result = PodResult(
        pod=PodRef("default", "pod"),
        status=PodOutcome.SCHEDULED,
        profile="default-scheduler",
        priority=0,
        node="worker",
        tie=(),
        best_score=None,
        message=None,
        pre_filter=(),
        nodes=(),
        preemption=None,
        binding=None,
        weights={},
        notes=(note,) * 8,  # written twice: the result's and its attempt's
    )

    class _Once(JsonWriter):
        text = ""

        def result(self, r: PodResult) -> str:
            if not self.text:
                self.text = super().result(r)
            return self.text

    class _Att:
        def __init__(self, i: int) -> None:
            self.pod = type("P", (), {"key": f"default/pod-{i}"})()

    raw = _Counter()
    head = ScheduleReport("default-scheduler", (), 1)
    pods = 130  # 130 x 16 MiB > 2 GiB
    writer = _Once()
    stream = ScheduleStream(writer, Sink(raw), lambda a: result, head)
    stream.run((_Att(i), True) for i in range(pods))  # type: ignore[misc]
    tail = ScheduleReport("default-scheduler", (), 1, counted=stream.summary)
    stream.close(tail)
    assert len(writer.text) > 1 << 24
    assert raw.count > 2**31
    expected = len(writer.head(head, True)) + pods * len(writer.text) + 2 * pods - 1 + len(writer.tail(tail, pods))
    assert raw.count == expected
    assert raw.last.endswith(
        b'"summary": {\n    "pods": 130,\n    "scheduled": 130,\n    "unschedulable": 0,\n    "errors": 0,\n'
        b'    "gated": 0,\n    "preempted": 0\n  },\n  "notes": []\n}\n'
    )
