"""A schedule report written as its pods are scheduled: each pod's result leaves as soon as its
last attempt ends, so what the command holds does not grow with the number of pods.

The document is the one the whole report writes, byte for byte (tests compare them): its fields
before ``results`` first, then each result in the order the pods were first attempted, then the
fields after (the summary, the groups, the notes, the labels of the nodes the results name). A pod
that fails is tried again in the next round; the results of the pods after it, ready before it
is, wait in a temporary file (not in memory) until it is written.

Each format's writer (JSON, YAML, table, wide) renders one result as the whole document renders
it in its place: JSON and YAML write a one-result document of the same indentation and keep the
result's part of it; the table renders the pod as its formatter does.
"""

from __future__ import annotations

import codecs
import dataclasses
import tempfile
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Protocol

from kwhatif.escape import EscapeCache, escape_strings, guard_commands, json_text, visible
from kwhatif.framework.types import PodOutcome
from kwhatif.report.schedule import (
    PodResult,
    ScheduleReport,
    Summary,
    head_dict,
    named_nodes,
    pod_outcome,
    result_dict,
    tail_dict,
)
from kwhatif.sink import Sink

if TYPE_CHECKING:
    from kwhatif.report.formats.table import TableFormatter
    from kwhatif.scheduling.scheduler import Attempt

_COPY = 1 << 22  # bytes read back from the temporary file at a time
_ESCAPED = 100_000  # strings whose escaped form the table keeps between pods


class ResultWriter(Protocol):
    """One format's rendering of a report written result by result."""

    def head(self, report: ScheduleReport, any_results: bool) -> str: ...

    def separator(self, index: int) -> str:
        """What comes before the result at ``index`` (0: the first)."""
        ...

    def result(self, r: PodResult) -> str: ...

    def tail(self, report: ScheduleReport, count: int) -> str:
        """Everything after the ``count`` results (``report`` holds none, and the counts)."""
        ...


class JsonWriter:
    """-o json: orjson's indented text of the document (formats/json.py), in parts."""

    def head(self, report: ScheduleReport, any_results: bool) -> str:
        from kwhatif.report.formats.json import dumps_indented

        text = dumps_indented({**head_dict(report), "results": []})
        return json_text(_cut(text, "", "]\n}\n"))  # up to the bracket that opens the results

    def separator(self, index: int) -> str:
        return "\n" if index == 0 else ",\n"

    def result(self, r: PodResult) -> str:
        from kwhatif.report.formats.json import dumps_indented

        text = dumps_indented({"results": [result_dict(r)]})
        return json_text(_cut(text, '{\n  "results": [\n', "\n  ]\n}\n"))

    def tail(self, report: ScheduleReport, count: int) -> str:
        from kwhatif.report.formats.json import dumps_indented

        text = dumps_indented(tail_dict(report))
        return json_text(("\n  ]," if count else "],") + _cut(text, "{", ""))


class YamlWriter:
    """-o yaml: the block writer's text of the document (formats/yaml.py), in parts, the strings
    PyYAML wrote for one result reused by the next."""

    def __init__(self) -> None:
        from kwhatif.report.formats.yaml import Strings

        self.strings = Strings()

    def head(self, report: ScheduleReport, any_results: bool) -> str:
        from kwhatif.report.formats.yaml import dump_block

        return dump_block(head_dict(report)) + ("results:\n" if any_results else "results: []\n")

    def separator(self, index: int) -> str:
        return ""

    def result(self, r: PodResult) -> str:
        from kwhatif.report.formats.yaml import dump_block

        return _cut(dump_block({"results": [result_dict(r)]}, self.strings), "results:\n", "")

    def tail(self, report: ScheduleReport, count: int) -> str:
        from kwhatif.report.formats.yaml import dump_block

        return dump_block(tail_dict(report))


class TableWriter:
    """-o table and -o wide: each pod as the formatter renders it, its strings escaped as the
    formatter's prepare() escapes the whole report's."""

    def __init__(self, formatter: TableFormatter, num_nodes: int) -> None:
        self.formatter = formatter
        self.num_nodes = num_nodes
        self.plugins: dict[str, None] = {}  # the score columns of every table, for -o wide's legend
        self.cache = EscapeCache(visible, keep=True, keep_limit=50_000)  # results share records (EntryCache)

    def head(self, report: ScheduleReport, any_results: bool) -> str:
        return ""

    def separator(self, index: int) -> str:
        return "" if index == 0 else "\n\n"

    def result(self, r: PodResult) -> str:
        from kwhatif.report.formats.table import score_plugins

        if len(self.cache.escaped) > _ESCAPED:
            self.cache.escaped.clear()  # pods' own names, one per pod: bounded
        shown = self._escaped(r)
        for a in shown.all_attempts:
            self.plugins.update(dict.fromkeys(score_plugins(a)))
        return guard_commands(self.formatter.format_pod(shown, self.num_nodes))

    def _escaped(self, r: PodResult) -> PodResult:
        """``r`` with every string the table shows escaped, without the binding's object (the
        table shows the binding's outcome, never the object)."""
        binding = r.binding
        if binding is not None and binding.manifest:
            r = dataclasses.replace(r, binding=dataclasses.replace(binding, manifest={}))
        return escape_strings(r, visible, self.cache)

    def tail(self, report: ScheduleReport, count: int) -> str:
        from kwhatif.report.formats.table import group_lines

        f = self.formatter
        shown = escape_strings(report, visible)
        parts = ["\n".join(group_lines(g)) for g in shown.groups]
        parts += [f.legend(self.plugins), f.summary_line(shown)]
        parts += [f"note: {note}" for note in shown.notes]
        return guard_commands(("\n\n" if count else "") + "\n\n".join(p for p in parts if p) + "\n")


