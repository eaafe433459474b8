"""Time and peak memory of a paged live listing, against the load of the same state from a dump.

    python benchmarks/bench_live.py --generate 5000 --pods-per-node 30   # 5,000 nodes, 150,000 pods
    python benchmarks/bench_live.py benchmarks/out/c5000-30.json --latency 0.05

The dump is served by the local HTTPS fake API server of the tests (tests/e2e/fake_apiserver.py)
in a process of its own, in pages of 500 with ``--latency`` seconds added to every page, and
read with kwhatif's live loader in a fresh process (lists are decoded page by page, so a page's
body is freed before the next one arrives); the dump load of the same file runs in another fresh
process. Peak RSS is each reader's own.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))


def serve(path: str, latency: float, kubeconfig: str) -> None:
    """The fake API server holding the dump's objects; writes the kubeconfig, then serves."""
    from tests.e2e.fake_apiserver import FakeAPIServer

    with open(path) as fh:
        doc = json.load(fh)
    items = doc["items"] if doc.get("kind") == "List" else [doc]
    del doc
    with FakeAPIServer([], page_size=500) as srv:
        srv.objects = items  # not the deep copy the tests make: one copy of 150,000 pods is enough
        srv.latency = latency
        srv.kubeconfig(kubeconfig + ".tmp")
        os.replace(kubeconfig + ".tmp", kubeconfig)
        while True:
            time.sleep(3600)


def child_live(kubeconfig: str) -> None:
    import resource

    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.cli.run import long_lived
    from kwhatif.load.live import LiveOptions, load_live_cluster

    t0 = time.perf_counter()
    state = load_live_cluster(kubeconfig, None, LiveOptions())
    long_lived()
    t1 = time.perf_counter()
    snap = Snapshot(state.nodes.values(), state.pods)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"nodes": snap.num_nodes, "pods": len(state.pods), "total_s": t1 - t0, "peak_rss": rss}))


def run_child(*args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True, cwd=ROOT)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def measure(path: str, latency: float) -> None:
    with tempfile.TemporaryDirectory(prefix="kwhatif-bench-live-") as d:
        kc = os.path.join(d, "kubeconfig")
        server = subprocess.Popen([sys.executable, __file__, "--serve", path, "--latency", str(latency), "--kc", kc])
        try:
            deadline = time.monotonic() + 1800
            while not os.path.exists(kc):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the fake API server did not start (exit status {server.poll()})")
                time.sleep(0.2)
            live = run_child(__file__, "--child-live", kc)
        finally:
            server.terminate()
            server.wait()
    dump = run_child(os.path.join(HERE, "bench_load.py"), "--child-load", path)
    print(f"{'read':<34}{'nodes':>8}{'pods':>9}{'s':>9}{'peak MB':>9}")
    print(
        f"{'live, pages of 500, +' + format(latency * 1000, 'g') + ' ms/page':<34}{live['nodes']:>8.0f}"
        f"{live['pods']:>9.0f}{live['total_s']:>9.2f}{live['peak_rss'] / 2**20:>9.0f}"
    )
    print(
        f"{'dump file (--cluster)':<34}{dump['nodes']:>8.0f}{dump['pods']:>9.0f}{dump['total_s']:>9.2f}"
        f"{dump['peak_rss'] / 2**20:>9.0f}"
    )
    print(f"live peak RSS / dump peak RSS: {live['peak_rss'] / dump['peak_rss']:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", nargs="*")
    ap.add_argument("--generate", metavar="N", help="generate a dump of N nodes first (benchmarks/out/)")
    ap.add_argument("--pods-per-node", type=int, default=30)
    ap.add_argument("--latency", type=float, default=0.05, help="seconds added to every page (default 0.05)")
    ap.add_argument("--serve", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--kc", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--child-live", metavar="KUBECONFIG", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve:
        return serve(a.serve, a.latency, a.kc)
    if a.child_live:
        return child_live(a.child_live)
    dumps = list(a.dumps)
    if a.generate:
        from generate import generate

        os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
        path = os.path.join(HERE, "out", f"c{a.generate}-{a.pods_per_node}.json")
        if not os.path.exists(path):
            generate(int(a.generate), a.pods_per_node, path)
        dumps.append(path)
    for path in dumps:
        measure(path, a.latency)


if __name__ == "__main__":
    main()
