"""-o html in a real browser: each kind of report rendered by headless Chromium, its screenshot not
blank, its JavaScript silent (no error caught in the page, nothing on the console) and the name of
every node and plugin the report holds drawn as text in the page.

Without a ``chromium`` on PATH these tests are skipped, except in CI (CI set), where they fail.
"""

from __future__ import annotations

import dataclasses
import html
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kwhatif.config.defaults import default_configuration
from kwhatif.controlplane.controllers.pods import load_pods
from kwhatif.load.cluster import load_cluster
from kwhatif.report.formats.formatter import AnyReport
from kwhatif.report.formats.html import TOP_NODES
from kwhatif.report.formats.output import get_formatter
from kwhatif.report.schedule import schedule_report
from kwhatif.scheduling.scheduler import Scheduler
from tests.report.test_formats import ROOT, SCENARIOS, report_for
from tests.report.test_reports import CHECK_MANIFESTS, capacity_of, check_of, drain_cluster, drain_of

from builders import PINNED

SHOT = (1000, 700)  # screenshot width and height


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs it): the -o html browser tests cannot run")
        pytest.skip("chromium is not installed")
    return path


@dataclasses.dataclass
class Rendered:
    dom: str  # the document after its scripts ran
    text: str  # the text of the page, scripts and the embedded report left out
    console: list[str]  # what the page wrote to the console


