"""-o html without a browser: the embedded document reads back as the JSON document, and nothing
from the inputs can end a script element or become markup in the part written server-side."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from kwhatif.report.formats.html import embed_json, page

HOSTILE = "</script><script>alert(1)</script><!-- \u2028\u2029 & <b>x</b> \"quoted\" 'single'"


@pytest.mark.parametrize(
    "value",
    [HOSTILE, "</SCRIPT>", "<\\/script>", "\u2028", "plain", "ünïcødé 🚀"],
    ids=["hostile", "upper-case", "escaped-slash", "line-separator", "plain", "unicode"],
)
def test_embedded_document_reads_back_and_cannot_end_its_element(value):
    doc = {"kind": "ScheduleReport", "notes": [value], value: {"nested": [value]}}
    text = embed_json(doc)
    assert json.loads(text) == doc
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\u2028" not in text and "\u2029" not in text


class _Doc:
    """A report as page() reads it: only its document."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def to_dict(self) -> dict[str, Any]:
        return self.doc


def test_server_side_text_is_escaped():
    doc = {
        "apiVersion": "kwhatif/v1",
        "kind": "CapacityReport",
        "profile": HOSTILE,
        "schedulerVersion": "1.30.6",
        "pod": {"namespace": "<ns>", "name": HOSTILE},
        "fits": 0,
        "stoppedBy": "unschedulable",
        "notes": [HOSTILE],
    }
    out = page(_Doc(doc))  # type: ignore[arg-type]
    assert out.count("</script>") == 3  # the error collector, the document, the application
    assert out.count("<script") == 3
    assert "<b>" not in out and "<!-- " not in out
    title = re.search(r"<title>(.*?)</title>", out, flags=re.S)
    assert title is not None
    assert title.group(1).startswith("kwhatif CapacityReport: &lt;ns&gt;/&lt;/script&gt;&lt;script&gt;alert(1)")
    embedded = re.search(r'<script type="application/json" id="kwhatif-report">(.*?)</script>', out, flags=re.S)
    assert embedded is not None and json.loads(embedded.group(1)) == doc


def test_page_is_self_contained():
    """Nothing is fetched: no URL to load a script, style, font or image from, and a policy
    that forbids it."""
    from kwhatif.report.formats.output import get_formatter
    from tests.report.test_formats import SCENARIOS, report_for

    out = get_formatter("html").format(report_for(SCENARIOS["preempt"]))
    assert "default-src 'none'" in out
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", out)
    assert "@import" not in out and "url(" not in out
    assert "prefers-color-scheme:dark" in out
