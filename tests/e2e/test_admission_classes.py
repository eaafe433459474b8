"""What a real cluster does before and around the scheduler, from the installed command: the API
server's admission of objects that create no pods, the kubelet's admission of pods bound by
spec.nodeName, `schedule` agreeing with `check`, and the pods of common operators."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

NODES = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: cordoned
    labels: {kubernetes.io/hostname: cordoned, kubernetes.io/os: linux, disk: ssd}
  spec:
    unschedulable: true
    taints:
    - {key: node.kubernetes.io/unschedulable, effect: NoSchedule}
    - {key: dedicated, value: batch, effect: NoSchedule}
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "110", ephemeral-storage: 20Gi}
    capacity: {cpu: "2", memory: 4Gi, pods: "110", ephemeral-storage: 20Gi}
    nodeInfo: {kubeletVersion: v1.33.2}
- apiVersion: v1
  kind: Node
  metadata:
    name: evicting
    labels: {kubernetes.io/hostname: evicting, kubernetes.io/os: linux}
  spec:
    taints:
    - {key: maintenance, effect: NoExecute}
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "110", ephemeral-storage: 20Gi}
    capacity: {cpu: "2", memory: 4Gi, pods: "110", ephemeral-storage: 20Gi}
    nodeInfo: {kubeletVersion: v1.33.2}
- apiVersion: v1
  kind: Node
  metadata:
    name: plain
    labels: {kubernetes.io/hostname: plain, kubernetes.io/os: linux}
  status:
    allocatable: {cpu: "8", memory: 16Gi, pods: "110", ephemeral-storage: 20Gi}
    capacity: {cpu: "8", memory: 16Gi, pods: "110", ephemeral-storage: 20Gi}
    nodeInfo: {kubeletVersion: v1.33.2}
- apiVersion: v1
  kind: Namespace
  metadata: {name: default}
- apiVersion: v1
  kind: Namespace
  metadata: {name: kube-system}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata:
    name: standard
    annotations: {storageclass.kubernetes.io/is-default-class: "true"}
  provisioner: rancher.io/local-path
  volumeBindingMode: WaitForFirstConsumer
"""


@pytest.fixture
def cluster(tmp_path: Path) -> str:
    p = tmp_path / "cluster.yaml"
    p.write_text(NODES)
    return str(p)


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def rows(out: str) -> list[tuple[str, str, object, str, str | None]]:
    return [
        (
            w["kind"],
            f"{w['namespace']}/{w['name']}" if w["namespace"] else w["name"],
            w["desired"],
            w["verdict"],
            w["dominantReason"],
        )
        for w in json.loads(out)["workloads"]
    ]


# --- admission of objects that create no pods ------------------------------------------------------


