"""benchmarks/bench_scaling.py: the growth exponent, the table and the run over sizes, on given
figures (the measurements themselves are replaced by a fake runner: no benchmark runs here)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_scaling.py"
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_scaling  # noqa: E402
from bench_scaling import Figures, exponents, format_table, growth_exponent  # noqa: E402


def figures(nodes: int, **kw: Any) -> Figures:
    base: dict[str, Any] = {
        "nodes": nodes,
        "pods": nodes * 28,
        "load_s": 1.0,
        "peak_mb": 100.0,
        "explain_cpu_s": 0.01,
        "check_pods_per_s": 1000.0,
        "check_s": 0.2,
        "capacity_copies_per_s": 2000.0,
        "capacity_s": 0.25,
        "replicas": 200,
        "placed": 200,
        "copies": 500,
        "fits": 500,
    }
    base.update(kw)
    return Figures(**base)


ROWS = [
    figures(
        500,
        load_s=1.0,
        peak_mb=64.0,
        explain_cpu_s=0.012,
        check_pods_per_s=1000.0,
        check_s=0.2,
        capacity_copies_per_s=2000.0,
        capacity_s=0.25,
    ),
    figures(
        1000,
        load_s=2.0,
        peak_mb=128.0,
        explain_cpu_s=0.012,
        check_pods_per_s=500.0,
        check_s=0.4,
        capacity_copies_per_s=1000.0,
        capacity_s=1.0,
    ),
    figures(
        2000,
        load_s=4.0,
        peak_mb=1256.0,
        explain_cpu_s=0.012,
        check_pods_per_s=250.0,
        check_s=0.8,
        capacity_copies_per_s=500.0,
        capacity_s=4.0,
    ),
]


@pytest.mark.parametrize(
    ("nodes", "costs", "want"),
    [
        ([500, 1000, 2000], [1.0, 2.0, 4.0], 1.0),
        ([500, 1000, 2000], [3.0, 3.0, 3.0], 0.0),
        ([500, 1000, 2000], [1.0, 4.0, 16.0], 2.0),
        # least squares over points off one line: deviations of log2 cost 0, 1, 3 over 0, 1, 2
        ([500, 1000, 2000], [1.0, 2.0, 8.0], 1.5),
        ([500, 1000], [1.0, 1.5], math.log(1.5) / math.log(2)),
        ([5000, 500], [10.0, 1.0], 1.0),  # the order of the sizes does not matter
    ],
    ids=["linear", "constant", "quadratic", "fitted", "two-sizes", "unordered"],
)
def test_growth_exponent(nodes: list[int], costs: list[float], want: float) -> None:
    got = growth_exponent(nodes, costs)
    assert got is not None
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    ("nodes", "costs"),
    [([500], [1.0]), ([500, 500], [1.0, 2.0]), ([500, 1000], [0.0, 1.0]), ([500, 1000], [1.0])],
    ids=["one-size", "one-distinct-size", "zero-cost", "lengths-differ"],
)
def test_growth_exponent_undefined(nodes: list[int], costs: list[float]) -> None:
    assert growth_exponent(nodes, costs) is None


def test_rates_are_fitted_as_time_per_unit() -> None:
    # peak MB 64, 128, 1256: log2 deviations 0, 1, log2(1256/64) over 0, 1, 2
    assert exponents(ROWS) == pytest.approx(
        {
            "load s": 1.0,
            "peak MB": math.log2(1256 / 64) / 2,
            "explain cpu s": 0.0,
            "check pods/s": 1.0,  # pods/s halves as the nodes double: the time per pod grows linearly
            "check s": 1.0,
            "capacity copies/s": 1.0,
            "capacity s": 2.0,
        },
        abs=1e-12,
    )


def test_format_table() -> None:
    assert format_table(ROWS, exponents(ROWS)) == (
        "| nodes | pods | load s | peak MB | explain cpu s | check pods/s | check s | capacity copies/s | capacity s |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| 500 | 14,000 | 1.0 | 64 | 0.012 | 1,000 | 0.20 | 2,000 | 0.25 |\n"
        "| 1,000 | 28,000 | 2.0 | 128 | 0.012 | 500 | 0.40 | 1,000 | 1.00 |\n"
        "| 2,000 | 56,000 | 4.0 | 1,256 | 0.012 | 250 | 0.80 | 500 | 4.00 |\n"
        "| growth exponent |  | 1.00 | 2.15 | 0.00 | 1.00 | 1.00 | 1.00 | 2.00 |\n"
    )


def test_format_table_one_size_has_no_exponents() -> None:
    rows = ROWS[:1]
    assert format_table(rows, exponents(rows)).splitlines()[-1] == (
        "| growth exponent |  | — | — | — | — | — | — | — |"
    )


def fake_runner(calls: list[tuple[str, str, dict[str, Any]]]) -> Any:
    """bench_targets.run's answers for c<N>.json: times in proportion to N (capacity: to N squared)."""

    def run(kind: str, path: str, **args: Any) -> dict[str, Any]:
        calls.append((kind, Path(path).name, args))
        n = int(Path(path).stem[1:])
        k = n / 500
        if kind == "load":
            return {"load_s": 10.0 * k, "snapshot_s": 2.0 * k, "nodes": n, "pods": 28 * n, "peak_rss": 100 * k * 2**20}
        if kind == "explain":
            return {"cycle_s": 0.02 * k, "cycle_cpu": 0.01 * k, "peak_rss": 1}
        if kind == "check":
            return {"run_s": 0.5 * k, "placed": args["replicas"], "replicas": args["replicas"], "peak_rss": 1}
        assert kind == "capacity"
        return {"run_s": 0.25 * k * k, "fits": args["copies"], "attempts": args["copies"], "peak_rss": 1}

    return run


