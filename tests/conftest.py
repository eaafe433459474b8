import sys
from pathlib import Path

# tests/ holds shared helpers (builders, fidelity) imported by name.
sys.path.insert(0, str(Path(__file__).resolve().parent))


import pytest  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    import os

    from fidelity import SAMPLE, missing_sample_error

    error = missing_sample_error(SAMPLE, os.environ)
    if error:
        raise pytest.UsageError(error)


@pytest.fixture
def run_cli(capsys):
    """Run the click app in-process: returns (exit code, stdout)."""
    from kwhatif.cli import main

    def _run(*args: str) -> tuple[int, str]:
        with pytest.raises(SystemExit) as ei:
            main(list(args))
        out = capsys.readouterr().out
        return int(ei.value.code or 0), out

    return _run