def test_namespace_lifecycle_refuses_objects_that_create_no_pods(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "ghost.yaml",
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: idle, namespace: ghost}
        spec:
          replicas: 0
          selector: {matchLabels: {app: idle}}
          template:
            metadata: {labels: {app: idle}}
            spec: {containers: [{name: c, image: nginx}]}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: nowhere, namespace: ghost}
        spec:
          selector: {matchLabels: {app: nowhere}}
          template:
            metadata: {labels: {app: nowhere}}
            spec:
              nodeSelector: {no-such-label: "true"}
              containers: [{name: c, image: nginx}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: svc, namespace: ghost}
        spec: {ports: [{port: 80}]}
        ---
        apiVersion: example.com/v1
        kind: Widget
        metadata: {name: w, namespace: ghost}
        spec: {replicas: 2}
        """,
    )
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert r.code == 1, r.err
    refusal = 'namespaces "ghost" not found'
    assert rows(r.out) == [
        ("Deployment", "ghost/idle", 0, "refused by NamespaceLifecycle", refusal),
        ("DaemonSet", "ghost/nowhere", 0, "refused by NamespaceLifecycle", refusal),
        ("Widget", "ghost/w", None, "refused by NamespaceLifecycle", refusal),
        ("Service", "ghost/svc", None, "refused by NamespaceLifecycle", refusal),
    ]
    # the namespace created by the same manifests: every object is admitted
    ns = write(tmp_path, "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: ghost}\n")
    r = run("check", ns, manifest, "--cluster", cluster, "-o", "json", "--strict")
    verdicts = [(k, n, v) for k, n, _, v, _ in rows(r.out)]
    assert verdicts == [
        ("Deployment", "ghost/idle", "fits"),
        ("DaemonSet", "ghost/nowhere", "no eligible nodes"),
        ("Widget", "ghost/w", "not checked"),
    ]


def test_removed_workload_api_versions_are_not_served(run, tmp_path, cluster):
    docs = []
    for api, kind in (
        ("extensions/v1beta1", "Deployment"),
        ("extensions/v1beta1", "ReplicaSet"),
        ("extensions/v1beta1", "DaemonSet"),
        ("apps/v1beta1", "Deployment"),
        ("apps/v1beta2", "StatefulSet"),
        ("batch/v1beta1", "CronJob"),
    ):
        docs.append(
            f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: old-{kind.lower()}}}\n"
            "spec:\n  template:\n    metadata: {labels: {app: old}}\n"
            "    spec: {containers: [{name: c, image: nginx}]}\n"
        )
    manifest = write(tmp_path, "old.yaml", "---\n".join(docs))
    r = run("check", manifest, "--cluster", cluster)
    assert r.code == 1, r.err
    lines = r.out.splitlines()
    for api, kind in (("extensions/v1beta1", "Deployment"), ("extensions/v1beta1", "DaemonSet")):
        assert f'  no matches for kind "{kind}" in version "{api}"' in lines
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert [(k, v, reason) for k, _, _, v, reason in rows(r.out)] == [
        ("Deployment", "refused by the API server", 'no matches for kind "Deployment" in version "extensions/v1beta1"'),
        ("ReplicaSet", "refused by the API server", 'no matches for kind "ReplicaSet" in version "extensions/v1beta1"'),
        ("DaemonSet", "refused by the API server", 'no matches for kind "DaemonSet" in version "extensions/v1beta1"'),
        ("Deployment", "refused by the API server", 'no matches for kind "Deployment" in version "apps/v1beta1"'),
        ("StatefulSet", "refused by the API server", 'no matches for kind "StatefulSet" in version "apps/v1beta2"'),
        ("CronJob", "refused by the API server", 'no matches for kind "CronJob" in version "batch/v1beta1"'),
    ]


def test_resource_requirements_are_validated_as_the_api_server_does(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "res.yaml",
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: gpu-no-limit}
        spec:
          containers:
          - {name: c, image: cuda, resources: {requests: {nvidia.com/gpu: 1}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: hugepages-alone}
        spec:
          containers:
          - {name: c, image: db, resources: {limits: {hugepages-2Mi: 3Mi}}}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: gpu-below-limit}
        spec:
          replicas: 2
          selector: {matchLabels: {app: g}}
          template:
            metadata: {labels: {app: g}}
            spec:
              containers:
              - {name: c, image: cuda, resources: {requests: {example.com/fpga: 1}, limits: {example.com/fpga: 2}}}
        """,
    )
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert r.code == 1, r.err
    got = {w["name"]: (w["verdict"], w["message"]) for w in json.loads(r.out)["workloads"]}
    assert got["gpu-no-limit"] == (
        "refused by the API server",
        "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
    )
    # every error of the resource requirements, as the API server lists them
    assert got["hugepages-alone"] == (
        "refused by the API server",
        '[spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer '
        'multiple of hugepages-2Mi, spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3Mi": '
        "3Mi is not positive integer multiple of hugepages-2Mi, spec.containers[0].resources: Forbidden: "
        "HugePages require cpu or memory]",
    )
    assert got["gpu-below-limit"] == (
        "refused by the API server",
        'spec.template.spec.containers[0].resources.requests: Invalid value: "1": must be equal to '
        "example.com/fpga limit of 2",
    )


