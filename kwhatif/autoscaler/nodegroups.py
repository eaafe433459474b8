"""Node groups as cluster-autoscaler sees them: from a NodeGroups file (kind NodeGroups of
kwhatif/v1), or discovered from the provider labels of the existing nodes, with their sizes from
the cluster-autoscaler-status ConfigMap (its structured YAML form and its older text form).

cluster-autoscaler asks its cloud provider for the groups (cloudprovider.NodeGroups, TargetSize,
MinSize, MaxSize, TemplateNodeInfo); this module is that cloud provider, offline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import yaml

from kwhatif.api import fields as f
from kwhatif.api import parse
from kwhatif.api.core import Node
from kwhatif.api.labels import selector_from_set
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.cache.cluster import ClusterState
from kwhatif.errors import FieldError, InputError

API_VERSION = "kwhatif/v1"
KIND = "NodeGroups"
STATUS_CONFIG_MAP = "kube-system/cluster-autoscaler-status"
PRIORITY_CONFIG_MAP = "kube-system/cluster-autoscaler-priority-expander"

# A group whose maximum is unknown is treated as unbounded: this many nodes.
UNBOUNDED = 1_000_000

# The labels cloud providers and cluster APIs put on a node naming its group, in the order a
# node's group is looked up (the first label it has wins).
PROVIDER_LABELS = (
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "cloud.google.com/gke-nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",  # AKS before kubernetes.azure.com/agentpool
    "cluster.x-k8s.io/deployment-name",
    "machine.openshift.io/cluster-api-machineset",
)


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """One node group: its size bounds, its nodes, the template of a new node when it has none
    (scale from zero), and its price per node and hour (the price expander)."""

    name: str
    min_size: int
    max_size: int  # UNBOUNDED when unknown (max_known False)
    nodes: tuple[str, ...]  # existing nodes, by name
    target_size: int  # cloudProviderTarget: the status ConfigMap's, else its node count
    template: Node | None = None
    price: float | None = None
    max_known: bool = True
    source: str = ""  # where the group comes from: the file, or the provider label


@dataclass(frozen=True, slots=True)
class NodeGroupSet:
    """The groups and cluster-autoscaler's options the NodeGroups file gives (flags win)."""

    groups: tuple[NodeGroup, ...]
    expander: str | None = None
    max_nodes_total: int | None = None
    cores_total: tuple[int, int] | None = None  # cores
    memory_total: tuple[int, int] | None = None  # bytes
    pod_price: tuple[float, float] | None = None  # per CPU and per GiB, per hour
    balance_similar_node_groups: bool | None = None
    priorities: Mapping[int, tuple[str, ...]] | None = None
    source: str = ""
    notes: tuple[str, ...] = ()

    def group_of(self) -> dict[str, str]:
        """Node name -> its group's name."""
        return {n: g.name for g in self.groups for n in g.nodes}


# --- the NodeGroups file ---------------------------------------------------------------------


def _min_max(value: object, path: str, unit: str) -> tuple[int, int]:
    """CA's "<min>:<max>" of --cores-total (cores) and --memory-total (GiB, or a quantity here)."""
    text = str(value)
    parts = text.split(":")
    if len(parts) != 2:
        raise f.invalid(path, value, "must be <min>:<max>")
    out: list[int] = []
    for part in parts:
        try:
            if unit == "memory" and not part.strip().isdigit():
                amount = parse_quantity(part.strip())
            else:
                amount = Fraction(int(part.strip())) * (2**30 if unit == "memory" else 1)
        except (ValueError, QuantityError):
            raise f.invalid(path, value, "must be <min>:<max> with two non-negative amounts") from None
        if amount < 0:
            raise f.invalid(path, value, "must be <min>:<max> with two non-negative amounts")
        out.append(int(amount))
    if out[0] > out[1]:
        raise f.invalid(path, value, "min must not be greater than max")
    return out[0], out[1]


def parse_min_max(text: str, flag: str, unit: str) -> tuple[int, int]:
    """--cores-total / --memory-total as given on the command line."""
    try:
        return _min_max(text, flag, unit)
    except FieldError as e:
        raise InputError(e.message, field=flag) from None


def _number(d: Mapping[str, Any], key: str, path: str) -> float | None:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise f.type_error(f.join(path, key), v, "number")
    try:
        out = float(v)
    except ValueError:
        raise f.invalid(f.join(path, key), v, "must be a number") from None
    if out < 0 or out != out:
        raise f.invalid(f.join(path, key), v, "must be a non-negative number")
    return out


