"""Generate a synthetic `kubectl get nodes,pods,... -A -o json` dump of a large cluster.

    python benchmarks/generate.py --nodes 5000 --pods-per-node 28 -o benchmarks/out/c5000.json

Pods look like kubectl's output of real ones (labels, annotations, owner references, managed
fields, status with conditions and container statuses), so parse cost and memory are realistic.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]
SIZES = [("4", "16Gi"), ("8", "32Gi"), ("16", "64Gi"), ("32", "128Gi")]
APPS = ["web", "api", "worker", "cache", "batch", "search", "auth", "billing", "mailer", "ingest"]


def node(i: int, rng: random.Random) -> dict:
    name = f"node-{i:05d}"
    cpu, mem = SIZES[i % len(SIZES)]
    zone = ZONES[i % len(ZONES)]
    n = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"{i:08x}-1111-2222-3333-444455556666",
            "resourceVersion": str(100000 + i),
            "creationTimestamp": "2026-10-01T00:00:00Z",
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "topology.kubernetes.io/zone": zone,
                "topology.kubernetes.io/region": "us-east-1",
                "node.kubernetes.io/instance-type": f"m6i.{cpu}xlarge",
            },
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        },
        "spec": {"podCIDR": f"10.{i // 256 % 256}.{i % 256}.0/24", "providerID": f"aws:///{zone}/i-{i:017x}"},
        "status": {
            "capacity": {"cpu": cpu, "memory": mem, "pods": "110", "ephemeral-storage": "100Gi"},
            "allocatable": {
                "cpu": f"{int(cpu) * 1000 - 150}m",
                "memory": mem,
                "pods": "110",
                "ephemeral-storage": "95Gi",
            },
            "conditions": [
                {
                    "type": t,
                    "status": "False" if t != "Ready" else "True",
                    "lastHeartbeatTime": "2026-11-29T10:00:00Z",
                    "lastTransitionTime": "2026-10-01T00:00:00Z",
                    "reason": f"Kubelet{t}",
                    "message": f"kubelet reports {t}",
                }
                for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
            ],
            "addresses": [
                {"type": "InternalIP", "address": f"10.0.{i // 256 % 256}.{i % 256}"},
                {"type": "Hostname", "address": name},
            ],
            "images": [
                {
                    "names": [
                        f"registry.example.com/{a}@sha256:{rng.getrandbits(64):016x}",
                        f"registry.example.com/{a}:v{rng.randint(1, 9)}",
                    ],
                    "sizeBytes": rng.randint(10, 900) * 1024 * 1024,
                }
                for a in rng.sample(APPS, 4)
            ],
            "nodeInfo": {
                "kubeletVersion": "v1.30.6",
                "containerRuntimeVersion": "containerd://1.7.22",
                "osImage": "Ubuntu 22.04.5 LTS",
            },
        },
    }
    if i % 50 == 0:
        n["spec"]["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    return n


def pod(i: int, node_name: str, rng: random.Random) -> dict:
    app = APPS[i % len(APPS)]
    ns = f"team-{i % 40}"
    rs = f"{app}-{(i // 7) % 500:05x}"
    name = f"{rs}-{i:06x}"
    cpu = rng.choice(["50m", "100m", "250m", "500m", None])
    mem = rng.choice(["64Mi", "128Mi", "256Mi", "512Mi", None])
    requests = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v}
    container = {
        "name": app,
        "image": f"registry.example.com/{app}:v{rng.randint(1, 9)}",
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
        "env": [
            {"name": "APP", "value": app},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        ],
        "resources": {"requests": requests} if requests else {},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True}
        ],
    }
    p = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": ns,
            "uid": f"{i:08x}-aaaa-bbbb-cccc-dddddddddddd",
            "resourceVersion": str(200000 + i),
            "creationTimestamp": "2026-11-20T08:00:00Z",
            "generateName": f"{rs}-",
            "labels": {"app": app, "pod-template-hash": rs.split("-")[-1], "team": ns},
            "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-20T07:59:00Z"},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": rs,
                    "uid": f"rs-{rs}",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": [
                {
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "2026-11-20T08:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}}}},
                }
            ],
        },
        "spec": {
            "nodeName": node_name,
            "containers": [container],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default",
            "securityContext": {},
            "schedulerName": "default-scheduler",
            "priority": 0,
            "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority",
            "tolerations": [
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
                {
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
            ],
            "volumes": [
                {
                    "name": "kube-api-access",
                    "projected": {"sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}}]},
                }
            ],
        },
        "status": {
            "phase": "Running",
            "hostIP": "10.0.0.1",
            "podIP": f"10.244.{i // 256 % 256}.{i % 256}",
            "startTime": "2026-11-20T08:00:02Z",
            "qosClass": "Burstable",
            "conditions": [
                {"type": t, "status": "True", "lastTransitionTime": "2026-11-20T08:00:05Z"}
                for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
            ],
            "containerStatuses": [
                {
                    "name": app,
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "image": container["image"],
                    "imageID": f"registry.example.com/{app}@sha256:{i:064x}",
                    "containerID": f"containerd://{i:064x}",
                    "state": {"running": {"startedAt": "2026-11-20T08:00:04Z"}},
                }
            ],
        },
    }
    if i % 20 == 0:
        p["spec"]["affinity"] = {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 100,
                        "podAffinityTerm": {
                            "topologyKey": "kubernetes.io/hostname",
                            "labelSelector": {"matchLabels": {"app": app}},
                        },
                    }
                ]
            }
        }
    return p


def generate(nodes: int, pods_per_node: int, out: str, seed: int = 1) -> None:
    rng = random.Random(seed)
    with open(out, "w") as fh:
        fh.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        first = True
        k = 0
        for i in range(nodes):
            fh.write(("" if first else ",\n") + json.dumps(node(i, rng), indent=None))
            first = False
        for i in range(nodes):
            name = f"node-{i:05d}"
            for _ in range(pods_per_node):
                fh.write(",\n" + json.dumps(pod(k, name, rng)))
                k += 1
        fh.write('\n    ],\n    "kind": "List",\n    "metadata": {"resourceVersion": ""}\n}\n')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods-per-node", type=int, default=28)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    generate(a.nodes, a.pods_per_node, a.output, a.seed)
    print(f"wrote {a.output}: {a.nodes} nodes, {a.nodes * a.pods_per_node} pods", file=sys.stderr)


if __name__ == "__main__":
    main()
