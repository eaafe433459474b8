"""The documentation site: `mkdocs build --strict` passes, every command of the click app has a
page whose options are the ones `--help` lists, and the navigation lists the pages that exist
(a page added later, such as docs/autoscale.md, joins it without an edit of the site's config)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from kwhatif.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kwhatif_docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def help_options(name: str) -> list[str]:
    """The option names of `kwhatif NAME --help`, as its Options section lists them."""
    out = CliRunner().invoke(cli, [name, "--help"], terminal_width=200).output
    section = out.split("Options:\n", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  (-[^ ].*?)(?:  |$)", section, re.M)]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    p = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert p.returncode == 0, p.stderr
    return out


def test_the_site_builds_strictly_with_a_page_per_command(site):
    for name in cli.commands:
        page = site / "commands" / name / "index.html"
        assert page.exists(), name
        text = page.read_text()
        assert f"kwhatif {name} [OPTIONS]" in text
        options = help_options(name)
        assert options, name
        for option in options:
            assert f"<code>{option}</code>" in text, (name, option)
    for page in ("api", "mcp", "getting-started", "ci", "output", "exit-codes", "releases", "performance"):
        assert (site / page / "index.html").exists(), page
    # the JSON schema and the screenshots are published with the pages
    assert (site / "schema" / "schedule-report.schema.json").exists()
    assert (site / "html-schedule.png").exists()


def test_the_reference_is_what_help_says():
    h = hooks()
    ref = h.reference("drain", cli.commands["drain"])
    assert "kwhatif drain [OPTIONS] NODE..." in ref
    for option in help_options("drain"):
        assert f"- `{option}`" in ref
    assert "`--ignore-daemonsets`: Leave DaemonSet-managed pods (without it, drain refuses a node with one)." in ref
    assert "1   a replacement does not fit" in ref


def test_the_nav_lists_the_pages_that_exist_and_every_command(tmp_path, monkeypatch):
    h = hooks()
    nav = h.on_config({})["nav"]
    flat = repr(nav)
    for page in DOCS.rglob("*.md"):
        assert page.relative_to(DOCS).as_posix() in flat, page
    for name in cli.commands:
        assert f"commands/{name}.md" in flat
    # a page another change adds is listed where NAV names it; one NAV does not name, under More
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy)
    (copy / "autoscale.md").write_text("# Autoscaling\n")
    (copy / "brand-new.md").write_text("# New\n")
    monkeypatch.setattr(h, "DOCS", copy)
    nav = h.on_config({})["nav"]
    scheduling = next(e["Scheduling"] for e in nav if "Scheduling" in e)
    assert {"Autoscaling": "autoscale.md"} in scheduling
    assert {"More": ["brand-new.md"]} in nav


def test_a_command_without_a_page_gets_one_that_links_its_guide(tmp_path, monkeypatch):
    h = hooks()
    copy = tmp_path / "docs"
    copy.mkdir()
    monkeypatch.setattr(h, "DOCS", copy)
    assert h._stub("snapshot", cli.commands["snapshot"]) == f"# kwhatif snapshot\n\n{h.MARKER}\n"
    (copy / "snapshot.md").write_text("# Snapshots\n")
    stub = h._stub("snapshot", cli.commands["snapshot"])
    assert stub == f"# kwhatif snapshot\n\nThe guide: [snapshot](../snapshot.md).\n\n{h.MARKER}\n"
