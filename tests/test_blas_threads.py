"""numpy's BLAS thread pool is not started: kwhatif's numpy work is element-wise, and the pool's
threads spin for tens of milliseconds of CPU when numpy is imported."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = (
    "import os, kwhatif.scheduling.incremental, numpy; "
    "print(len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS'))"
)


def _run(env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")
def test_importing_the_engine_starts_no_blas_threads() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    assert _run(env) == "1 1"


def test_a_thread_count_the_user_set_is_kept() -> None:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    assert _run(env).split()[1] == "2"
