"""Load-time and peak-memory figures for large cluster dumps.

    python benchmarks/bench_load.py benchmarks/out/c5000.json [more dumps...]
    python benchmarks/bench_load.py --generate 500,5000     # make the dumps first (benchmarks/out/)
    python benchmarks/bench_load.py --scale                 # 500, 1,000, 2,000, 5,000 nodes and the growth

Each measurement runs in a fresh process, so peak RSS is that of one load: read the file, decode
it item by item, build typed objects, admit pods and build the Snapshot (NodeInfo per node).
Beside it: "read", the loader's reading alone (its documents dropped: msgspec decoding the items
in runs, with the check for keys given twice, and the stdlib scanner for what a run cannot take);
the bare parse of the whole file by msgspec (the loader's parser), by orjson and by json.load;
"x read" and "x msgspec" are the load over the first two. --scale also prints the growth exponent
of the load time in the size of the cluster (nodes and pods grow together): 1.0 is linear.

Times are CPU seconds (user and system, which a load's page faults are part of), the least of
--repeat fresh runs of each, taken in turn (load, read, msgspec, orjson, then again): a shared
machine slows a run down, never speeds it up, and in turn the neighbours slow all kinds alike.
"--wall" prints wall-clock seconds instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def child_load(path: str) -> None:
    import resource

    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.cli.run import long_lived
    from kwhatif.load.cluster import load_cluster

    t0, c0 = time.perf_counter(), time.process_time()
    state = load_cluster([path], long_lived=long_lived)  # as the command loads a cluster
    t1, c1 = time.perf_counter(), time.process_time()
    snap = Snapshot(state.nodes.values(), state.pods)
    t2 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        json.dumps(
            {
                "nodes": snap.num_nodes,
                "pods": len(state.pods),
                "load_s": t1 - t0,
                "load_cpu_s": c1 - c0,
                "snapshot_s": t2 - t1,
                "total_s": t2 - t0,
                "peak_rss": rss,
            }
        )
    )


def child_json(path: str) -> None:

    t0, c0 = time.perf_counter(), time.process_time()
    with open(path) as fh:
        json.load(fh)
    _report(t0, c0)


def child_read(path: str) -> None:
    """The loader's reading of the whole file, the documents dropped: msgspec decodes the items in
    runs, each checked for keys given twice, and the stdlib scanner reads what a run cannot."""
    import gc

    from kwhatif.load.files import read_path

    gc.disable()  # as the loader decodes
    t0, c0 = time.perf_counter(), time.process_time()
    for _doc in read_path(path):
        pass
    _report(t0, c0)


def child_bare(path: str, parser: str) -> None:
    """A bare parse of the whole file: msgspec's (the loader's parser) or orjson's."""
    import gc

    import msgspec
    import orjson

    loads = msgspec.json.decode if parser == "msgspec" else orjson.loads
    gc.disable()
    t0, c0 = time.perf_counter(), time.process_time()
    with open(path, "rb") as fh:
        loads(fh.read())
    _report(t0, c0)


def _report(t0: float, c0: float) -> None:
    import resource

    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        json.dumps(
            {"total_s": wall, "cpu_s": cpu, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
        )
    )


def growth_exponent(sizes: list[float], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) over log(size)."""
    import math

    xs = [math.log(x) for x in sizes]
    ys = [math.log(y) for y in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def run(mode: str, path: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, f"--child-{mode}", path], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", nargs="*")
    ap.add_argument("--generate", metavar="N,N", help="generate dumps of these node counts first")
    ap.add_argument("--pods-per-node", type=int, default=28)
    ap.add_argument("--child-load", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--scale", action="store_true", help="500, 1,000, 2,000 and 5,000 nodes, and the growth")
    ap.add_argument("--repeat", type=int, default=3, help="fresh runs of each measurement; the least is shown")
    ap.add_argument("--wall", action="store_true", help="wall-clock seconds instead of CPU seconds")
    ap.add_argument("--child-json", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--child-read", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--child-msgspec", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--child-orjson", metavar="PATH", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child_load:
        return child_load(a.child_load)
    if a.child_json:
        return child_json(a.child_json)
    if a.child_read:
        return child_read(a.child_read)
    if a.child_msgspec:
        return child_bare(a.child_msgspec, "msgspec")
    if a.child_orjson:
        return child_bare(a.child_orjson, "orjson")
    dumps = list(a.dumps)
    if a.scale:
        a.generate = ",".join(x for x in ("500,1000,2000,5000".split(",")) if x not in (a.generate or "").split(","))
    if a.generate:
        from generate import generate

        os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
        for n in a.generate.split(","):
            path = os.path.join(HERE, "out", f"c{n}.json")
            if not os.path.exists(path):
                generate(int(n), a.pods_per_node, path)
            dumps.append(path)
    print(
        f"{'dump':<16}{'MB':>6}{'nodes':>7}{'pods':>8}{'load s':>8}{'snap s':>8}{'peak MB':>8}"
        f"{'read s':>8}{'msgspec s':>10}{'orjson s':>9}{'json s':>8}{'x read':>8}{'x msgspec':>10}{'json MB':>8}"
    )
    load_key, key = ("load_s", "total_s") if a.wall else ("load_cpu_s", "cpu_s")
    sizes, loads = [], []
    for path in dumps:
        runs: dict[str, list[dict]] = {"load": [], "read": [], "msgspec": [], "orjson": []}
        for _ in range(max(1, a.repeat)):
            for mode, got in runs.items():
                got.append(run(mode, path))
        r = min(runs["load"], key=lambda x: x[load_key])
        rd, m, o = (min(runs[mode], key=lambda x: x[key]) for mode in ("read", "msgspec", "orjson"))
        j = run("json", path)  # the slowest by far: once
        load = r[load_key]
        sizes.append(r["pods"] + r["nodes"])
        loads.append(load)
        print(
            f"{os.path.basename(path):<16}{os.path.getsize(path) / 1e6:>6.0f}{r['nodes']:>7}{r['pods']:>8}"
            f"{load:>8.2f}{r['snapshot_s']:>8.2f}{max(x['peak_rss'] for x in runs['load']) / 2**20:>8.0f}"
            f"{rd[key]:>8.2f}{m[key]:>10.2f}{o[key]:>9.2f}{j[key]:>8.2f}"
            f"{load / rd[key]:>8.2f}{load / m[key]:>10.2f}{j['peak_rss'] / 2**20:>8.0f}"
        )
    unit = "wall-clock" if a.wall else "CPU"
    print(f"{unit} seconds, the least of {max(1, a.repeat)} fresh runs each (json.load: one run)")
    if len(set(sizes)) > 1:
        print(f"load time grows as size^{growth_exponent(sizes, loads):.2f} (nodes and pods together)")


if __name__ == "__main__":
    main()
