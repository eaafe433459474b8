"""Small fluent builders for tests, in the spirit of upstream's testing wrappers.

    pod = make_pod().name("p").namespace("default").req(cpu="1", memory="1Gi").obj()
    node = make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").label("zone", "a").obj()

Builders produce manifest dicts and parse them through the same code as real input, so tests
exercise the real parsing and defaulting.

Pods, handles and clusters are built as kube-scheduler PINNED (1.30.6) builds them unless a test
names another release: the expectations of the tests written before kwhatif knew other releases
are 1.30.6's answers.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from kwhatif.api import parse
from kwhatif.api.core import Node, Pod
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import ClusterState
from kwhatif.cache.snapshot import Snapshot
from kwhatif.config.types import PluginRef, PluginSet, Profile
from kwhatif.controlplane.admission.pod import Admission
from kwhatif.framework.handle import Handle, Nominator
from kwhatif.framework.runtime import Framework, Registry
from kwhatif.plugins.registry import in_tree
from kwhatif.release.versions import SchedulerVersion, get

PINNED: SchedulerVersion = get("1.30.6")


class PodBuilder:
    def __init__(self) -> None:
        self.d: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "pod", "namespace": "default", "uid": ""},
            "spec": {"containers": [{"name": "c0", "image": "nginx"}]},
        }

    # metadata
    def name(self, n: str) -> PodBuilder:
        self.d["metadata"]["name"] = n
        if not self.d["metadata"].get("uid"):
            self.d["metadata"]["uid"] = f"uid-{n}"
        return self

    def namespace(self, ns: str) -> PodBuilder:
        self.d["metadata"]["namespace"] = ns
        return self

    def uid(self, uid: str) -> PodBuilder:
        self.d["metadata"]["uid"] = uid
        return self

    def label(self, k: str, v: str) -> PodBuilder:
        self.d["metadata"].setdefault("labels", {})[k] = v
        return self

    def labels(self, **kv: str) -> PodBuilder:
        for k, v in kv.items():
            self.label(k, v)
        return self

    def owner(self, kind: str, name: str, uid: str = "", api_version: str = "apps/v1") -> PodBuilder:
        self.d["metadata"].setdefault("ownerReferences", []).append(
            {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid or f"uid-{name}", "controller": True}
        )
        return self

    def created(self, ts: str) -> PodBuilder:
        self.d["metadata"]["creationTimestamp"] = ts
        return self

    def terminating(self) -> PodBuilder:
        self.d["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
        return self

    # spec
    def node(self, n: str) -> PodBuilder:
        self.d["spec"]["nodeName"] = n
        return self

    def priority(self, p: int) -> PodBuilder:
        self.d["spec"]["priority"] = p
        return self

    def preemption_policy(self, p: str) -> PodBuilder:
        self.d["spec"]["preemptionPolicy"] = p
        return self

    def scheduler_name(self, n: str) -> PodBuilder:
        self.d["spec"]["schedulerName"] = n
        return self

    def req(self, **res: str) -> PodBuilder:
        """Requests on the first container; '_' in names stands for '-' and '__' for '/'."""
        c = self.d["spec"]["containers"][0]
        c.setdefault("resources", {}).setdefault("requests", {}).update(_names(res))
        return self

    def limits(self, **res: str) -> PodBuilder:
        c = self.d["spec"]["containers"][0]
        c.setdefault("resources", {}).setdefault("limits", {}).update(_names(res))
        return self

    def container(self, name: str, image: str = "nginx", **res: str) -> PodBuilder:
        c: dict[str, Any] = {"name": name, "image": image}
        if res:
            c["resources"] = {"requests": _names(res)}
        self.d["spec"]["containers"].append(c)
        return self

    def init_container(self, name: str, sidecar: bool = False, **res: str) -> PodBuilder:
        c: dict[str, Any] = {"name": name, "image": "busybox"}
        if res:
            c["resources"] = {"requests": _names(res)}
        if sidecar:
            c["restartPolicy"] = "Always"
        self.d["spec"].setdefault("initContainers", []).append(c)
        return self

    def image(self, image: str) -> PodBuilder:
        self.d["spec"]["containers"][0]["image"] = image
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> PodBuilder:
        p: dict[str, Any] = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if host_ip:
            p["hostIP"] = host_ip
        self.d["spec"]["containers"][0].setdefault("ports", []).append(p)
        return self

    def node_selector(self, **kv: str) -> PodBuilder:
        self.d["spec"].setdefault("nodeSelector", {}).update(kv)
        return self

    def toleration(self, key: str = "", operator: str = "Equal", value: str = "", effect: str = "") -> PodBuilder:
        t: dict[str, Any] = {"operator": operator}
        if key:
            t["key"] = key
        if value:
            t["value"] = value
        if effect:
            t["effect"] = effect
        self.d["spec"].setdefault("tolerations", []).append(t)
        return self

    def affinity(self, aff: dict[str, Any]) -> PodBuilder:
        self.d["spec"]["affinity"] = copy.deepcopy(aff)
        return self

    def spread(
        self,
        max_skew: int,
        key: str,
        when: str = "DoNotSchedule",
        selector: dict[str, Any] | None = None,
        **extra: Any,
    ) -> PodBuilder:
        c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
        if selector is not None:
            c["labelSelector"] = selector
        c.update(extra)
        self.d["spec"].setdefault("topologySpreadConstraints", []).append(c)
        return self

    def volume(self, v: dict[str, Any]) -> PodBuilder:
        self.d["spec"].setdefault("volumes", []).append(copy.deepcopy(v))
        return self

    def pvc(self, claim: str, name: str | None = None, read_only: bool = False) -> PodBuilder:
        return self.volume(
            {"name": name or claim, "persistentVolumeClaim": {"claimName": claim, "readOnly": read_only}}
        )

    def gate(self, name: str) -> PodBuilder:
        self.d["spec"].setdefault("schedulingGates", []).append({"name": name})
        return self

    def overhead(self, **res: str) -> PodBuilder:
        self.d["spec"]["overhead"] = _names(res)
        return self

    def phase(self, phase: str) -> PodBuilder:
        self.d.setdefault("status", {})["phase"] = phase
        return self

    def nominated(self, node: str) -> PodBuilder:
        self.d.setdefault("status", {})["nominatedNodeName"] = node
        return self

    def start_time(self, ts: str) -> PodBuilder:
        self.d.setdefault("status", {})["startTime"] = ts
        return self

    def set(self, path: str, value: Any) -> PodBuilder:
        """Set any field by dotted path, e.g. set('spec.hostNetwork', True)."""
        cur = self.d
        parts = path.split(".")
        for p in parts[:-1]:
            cur = cur.setdefault(p, {})
        cur[parts[-1]] = value
        return self

    def dict(self) -> dict[str, Any]:
        return copy.deepcopy(self.d)

    def obj(self, admission: Admission | None = None, version: SchedulerVersion | None = None) -> Pod:
        if not self.d["metadata"].get("uid"):
            self.d["metadata"]["uid"] = f"uid-{self.d['metadata'].get('name', 'pod')}"
        if admission is None:
            v = version or PINNED
            admission = Admission({}, {}, v, PodRules.of(v))
        pod = parse.pod(self.dict(), rules=admission.rules)
        return admission.admit(pod, strict=False)


class NodeBuilder:
    def __init__(self) -> None:
        self.d: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "node", "labels": {}},
            "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }

    def name(self, n: str) -> NodeBuilder:
        self.d["metadata"]["name"] = n
        self.d["metadata"]["labels"].setdefault("kubernetes.io/hostname", n)
        return self

    def label(self, k: str, v: str) -> NodeBuilder:
        self.d["metadata"]["labels"][k] = v
        return self

    def labels(self, **kv: str) -> NodeBuilder:
        self.d["metadata"]["labels"].update(kv)
        return self

    def capacity(self, **res: str) -> NodeBuilder:
        self.d["status"]["allocatable"] = _names(res)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        t: dict[str, Any] = {"key": key, "effect": effect}
        if value:
            t["value"] = value
        self.d["spec"].setdefault("taints", []).append(t)
        return self

    def unschedulable(self) -> NodeBuilder:
        self.d["spec"]["unschedulable"] = True
        return self

    def image(self, size: int, *names: str) -> NodeBuilder:
        self.d["status"].setdefault("images", []).append({"names": list(names), "sizeBytes": size})
        return self

    def dict(self) -> dict[str, Any]:
        return copy.deepcopy(self.d)

    def obj(self) -> Node:
        return parse.node(self.dict())


def make_pod() -> PodBuilder:
    return PodBuilder()


def make_node() -> NodeBuilder:
    return NodeBuilder()


def _names(res: dict[str, str]) -> dict[str, str]:
    return {k.replace("__", "/").replace("_", "-"): v for k, v in res.items()}


# The least a framework needs (NewFramework requires a queue sort and a bind plugin), as
# upstream's plugin tests register them with RegisterQueueSortPlugin and RegisterBindPlugin.
MINIMAL_PROFILE = Profile(
    "default-scheduler",
    {"queueSort": PluginSet((PluginRef("PrioritySort"),)), "bind": PluginSet((PluginRef("DefaultBinder"),))},
    {},
)


def make_framework(
    nodes: Iterable[Node],
    pods: Iterable[Pod] = (),
    cluster: ClusterState | None = None,
    version: SchedulerVersion | None = None,
    *,
    profile: Profile = MINIMAL_PROFILE,
    registry: Registry | None = None,
    nominator: Nominator | None = None,
) -> Framework:
    """A Framework (the Handle plugins get) over a fresh Snapshot of these nodes and (bound)
    pods, for plugins of ``version`` (default PINNED); by default only a queue sort and a bind
    plugin, from the in-tree registry."""
    nodes = list(nodes)
    pods = list(pods)
    version = version or (cluster.version if cluster is not None else PINNED)
    state = cluster or ClusterState(version=version)
    if not state.nodes:
        state.nodes = {n.name: n for n in nodes}
    if not state.pods:
        state.pods = pods
    return Framework(
        registry if registry is not None else in_tree(),
        profile,
        snapshot=Snapshot(nodes, pods),
        cluster=state,
        nominator=nominator,
        version=version,
    )


def make_handle(
    nodes: Iterable[Node],
    pods: Iterable[Pod] = (),
    cluster: ClusterState | None = None,
    version: SchedulerVersion | None = None,
) -> Handle:
    """A Handle over a fresh Snapshot of these nodes and (bound) pods, for plugins of ``version``
    (default PINNED): a Framework with only a queue sort and a bind plugin."""
    return make_framework(nodes, pods, cluster, version)


def make_cluster(objs: Iterable[dict[str, Any]], version: SchedulerVersion | None = None) -> ClusterState:
    """A ClusterState of manifests (storage objects, namespaces, ...), read as the loader reads them
    (for ``version``, default PINNED)."""
    from kwhatif.load.cluster import READ_KINDS, build_cluster
    from kwhatif.load.files import Document

    def api_version(o: dict[str, Any]) -> str:
        return str(o.get("apiVersion") or min(READ_KINDS[o["kind"]][0]))

    return build_cluster(
        (Document(o, "test", o["kind"], api_version(o)) for o in objs), check_node_refs=False, version=version or PINNED
    )


def pre_filter_then_filter(plugin: Any, pod: Pod, node_info: Any) -> tuple[Any, tuple[str, ...]]:
    """The PreFilter status (code, reasons) when it is not Success, else the node's Filter status."""
    from kwhatif.framework.interface import CycleState

    st = CycleState()
    _, pre = plugin.pre_filter(st, pod)
    if not pre.is_success():
        return pre.code, pre.reasons
    s = plugin.filter(st, pod, node_info)
    return s.code, s.reasons


def plugin_args(name: str, args: dict[str, Any] | None = None, version: SchedulerVersion | None = None) -> Any:
    """The typed args of plugin ``name`` as a KubeSchedulerConfiguration whose pluginConfig gives it
    ``args`` has them, decoded, defaulted and validated by kwhatif.config (a ConfigError names the
    field under ``profiles[0].pluginConfig[0].args``); without ``args``, the release's defaults."""
    import json

    from kwhatif.config.defaults import default_args
    from kwhatif.config.load import parse_configuration

    version = version or PINNED
    if args is None:
        return default_args(version).get(name)
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"pluginConfig": [{"name": name, "args": args}]}],
    }
    return parse_configuration(json.dumps(doc), "", version).profiles[0].plugin_config[name]
