"""Scheduling throughput on large synthetic clusters: seconds per scheduling cycle (every filter
on every node, every score on every feasible node, everything recorded) and capacity counting.

    python benchmarks/bench_schedule.py --generate 500,5000 [--pods 20]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "bench", "namespace": "team-1", "labels": {"app": "web"}},
    "spec": {
        "containers": [
            {
                "name": "c",
                "image": "registry.example.com/web:v1",
                "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}},
            }
        ]
    },
}


def main() -> None:
    from kwhatif.api import parse
    from kwhatif.cli.run import long_lived
    from kwhatif.config.defaults import default_configuration
    from kwhatif.load.cluster import load_cluster
    from kwhatif.scheduling.scheduler import Scheduler
    from kwhatif.whatif.capacity import measure

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", nargs="*")
    ap.add_argument("--generate", metavar="N,N")
    ap.add_argument("--pods", type=int, default=20, help="pods to schedule one after another")
    ap.add_argument("--copies", type=int, default=50, help="capacity copies to count")
    a = ap.parse_args()
    dumps = list(a.dumps)
    if a.generate:
        from generate import generate

        os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
        for n in a.generate.split(","):
            path = os.path.join(HERE, "out", f"c{n}.json")
            if not os.path.exists(path):
                generate(int(n), 28, path)
            dumps.append(path)
    print(f"{'dump':<16}{'nodes':>7}{'pods':>9}{'s/cycle':>10}{'cycles/s':>10}{'capacity s/copy':>17}")
    for path in dumps:
        state = load_cluster([path], long_lived=long_lived)  # as the command does, then with the snapshot
        template = state.admission.admit(parse.pod(POD), strict=True)
        sched = Scheduler(state, default_configuration())
        long_lived()
        pods = [dataclasses.replace(template, name=f"bench-{i}", uid=f"bench-{i}") for i in range(a.pods)]
        t0 = time.perf_counter()
        sched.run(pods, rounds=1)
        per_cycle = (time.perf_counter() - t0) / a.pods
        cap_sched = Scheduler(load_cluster([path]), default_configuration())
        long_lived()
        t1 = time.perf_counter()
        res = measure(cap_sched, dataclasses.replace(template, name="cap"), a.copies)
        per_copy = (time.perf_counter() - t1) / max(1, res.fits + (res.stopped_by != "limit"))
        print(
            f"{os.path.basename(path):<16}{sched.snapshot.num_nodes:>7}{len(state.pods):>9}{per_cycle:>10.3f}{1 / per_cycle:>10.1f}{per_copy:>17.3f}"
        )


if __name__ == "__main__":
    main()
