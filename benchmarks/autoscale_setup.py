"""What bench_autoscale.py and bench_karpenter.py share: the benchmark cluster (generated into
benchmarks/out/ when missing), the Deployment of pending replicas, the input files written to a
temporary directory, and the timed load of the cluster and of the replicas' pods."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: surge, namespace: team-1}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: surge}}}}
  template:
    metadata: {{labels: {{app: surge}}}}
    spec:
      nodeSelector: {{{node_selector}}}
      containers:
      - name: c
        image: registry.example.com/surge:v1
        resources: {{requests: {{cpu: "{cpu}", memory: {memory}}}}}
"""


def cluster_path(nodes: int, dump: str | None = None) -> str:
    """``dump``, else the generated dump of ``nodes`` nodes (generated now when missing)."""
    path = dump or os.path.join(HERE, "out", f"c{nodes}.json")
    if not os.path.exists(path):
        from generate import generate

        os.makedirs(os.path.dirname(path), exist_ok=True)
        generate(nodes, 28, path)
    return path


def deployment(replicas: int, cpu: str, memory: str, node_selector: str) -> str:
    """The Deployment of ``replicas`` pods requesting ``cpu`` and ``memory``, whose nodeSelector
    (``node_selector``, "key: value") no existing node matches."""
    return DEPLOYMENT.format(replicas=replicas, cpu=cpu, memory=memory, node_selector=node_selector)


def write_files(directory: str, files: Mapping[str, str]) -> dict[str, str]:
    """Each text of ``files`` written to its name in ``directory``; the paths, by name."""
    paths = {}
    for name, text in files.items():
        paths[name] = os.path.join(directory, name)
        with open(paths[name], "w") as f:
            f.write(text)
    return paths


def load(path: str, deployment_path: str) -> tuple[Any, list[Any], float, float, float]:
    """The cluster of ``path`` and the pods of the Deployment, with the times before the load,
    after it and after the pods."""
    from kwhatif.cli.run import long_lived
    from kwhatif.load.cluster import load_cluster
    from kwhatif.load.files import read_path
    from kwhatif.whatif.autoscale import input_pods

    t0 = time.perf_counter()
    state = load_cluster([path], long_lived=long_lived)
    t1 = time.perf_counter()
    pods, _ = input_pods(state, list(read_path(deployment_path)), pending=False, namespace="default")
    t2 = time.perf_counter()
    return state, pods, t0, t1, t2
