"""The schedule report's documents that open with what only the end knows (the counts of the pods
that fit, the rules used), written as their pods are scheduled all the same: -o markdown, junit,
sarif and html.

Each pod's part of the document is rendered as soon as its result is ready (report/stream.py
orders the results) and kept in a temporary file, not in memory, as one line of JSON: the
sections of the document it goes to. At the end the document is written: its opening (now that
the counts are known), then the parts of every pod read back from the file, section by section,
then its end. What the command holds does not grow with the number of pods, and the document is
the one the formatter writes of the whole report, byte for byte (tests compare them).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from kwhatif.escape import EscapeCache, escape_strings, guard_commands, visible
from kwhatif.report.schedule import PodResult, ScheduleReport
from kwhatif.sink import Sink

_ESCAPED = 20_000  # strings whose escaped form is kept between pods (node names, reasons)

_KEPT = 100_000  # records the escaping keeps as met (a few times a large cluster's nodes)

Records = Callable[[], Iterator[list[Any]]]  # each pod's record, in order, read again on each call


class DocumentWriter:
    """One format's document of a schedule report, written from each pod's record at the end."""

    def record(self, r: PodResult) -> list[Any]:
        """What the document says of pod ``r`` (JSON values: the file keeps them as a line)."""
        raise NotImplementedError

    def document(self, sink: Sink, report: ScheduleReport, count: int, records: Records) -> None:
        """Write the document: ``report`` holds no results (their counts instead), ``records``
        reads the ``count`` records back."""
        raise NotImplementedError


class Spool:
    """The records, one JSON line each, in a temporary file (ASCII: a lone surrogate of a name
    read back as it was)."""

    def __init__(self) -> None:
        self.file: IO[bytes] = tempfile.TemporaryFile(prefix="kwhatif-")  # noqa: SIM115 - closed by close()
        self.sink = Sink(self.file)

    def write(self, text: str) -> None:
        self.sink.write(text)

    def records(self) -> Iterator[list[Any]]:
        self.file.flush()
        self.file.seek(0)
        for line in self.file:
            yield json.loads(line)
        self.file.seek(0, 2)

    def close(self) -> None:
        self.file.close()


class SpoolWriter:
    """A stream.ResultWriter that writes each result's record as a line of the spool."""

    def __init__(self, writer: DocumentWriter) -> None:
        self.writer = writer

    def head(self, report: ScheduleReport, any_results: bool) -> str:
        return ""

    def separator(self, index: int) -> str:
        return ""

    def result(self, r: PodResult) -> str:
        return json.dumps(self.writer.record(r)) + "\n"

    def tail(self, report: ScheduleReport, count: int) -> str:
        return ""


class _Escaping:
    """Each result's strings escaped as the formatter's prepare() escapes the whole report's."""

    def __init__(self) -> None:
        # results built with an EntryCache share their nodes' records: each walked once
        self.cache = EscapeCache(visible, keep=True, keep_limit=_KEPT)

    def escaped(self, r: PodResult) -> PodResult:
        if len(self.cache.escaped) > _ESCAPED:
            self.cache.escaped.clear()
        return escape_strings(r, visible, self.cache)


class _RStripped:
    """Writes text to a sink as ``text.rstrip()`` of all of it would be written: trailing
    whitespace is held back until something else follows it."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.held = ""

    def write(self, text: str) -> None:
        kept = text.rstrip()
        if kept:
            self.sink.write(self.held + kept)
            self.held = text[len(kept) :]
        else:
            self.held += text


class MarkdownWriter(DocumentWriter):
    """-o markdown: the heading and the table of every pod, then the details of the pods that did
    not fit or were tried more than once (formats/markdown.py)."""

    def __init__(self) -> None:
        from kwhatif.report.formats.markdown import MarkdownFormatter

        self.formatter = MarkdownFormatter()
        self.escaping = _Escaping()

    def record(self, r: PodResult) -> list[Any]:
        f = self.formatter
        shown = self.escaping.escaped(r)
        row = f.table([shown])[2]  # the pod's line of the table
        if len(shown.all_attempts) > 1:
            details = f.attempts(shown)
        elif not shown.fits:
            details = f.details(shown)
        else:
            details = []
        return [guard_commands(row), guard_commands("\n".join(details)) if details else None]

    def document(self, sink: Sink, report: ScheduleReport, count: int, records: Records) -> None:
        f = self.formatter
        # the whole report's text with no results: the heading, the table's head, and an empty line
        head = f.schedule(escape_strings(report, visible)).rstrip("\n").split("\n")
        out = _RStripped(sink)
        out.write(guard_commands("\n".join(head)))
        for row, _ in records():
            out.write("\n" + row)
        out.write("\n")
        for _, details in records():
            if details is not None:
                out.write("\n" + details)
        sink.write("\n")


class JUnitWriter(DocumentWriter):
    """-o junit: the suite with its counts, then each pod's test case (formats/junit.py)."""

    _END = "  </testsuite>\n</testsuites>\n"

    def __init__(self) -> None:
        from kwhatif.report.formats.junit import JUnitFormatter

        self.formatter = JUnitFormatter()
        self.escaping = _Escaping()

    def record(self, r: PodResult) -> list[Any]:
        import xml.etree.ElementTree as ET

        from kwhatif.report.formats.junit import junit_document

        suite = ET.Element("testsuite", {"name": "kwhatif"})
        self.formatter.case(suite, self.escaping.escaped(r))
        return [self._cases(junit_document(suite))]

    def _cases(self, doc: str) -> str:
        """The test cases of a document: the lines between its suite's opening and closing."""
        start = doc.index("\n", doc.index("<testsuite ")) + 1
        end = doc.rindex(self._END)
        return guard_commands(doc[start:end], "&#58;", "&#35;")

    def document(self, sink: Sink, report: ScheduleReport, count: int, records: Records) -> None:
        if not count:
            sink.write(self.formatter.format(report))
            return
        # the document of one made-up case, with this report's counts: its opening
        import xml.etree.ElementTree as ET

        from kwhatif.report.formats.junit import junit_document

        s = report.summary
        suite = ET.Element(
            "testsuite",
            {
                "name": f"kwhatif.{visible(report.profile)}",  # as prepare() escapes the profile
                "tests": str(count),
                "failures": str(s.unschedulable + s.gated),
                "errors": str(s.errors),
                "skipped": "0",
            },
        )
        ET.SubElement(suite, "testcase")
        doc = junit_document(suite)
        opening = doc[: doc.index("\n", doc.index("<testsuite ")) + 1]
        sink.write(guard_commands(opening, "&#58;", "&#35;"))
        for (cases,) in records():
            sink.write(cases)
        sink.write(self._END)


