"""completions/ holds the scripts `kwhatif completion SHELL` prints; stale files fail here."""

from __future__ import annotations

from pathlib import Path

import pytest

from kwhatif.cli import cli
from kwhatif.cli.completion import completion_script

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_file_is_current(shell):
    path = ROOT / "completions" / f"kwhatif.{shell}"
    assert path.read_text() == completion_script(shell, cli), (
        f"{path} is stale: regenerate with `kwhatif completion {shell} > {path.relative_to(ROOT)}`"
    )


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_command(run_cli, shell):
    code, out = run_cli("completion", shell)
    assert code == 0
    assert "_KWHATIF_COMPLETE" in out


@pytest.mark.parametrize(
    "words, expected",
    [
        pytest.param("kwhatif schedule --pe", ["--pending"], id="pending"),
        pytest.param("kwhatif schedule --sch", ["--scheduler-name", "--scheduler-version"], id="scheduler-name"),
        pytest.param("kwhatif schedule --na", ["--namespace"], id="namespace"),
        pytest.param("kwhatif sn", ["snapshot"], id="snapshot-command"),
        pytest.param("kwhatif check -o s", ["sarif"], id="check-sarif"),
        pytest.param("kwhatif schedule -o s", ["sarif"], id="schedule-sarif"),
    ],
)
def test_bash_completion_offers_the_options(run_cli, monkeypatch, words, expected):
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(len(words.split()) - 1))
    monkeypatch.setenv("_KWHATIF_COMPLETE", "bash_complete")
    code, out = run_cli()
    assert code == 0
    assert [line.split(",", 1)[1] for line in out.splitlines()] == expected
