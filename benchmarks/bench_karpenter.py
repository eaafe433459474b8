"""`kwhatif autoscale --autoscaler karpenter` on the 5,000-node benchmark cluster: 1,000 pending
replicas against a 700-type instance catalog; the time of the load, of kube-scheduler's pass over
the existing nodes and of Karpenter's provisioning.

    python benchmarks/bench_karpenter.py [--nodes 5000] [--replicas 1000] [--types 700] [--dump PATH]

The cluster is benchmarks/generate.py's (generated into benchmarks/out/ when missing). Two
NodePools, spot (weight 50) and on-demand, allow every type of the catalog (35 families in 20
sizes, three zones, spot and on-demand offerings); the replicas select the spot pool
(nodeSelector karpenter.sh/nodepool), so no existing node takes them and Karpenter plans claims
for all of them.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from autoscale_setup import cluster_path, deployment, load, write_files

NODE_POOLS = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: spot}
spec:
  weight: 50
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  limits: {cpu: "100000"}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: on-demand}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
"""

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")


def catalog(types: int) -> str:
    """An InstanceTypes document of ``types`` types: families x sizes, prices growing with size."""
    lines = ["apiVersion: kwhatif/v1", "kind: InstanceTypes", "instanceTypes:"]
    sizes = 20
    families = (types + sizes - 1) // sizes
    n = 0
    for f in range(families):
        fam = f"f{f:02d}"
        ratio = 2 + f % 4  # GiB per vCPU
        for s in range(sizes):
            if n == types:
                break
            n += 1
            cpu = 2 * (s + 1)
            od = round(0.02 * cpu * (1 + ratio / 8) * (1 + f / 100), 4)
            lines.append(f"- name: {fam}.s{s:02d}")
            lines.append(f'  capacity: {{cpu: "{cpu}", memory: {cpu * ratio}Gi, pods: "110"}}')
            lines.append("  overhead: {cpu: 80m, memory: 700Mi}")
            lines.append(
                f"  labels: {{kubernetes.io/arch: amd64, kubernetes.io/os: linux, karpenter.k8s.aws/instance-family: {fam}}}"
            )
            lines.append("  offerings:")
            for i, z in enumerate(ZONES):
                lines.append(f"  - {{zone: {z}, capacityType: on-demand, price: {od}}}")
                lines.append(f"  - {{zone: {z}, capacityType: spot, price: {round(od * (0.35 + 0.02 * i), 4)}}}")
    return "\n".join(lines) + "\n"


def main() -> None:
    from kwhatif.config.defaults import default_configuration
    from kwhatif.whatif.autoscale import AutoscaleOptions, AutoscalerKind, autoscale

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--replicas", type=int, default=1000)
    ap.add_argument("--types", type=int, default=700)
    ap.add_argument("--cpu", default="1500m")
    ap.add_argument("--memory", default="3Gi")
    ap.add_argument("--dump", help="a dump to use instead of benchmarks/out/c<nodes>.json")
    a = ap.parse_args()
    path = cluster_path(a.nodes, a.dump)
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(
            tmp,
            {
                "deployment.yaml": deployment(a.replicas, a.cpu, a.memory, "karpenter.sh/nodepool: spot"),
                "nodepools.yaml": NODE_POOLS,
                "types.yaml": catalog(a.types),
            },
        )
        state, pods, t0, t1, t2 = load(path, files["deployment.yaml"])
        c2 = time.process_time()
        opts = AutoscaleOptions(
            autoscaler=AutoscalerKind.KARPENTER, node_pools=files["nodepools.yaml"], instance_types=files["types.yaml"]
        )
        res = autoscale(state, pods, default_configuration(), opts)
        t3 = time.perf_counter()
        c3 = time.process_time()
    run = res.karpenter
    results = run.results
    placed = sum(1 for r in results.pods if r.claim is not None)
    print(f"cluster: {len(state.nodes)} nodes, {len(state.pods)} pods; {len(pods)} replicas ({a.cpu}, {a.memory})")
    print(f"catalog: {len(run.catalog)} instance types; {placed} pods on {len(results.claims)} planned NodeClaims")
    print(
        f"load {t1 - t0:.2f} s, pods {t2 - t1:.2f} s, autoscale {t3 - t2:.2f} s ({c3 - c2:.2f} s of CPU; target < 10 s)"
    )


if __name__ == "__main__":
    main()
