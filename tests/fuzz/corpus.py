"""The seed inputs the fuzzer mutates: a small cluster, the manifests of each command, a
scheduler configuration, and the flags each command takes (with values around their limits)."""

from __future__ import annotations

from typing import Any


def node(
    name: str, *, cpu: str = "4", memory: str = "8Gi", labels: dict[str, str] | None = None, **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", **(labels or {})},
        },
        "spec": spec,
        "status": {
            "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod_spec(cpu: str = "500m", memory: str = "256Mi") -> dict[str, Any]:
    return {
        "containers": [
            {"name": "app", "image": "nginx:1.27", "resources": {"requests": {"cpu": cpu, "memory": memory}}}
        ]
    }


def running_pod(name: str, node_name: str, owner: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"app": name.split("-")[0]}}
    if owner:
        meta["ownerReferences"] = [owner]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {**pod_spec(), "nodeName": node_name},
        "status": {"phase": "Running"},
    }


def cluster() -> dict[str, Any]:
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f", "uid": "rs-1", "controller": True}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds-1", "controller": True}
    items = [
        node("node-a", labels={"topology.kubernetes.io/zone": "a"}),
        node("node-b", labels={"topology.kubernetes.io/zone": "b"}),
        node(
            "node-c",
            cpu="8",
            memory="16Gi",
            labels={"topology.kubernetes.io/zone": "b"},
            taints=[{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}],
        ),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "default", "uid": "ds-1"},
            "spec": {
                "selector": {"matchLabels": {"app": "agent"}},
                "template": {"metadata": {"labels": {"app": "agent"}}, "spec": pod_spec("100m", "64Mi")},
            },
        },
        running_pod("web-5d4f-aaaaa", "node-a", rs),
        running_pod("web-5d4f-bbbbb", "node-b", rs),
        running_pod("agent-x1", "node-a", ds),
        running_pod("agent-x2", "node-b", ds),
        running_pod("bare", "node-b"),
    ]
    return {"apiVersion": "v1", "kind": "List", "items": items}


def pod() -> dict[str, Any]:
    spec = pod_spec("1", "512Mi")
    spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]
    spec["affinity"] = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 10,
                    "preference": {
                        "matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["b"]}]
                    },
                }
            ]
        }
    }
    spec["topologySpreadConstraints"] = [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "api"}},
        }
    ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "api", "labels": {"app": "api"}}, "spec": spec}


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "default"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "api"}},
            "template": {"metadata": {"labels": {"app": "api"}}, "spec": pod_spec("700m", "1Gi")},
        },
    }


def job() -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "batch", "namespace": "default"},
        "spec": {
            "parallelism": 2,
            "completions": 4,
            "template": {"spec": {**pod_spec("2", "1Gi"), "restartPolicy": "Never"}},
        },
    }


def statefulset() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": pod_spec("1", "2Gi")},
        },
    }


def config() -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "pluginConfig": [
                    {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}},
                    {"name": "PodTopologySpread", "args": {"defaultingType": "List"}},
                ],
            }
        ],
    }


# values that have crashed parsers and converters before: types swapped, limits crossed,
# numbers out of range, strings Kubernetes refuses
INTERESTING: tuple[Any, ...] = (
    None,
    "",
    " ",
    0,
    -1,
    1,
    2**31,
    2**63,
    -(2**63) - 1,
    10**30,
    1.5,
    -0.0,
    1e308,
    float("inf"),
    True,
    False,
    [],
    {},
    [None],
    {"": ""},
    "x" * 300,
    "0",
    "-1",
    "1e1000",
    "1Ei",
    "0.0000001m",
    "NaN",
    "1.5.5",
    "a/b/c",
    "-leading",
    "UPPER",
    "nul\x00byte",
    "\u202etext",
    "::",
    "${VAR}",
    "<script>",
    "99999999999999999999999999999",
    "1m",
    "100Ti",
    "Exists",
    "DoesNotExist",
    "In",
    "NoSchedule",
)

# flags, their usual values, and values past their limits (None: a flag that takes no value)
COMMON_FLAGS: tuple[tuple[str, tuple[str, ...] | None, tuple[str, ...]], ...] = (
    ("--max-input-size", ("1K", "500M", "64G"), ("1", "65G", "0", "-1", "9" * 40 + "G", "abc", "1.5G")),
    ("--request-timeout", ("0", "30s", "1m30s", "24h"), ("25h", "9" * 30 + "h", "-1s", "1x", "1e9")),
    ("--scheduler-version", ("1.30", "1.34.2", "1.36", "1.37"), ("1.29", "1.99", "2.0", "x", "1.36.999")),
    ("--feature-gates", ("PodLevelResources=true",), ("", "Nope=true", "DynamicResourceAllocation=maybe", "=,")),
    ("--profile", ("default-scheduler",), ("missing", "")),
    ("--without-node", ("node-a", "node-b"), ("node-z", "")),
    (
        "--add-node",
        ("{node}", "{node}:2", "{node}:40"),
        ("{node}:0", "{node}:5001", "{node}:x", "{node}:-3", "missing.yaml:1"),
    ),
    ("-o", ("table", "wide", "json", "yaml", "markdown", "junit", "github", "sarif", "html"), ("csv",)),
    ("--no-preemption", None, ()),
    ("--quiet", None, ()),
)
COMMAND_FLAGS: dict[str, tuple[tuple[str, tuple[str, ...] | None, tuple[str, ...]], ...]] = {
    "schedule": (("--node", ("node-a",), ("nope",)), ("--explain", ("grouped", "all"), ("x",))),
    "check": (
        ("--strict", None, ()),
        ("--surge", None, ()),
        ("--hpa-max", None, ()),
        ("-n", ("default",), ("other", "Bad_NS")),
    ),
    "capacity": (("--max", ("1", "5", "150000"), ("150001", "0", "-2", "x")), ("--min", ("0", "3"), ("150001", "-1"))),
    "drain": (
        ("--ignore-daemonsets", None, ()),
        ("--delete-emptydir-data", None, ()),
        ("--force", None, ()),
        ("--disable-eviction", None, ()),
        ("--pod-selector", ("app=web",), ("app in (", "!!")),
    ),
}