def _priorities(raw: object, path: str) -> dict[int, tuple[str, ...]]:
    """The priority expander's table: priority -> regular expressions of group names (its
    ConfigMap's `priorities` YAML, expander/priority/priority.go parsePrioritiesYAMLString)."""
    if isinstance(raw, str):
        try:
            raw = yaml.safe_load(raw)
        except yaml.YAMLError as e:
            raise f.invalid(path, "...", f"not YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(raw, dict) or not raw:
        raise f.invalid(path, raw, "must map priorities to lists of regular expressions")
    out: dict[int, tuple[str, ...]] = {}
    for k, v in raw.items():
        try:
            prio = int(k)
        except (TypeError, ValueError):
            raise f.invalid(f"{path}[{k}]", k, "a priority must be an integer") from None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise f.type_error(f"{path}[{k}]", v, "list of regular expressions")
        for rx in v:
            try:
                re.compile(rx)
            except re.error as e:
                raise f.invalid(f"{path}[{k}]", rx, f"not a regular expression: {e}") from None
        out[prio] = tuple(v)
    return out


def _group(d: Mapping[str, Any], path: str, state: ClusterState, source: str) -> NodeGroup:
    name = f.string(d, "name", path)
    if not name:
        raise f.required(f.join(path, "name"))
    min_size = f.integer(d, "minSize", path, 0) or 0
    max_raw = f.integer(d, "maxSize", path)
    if min_size < 0:
        raise f.invalid(f.join(path, "minSize"), min_size, "must be non-negative")
    if max_raw is not None and max_raw < min_size:
        raise f.invalid(f.join(path, "maxSize"), max_raw, "must not be less than minSize")
    names = list(f.str_list(d, "nodes", path))
    for i, n in enumerate(names):
        if n not in state.nodes:
            raise f.invalid(f"{f.join(path, 'nodes')}[{i}]", n, "no such node in the cluster")
    sel = f.str_map(d, "nodeSelector", path)
    if sel:
        matcher = selector_from_set(sel)
        names += [n.name for n in state.nodes.values() if n.name not in names and matcher.matches(n.labels)]
    template: Node | None = None
    raw_tmpl = f.opt_mapping(d, "template", path)
    if raw_tmpl is not None:
        body = dict(raw_tmpl)
        body.setdefault("metadata", {"name": f"template-{name}"})
        if isinstance(body["metadata"], dict) and not body["metadata"].get("name"):
            body["metadata"] = {**body["metadata"], "name": f"template-{name}"}
        try:
            template = parse.node(body, source)
        except FieldError as e:
            raise FieldError(e.message, field=f"{f.join(path, 'template')}.{e.field}" if e.field else path) from None
    return NodeGroup(
        name=name,
        min_size=min_size,
        max_size=max_raw if max_raw is not None else UNBOUNDED,
        nodes=tuple(sorted(names)),
        target_size=len(names),
        template=template,
        price=_number(d, "price", path),
        max_known=max_raw is not None,
        source=source,
    )


def parse_node_groups(body: dict[str, Any], state: ClusterState, source: str) -> NodeGroupSet:
    """A NodeGroups document; errors name the file and the field."""
    obj = f"{KIND}"
    try:
        if body.get("apiVersion") != API_VERSION or body.get("kind") != KIND:
            raise f.invalid("kind", f"{body.get('apiVersion')}/{body.get('kind')}", f"must be {API_VERSION} {KIND}")
        groups: list[NodeGroup] = []
        seen_nodes: dict[str, str] = {}
        for i, g in enumerate(f.obj_seq(body, "nodeGroups", "")):
            ng = _group(g, f"nodeGroups[{i}]", state, source)
            if any(x.name == ng.name for x in groups):
                raise f.invalid(f"nodeGroups[{i}].name", ng.name, "duplicate node group name")
            for n in ng.nodes:
                if n in seen_nodes:
                    raise f.invalid(f"nodeGroups[{i}]", n, f"node is already in node group {seen_nodes[n]}")
                seen_nodes[n] = ng.name
            groups.append(ng)
        if not groups:
            raise f.required("nodeGroups", "must list at least one node group")
        price = f.opt_mapping(body, "podPrice", "")
        pod_price = None
        if price is not None:
            pod_price = (_number(price, "cpu", "podPrice") or 0.0, _number(price, "memory", "podPrice") or 0.0)
        mnt = f.integer(body, "maxNodesTotal", "")
        if mnt is not None and mnt < 0:
            raise f.invalid("maxNodesTotal", mnt, "must be non-negative")
        balance = body.get("balanceSimilarNodeGroups")
        if balance is not None and not isinstance(balance, bool):
            raise f.type_error("balanceSimilarNodeGroups", balance, "boolean")
        expander = body.get("expander")
        if expander is not None and not isinstance(expander, str):
            raise f.type_error("expander", expander, "string")
        return NodeGroupSet(
            groups=tuple(groups),
            expander=expander,
            max_nodes_total=mnt,
            cores_total=_min_max(body["coresTotal"], "coresTotal", "cores") if "coresTotal" in body else None,
            memory_total=_min_max(body["memoryTotal"], "memoryTotal", "memory") if "memoryTotal" in body else None,
            pod_price=pod_price,
            balance_similar_node_groups=balance,
            priorities=_priorities(body["priorities"], "priorities") if "priorities" in body else None,
            source=source,
        )
    except FieldError as e:
        raise InputError(e.message, source=source, obj=obj, field=e.field) from None


def read_node_groups(path: str, state: ClusterState, limits: Any = None) -> NodeGroupSet:
    """The NodeGroups file at ``path`` (one document)."""
    from kwhatif.load.files import Limits, read_path

    docs = list(read_path(path, limits or Limits()))
    if len(docs) != 1:
        raise InputError(f"expected one {KIND} document, found {len(docs)}", source=path)
    return parse_node_groups(docs[0].body, state, docs[0].source)


# --- discovery --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroupStatus:
    """A group's sizes in the cluster-autoscaler-status ConfigMap."""

    target: int
    min_size: int
    max_size: int


def parse_status(text: str) -> dict[str, GroupStatus]:
    """The node groups of the cluster-autoscaler-status ConfigMap's `status`: the structured YAML
    of clusterstate/api/types.go (ClusterAutoscalerStatus.nodeGroups[].health), or the older
    text form ("Name: ...", then "Health: ... cloudProviderTarget=N (minSize=A, maxSize=B)")."""
    out: dict[str, GroupStatus] = {}
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("nodeGroups"), list):
        for g in doc["nodeGroups"]:
            if not isinstance(g, dict) or not isinstance(g.get("name"), str):
                continue
            raw_health = g.get("health")
            health: dict[str, Any] = raw_health if isinstance(raw_health, dict) else {}
            try:
                out[g["name"]] = GroupStatus(
                    int(health.get("cloudProviderTarget", 0)),
                    int(health.get("minSize", 0)),
                    int(health.get("maxSize", 0)),
                )
            except (TypeError, ValueError):
                continue
        return out
    name: str | None = None
    for line in text.splitlines():
        m = re.match(r"\s*Name:\s*(\S+)", line)
        if m:
            name = m.group(1)
            continue
        m = re.search(r"cloudProviderTarget=(\d+)\s*\(minSize=(\d+),\s*maxSize=(\d+)\)", line)
        if m and name is not None and "Health:" in line:
            out[name] = GroupStatus(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            name = None
    return out


def discover(state: ClusterState) -> NodeGroupSet:
    """Groups of the existing nodes by provider label, sized from the status ConfigMap when the
    state holds it; a group it does not list has an unknown maximum (unbounded, with a note)."""
    by_group: dict[str, list[str]] = {}
    label_of: dict[str, str] = {}
    for node in state.nodes.values():
        for label in PROVIDER_LABELS:
            value = node.labels.get(label)
            if value:
                by_group.setdefault(value, []).append(node.name)
                label_of.setdefault(value, label)
                break
    status_text = state.config_maps.get(STATUS_CONFIG_MAP, {}).get("status")
    status = parse_status(status_text) if status_text else {}
    notes: list[str] = []
    groups: list[NodeGroup] = []
    for name in sorted(by_group):
        st = status.get(name)
        if st is None:
            # a status ConfigMap names groups by the provider's id (an ASG name on EKS): match the
            # one whose name contains the label's value when there is exactly one
            matches = [k for k in status if name in k]
            st = status[matches[0]] if len(matches) == 1 else None
        nodes = tuple(sorted(by_group[name]))
        if st is not None:
            groups.append(
                NodeGroup(name, st.min_size, st.max_size, nodes, max(st.target, len(nodes)), source=label_of[name])
            )
        else:
            notes.append(
                f"node group {name}: its maximum size is unknown (no cluster-autoscaler-status entry): "
                "treated as unbounded; give it with --node-groups"
            )
            groups.append(NodeGroup(name, 0, UNBOUNDED, nodes, len(nodes), max_known=False, source=label_of[name]))
    if not groups:
        raise InputError(
            "no node groups: no node carries a provider label ("
            + ", ".join(PROVIDER_LABELS)
            + "); give them with --node-groups FILE"
        )
    priorities = None
    prio_text = state.config_maps.get(PRIORITY_CONFIG_MAP, {}).get("priorities")
    if prio_text:
        try:
            priorities = _priorities(prio_text, "data.priorities")
        except FieldError as e:
            raise InputError(
                e.message, obj="ConfigMap kube-system/cluster-autoscaler-priority-expander", field=e.field
            ) from None
    return NodeGroupSet(tuple(groups), priorities=priorities, source="labels", notes=tuple(notes))
