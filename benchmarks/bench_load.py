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

    t0 = time.perf_counter()
    state = load_cluster([path])
    long_lived()  # as the command does once the cluster is loaded
    t1 = time.perf_counter()
    snap = Snapshot(state.nodes.values(), state.pods)
    t2 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        json.dumps(
            {
                "nodes": snap.num_nodes,
                "pods": len(state.pods),
                "load_s": t1 - t0,
                "snapshot_s": t2 - t1,
                "total_s": t2 - t0,
                "peak_rss": rss,
            }
        )
    )


def child_json(path: str) -> None:
    import resource

    t0 = time.perf_counter()
    with open(path) as fh:
        json.load(fh)
    t1 = time.perf_counter()
    print(json.dumps({"total_s": t1 - t0, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def child_read(path: str) -> None:
    """The loader's reading of the whole file, the documents dropped: msgspec decodes the items in
    runs, each checked for keys given twice, and the stdlib scanner reads what a run cannot."""
    import gc
    import resource

    from kwhatif.load.files import read_path

    gc.disable()  # as the loader decodes
    t0 = time.perf_counter()
    for _doc in read_path(path):
        pass
    t1 = time.perf_counter()
    print(json.dumps({"total_s": t1 - t0, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def child_bare(path: str, parser: str) -> None:
    """A bare parse of the whole file: msgspec's (the loader's parser) or orjson's."""
    import gc
    import resource

    import msgspec
    import orjson

    loads = msgspec.json.decode if parser == "msgspec" else orjson.loads
    gc.disable()
    t0 = time.perf_counter()
    with open(path, "rb") as fh:
        loads(fh.read())
    t1 = time.perf_counter()
    print(json.dumps({"total_s": t1 - t0, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


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
    sizes, loads = [], []
    for path in dumps:
        r = run("load", path)
        rd = run("read", path)
        m = run("msgspec", path)
        o = run("orjson", path)
        j = run("json", path)
        sizes.append(r["pods"] + r["nodes"])
        loads.append(r["load_s"])
        print(
            f"{os.path.basename(path):<16}{os.path.getsize(path) / 1e6:>6.0f}{r['nodes']:>7}{r['pods']:>8}"
            f"{r['load_s']:>8.2f}{r['snapshot_s']:>8.2f}{r['peak_rss'] / 2**20:>8.0f}"
            f"{rd['total_s']:>8.2f}{m['total_s']:>10.2f}{o['total_s']:>9.2f}{j['total_s']:>8.2f}"
            f"{r['load_s'] / rd['total_s']:>8.2f}{r['load_s'] / m['total_s']:>10.2f}{j['peak_rss'] / 2**20:>8.0f}"
        )
    if len(set(sizes)) > 1:
        print(f"load time grows as size^{growth_exponent(sizes, loads):.2f} (nodes and pods together)")


if __name__ == "__main__":
    main()