class SarifWriter(DocumentWriter):
    """-o sarif: the rules the results use, then the results (formats/sarif.py)."""

    _MARK = "kwhatif-streamed-results"

    def record(self, r: PodResult) -> list[Any]:
        from kwhatif.report.formats.sarif import schedule_result

        got = schedule_result(r)
        if got is None:
            return [None, None]
        rule, result = got
        return [[rule.id, rule.name, rule.short, rule.full, rule.help, rule.level], result]

    def document(self, sink: Sink, report: ScheduleReport, count: int, records: Records) -> None:
        from kwhatif.report.formats.sarif import Rule, log_document, schedule_summary

        rules: dict[str, Rule] = {}
        any_result = False
        for rule, _ in records():
            if rule is not None:
                rules.setdefault(rule[0], Rule(*rule))
                any_result = True
        summary = schedule_summary(report)
        if not any_result:
            sink.write(log_document(rules, [], summary))
            return
        index = {rule_id: i for i, rule_id in enumerate(sorted(rules))}
        text = log_document(rules, [self._MARK], summary)
        mark = f'{" " * 8}"{self._MARK}"'
        at = text.index(mark)
        sink.write(text[:at])
        first = True
        for _, result in records():
            if result is None:
                continue
            ordered = {"ruleId": result["ruleId"], "ruleIndex": index[result["ruleId"]]}
            ordered.update((k, v) for k, v in result.items() if k != "ruleId")
            body = json.dumps(ordered, indent=2, ensure_ascii=False)
            sink.write(("" if first else ",\n") + "\n".join(" " * 8 + line for line in body.split("\n")))
            first = False
        sink.write(text[at + len(mark) :])


class HtmlWriter(DocumentWriter):
    """-o html: the page, its report embedded as the JSON document of the results, each result's
    part embedded as it is ready; the page's title names the first pods (formats/html.py)."""

    def record(self, r: PodResult) -> list[Any]:
        from kwhatif.report.formats.html import embed_json
        from kwhatif.report.schedule import result_dict

        d = result_dict(r)
        return [embed_json(d), f"{d['pod']['namespace']}/{d['pod']['name']}"]

    def document(self, sink: Sink, report: ScheduleReport, count: int, records: Records) -> None:
        from kwhatif.report.formats.html import embed_json, page_text
        from kwhatif.report.schedule import report_dict

        doc = report_dict(report)
        embedded = embed_json(doc)
        empty = '"results":[]'
        at = embedded.index(empty) + len(empty) - 1
        first: list[str] = []  # the title names the first pods
        for _, name in records():
            first.append(name)
            if len(first) == 3:
                break
        subject = ", ".join(first) + (f" and {count - 3} more" if count > 3 else "")
        before, after = page_text(doc, subject, _EMBEDDED).split(_EMBEDDED, 1)
        sink.write(before + embedded[:at])
        sep = ""
        for part, _ in records():
            sink.write(sep + part)
            sep = ","
        sink.write(embedded[at:] + after)


_EMBEDDED = "\x00kwhatif-embedded\x00"


def document_writer(fmt: str) -> DocumentWriter:
    """The writer of -o ``fmt`` (markdown, junit, sarif or html)."""
    writers: dict[str, Callable[[], DocumentWriter]] = {
        "markdown": MarkdownWriter,
        "junit": JUnitWriter,
        "sarif": SarifWriter,
        "html": HtmlWriter,
    }
    return writers[fmt]()