def _cut(text: str, prefix: str, suffix: str) -> str:
    """``text`` without ``prefix`` and ``suffix``, which it must have (a writer's own layout)."""
    if not text.startswith(prefix) or not text.endswith(suffix):
        raise AssertionError(f"unexpected layout around {text[:40]!r}")
    return text[len(prefix) : len(text) - len(suffix)]


class ScheduleStream:
    """Takes the scheduler's attempts as they end (Scheduler.iter_run) and writes each pod's
    result to ``sink`` once its last attempt has ended, in the order pods were first attempted."""

    def __init__(
        self,
        writer: ResultWriter,
        sink: Sink,
        build: Callable[[Attempt], PodResult],
        head: ScheduleReport,
        *,
        keep: Callable[[Attempt], bool] = lambda a: False,
    ) -> None:
        self.writer = writer
        self.sink = sink
        self.build = build
        self.head = head  # the report's fields before its results
        self.keep = keep  # attempts to hand back at the end (pod groups' members)
        self.kept: list[Attempt] = []
        self.named: set[str] = set()  # the nodes the results name
        self._position: dict[str, int] = {}  # pod -> its place among the results
        self._waiting: dict[str, list[Attempt]] = {}  # pods to be tried again: their attempts so far
        self._next = 0  # the place of the next result to write
        self._held: dict[int, tuple[int, int]] = {}  # place -> (offset, length) in the spool
        self._spool: IO[bytes] | None = None
        self._started = False
        self._counts = {s: 0 for s in PodOutcome}
        self._preempted = 0

    def add(self, att: Attempt, final: bool) -> None:
        key = att.pod.key
        pos = self._position.setdefault(key, len(self._position))
        if self.keep(att):
            self.kept.append(att)
        if not final:
            self._waiting.setdefault(key, []).append(att)
            return
        self._finish(key, pos, [*self._waiting.pop(key, ()), att])

    def run(self, attempts: Iterable[tuple[Attempt, bool]]) -> None:
        for att, final in attempts:
            self.add(att, final)
        for key, atts in list(self._waiting.items()):  # none, unless the scheduler stopped early
            del self._waiting[key]
            self._finish(key, self._position[key], atts)

    @property
    def summary(self) -> Summary:
        c = self._counts
        return Summary(
            pods=len(self._position),
            scheduled=c[PodOutcome.SCHEDULED],
            unschedulable=c[PodOutcome.UNSCHEDULABLE],
            errors=c[PodOutcome.ERROR],
            gated=c[PodOutcome.GATED],
            preempted=self._preempted,
        )

    def close(self, tail: ScheduleReport) -> None:
        """Write what follows the results (``tail`` holds none of them, and their counts)."""
        if not self._started:
            self.sink.write(self.writer.head(self.head, False))
            self._started = True
        self.sink.write(self.writer.tail(tail, len(self._position)))
        self.sink.flush()
        if self._spool is not None:
            self._spool.close()

    def _finish(self, key: str, pos: int, atts: list[Attempt]) -> None:
        from kwhatif.load.cluster import no_gc

        with no_gc():  # a result's records hold no cycles
            r = pod_outcome([self.build(a) for a in atts])
            self._counts[r.status] += 1
            self._preempted += len(r.victims)
            named_nodes(r, self.named)
            text = self.writer.result(r)
        if pos != self._next:
            self._hold(pos, text)
            return
        self._write(pos, text)
        while self._next in self._held:
            self._write_held(self._next)

    def _write(self, pos: int, text: str) -> None:
        if not self._started:
            self.sink.write(self.writer.head(self.head, True))
            self._started = True
        self.sink.write(self.writer.separator(pos))
        self.sink.write(text)
        self._next = pos + 1

    def _hold(self, pos: int, text: str) -> None:
        if self._spool is None:
            self._spool = tempfile.TemporaryFile(prefix="kwhatif-")  # noqa: SIM115 - closed by close()
        spool = self._spool
        spool.seek(0, 2)
        offset = spool.tell()
        data = text.encode("utf-8", "surrogatepass")
        Sink(spool).write_bytes(data)
        self._held[pos] = (offset, len(data))

    def _write_held(self, pos: int) -> None:
        assert self._spool is not None
        offset, length = self._held.pop(pos)
        self._spool.seek(offset)
        decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
        if not self._started:
            self.sink.write(self.writer.head(self.head, True))
            self._started = True
        self.sink.write(self.writer.separator(pos))
        while length:
            data = self._spool.read(min(length, _COPY))
            if not data:
                raise OSError("the temporary file of the report's results ended early")
            length -= len(data)
            self.sink.write(decoder.decode(data, final=not length))
        self._next = pos + 1
        if not self._held:
            self._spool.seek(0)
            self._spool.truncate()