def test_limit_range_refusal_lists_every_violated_limit(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "lr.yaml",
        """\
        apiVersion: v1
        kind: LimitRange
        metadata: {name: small}
        spec:
          limits:
          - type: Container
            default: {cpu: 10m, memory: 6Mi}
            defaultRequest: {cpu: 10m, memory: 6Mi}
            max: {cpu: 50m, memory: 20Mi}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: big}
        spec:
          containers:
          - {name: c, image: nginx, resources: {requests: {cpu: 150m, memory: 100Mi}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: over}
        spec:
          containers:
          - {name: c, image: nginx, resources: {limits: {cpu: 100m, memory: 30Mi}}}
        """,
    )
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert r.code == 1, r.err
    got = {w["name"]: (w["verdict"], w["message"]) for w in json.loads(r.out)["workloads"]}
    # LimitRanger's default limits make the requests invalid: both errors, as the API server says
    assert got["big"] == (
        "refused by LimitRange",
        'Pod "big" is invalid: [spec.containers[0].resources.requests: Invalid value: "150m": must be less than '
        'or equal to cpu limit of 10m, spec.containers[0].resources.requests: Invalid value: "100Mi": must be '
        "less than or equal to memory limit of 6Mi]",
    )
    assert got["over"] == (
        "refused by LimitRange",
        'pods "over" is forbidden: [maximum cpu usage per Container is 50m, but limit is 100m, maximum memory '
        "usage per Container is 20Mi, but limit is 30Mi]",
    )


def test_unknown_fields_are_refused_by_strict_field_validation(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "typo.yaml",
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: typo}
        spec:
          containres: []
          containers:
          - name: c
            image: nginx
            resource: {requests: {cpu: "64"}}
        ---
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db, lables: {app: db}}
        spec:
          serviceName: db
          selector: {matchLabels: {app: db}}
          template:
            metadata: {labels: {app: db}}
            spec:
              containers:
              - name: c
                image: postgres
                resources: {requets: {cpu: "64"}}
        ---
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: nightly}
        spec:
          schedule: "@daily"
          jobTemplate:
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: c, image: busybox, imagePullPolicy: Always}]
        """,
    )
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert r.code == 1, r.err
    assert [(k, n, v, reason) for k, n, _, v, reason in rows(r.out)] == [
        ("CronJob", "default/nightly", "fits", None),
        (
            "Pod",
            "default/typo",
            "refused by the API server",
            'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containres", '
            'unknown field "spec.containers[0].resource"',
        ),
        (
            "StatefulSet",
            "default/db",
            "refused by the API server",
            'StatefulSet in version "v1" cannot be handled as a StatefulSet: strict decoding error: unknown field '
            '"metadata.lables", unknown field "spec.template.spec.containers[0].resources.requets"',
        ),
    ]


def test_schedule_refuses_unknown_fields_too(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "pod.yaml",
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: typo}
        spec:
          containers: [{name: c, image: nginx, resources: {limit: {cpu: "1"}}}]
        """,
    )
    r = run("schedule", manifest, "--cluster", cluster)
    assert r.code == 2
    assert r.err.strip().splitlines()[-1] == (
        f'kwhatif: error: {manifest}: Pod default/typo: Pod in version "v1" cannot be handled as a Pod: strict '
        'decoding error: unknown field "spec.containers[0].resources.limit"'
    )


# --- pods bound by spec.nodeName: the kubelet's admission ---------------------------------------------


