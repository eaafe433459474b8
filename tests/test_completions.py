"""completions/ holds the scripts `kwhatif completion SHELL` prints; stale files fail here."""

from __future__ import annotations

from pathlib import Path

import pytest

from kwhatif.completions import completion_script

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_file_is_current(shell):
    path = ROOT / "completions" / f"kwhatif.{shell}"
    assert path.read_text() == completion_script(shell), (
        f"{path} is stale: regenerate with `kwhatif completion {shell} > {path.relative_to(ROOT)}`"
    )


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_command(run_cli, shell):
    code, out = run_cli("completion", shell)
    assert code == 0
    assert "_KWHATIF_COMPLETE" in out
