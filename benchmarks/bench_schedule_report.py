"""`kwhatif schedule` of many pods on a large cluster, in each output format: pods/s, peak RSS and
the size of the report.

    python benchmarks/bench_schedule_report.py                       # 200 and 1,000 pods, 5,000 nodes
    python benchmarks/bench_schedule_report.py --pods 200 --formats table,json --kwhatif /other/venv/bin/kwhatif

The pods are N copies of one template (the Deployment of spread-deployment.yaml as plain Pods:
zone spreading ScheduleAnyway, a preferred anti-affinity per node), scheduled onto the dump of
generate.py (c<nodes>.json in benchmarks/out/, generated when missing). Each run is the command
itself, in a fresh process under /usr/bin/time -v (its peak RSS), its standard output counted
as it is read (nothing kept). pods/s counts the pods over the seconds from the moment the
scheduler is built (the cluster loaded and indexed) to the command's exit: placing the pods and
writing the report; pods/cpu-s over the CPU seconds of the same span (the figure a busy machine
disturbs least). The child's address space is limited to --max-gb (3 by default): a run that
would need more fails (MemoryError, exit 2) instead of taking the machine's memory.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATE = """apiVersion: v1
kind: Pod
metadata:
  name: bench-{i:05d}
  namespace: team-1
  labels: {{app: bench}}
spec:
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels: {{app: bench}}
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels: {{app: bench}}
  containers:
  - name: app
    image: registry.example.com/web:v1
    resources:
      requests: {{cpu: 100m, memory: 128Mi}}
"""

# Run in the child before the command: the moment the scheduler is built, and at exit the
# seconds since, on standard error.
_CHILD = """
import atexit, sys, time
from kwhatif.cli.run import Run
made = Run.scheduler
start = []
def scheduler(self, *a, **k):
    s = made(self, *a, **k)
    start.append((time.perf_counter(), time.process_time()))
    return s
Run.scheduler = scheduler
atexit.register(lambda: start and print(
    f"BENCH {time.perf_counter() - start[0][0]:.3f} {time.process_time() - start[0][1]:.3f}", file=sys.stderr))
from kwhatif.cli.main import main
main(sys.argv[1:])
"""


def pods_file(n: int, directory: str) -> str:
    path = os.path.join(directory, f"pods{n}.yaml")
    if not os.path.exists(path):
        with open(path, "w") as fh:
            fh.write("---\n".join(TEMPLATE.format(i=i) for i in range(n)))
    return path


def dump(nodes: int, dumps: Path) -> str:
    path = dumps / f"c{nodes}.json"
    if not path.exists():
        dumps.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                str(HERE / "generate.py"),
                "--nodes",
                str(nodes),
                "--pods-per-node",
                "28",
                "-o",
                str(path),
            ],
            check=True,
        )
    return str(path)


def measure(python: str, args: list[str], max_gb: float) -> dict[str, float | int | str]:
    """One run: seconds placing and writing, peak RSS (KB), bytes written, exit code."""
    limit = int(max_gb * (1 << 30))

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    cmd = ["/usr/bin/time", "-v", python, "-c", _CHILD, *args]
    t = time.perf_counter()
    # run elsewhere: ``python -c`` imports from its working directory first
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=cap, cwd=tempfile.gettempdir())
    assert p.stdout is not None and p.stderr is not None
    size = 0
    while chunk := p.stdout.read(1 << 20):
        size += len(chunk)
    err = p.stderr.read().decode(errors="replace")
    code = p.wait()
    wall = time.perf_counter() - t
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    run = re.search(r"^BENCH ([0-9.]+) ([0-9.]+)$", err, re.MULTILINE)
    failed = [line for line in err.splitlines() if line.startswith("kwhatif: error")]
    return {
        "seconds": float(run.group(1)) if run else float("nan"),
        "cpu": float(run.group(2)) if run else float("nan"),
        "wall": wall,
        "rss_kb": int(rss.group(1)) if rss else 0,
        "bytes": size,
        "code": code,
        "error": failed[0] if failed else "",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", default="200,1000", help="comma-separated pod counts")
    ap.add_argument(
        "--formats", default="table,wide,json,yaml,markdown,junit,sarif,html", help="comma-separated -o values"
    )
    ap.add_argument("--extra", default="", help="more arguments for every run, e.g. '--detail summary'")
    ap.add_argument("--kwhatif", default="", help="the kwhatif console script to measure (default: this one)")
    ap.add_argument("--dumps", default=str(HERE / "out"), help="where c<nodes>.json is, or is generated")
    ap.add_argument("--max-gb", type=float, default=3.0, help="address-space limit of each run")
    a = ap.parse_args()
    python = sys.executable
    if a.kwhatif:
        # the interpreter of that installation (the first line of its console script)
        first = Path(a.kwhatif).read_text().splitlines()[0]
        python = first[2:].strip() if first.startswith("#!") else python
    cluster = dump(a.nodes, Path(a.dumps))
    print("| pods | -o | pods/s | s | pods/cpu-s | cpu s | peak MB | output MB | exit |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in a.pods.split(",")):
            path = pods_file(n, tmp)
            for fmt in a.formats.split(","):
                args = ["schedule", path, "--cluster", cluster, "-o", fmt, "--quiet", *a.extra.split()]
                r = measure(python, args, a.max_gb)
                rate = f"{n / r['seconds']:,.0f}" if r["seconds"] == r["seconds"] and r["seconds"] > 0 else "-"
                cpu_rate = f"{n / r['cpu']:,.0f}" if r["cpu"] == r["cpu"] and r["cpu"] > 0 else "-"
                status = str(r["code"]) + (f" ({r['error']})" if r["error"] else "")
                print(
                    f"| {n:,} | {fmt} | {rate} | {r['seconds']:.1f} | {cpu_rate} | {r['cpu']:.1f} | "
                    f"{int(r['rss_kb']) / 1024:,.0f} | "
                    f"{int(r['bytes']) / 1e6:,.1f} | {status} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