PINNED = """\
apiVersion: v1
kind: Pod
metadata: {name: on-cordoned}
spec:
  nodeName: cordoned
  containers: [{name: c, image: nginx, ports: [{containerPort: 80, hostPort: 8080}], resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: too-big}
spec:
  nodeName: cordoned
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "1500m"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: same-port}
spec:
  nodeName: cordoned
  containers: [{name: c, image: nginx, ports: [{containerPort: 80, hostPort: 8080}]}]
---
apiVersion: v1
kind: Pod
metadata: {name: wrong-disk}
spec:
  nodeName: evicting
  nodeSelector: {disk: ssd}
  tolerations: [{key: maintenance, operator: Exists}]
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: no-execute}
spec:
  nodeName: evicting
  containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pinned-app}
spec:
  replicas: 2
  selector: {matchLabels: {app: pinned}}
  template:
    metadata: {labels: {app: pinned}}
    spec:
      nodeName: cordoned
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def test_pods_with_node_name_are_admitted_by_the_kubelet(run, tmp_path, cluster):
    manifest = write(tmp_path, "pinned.yaml", PINNED)
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert r.code == 1, r.err
    d = json.loads(r.out)
    got = {w["name"]: (w["placed"], w["verdict"], w["dominantReason"], w["message"]) for w in d["workloads"]}
    # cordoned, and tainted NoSchedule: the scheduler never sees these pods, the kubelet runs them
    assert got["pinned-app"] == (2, "fits", None, None)
    assert got["on-cordoned"] == (1, "fits", None, None)
    assert got["too-big"] == (
        0,
        "DOES NOT FIT",
        "OutOfcpu",
        # the Deployment's two pods (workloads come first) and on-cordoned use 1200m of the 2 cpus
        "OutOfcpu: Pod was rejected: Node didn't have enough resource: cpu, requested: 1500, used: 1200, capacity: 2000",
    )
    assert got["same-port"] == (
        0,
        "DOES NOT FIT",
        "NodePorts",
        "NodePorts: Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested "
        "pod ports",
    )
    assert got["wrong-disk"][2:] == (
        "NodeAffinity",
        "NodeAffinity: Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node "
        "affinity/selector",
    )
    assert got["no-execute"][2:] == (
        "TaintToleration",
        "TaintToleration: Pod was rejected: Predicate TaintToleration failed: node(s) had taints that the pod "
        "didn't tolerate",
    )
    placed = {r["pod"]["name"]: r["node"] for r in d["results"] if r["status"] == "Scheduled"}
    assert placed["on-cordoned"] == "cordoned"
    note = next(w["notes"] for w in d["workloads"] if w["name"] == "pinned-app")
    assert any("spec.nodeName: the scheduler never sees them" in n for n in note)
    # `schedule` takes them the same way
    r = run("schedule", manifest.replace("pinned.yaml", "pinned.yaml"), "--cluster", cluster)
    assert r.code == 2  # a Deployment is check's
    pods_only = write(tmp_path, "pods.yaml", PINNED.split("---\napiVersion: apps/v1")[0])
    r = run("schedule", pods_only, "--cluster", cluster)
    assert r.code == 1, r.err
    lines = r.out.splitlines()
    assert "FITS default/on-cordoned -> cordoned" in lines
    assert "DOES NOT FIT default/too-big" in lines
    assert (
        "  OutOfcpu: Pod was rejected: Node didn't have enough resource: cpu, requested: 1500, used: 1000, "
        "capacity: 2000"
    ) in lines


# --- schedule agrees with check ----------------------------------------------------------------------


def test_schedule_creates_what_check_creates(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "eph.yaml",
        """\
        apiVersion: node.k8s.io/v1
        kind: RuntimeClass
        metadata: {name: gvisor}
        handler: runsc
        scheduling: {nodeSelector: {kubernetes.io/hostname: plain}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: eph-only}
        spec:
          runtimeClassName: gvisor
          volumes:
          - name: scratch
            ephemeral:
              volumeClaimTemplate:
                spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
          containers: [{name: c, image: nginx, volumeMounts: [{name: scratch, mountPath: /x}]}]
        """,
    )
    r = run("schedule", manifest, "--cluster", cluster)
    assert r.code == 0, r.out + r.err
    assert r.out.splitlines()[0].startswith("FITS default/eph-only -> plain")
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert r.code == 0, r.err
    assert [(w["name"], w["placed"], w["verdict"]) for w in json.loads(r.out)["workloads"]] == [("eph-only", 1, "fits")]


# --- pods of common operators --------------------------------------------------------------------------


OPERATORS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3
    workerTemplate:
      spec:
        containers: [{name: w, image: vllm, resources: {requests: {cpu: 500m}}}]
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  replicatedJobs:
  - name: driver
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: d, image: busybox}]
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 3
        completions: 3
        template:
          spec:
            restartPolicy: Never
            containers: [{name: w, image: busybox}]
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray}
spec:
  headGroupSpec:
    template:
      spec:
        containers: [{name: head, image: ray}]
  workerGroupSpecs:
  - groupName: small
    replicas: 9
    minReplicas: 1
    maxReplicas: 2
    numOfHosts: 2
    template:
      spec:
        containers: [{name: w, image: ray}]
---
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rayjob}
spec:
  entrypoint: python job.py
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers: [{name: head, image: ray}]
    workerGroupSpecs:
    - groupName: g
      replicas: 2
      template:
        spec:
          containers: [{name: w, image: ray}]
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: torch}
spec:
  pytorchReplicaSpecs:
    Master:
      template:
        spec:
          containers: [{name: pytorch, image: torch}]
    Worker:
      replicas: 3
      template:
        spec:
          containers: [{name: pytorch, image: torch}]
---
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: pi}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers: [{name: l, image: mpi}]
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{name: w, image: mpi, resources: {requests: {cpu: "64"}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cluster-queue}
spec: {namespaceSelector: {}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: user-queue}
spec: {clusterQueue: cluster-queue}
"""