def test_main_over_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for n in (500, 1000):
        (tmp_path / f"c{n}.json").write_text("{}")
    calls: list[tuple[str, str, dict[str, Any]]] = []
    out_json = tmp_path / "figures.json"
    argv = ["--nodes", "500,1000", "--replicas", "200", "--copies", "500", "--dumps", str(tmp_path)]
    code = bench_scaling.main([*argv, "--json", str(out_json)], runner=fake_runner(calls))
    assert code == 0
    assert calls == [
        ("load", "c500.json", {}),
        ("explain", "c500.json", {"incremental": True}),
        ("check", "c500.json", {"replicas": 200, "incremental": True}),
        ("capacity", "c500.json", {"copies": 500, "incremental": True}),
        ("load", "c1000.json", {}),
        ("explain", "c1000.json", {"incremental": True}),
        ("check", "c1000.json", {"replicas": 200, "incremental": True}),
        ("capacity", "c1000.json", {"copies": 500, "incremental": True}),
    ]
    out, err = capsys.readouterr()
    assert out == (
        "| nodes | pods | load s | peak MB | explain cpu s | check pods/s | check s | capacity copies/s | capacity s |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| 500 | 14,000 | 12.0 | 100 | 0.010 | 400 | 0.50 | 2,000 | 0.25 |\n"
        "| 1,000 | 28,000 | 24.0 | 200 | 0.020 | 200 | 1.00 | 500 | 1.00 |\n"
        "| growth exponent |  | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 2.00 | 2.00 |\n"
        "\n"
        "check: 200 replicas; capacity: up to 500 copies\n"
        "real kube-scheduler (README, 5,000 nodes): check 15.5 pods/s (kube-scheduler v1.30.6, same Deployment, "
        "2 cores)\n"
    )
    assert [line.split(" (")[0] for line in err.splitlines()] == [
        f"c{n}.json: {kind} done" for n in (500, 1000) for kind in ("load", "explain", "check", "capacity")
    ]
    doc = json.loads(out_json.read_text())
    assert doc["sizes"][1] == {
        "nodes": 1000,
        "pods": 28000,
        "load_s": 24.0,
        "peak_mb": 200.0,
        "explain_cpu_s": 0.02,
        "check_pods_per_s": 200.0,
        "check_s": 1.0,
        "capacity_copies_per_s": 500.0,
        "capacity_s": 1.0,
        "replicas": 200,
        "placed": 200,
        "copies": 500,
        "fits": 500,
    }
    assert doc["sizes"][0]["nodes"] == 500
    assert doc["growth_exponents"] == pytest.approx(
        {
            "load s": 1.0,
            "peak MB": 1.0,
            "explain cpu s": 1.0,
            "check pods/s": 1.0,
            "check s": 1.0,
            "capacity copies/s": 2.0,
            "capacity s": 2.0,
        }
    )
    assert doc["real_scheduler"] == {
        "check_pods_per_s": "15.5 pods/s (kube-scheduler v1.30.6, same Deployment, 2 cores)"
    }


def test_main_generates_a_missing_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[tuple[str, str, dict[str, Any]]] = []
    assert bench_scaling.main(["--nodes", "3", "--dumps", str(tmp_path)], runner=fake_runner(calls)) == 0
    dump = json.loads((tmp_path / "c3.json").read_text())
    kinds = [item["kind"] for item in dump["items"]]
    assert (kinds.count("Node"), kinds.count("Pod")) == (3, 3 * 28)
    assert [c[:2] for c in calls] == [(k, "c3.json") for k in ("load", "explain", "check", "capacity")]
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == f"generating {tmp_path / 'c3.json'} ..."
    assert out.splitlines()[-2] == "check: 1,000 replicas; capacity: up to 3,000 copies"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nodes", "500,x"], "argument --nodes: expected positive node counts separated by commas, got '500,x'"),
        (["--nodes", "0"], "argument --nodes: expected positive node counts separated by commas, got '0'"),
        (["--replicas", "-3"], "argument --replicas: expected a positive integer, got '-3'"),
        (["--copies", "many"], "argument --copies: expected a positive integer, got 'many'"),
        (["--dumps", "/no/such/dir"], "--dumps /no/such/dir: no such directory"),
    ],
    ids=["nodes-not-a-number", "nodes-zero", "replicas-negative", "copies-not-a-number", "dumps-missing"],
)
def test_bad_arguments(args: list[str], message: str) -> None:
    """The script as it is run: one line naming the option, exit 2, and nothing measured."""
    r = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.splitlines()[-1] == f"bench_scaling.py: error: {message}"
    assert "Traceback" not in r.stderr
