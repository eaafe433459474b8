from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def kwhatif_command() -> str:
    """The installed console script (next to this interpreter, else on PATH)."""
    here = Path(sys.executable).parent / "kwhatif"
    if here.exists():
        return str(here)
    found = shutil.which("kwhatif")
    if not found:
        pytest.fail("the kwhatif command is not installed (pip install '.[test]')")
    return found


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def run(tmp_path):
    def _run(
        *args: str, stdin: str | None = None, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> Result:
        e = dict(os.environ)
        e.pop("NO_COLOR", None)
        e.pop("KUBECONFIG", None)  # a test that reads a live cluster names its kubeconfig
        e.update(env or {})
        p = subprocess.run(
            [kwhatif_command(), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=e,
            cwd=str(cwd or ROOT),
            timeout=120,
        )
        return Result(p.returncode, p.stdout, p.stderr)

    return _run
