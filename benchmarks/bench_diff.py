"""What `kwhatif diff` costs against one `kwhatif schedule` of the same pods on the same loaded
cluster: both sides' runs (each on its fork), the comparison and the JSON report, against one run,
its ScheduleReport and its JSON (and against the run alone, without a report). The cluster is
loaded once for both (as diff loads it once); each figure is the best of --repeat runs.

    python benchmarks/bench_diff.py --generate 500 [--pods 30] [--from 1.35.7 --to 1.36.2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def pods_file(n: int, directory: str) -> str:
    """``n`` pods of a few shapes (requests, a spread constraint, a node affinity) in one List."""
    items = []
    for i in range(n):
        spec: dict = {
            "containers": [
                {
                    "name": "c",
                    "image": "registry.example.com/web:v1",
                    "resources": {"requests": {"cpu": f"{250 * (1 + i % 4)}m", "memory": f"{256 * (1 + i % 3)}Mi"}},
                }
            ]
        }
        if i % 3 == 1:
            spec["topologySpreadConstraints"] = [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": {"matchLabels": {"app": "bench"}},
                }
            ]
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"bench-{i}", "namespace": "team-1", "labels": {"app": "bench"}},
                "spec": spec,
            }
        )
    path = os.path.join(directory, f"pods{n}.json")
    with open(path, "w") as fh:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, fh)
    return path


def main() -> None:
    from kwhatif.cli.run import long_lived
    from kwhatif.config.defaults import default_configuration
    from kwhatif.config.options import Options
    from kwhatif.load.cluster import load_cluster
    from kwhatif.load.files import read_path
    from kwhatif.release.versions import ChosenVersion, VersionSource, get
    from kwhatif.report.diff import diff_report, render
    from kwhatif.report.formats.output import get_formatter
    from kwhatif.report.schedule import schedule_report
    from kwhatif.scheduling.scheduler import Scheduler
    from kwhatif.whatif import schedule as engine
    from kwhatif.whatif.diff import Side, SideRun, diff, fork

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", nargs="*")
    ap.add_argument("--generate", metavar="N,N")
    ap.add_argument("--pods", type=int, default=30, help="pods scheduled one after another")
    ap.add_argument("--from", dest="before", default="1.35.7")
    ap.add_argument("--to", dest="after", default="1.36.2")
    ap.add_argument("--repeat", type=int, default=2, help="best of this many runs")
    a = ap.parse_args()
    dumps = list(a.dumps)
    tmp = tempfile.mkdtemp(prefix="kwhatif-bench-diff-")
    if a.generate:
        from generate import generate

        for n in a.generate.split(","):
            path = os.path.join(tmp, f"c{n}.json")
            generate(int(n), 28, path)
            dumps.append(path)
    docs = list(read_path(pods_file(a.pods, tmp)))

    def side(text: str) -> Side:
        v = get(text)
        return Side(ChosenVersion(v, VersionSource.FLAG), default_configuration(v))

    before, after = side(a.before), side(a.after)

    def run_side(state, s: Side) -> SideRun:  # type: ignore[no-untyped-def]
        pods, _ = engine.manifest_pods(state, docs, namespace="default", enforce_namespace=False, note=lambda _: None)
        plan = engine.plan(state, s.config, pods, [], namespace="default")
        sched = Scheduler(state, s.config, options=Options())
        long_lived()
        return SideRun(s, sched, engine.schedule(sched, plan))

    print(
        f"{'dump':<12}{'nodes':>7}{'pods':>6}{'schedule s':>12}{'(run only)':>12}{'diff s':>9}{'ratio':>7}"
        f"{'ratio to run':>14}  ({a.before} -> {a.after})"
    )
    for path in dumps:
        state = load_cluster([path], long_lived=long_lived)
        best_schedule = best_run = best_diff = float("inf")
        for _ in range(a.repeat):
            for s in (before, after):
                t0 = time.perf_counter()
                mine = fork(state)
                mine.use_version(s.chosen.version)
                r = run_side(mine, s)
                best_run = min(best_run, time.perf_counter() - t0)
                rep = schedule_report(
                    r.attempts, r.scheduler.snapshot.num_nodes, "default-scheduler", scheduler_version=s.chosen
                )
                get_formatter("json").format(rep)
                best_schedule = min(best_schedule, time.perf_counter() - t0)
            t0 = time.perf_counter()
            result = diff(state, before, after, run_side)
            render(diff_report(result), "json")
            best_diff = min(best_diff, time.perf_counter() - t0)
        n = len(state.nodes)
        print(
            f"{os.path.basename(path):<12}{n:>7}{a.pods:>6}{best_schedule:>12.2f}{best_run:>12.2f}{best_diff:>9.2f}"
            f"{best_diff / best_schedule:>7.2f}{best_diff / best_run:>14.2f}"
        )


if __name__ == "__main__":
    main()