def test_operators_pods_are_expanded_and_queues_run_none(run, tmp_path, cluster):
    manifest = write(tmp_path, "ops.yaml", OPERATORS)
    r = run("check", manifest, "--cluster", cluster, "-o", "json", "--strict")
    assert r.code == 1, r.err  # the MPIJob's workers ask for 64 cpus
    d = json.loads(r.out)
    got = [(w["kind"], w["name"], w["desired"], w["placed"], w["verdict"]) for w in d["workloads"]]
    assert got == [
        ("LeaderWorkerSet", "lws", 6, 6, "fits"),
        ("JobSet", "js", 7, 7, "fits"),
        ("RayCluster", "ray", 5, 5, "fits"),
        ("RayJob", "rayjob", 3, 3, "fits"),
        ("PyTorchJob", "torch", 4, 4, "fits"),
        ("MPIJob", "pi", 3, 1, "DOES NOT FIT"),
    ]
    pods = sorted(p["pod"]["name"] for p in d["results"] if p["pod"]["name"].startswith(("lws", "torch")))
    assert pods == [
        "lws-0",
        "lws-0-1",
        "lws-0-2",
        "lws-1",
        "lws-1-1",
        "lws-1-2",
        "torch-master-0",
        "torch-worker-0",
        "torch-worker-1",
        "torch-worker-2",
    ]
    # queue and flavor objects create no pods: counted on standard error, not listed
    assert (
        "kwhatif: note: objects in the manifests that run no pods, not checked: 1 ClusterQueue, 1 LocalQueue, "
        "1 ResourceFlavor"
    ) in r.err


def test_operator_pod_counts_are_bounded(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "huge.yaml",
        """\
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: huge}
        spec:
          replicas: 2000000
          leaderWorkerTemplate:
            size: 2000000
            workerTemplate:
              spec:
                containers: [{name: w, image: vllm}]
        """,
    )
    r = run("check", manifest, "--cluster", cluster)
    assert r.code == 2
    assert r.err.strip().splitlines()[-1] == (
        f"kwhatif: error: {manifest}:1: LeaderWorkerSet default/huge: spec.replicas x spec.leaderWorkerTemplate.size "
        "would make 4000000000000 pods, more than 100000 to place in one check"
    )