def browse(page: str, tmp_path: Path, *, hash_: str = "all", screenshot: Path | None = None) -> Rendered:
    """Open the page in headless Chromium (with #all: every pod and node drawn) and read back
    the DOM, or take a screenshot."""
    exe = chromium()
    tmp_path.mkdir(parents=True, exist_ok=True)
    file = tmp_path / "report.html"
    file.write_text(page, encoding="utf-8")
    url = file.as_uri() + (f"#{hash_}" if hash_ else "")
    common = [
        exe,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
    ]
    shot = [f"--screenshot={screenshot}", f"--window-size={SHOT[0]},{SHOT[1]}"] if screenshot else []
    proc = subprocess.run([*common, *shot, "--dump-dom", url], capture_output=True, timeout=180, check=True, text=True)
    dom = proc.stdout
    visible = re.sub(r"<script\b[^>]*>.*?</script>", "", dom, flags=re.S)
    visible = re.sub(r"<style\b[^>]*>.*?</style>", "", visible, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", visible))
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return Rendered(dom, text, console)


def assert_clean(r: Rendered) -> None:
    assert 'data-rendered="1"' in r.dom, "the page's script did not finish"
    assert 'data-errors="0"' in r.dom, re.findall(r'id="kwhatif-errors"[^>]*>([^<]*)', r.dom)
    assert r.console == []


# --- a tiny PNG reader: enough to tell a screenshot is not blank ---------------------------------


def png_pixels(data: bytes) -> np.ndarray:
    """The RGB pixels (height x width x 3) of an 8-bit truecolour PNG, its rows unfiltered."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, width * channels + 1)
    out = np.zeros((height, width * channels), dtype=np.uint8)
    prev = np.zeros(width * channels, dtype=np.int32)
    for y in range(height):
        ftype, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if ftype == 1:  # Sub: a running sum along each channel
            line = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) & 0xFF
        elif ftype == 2:  # Up
            line = (line + prev) & 0xFF
        elif ftype in (3, 4):  # Average, Paeth: each byte depends on the decoded one before it
            cur, up, n = line.tolist(), prev.tolist(), channels
            for i in range(len(cur)):
                left = cur[i - n] if i >= n else 0
                if ftype == 3:
                    cur[i] = (cur[i] + (left + up[i]) // 2) & 0xFF
                    continue
                ul = up[i - n] if i >= n else 0
                pa, pb, pc = abs(up[i] - ul), abs(left - ul), abs(left + up[i] - 2 * ul)
                cur[i] = (cur[i] + (left if pa <= pb and pa <= pc else up[i] if pb <= pc else ul)) & 0xFF
            line = np.array(cur, dtype=np.int32)
        else:
            assert ftype == 0, ftype
        out[y] = line
        prev = line
    return out.reshape(height, width, channels)[:, :, :3]


def assert_not_blank(png: Path) -> None:
    pixels = png_pixels(png.read_bytes())
    assert pixels.shape == (SHOT[1], SHOT[0], 3)
    grey = pixels.astype(np.float64).mean(axis=2)
    values, counts = np.unique(grey.round(), return_counts=True)
    background = values[counts.argmax()]
    drawn = float((np.abs(grey - background) > 24).mean())
    assert grey.var() > 100, f"the screenshot is nearly one colour (variance {grey.var():.1f})"
    assert drawn > 0.01, f"only {drawn:.2%} of the screenshot differs from its background"


def _png(rows: np.ndarray, ftype: int) -> bytes:
    """An RGB PNG whose every row is stored with one filter (its bytes given already filtered)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    height, width = rows.shape[0], rows.shape[1] // 3
    raw = b"".join(bytes([ftype]) + r.tobytes() for r in rows.astype(np.uint8))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def test_png_reader_decodes_filters_and_tells_a_blank_image(tmp_path):
    width, height = SHOT
    # filter Up stores differences from the row above: white, then rows that repeat it
    filtered = np.zeros((height, width * 3), dtype=np.uint8)
    filtered[0] = 255
    blank = tmp_path / "blank.png"
    blank.write_bytes(_png(filtered, 2))
    assert (png_pixels(blank.read_bytes()) == 255).all()
    with pytest.raises(AssertionError, match="nearly one colour"):
        assert_not_blank(blank)
    # filter Sub on the first row: each byte the difference from the pixel to its left
    sub = np.zeros((1, 6), dtype=np.uint8)
    sub[0] = [10, 20, 30, 5, 5, 5]
    assert png_pixels(_png(sub, 1)).tolist() == [[[10, 20, 30], [15, 25, 35]]]
    # Paeth: row 0 predicts from the left (100 + 200 wraps to 44), row 1 from above
    paeth = np.array([[100, 0, 0, 200, 0, 0], [0, 0, 0, 0, 0, 0]], dtype=np.uint8)
    assert png_pixels(_png(paeth, 4)).tolist() == [[[100, 0, 0], [44, 0, 0]], [[100, 0, 0], [44, 0, 0]]]
    # Average: half the sum of left and up
    avg = np.array([[100, 0, 0, 10, 0, 0], [0, 0, 0, 0, 0, 0]], dtype=np.uint8)
    assert png_pixels(_png(avg, 3)).tolist() == [[[100, 0, 0], [60, 0, 0]], [[50, 0, 0], [55, 0, 0]]]
    # black text on white: not blank
    mixed = tmp_path / "mixed.png"
    pixels = np.full((height, width * 3), 255, dtype=np.uint8)
    pixels[height // 3 : height // 2, :width] = 0
    mixed.write_bytes(_png(pixels, 0))
    assert_not_blank(mixed)


# --- what every page must show -------------------------------------------------------------------


def names_in(doc: dict[str, Any]) -> set[str]:
    """Every node and plugin name the document holds (what the page must draw as text)."""
    names: set[str] = set()

    def attempts(results: list[dict[str, Any]]) -> None:
        for r in results:
            for a in r.get("attempts") or [r]:
                for n in a["nodes"]:
                    names.add(n["name"])
                    names.update(f["plugin"] for f in n["filters"])
                    names.update(s["plugin"] for s in n["scores"])
                names.update(f["plugin"] for f in a["preFilter"])
                if a.get("node"):
                    names.add(a["node"])

    if doc["kind"] in ("ScheduleReport", "CheckReport"):
        attempts(doc["results"])
    if doc["kind"] == "CheckReport":
        names.update(f"{w['namespace']}/{w['name']}" for w in doc["workloads"])
    if doc["kind"] == "CapacityReport":
        names.update(n["name"] for n in doc["nodes"])
    if doc["kind"] == "DrainReport":
        names.update(doc["nodes"])
        for p in doc["pods"]:
            names.add(f"{p['namespace']}/{p['name']}")
            names.update(x for x in (p["node"], p["pdbBlocked"]) if x)
        attempts([{"attempts": p["attempts"]} for p in doc["pods"] if p["attempts"]])
    return names


def check_page(report: AnyReport, tmp_path: Path, screenshot: Path | None = None) -> Rendered:
    page = get_formatter("html").format(report)
    r = browse(page, tmp_path, screenshot=screenshot)
    assert_clean(r)
    missing = sorted(n for n in names_in(report.to_dict()) if n not in r.text)
    assert missing == []
    return r


REPORTS = {
    **{f"schedule-{name}": (lambda files=files: report_for(files)) for name, files in SCENARIOS.items()},
    "check": lambda: check_of(CHECK_MANIFESTS),
    "capacity-short": lambda: capacity_of(None),
    "capacity-meets": lambda: capacity_of(5),
    "drain": lambda: drain_of(drain_cluster("2500m"), "worker-1"),
}
# one screenshot of each kind (decoding one takes a while)
SCREENSHOTS = {"schedule-preempt", "check", "capacity-short", "drain"}


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_every_report_renders_with_every_node_and_plugin(name, tmp_path):
    report = REPORTS[name]()
    names = names_in(report.to_dict())
    assert names, "a report with nothing to look for tests nothing"
    png = tmp_path / "shot.png" if name in SCREENSHOTS else None
    check_page(report, tmp_path / "page", screenshot=png)
    if png is not None:
        assert_not_blank(png)


def test_schedule_page_marks_chosen_node_ties_and_preemption(tmp_path):
    tie = check_page(report_for(SCENARIOS["tie"]), tmp_path / "tie")
    doc = report_for(SCENARIOS["tie"]).to_dict()
    chosen, tied = doc["results"][0]["node"], doc["results"][0]["tie"]
    assert len(tied) > 1
    assert re.search(rf'<tr class="chosen [^"]*" data-node="{re.escape(chosen)}"', tie.dom)
    for other in set(tied) - {chosen}:
        assert re.search(rf'<tr class="tie" data-node="{re.escape(other)}"', tie.dom)
    pre = check_page(report_for(SCENARIOS["preempt"]), tmp_path / "preempt")
    victims = report_for(SCENARIOS["preempt"]).to_dict()["results"][0]["preemption"]["victims"]
    assert "Preemption: nominated node" in pre.text
    for v in victims:
        assert f"{v['namespace']}/{v['name']}" in pre.text
    assert "Attempt 1: Unschedulable" in pre.text and "Attempt 2: Scheduled" in pre.text


def test_filter_cells_carry_the_reason_as_text(tmp_path):
    r = check_page(report_for(SCENARIOS["misfit"]), tmp_path)
    doc = report_for(SCENARIOS["misfit"]).to_dict()
    failing = [(n["name"], f) for res in doc["results"] for n in res["nodes"] for f in n["filters"] if f["reasons"]]
    assert failing
    for _node, f in failing:
        why = f"{f['plugin']}: {f['code']}: {'; '.join(f['reasons'])}"
        assert why in r.text  # the screen-reader text of the cell
        # and its tooltip, on a cell coloured for its code
        cls = {"Unschedulable": "s-warn", "UnschedulableAndUnresolvable": "s-bad", "Error": "s-err"}[f["code"]]
        assert re.search(rf'<td class="cell {cls}" title="{re.escape(f["plugin"])}: {f["code"]}: ', r.dom)


def large_report(tmp_path: Path, nodes: int) -> AnyReport:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from generate import generate

    dump = tmp_path / "large.json"
    generate(nodes, 2, str(dump), seed=7)
    pod = tmp_path / "small.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: small, namespace: default}\nspec:\n  containers:\n"
        "  - name: c\n    image: x\n    resources: {requests: {cpu: '100m'}}\n"
    )
    state = load_cluster([str(dump)])
    state.use_version(PINNED)
    pods, _ = load_pods([str(pod)], state)
    sched = Scheduler(state, default_configuration(PINNED))
    atts = sched.run(pods, skip_unchanged=True)
    return schedule_report(
        atts, sched.snapshot.num_nodes, "default-scheduler", nodes=[ni.node for ni in sched.snapshot.node_infos]
    )


def test_large_cluster_shows_the_top_nodes_until_asked_for_all(tmp_path):
    report = large_report(tmp_path, TOP_NODES + 30)
    page = get_formatter("html").format(report)
    total = TOP_NODES + 30
    feasible = len(report.results[0].feasible())
    assert TOP_NODES < feasible < total
    top = browse(page, tmp_path / "top", hash_="")
    assert_clean(top)
    # two tables (filters of every node, scores of the feasible ones), each with the top nodes only
    assert top.dom.count("<tr class=") == 2 * TOP_NODES
    assert f"top {TOP_NODES} of {total} nodes" in top.text
    assert f"show all {total}" in top.text
    every = browse(page, tmp_path / "all")
    assert_clean(every)
    assert every.dom.count("<tr class=") == total + feasible
    # the chosen node comes first, then the best scores
    first = re.search(r'<tr class="([^"]*)" data-node="([^"]+)"', top.dom)
    assert first is not None and first.group(1).startswith("chosen") and first.group(2) == report.results[0].node


HOSTILE = "</script><script>document.title='pwned'</script><img src=x onerror=alert(1)>\u2028\u2029 & <!--"


def test_hostile_strings_are_text(tmp_path):
    """Strings from the inputs (messages, notes, hints, reasons) cannot end the embedded document,
    inject markup or break the script: they show as the text they are."""
    base = report_for(SCENARIOS["misfit"])
    r0 = base.results[0]
    node = r0.nodes[0]
    filters = (dataclasses.replace(node.filters[0], code="Unschedulable", reasons=(HOSTILE,)), *node.filters[1:])
    hostile = dataclasses.replace(
        base,
        results=(
            dataclasses.replace(
                r0,
                message=HOSTILE,
                notes=(HOSTILE,),
                hints=(HOSTILE,),
                nodes=(dataclasses.replace(node, filters=filters), *r0.nodes[1:]),
                attempts=(),
            ),
            *base.results[1:],
        ),
        notes=(HOSTILE,),
    )
    page = get_formatter("html").format(hostile)
    assert page.count("</script>") == 3  # the error collector, the document, the application
    assert "\u2028" not in page and "\u2029" not in page
    r = browse(page, tmp_path)
    assert_clean(r)
    assert "pwned" not in re.findall(r"<title>(.*?)</title>", r.dom, flags=re.S)[0]
    assert "<img" not in r.dom
    assert r.text.count("document.title='pwned'") >= 4  # message, note, hint, report note
