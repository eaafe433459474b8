"""A fuzzing run over the loaders and the commands, from a seed.

Each case mutates a seed input (a manifest, the cluster, a scheduler configuration) as a document
and/or as text, picks a command with random flags (values past their limits among them) and runs
the command line in-process, then checks the invariants every run must keep whatever its input:

- the exit code is 0, 1, 2 or 3 (never 5, an internal error, nor anything else);
- no traceback, no "internal error" on standard error;
- a run that fails (2 or 3) says why in exactly one error line;
- it ends within CASE_SECONDS.

KWHATIF_FUZZ_SEED picks the seed (default 53) and KWHATIF_FUZZ_CASES the number of cases (default
300, about 20 seconds); a failure names its case's seed, which replays it alone:
KWHATIF_FUZZ_SEED=<case seed> KWHATIF_FUZZ_CASES=1.
"""

from __future__ import annotations

import dataclasses
import io
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kwhatif.cli.env import Environment
from kwhatif.cli.main import main
from tests.fuzz import corpus
from tests.fuzz.mutate import mutate_doc, mutate_text, to_text

SEED = int(os.environ.get("KWHATIF_FUZZ_SEED", "53"))
CASES = int(os.environ.get("KWHATIF_FUZZ_CASES", "300"))
CASE_SECONDS = 20

_SEEDS = {
    "pod": corpus.pod,
    "deployment": corpus.deployment,
    "job": corpus.job,
    "statefulset": corpus.statefulset,
}


@dataclasses.dataclass
class Case:
    seed: int
    argv: list[str]
    stdin: str | None = None


def make_case(seed: int, tmp: Path) -> Case:
    """The case of ``seed``: one input in three is left as it is (the commands' own paths get
    exercised, with flags at their usual values), the others are mutated as documents, as text,
    or through flags past their limits."""
    rng = random.Random(seed)
    command = rng.choice(("schedule", "check", "capacity", "drain", "schedule-config"))
    mode = rng.choice(("valid", "valid", "document", "document", "text", "flags"))
    # the cluster
    cluster_doc: Any = corpus.cluster()
    if mode == "document" and rng.random() < 0.3:
        cluster_doc = mutate_doc(rng, cluster_doc)
    cluster_text = to_text(rng, cluster_doc)
    if mode == "text" and rng.random() < 0.3:
        cluster_text = mutate_text(rng, cluster_text)
    (tmp / "cluster.yaml").write_text(cluster_text, encoding="utf-8", errors="surrogatepass")
    node_doc = corpus.node("template", cpu="4", memory="8Gi")
    if mode == "document" and rng.random() < 0.2:
        node_doc = mutate_doc(rng, node_doc)
    (tmp / "node.yaml").write_text(to_text(rng, node_doc))
    stdin: str | None = None
    if command == "drain":
        argv = ["drain", rng.choice(("node-a", "node-b", "node-c") + (("node-z",) if mode == "flags" else ()))]
    else:
        kind = "pod" if command.startswith("schedule") else rng.choice(list(_SEEDS))
        doc = _SEEDS[kind]()
        if mode == "document":
            for _ in range(rng.randrange(1, 3)):
                doc = mutate_doc(rng, doc)
        text = to_text(rng, doc)
        if mode == "text":
            for _ in range(rng.randrange(1, 3)):
                text = mutate_text(rng, text)
        if rng.random() < 0.1:
            stdin, manifest = text, "-"
        else:
            (tmp / "manifest.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
            manifest = str(tmp / "manifest.yaml")
        argv = ["schedule" if command == "schedule-config" else command, manifest]
        if command == "schedule-config":
            cfg: Any = corpus.config()
            if mode in ("document", "text"):
                for _ in range(rng.randrange(1, 3)):
                    cfg = mutate_doc(rng, cfg)
            cfg_text = to_text(rng, cfg)
            if mode == "text":
                cfg_text = mutate_text(rng, cfg_text)
            (tmp / "config.yaml").write_text(cfg_text, encoding="utf-8", errors="surrogatepass")
            argv += ["--config", str(tmp / "config.yaml")]
    argv += ["--cluster", str(tmp / "cluster.yaml")]
    flags = list(corpus.COMMON_FLAGS) + list(corpus.COMMAND_FLAGS[argv[0]])
    for flag, usual, past in rng.sample(flags, rng.randrange(4)):
        argv.append(flag)
        if usual is None:
            continue
        values = past if mode == "flags" and past and rng.random() < 0.6 else usual
        argv.append(rng.choice(values).replace("{node}", str(tmp / "node.yaml")))
    return Case(seed, argv, stdin)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def run_case(case: Case) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err)
    old_stdin, old_stderr = sys.stdin, sys.stderr
    if case.stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(case.stdin.encode("utf-8", "surrogatepass")), encoding="utf-8")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    start = time.monotonic()
    code = -1
    try:
        main(case.argv, env=env)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else -1
    except _Timeout:
        code = -2
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin, sys.stderr = old_stdin, old_stderr
    return code, out.getvalue(), err.getvalue(), time.monotonic() - start


def problems(code: int, err: str, seconds: float) -> list[str]:
    found = []
    if code == -2:
        found.append(f"did not end within {CASE_SECONDS}s")
    elif code not in (0, 1, 2, 3):
        found.append(f"exit code {code}")
    if "Traceback" in err or "internal error" in err:
        found.append("a traceback or an internal error on standard error")
    if code in (2, 3):
        errors = [ln for ln in err.splitlines() if ln.startswith(("kwhatif: error:", "Error:"))]
        if len(errors) != 1:
            found.append(f"{len(errors)} error lines instead of one")
    return found


def test_fuzz_invariants(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    failures = []
    codes: dict[int, int] = {}
    for n in range(CASES):
        case_seed = SEED if CASES == 1 else rng.randrange(1 << 30)
        case_dir = tmp_path / str(n)
        case_dir.mkdir()
        case = make_case(case_seed, case_dir)
        code, _, err, seconds = run_case(case)
        codes[code] = codes.get(code, 0) + 1
        found = problems(code, err, seconds)
        if found:
            last = err.strip().splitlines()[-1][:300] if err.strip() else ""
            failures.append(f"seed {case_seed}: {'; '.join(found)}: kwhatif {' '.join(case.argv)}: {last}")
    assert not failures, f"{len(failures)} of {CASES} cases broke an invariant:\n" + "\n".join(failures[:20])
    # the run exercised more than the parsers' refusals
    if CASES >= 100:
        assert codes.get(0, 0) + codes.get(1, 0) >= CASES // 10, codes


@pytest.mark.parametrize("n", range(3))
def test_a_case_replays_from_its_seed(tmp_path: Path, n: int) -> None:
    """A case is a function of its seed (what makes a reported seed worth replaying)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    first, second = make_case(1000 + n, a), make_case(1000 + n, b)
    assert [x.replace(str(a), "") for x in first.argv] == [x.replace(str(b), "") for x in second.argv]
    assert (a / "cluster.yaml").read_text() == (b / "cluster.yaml").read_text()
