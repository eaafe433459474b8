"""Dynamic resource allocation throughput: a synthetic GPU cluster (NODES nodes with 8 GPUs each,
published by one DRA driver), pods that each claim GPUs through a template with a CEL selector,
scheduled one after another (every filter on every node, the allocator per node, every score).

    python benchmarks/bench_dra.py [--nodes 100,500] [--pods 20] [--gpus 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

DRIVER = "gpu.example.com"
MODELS = (("a100", "80Gi"), ("h100", "80Gi"), ("l4", "24Gi"))


def cluster(nodes: int) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}},
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "gpus", "namespace": "ml"},
            "spec": {
                "spec": {
                    "devices": {
                        "requests": [
                            {
                                "name": "gpus",
                                "exactly": {
                                    "deviceClassName": "gpu",
                                    "count": 2,
                                    "selectors": [
                                        {
                                            "cel": {
                                                "expression": f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0 && '
                                                f'device.attributes["{DRIVER}"].model != "l4"'
                                            }
                                        }
                                    ],
                                },
                            }
                        ]
                    }
                }
            },
        },
    ]
    for i in range(nodes):
        name = f"node-{i:05d}"
        model, mem = MODELS[i % len(MODELS)]
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110"}},
            }
        )
        objs.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-gpus"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": name,
                    "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                    "devices": [
                        {
                            "name": f"gpu-{g}",
                            "attributes": {"model": {"string": model}, "index": {"int": g}},
                            "capacity": {"memory": {"value": mem}},
                        }
                        for g in range(8)
                    ],
                },
            }
        )
    return objs


def main() -> None:
    from kwhatif.api import parse
    from kwhatif.config.defaults import default_configuration
    from kwhatif.config.options import Options
    from kwhatif.load.cluster import build_cluster
    from kwhatif.load.files import Document
    from kwhatif.scheduling.scheduler import Scheduler

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="100,500")
    ap.add_argument("--pods", type=int, default=20)
    a = ap.parse_args()
    for n in (int(x) for x in a.nodes.split(",")):
        objs = cluster(n)
        t0 = time.perf_counter()
        state = build_cluster(Document(o, "bench", o["kind"], o["apiVersion"]) for o in objs)
        load = time.perf_counter() - t0
        pods = []
        for i in range(a.pods):
            body = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"train-{i}", "namespace": "ml", "uid": f"u{i}"},
                "spec": {
                    "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpus"}],
                    "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
                },
            }
            pods.append(parse.pod(body))
        sched = Scheduler(state, default_configuration(), options=Options())
        t0 = time.perf_counter()
        attempts = sched.run(pods)
        took = time.perf_counter() - t0
        placed = sum(1 for x in attempts if x.result == "Scheduled")
        print(
            f"{n:>6} nodes, {8 * n} GPUs: load {load:.2f}s; {a.pods} pods ({placed} placed) in {took:.2f}s, "
            f"{1000 * took / a.pods:.0f} ms per pod, {1e6 * took / a.pods / n:.0f} µs per pod and node"
        )


if __name__ == "__main__":
    main()
