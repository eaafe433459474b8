"""-o html at scale: the explain page of one pod on a 5,000-node cluster, every node shown (#all),
opens in headless Chromium within 5 s, because a node table of more than VIRTUAL_ROWS rows draws
only the rows in view; #node=NAME scrolls every node table to that node."""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from kwhatif.report.formats.html import VIRTUAL_ROWS
from kwhatif.report.formats.output import get_formatter
from tests.report.test_html_browser import SHOT, assert_clean, assert_not_blank, browse, chromium, large_report

NODES = 5000
OPEN_WITHIN = 5.0  # seconds, from starting the browser to the page drawn and captured


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    report = large_report(tmp_path_factory.mktemp("large"), NODES)
    return get_formatter("html").format(report), report.to_dict()


def node_rows(dom: str) -> list[str]:
    return re.findall(r'<tr class="[^"]*" data-node="([^"]+)"', dom)


def test_every_node_shown_draws_only_the_rows_in_view_around_the_linked_node(page, tmp_path):
    html, doc = page
    result = doc["results"][0]
    feasible = [n for n in result["nodes"] if n["feasible"]]
    assert len(feasible) > VIRTUAL_ROWS and len(result["nodes"]) == NODES
    # the last row of the score table (the lowest total, then the name), far down the filter table too
    target = min(feasible, key=lambda n: (n["total"], [-ord(c) for c in n["name"]]))["name"]
    r = browse(html, tmp_path, hash_=f"node={target}")
    assert_clean(r)
    assert f"{NODES} nodes" in r.text and "show the top 50" in r.text  # every node shown
    rows = node_rows(r.dom)
    # the linked node's rows are marked
    assert len(re.findall(rf'<tr class="[^"]*\bfocus\b[^"]*" data-node="{re.escape(target)}"', r.dom)) == 2
    # two tables (filters of every node, scores of the feasible ones), each a window of rows
    assert 0 < len(rows) < 2 * 100
    assert rows.count(target) == 2
    # spacer rows stand for the rows out of view (their height, in pixels, makes the scroll bar
    # the whole table's): above and below the window in the filter table, above it in the scores
    spacer = r'<tr data-spacer="1" aria-hidden="true"><td colspan="\d+" style="height:(\d+)px'
    heights = [int(h) for h in re.findall(spacer, r.dom)]
    assert len(heights) == 3 and sum(heights) > 20 * (NODES + len(feasible) - 2 * 100), heights
    assert re.search(r"<tbody>" + spacer, r.dom)  # the window starts below the top
    ms = int(re.search(r'data-render-ms="(\d+)"', r.dom).group(1))
    assert ms < OPEN_WITHIN * 1000


def test_the_page_opens_within_five_seconds(page, tmp_path):
    html, _ = page
    file = tmp_path / "report.html"
    file.write_text(html, encoding="utf-8")
    shot = tmp_path / "shot.png"
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}",
        f"--window-size={SHOT[0]},{SHOT[1]}",
        file.as_uri() + "#all",
    ]
    start = time.monotonic()
    subprocess.run(cmd, capture_output=True, timeout=120, check=True)
    took = time.monotonic() - start
    assert took < OPEN_WITHIN, f"{took:.1f} s"
    assert_not_blank(shot)


def test_a_node_link_marks_its_rows_in_a_small_table_too(tmp_path):
    report = large_report(tmp_path, 80)
    doc = report.to_dict()
    nodes = doc["results"][0]["nodes"]
    target = sorted(n["name"] for n in nodes if not n["feasible"])[-1]
    r = browse(get_formatter("html").format(report), tmp_path / "page", hash_=f"node={target}")
    assert_clean(r)
    assert len(node_rows(r.dom)) == len(nodes) + sum(1 for n in nodes if n["feasible"])  # every row, no window
    assert 'data-spacer="1" aria-hidden' not in r.dom
    # an infeasible node: its row of the filter table only
    assert re.findall(r'<tr class="([^"]*)" data-node="' + re.escape(target) + '"', r.dom) == ["focus"]