def test_cluster_scoped_custom_resources_have_no_namespace(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "crd.yaml",
        """\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: fleets.example.com}
        spec:
          group: example.com
          scope: Cluster
          names: {kind: Fleet, plural: fleets}
        ---
        apiVersion: example.com/v1
        kind: Fleet
        metadata: {name: global}
        spec: {replicas: 3}
        """,
    )
    r = run("check", manifest, "--cluster", cluster)
    lines = r.out.splitlines()
    assert lines[1].split()[:3] == ["Fleet", "global", "3"]
    assert any(line.startswith("note: Fleet global: Fleet (example.com) is a custom resource") for line in lines)


def test_suspended_jobs_are_not_checked_unless_admitted(run, tmp_path, cluster):
    manifest = write(
        tmp_path,
        "suspended.yaml",
        """\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: queued, labels: {kueue.x-k8s.io/queue-name: user-queue}}
        spec:
          suspend: true
          parallelism: 3
          completions: 3
          template:
            spec:
              restartPolicy: Never
              containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
        ---
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: js}
        spec:
          suspend: true
          replicatedJobs:
          - name: w
            replicas: 2
            template:
              spec:
                template:
                  spec:
                    restartPolicy: Never
                    containers: [{name: c, image: busybox, resources: {requests: {cpu: "4"}}}]
        """,
    )
    r = run("check", manifest, "--cluster", cluster)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[1].split() == ["Job", "default/queued", "3", "-", "-", "not", "checked"]
    assert (
        "note: Job default/queued: Job: suspended (spec.suspend true): it creates none of its 3 pod(s) until it is "
        "resumed (Kueue resumes what it admits), so they are not checked; --admit-suspended checks them as if it "
        "were resumed"
    ) in lines
    r = run("check", manifest, "--cluster", cluster, "--strict", "-o", "github")
    assert r.code == 1
    assert "title=Job default/queued%3A not checked (suspended)::" in r.out
    r = run("check", manifest, "--cluster", cluster, "--admit-suspended", "-o", "json")
    assert r.code == 1, r.err  # 2 x 4 cpus: one JobSet pod finds no room
    got = [(w["kind"], w["desired"], w["placed"], w["verdict"]) for w in json.loads(r.out)["workloads"]]
    assert got == [("Job", 3, 3, "fits"), ("JobSet", 2, 1, "DOES NOT FIT")]


def test_leader_worker_set_exclusive_placement(run, tmp_path):
    nodes = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {n}\n"
        f"    labels: {{kubernetes.io/hostname: {n}, pool: {n}}}\n"
        '  status:\n    allocatable: {cpu: "8", memory: 16Gi, pods: "110"}\n'
        for n in ("pool-a", "pool-b")
    )
    cluster = write(tmp_path, "pools.yaml", nodes)
    manifest = write(
        tmp_path,
        "lws.yaml",
        """\
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata:
          name: lws
          annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: pool}
        spec:
          replicas: 3
          leaderWorkerTemplate:
            size: 2
            workerTemplate:
              spec:
                containers: [{name: w, image: vllm, resources: {requests: {cpu: 100m}}}]
        """,
    )
    r = run("check", manifest, "--cluster", cluster, "-o", "json")
    assert r.code == 1, r.err
    d = json.loads(r.out)
    (w,) = d["workloads"]
    # each group alone in one pool: two groups fit, the third finds no pool of its own
    assert (w["desired"], w["placed"], w["notPlaced"]) == (6, 4, 2)
    where = {p["pod"]["name"]: p["node"] for p in d["results"] if p["status"] == "Scheduled"}
    assert where["lws-0"] == where["lws-0-1"] and where["lws-1"] == where["lws-1-1"]
    assert where["lws-0"] != where["lws-1"]
    assert "lws-2" not in where and "lws-2-1" not in where
