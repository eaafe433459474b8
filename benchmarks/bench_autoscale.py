"""`kwhatif autoscale` on the 5,000-node benchmark cluster with 1,000 pending replicas: the time of
the load, of the scheduler's pass over the existing nodes and of cluster-autoscaler's scale-up.

    python benchmarks/bench_autoscale.py [--nodes 5000] [--replicas 1000]

The cluster is benchmarks/generate.py's (generated into benchmarks/out/ when missing); its nodes
form four node groups by instance type (a NodeGroups file with label selectors), and a fifth group,
burst, has no node yet (a template); the Deployment's replicas select it (nodeSelector pool: burst),
so no existing node takes them: every group's template is checked, and burst's new nodes estimated.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from autoscale_setup import cluster_path, deployment, load, write_files

NODE_GROUPS = (
    """\
apiVersion: kwhatif/v1
kind: NodeGroups
nodeGroups:
"""
    + "".join(
        f"""- name: m6i-{cpu}xlarge
  minSize: 0
  maxSize: 5000
  nodeSelector: {{node.kubernetes.io/instance-type: m6i.{cpu}xlarge}}
"""
        for cpu in (4, 8, 16, 32)
    )
    + """\
- name: burst
  minSize: 0
  maxSize: 2000
  template:
    metadata:
      labels: {pool: burst, kubernetes.io/os: linux, node.kubernetes.io/instance-type: m6i.4xlarge}
    status:
      capacity: {cpu: "16", memory: 64Gi, pods: "110"}
      allocatable: {cpu: 15850m, memory: 63Gi, pods: "110"}
"""
)


def main() -> None:
    from kwhatif.config.defaults import default_configuration
    from kwhatif.whatif.autoscale import AutoscaleOptions, autoscale

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--replicas", type=int, default=1000)
    ap.add_argument("--cpu", default="1500m")
    ap.add_argument("--memory", default="6Gi")
    a = ap.parse_args()
    path = cluster_path(a.nodes)
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(
            tmp,
            {
                "deployment.yaml": deployment(a.replicas, a.cpu, a.memory, "pool: burst"),
                "nodegroups.yaml": NODE_GROUPS,
            },
        )
        state, pods, t0, t1, t2 = load(path, files["deployment.yaml"])
        config = default_configuration()
        res = autoscale(state, pods, config, AutoscaleOptions(node_groups=files["nodegroups.yaml"]))
        t3 = time.perf_counter()
    outcomes: dict[str, int] = {}
    for p in res.pods:
        outcomes[p.outcome.value] = outcomes.get(p.outcome.value, 0) + 1
    chosen = ", ".join(f"{c.group} +{c.node_count}" for c in res.loops[0].chosen) if res.loops else "none"
    print(f"cluster: {len(state.nodes)} nodes, {len(state.pods)} pods; {len(pods)} replicas ({a.cpu}, {a.memory})")
    print(f"outcomes: {dict(sorted(outcomes.items()))}; scale-up: {chosen}")
    print(f"load {t1 - t0:.2f} s, pods {t2 - t1:.2f} s, autoscale {t3 - t2:.2f} s (target < 10 s)")


if __name__ == "__main__":
    main()
