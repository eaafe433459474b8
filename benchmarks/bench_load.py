"""Load-time and peak-memory figures for large cluster dumps.

    python benchmarks/bench_load.py benchmarks/out/c5000.json [more dumps...]
    python benchmarks/bench_load.py --generate 500,5000     # make the dumps first (benchmarks/out/)

Each measurement runs in a fresh process, so peak RSS is that of one load: read the file, decode
it item by item, build typed objects, admit pods and build the Snapshot (NodeInfo per node).
A bare json.load of the same file is printed for comparison.
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
    ap.add_argument("--child-json", metavar="PATH", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child_load:
        return child_load(a.child_load)
    if a.child_json:
        return child_json(a.child_json)
    dumps = list(a.dumps)
    if a.generate:
        from generate import generate

        os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
        for n in a.generate.split(","):
            path = os.path.join(HERE, "out", f"c{n}.json")
            if not os.path.exists(path):
                generate(int(n), a.pods_per_node, path)
            dumps.append(path)
    print(
        f"{'dump':<28}{'MB':>8}{'nodes':>8}{'pods':>9}{'load s':>9}{'snap s':>9}{'peak MB':>9}{'json.load s':>13}{'json MB':>9}"
    )
    for path in dumps:
        r = run("load", path)
        j = run("json", path)
        print(
            f"{os.path.basename(path):<28}{os.path.getsize(path) / 1e6:>8.0f}{r['nodes']:>8}{r['pods']:>9}"
            f"{r['load_s']:>9.2f}{r['snapshot_s']:>9.2f}{r['peak_rss'] / 2**20:>9.0f}{j['total_s']:>13.2f}{j['peak_rss'] / 2**20:>9.0f}"
        )


if __name__ == "__main__":
    main()
