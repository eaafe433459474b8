"""`kwhatif mcp`: the what-if engines as Model Context Protocol tools over standard input and
output (the official Python SDK, the optional extra ``mcp``).

Each tool takes the cluster (file paths, or a kubeconfig context) and its command's inputs and
options, runs the Python API (kwhatif.api_public) and answers with a short text summary and the
JSON report (the document of the command's ``-o json``, also as structured content).

Bounds: read-only (no tool binds, nothing is written to a cluster); every path must lie under
one of the ``--root`` directories (symbolic links resolved); each call runs in a worker process
that is ended when the call takes longer than ``--timeout``; inputs are read within
``--max-input-size``; a report larger than ``--max-output-size`` is answered with its summary
and an error. Bad input, a refused path and a timeout are tool errors (``isError``), which the
agent sees and can correct; the server goes on.

The tools come from one table, TOOLS: a tool is one ToolSpec (name, description, its own
arguments, which of them are paths, and the function that asks the Cluster).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kwhatif.errors import InputError, KwhatifError
from kwhatif.escape import visible
from kwhatif.version import __version__

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    import mcp_types

    from kwhatif.api_public import Cluster

SERVER_NAME = "kwhatif"
DEFAULT_TIMEOUT = 120.0  # seconds a call may take
DEFAULT_MAX_OUTPUT = 4 << 20  # bytes of a report's JSON
SUMMARY_LINES = 20  # lines of a summary that lists pods or workloads
_CACHED_CLUSTERS = 4  # clusters (of files) a worker keeps loaded between calls


@dataclass(frozen=True, slots=True)
class ServerOptions:
    roots: tuple[str, ...]  # real paths of the directories tools may read
    timeout: float = DEFAULT_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT
    max_input_size: int | None = None


# --- the tools ---------------------------------------------------------------------------------

_STRING = {"type": "string"}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_BOOL = {"type": "boolean"}

# The arguments every tool takes: where the cluster is, and the scheduler to answer as.
COMMON_PROPERTIES: dict[str, dict[str, Any]] = {
    "cluster": {
        **_STRINGS,
        "description": "Cluster state files or directories (kubectl List, manifests, `kubectl cluster-info dump` "
        "output, `kwhatif snapshot` files), under the server's roots. Give this or context.",
    },
    "context": {
        **_STRING,
        "description": "Read the cluster from this kubeconfig context (the server's $KUBECONFIG) instead of files.",
    },
    "scheduler_version": {**_STRING, "description": "Answer as this kube-scheduler release, e.g. 1.34 or 1.33.2."},
    "feature_gates": {**_STRING, "description": "kube-scheduler --feature-gates, e.g. PodLevelResources=true."},
    "config": {**_STRING, "description": "A KubeSchedulerConfiguration file (path under the roots, or its YAML)."},
    "profile": {**_STRING, "description": "Schedule every pod with this profile."},
}
COMMON_PATHS = ("cluster", "config")

_MANIFESTS_HELP = "paths under the server's roots, or the YAML text of the objects"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its name and description, its own arguments (JSON Schema properties), which of
    them must be given, which hold paths (or YAML text), and the call of the Cluster it makes."""

    name: str
    description: str
    properties: Mapping[str, Mapping[str, Any]]
    call: Callable[[Cluster, dict[str, Any]], Any]
    required: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {**COMMON_PROPERTIES, **self.properties},
            "required": list(self.required),
            "additionalProperties": False,
        }


def _common(args: Mapping[str, Any]) -> dict[str, Any]:
    return {k: args[k] for k in ("scheduler_version", "feature_gates", "config", "profile") if k in args}


def _call_schedule(c: Cluster, a: dict[str, Any]) -> Any:
    pods = [*a.get("pods", ()), *a.get("pod_names", ())]
    opts = {k: a[k] for k in ("pending", "namespace", "all_namespaces", "selector") if k in a}
    return c.schedule(pods, **opts, **_common(a))


def _call_check(c: Cluster, a: dict[str, Any]) -> Any:
    opts = {k: a[k] for k in ("surge", "hpa_max", "strict", "namespace") if k in a}
    return c.check(a["manifests"], **opts, **_common(a))


def _call_capacity(c: Cluster, a: dict[str, Any]) -> Any:
    opts = {k: a[k] for k in ("max_copies", "minimum", "namespace") if k in a}
    return c.capacity(a["pod"], **opts, **_common(a))


def _call_drain(c: Cluster, a: dict[str, Any]) -> Any:
    opts = {
        k: a[k]
        for k in ("ignore_daemonsets", "delete_emptydir_data", "force", "disable_eviction", "pod_selector")
        if k in a
    }
    return c.drain(a["nodes"], **opts, **_common(a))


def _call_autoscale(c: Cluster, a: dict[str, Any]) -> Any:
    opts = {
        k: a[k]
        for k in (
            "pending",
            "node_groups",
            "expander",
            "max_nodes_total",
            "balance_similar_node_groups",
            "loops",
            "scale_down",
            "cores_total",
            "memory_total",
            "autoscaler",
            "node_pools",
            "instance_types",
            "consolidation",
            "spot_to_spot_consolidation",
            "min_values_policy",
            "preference_policy",
            "namespace",
        )
        if k in a
    }
    return c.autoscale(a.get("pods"), **opts, **_common(a))


def _call_diff(c: Cluster, a: dict[str, Any]) -> Any:
    pods = [*a.get("pods", ()), *a.get("pod_names", ())]
    opts = {
        k: a[k]
        for k in (
            "pending",
            "check",
            "namespace",
            "all_namespaces",
            "selector",
            "fail_on",
            "to_scheduler_version",
            "to_feature_gates",
            "to_config",
            "to_profile",
        )
        if k in a
    }
    return c.diff(pods, **opts, **_common(a))


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "schedule",
        "What would kube-scheduler do with these pods on this cluster, and why? Places the pods one after "
        "another (as `kwhatif schedule`) and reports, per pod, the node chosen or the scheduler's FitError, "
        "every filter's reasons and every score per node, and preemption.",
        {
            "pods": {**_STRINGS, "description": f"Pod manifests: {_MANIFESTS_HELP}."},
            "pod_names": {
                **_STRINGS,
                "description": "Pods of the cluster to schedule anew: NAMESPACE/NAME or pod/NAME.",
            },
            "pending": {**_BOOL, "description": "Also schedule the cluster's pending pods."},
            "namespace": {**_STRING, "description": "Namespace of pod/NAME, of manifests without one, of pending."},
            "all_namespaces": {**_BOOL, "description": "pending takes the pods of every namespace."},
            "selector": {**_STRING, "description": "Label selector narrowing the pods, as kubectl -l."},
        },
        _call_schedule,
        paths=("pods",),
    ),
    ToolSpec(
        "check",
        "Will the workloads in these manifests fit on the cluster? (as `kwhatif check`, the CI gate): "
        "Deployments, StatefulSets, DaemonSets, Jobs, CronJobs and Pods become the pods their controllers "
        "would create; each workload gets a verdict, its placed and not placed pods and the dominant reason.",
        {
            "manifests": {**_STRINGS, "description": f"Manifests: {_MANIFESTS_HELP}."},
            "surge": {
                **_BOOL,
                "description": "Keep the running pods of updated workloads (rolling update's worst case).",
            },
            "hpa_max": {**_BOOL, "description": "Check autoscaled workloads at their HPA's maxReplicas."},
            "strict": {**_BOOL, "description": "Count warnings as failures."},
            "namespace": {**_STRING, "description": "Namespace of objects that name none."},
        },
        _call_check,
        required=("manifests",),
        paths=("manifests",),
    ),
    ToolSpec(
        "capacity",
        "How many more copies of a pod (or of a workload's pod template) fit on the cluster, on which nodes, "
        "and what stops the next one (as `kwhatif capacity`).",
        {
            "pod": {**_STRING, "description": f"One Pod or one workload: {_MANIFESTS_HELP}."},
            "max_copies": {"type": "integer", "minimum": 1, "description": "Stop counting at this many copies."},
            "minimum": {"type": "integer", "minimum": 0, "description": "Fail when fewer copies fit."},
            "namespace": {**_STRING, "description": "Namespace of a pod that names none."},
        },
        _call_capacity,
        required=("pod",),
        paths=("pod",),
    ),
    ToolSpec(
        "drain",
        "Would the pods on these nodes fit elsewhere? A what-if of `kubectl drain NODE...` (as `kwhatif "
        "drain`): which pods are evicted, where each lands, PodDisruptionBudgets that refuse, kubectl's refusals.",
        {
            "nodes": {**_STRINGS, "description": "Names of the nodes to drain."},
            "ignore_daemonsets": {**_BOOL, "description": "kubectl drain --ignore-daemonsets."},
            "delete_emptydir_data": {**_BOOL, "description": "kubectl drain --delete-emptydir-data."},
            "force": {**_BOOL, "description": "kubectl drain --force."},
            "disable_eviction": {**_BOOL, "description": "kubectl drain --disable-eviction."},
            "pod_selector": {**_STRING, "description": "kubectl drain --pod-selector."},
        },
        _call_drain,
        required=("nodes",),
    ),
    ToolSpec(
        "autoscale",
        "What would the cluster autoscaler do for pods that do not fit the existing nodes? (as `kwhatif autoscale`): "
        "under cluster-autoscaler, which node group grows and by how many nodes, which pods wait for a later "
        "scale-up or are cut off by a limit, why no group can host the others, optionally which nodes it could "
        "remove; under Karpenter, the NodeClaims it would launch (NodePool, instance types cheapest first, price) "
        "and what each carries, every NodePool's reason for a pod that gets none, and optionally what "
        "consolidation would delete or replace and why each other node stays.",
        {
            "pods": {**_STRINGS, "description": f"Pods and workload manifests: {_MANIFESTS_HELP}."},
            "pending": {**_BOOL, "description": "Also the cluster's pending pods."},
            "node_groups": {
                **_STRING,
                "description": "A NodeGroups file (kwhatif/v1) under the roots; default: the nodes' provider labels "
                "and the cluster-autoscaler-status ConfigMap.",
            },
            "expander": {
                **_STRING,
                "description": "cluster-autoscaler --expander, e.g. least-waste or priority,random.",
            },
            "max_nodes_total": {
                "type": "integer",
                "minimum": 0,
                "description": "cluster-autoscaler --max-nodes-total.",
            },
            "balance_similar_node_groups": {**_BOOL, "description": "--balance-similar-node-groups."},
            "loops": {"type": "integer", "minimum": 1, "description": "Autoscaler loops to run (default 1)."},
            "scale_down": {**_BOOL, "description": "Also the nodes it could remove, and why the others stay."},
            "cores_total": {**_STRING, "description": "cluster-autoscaler --cores-total MIN:MAX."},
            "memory_total": {
                **_STRING,
                "description": "cluster-autoscaler --memory-total MIN:MAX (GiB or a quantity).",
            },
            "autoscaler": {
                **_STRING,
                "enum": ["cluster-autoscaler", "karpenter"],
                "description": "Whose answer (default: karpenter when the cluster holds NodePools and no node groups).",
            },
            "node_pools": {
                **_STRING,
                "description": "Karpenter: a file of NodePools (karpenter.sh/v1) under the roots, besides the cluster's.",
            },
            "instance_types": {
                **_STRING,
                "description": "Karpenter: an InstanceTypes file (kwhatif/v1) under the roots; default: the types "
                "of the cluster's own nodes.",
            },
            "consolidation": {
                **_BOOL,
                "description": "Karpenter: also what consolidation would delete or replace, and why each other node "
                "stays.",
            },
            "spot_to_spot_consolidation": {
                **_BOOL,
                "description": "Karpenter's SpotToSpotConsolidation feature gate.",
            },
            "min_values_policy": {
                **_STRING,
                "enum": ["Strict", "BestEffort"],
                "description": "Karpenter's MinValuesPolicy (default Strict).",
            },
            "preference_policy": {
                **_STRING,
                "enum": ["Respect", "Ignore"],
                "description": "Karpenter's PreferencePolicy (default Respect).",
            },
            "namespace": {**_STRING, "description": "Namespace of objects that name none."},
        },
        _call_autoscale,
        paths=("pods", "node_groups", "node_pools", "instance_types"),
    ),
    ToolSpec(
        "diff",
        "What changes for these pods if the scheduler changes (an upgrade, a feature gate, another "
        "configuration)? (as `kwhatif diff`): the same pods, or with check the workloads of manifests, on the "
        "same cluster under two schedulers (scheduler_version/feature_gates/config/profile, and "
        "to_scheduler_version/to_feature_gates/to_config/to_profile, each defaulting to the first); per pod, "
        "what differs (status, node, message, filters, scores, preemption) and the upstream changes that can "
        "explain it.",
        {
            "pods": {**_STRINGS, "description": f"Pod manifests, or with check workload manifests: {_MANIFESTS_HELP}."},
            "pod_names": {
                **_STRINGS,
                "description": "Pods of the cluster to compare: NAMESPACE/NAME or pod/NAME.",
            },
            "pending": {**_BOOL, "description": "Also compare the cluster's pending pods."},
            "check": {**_BOOL, "description": "The manifests hold workloads: compare them as the check tool does."},
            "namespace": {**_STRING, "description": "Namespace of pod/NAME, of manifests without one, of pending."},
            "all_namespaces": {**_BOOL, "description": "pending takes the pods of every namespace."},
            "selector": {**_STRING, "description": "Label selector narrowing the pods, as kubectl -l."},
            "fail_on": {
                **_STRING,
                "enum": ["status", "node", "any"],
                "description": "What makes the exit status 1: status (default), node, or any change.",
            },
            "to_scheduler_version": {**_STRING, "description": "The release to compare with, e.g. 1.36."},
            "to_feature_gates": {**_STRING, "description": "The compared side's --feature-gates."},
            "to_config": {
                **_STRING,
                "description": "The compared side's KubeSchedulerConfiguration (path under the roots, or its YAML).",
            },
            "to_profile": {**_STRING, "description": "The compared side's profile."},
        },
        _call_diff,
        paths=("pods", "to_config"),
    ),
)

TOOLS_BY_NAME = {t.name: t for t in TOOLS}


# --- arguments --------------------------------------------------------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "array": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
}


def check_arguments(spec: ToolSpec, args: Mapping[str, Any], roots: tuple[str, ...]) -> dict[str, Any]:
    """The arguments of a call, checked against the tool's schema, with every path resolved and
    confined to ``roots`` (InputError naming the argument otherwise)."""
    schema = spec.input_schema()
    props: dict[str, Any] = schema["properties"]
    out: dict[str, Any] = {}
    for name, value in args.items():
        prop = props.get(name)
        if prop is None:
            raise InputError(f"unknown argument (arguments: {', '.join(sorted(props))})", field=name)
        if not _JSON_TYPES[prop["type"]](value):
            want = (
                "a list of strings"
                if prop["type"] == "array"
                else f"an {prop['type']}"
                if prop["type"] == "integer"
                else f"a {prop['type']}"
            )
            raise InputError(f"must be {want}", field=name)
        if "minimum" in prop and value < prop["minimum"]:
            raise InputError(f"must be at least {prop['minimum']}", field=name)
        if "enum" in prop and value not in prop["enum"]:
            raise InputError(f"must be one of {', '.join(prop['enum'])}, not {value!r}", field=name)
        out[name] = value
    for name in spec.required:
        if name not in out:
            raise InputError("required", field=name)
    for name in (*COMMON_PATHS, *spec.paths):
        if name in out:
            value = out[name]
            out[name] = (
                [confine(v, roots, name) for v in value] if isinstance(value, list) else confine(value, roots, name)
            )
    if "cluster" in out and "context" in out:
        raise InputError("give either cluster or context, not both", field="cluster")
    if "cluster" not in out and "context" not in out:
        raise InputError("required: the cluster's files (cluster) or a kubeconfig context (context)", field="cluster")
    if "cluster" in out and not out["cluster"]:
        raise InputError("give at least one path", field="cluster")
    return out


def confine(value: str, roots: tuple[str, ...], name: str) -> str:
    """A path argument as a real path under one of ``roots`` (a relative one is taken from the
    first root); YAML text (a value with a line break) as it is."""
    if "\n" in value:
        return value
    if value == "-" or not value:
        raise InputError("give a path or the YAML text (standard input is the protocol's)", field=name)
    path = os.path.realpath(os.path.join(roots[0], value))
    for root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return path
    raise InputError(f"{value!r} is outside the directories this server may read ({', '.join(roots)})", field=name)


# --- summaries -------------------------------------------------------------------------------


def _n(count: Any, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def summary(doc: Mapping[str, Any]) -> str:
    """A few lines saying what the report says, for the agent to read before the JSON."""
    kind = doc.get("kind")
    lines: list[str] = []
    s = doc.get("summary", {})
    if kind == "ScheduleReport":
        lines.append(
            f"{s.get('scheduled', 0)} of {_n(s.get('pods', 0), 'pod', 'pods')} scheduled, "
            f"{s.get('unschedulable', 0)} unschedulable"
        )
        final: dict[str, Mapping[str, Any]] = {}
        for r in doc.get("results", []):
            final[f"{r['pod']['namespace']}/{r['pod']['name']}"] = r
        for pod, r in list(final.items())[:SUMMARY_LINES]:
            where = f"-> {r['node']}" if r.get("node") else (r.get("message") or "")
            lines.append(f"{pod}: {r['status']} {where}".rstrip())
        if len(final) > SUMMARY_LINES:
            lines.append(f"... and {_n(len(final) - SUMMARY_LINES, 'more pod', 'more pods')} in the report")
    elif kind == "CheckReport":
        lines.append(
            f"{s.get('fit', 0)} of {_n(s.get('workloads', 0), 'workload', 'workloads')} fit; "
            f"{s.get('placed', 0)} of {_n(s.get('pods', 0), 'pod', 'pods')} placed; "
            f"{s.get('doNotFit', 0)} do not fit; {_n(s.get('warnings', 0), 'warning', 'warnings')}"
        )
        for w in doc.get("workloads", [])[:SUMMARY_LINES]:
            why = f": {w['dominantReason']}" if w.get("dominantReason") else ""
            lines.append(
                f"{w['kind']} {w['namespace']}/{w['name']}: {w['verdict']} ({w['placed']}/{w['desired']} placed){why}"
            )
    elif kind == "CapacityReport":
        pod = doc.get("pod", {})
        copies = _n(doc.get("fits"), "more copy", "more copies")
        lines.append(f"{copies} of {pod.get('namespace')}/{pod.get('name')} fit")
        per_node = doc.get("perNode") or {}
        if per_node:
            lines.append("per node: " + ", ".join(f"{n} {k}" for n, k in list(per_node.items())[:SUMMARY_LINES]))
        if doc.get("firstFailure"):
            lines.append(f"the next one: {doc['firstFailure']}")
    elif kind == "AutoscaleReport" and doc.get("autoscaler") == "karpenter":
        lines.append(
            f"karpenter: {_n(s.get('pods', 0), 'pod', 'pods')}: {s.get('existing', 0)} fit existing nodes, "
            f"{s.get('scaleUp', 0)} on {_n(s.get('nodeClaims', 0), 'new NodeClaim', 'new NodeClaims')} "
            f"({s.get('pricePerHour', 0)}/h), {s.get('none', 0)} get no node"
        )
        for c in (doc.get("scaleUp") or {}).get("nodeClaims", [])[:SUMMARY_LINES]:
            types = ", ".join(c.get("instanceTypes", [])[:3])
            lines.append(f"NodeClaim {c.get('name')} of NodePool {c.get('nodePool')}: {types} ({c.get('price')}/h)")
        for p in [p for p in doc.get("pods", []) if p.get("outcome") == "none"][:SUMMARY_LINES]:
            lines.append(f"{p['pod']['namespace']}/{p['pod']['name']}: {p.get('why')}")
        for c in ((doc.get("consolidation") or {}).get("candidates") or [])[:SUMMARY_LINES]:
            lines.append(f"consolidation: {c.get('action')} {c.get('node')} ({c.get('reason')}, {c.get('kind')})")
    elif kind == "AutoscaleReport":
        added = ", ".join(f"{g} +{n}" for g, n in (s.get("nodesAdded") or {}).items()) or "no node added"
        lines.append(
            f"{doc.get('autoscaler')}: {_n(s.get('pods', 0), 'pod', 'pods')}: {s.get('existing', 0)} fit existing "
            f"nodes, {s.get('scaleUp', 0)} after scale-up, {s.get('none', 0)} get no node; {added}"
        )
        for p in [p for p in doc.get("pods", []) if p.get("outcome") == "none"][:SUMMARY_LINES]:
            lines.append(f"{p['pod']['namespace']}/{p['pod']['name']}: {p.get('why')}")
    elif kind == "DiffReport":
        side = {k: f"{doc.get(k, {}).get('schedulerVersion')}" for k in ("from", "to")}
        lines.append(
            f"{side['from']} -> {side['to']}: {s.get('changed', 0)} of {_n(s.get('pods', 0), 'pod', 'pods')} change"
        )
        if s.get("workloads"):
            lines[-1] += f"; {s.get('workloadsChanged', 0)} of {_n(s['workloads'], 'workload', 'workloads')} change"
        for p in [p for p in doc.get("pods", []) if p.get("changed")][:SUMMARY_LINES]:
            lines.append(f"{p['pod']['namespace']}/{p['pod']['name']}: {', '.join(p['changed'])}")
    elif kind == "DrainReport":
        lines.append(
            f"drain {', '.join(doc.get('nodes', []))}: {_n(s.get('evicted', 0), 'pod', 'pods')} evicted, "
            f"{s.get('placed', 0)} placed, {s.get('notPlaced', 0)} not placed, "
            f"{s.get('pdbBlocked', 0)} blocked by a PodDisruptionBudget, {s.get('refused', 0)} refused"
        )
        for r in doc.get("refusals", [])[:SUMMARY_LINES]:
            lines.append(f"refused: {r.get('message') if isinstance(r, dict) else r}")
    else:
        lines.append(f"{kind}")
    lines.extend(f"note: {n}" for n in doc.get("notes", [])[:SUMMARY_LINES])
    return "\n".join(lines)


# --- the worker process -----------------------------------------------------------------------


class _Notes(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def run_tool(
    name: str, args: dict[str, Any], options: ServerOptions, cache: dict[Any, Cluster]
) -> tuple[dict[str, Any], str, int]:
    """Ask the Cluster what the tool asks: the report's document, its summary (with the notes
    the command would print on standard error) and the command's exit status."""
    spec = TOOLS_BY_NAME[name]
    args = check_arguments(spec, args, options.roots)
    notes = _Notes()
    logger = logging.getLogger("kwhatif")
    logger.addHandler(notes)
    logger.setLevel(logging.INFO)
    try:
        cluster = _cluster(args, options, cache)
        report = spec.call(cluster, args)
    finally:
        logger.removeHandler(notes)
    doc = report.to_dict()
    text = summary(doc)
    if notes.lines:
        text += "\n" + "\n".join(f"note: {n}" for n in notes.lines[:SUMMARY_LINES])
    return doc, text, int(report.exit_code)


def _cluster(args: Mapping[str, Any], options: ServerOptions, cache: dict[Any, Cluster]) -> Cluster:
    """The cluster of the call: a file cluster is kept loaded while its files are unchanged; a
    live one is read each time (it changes)."""
    import kwhatif

    if "context" in args:
        return kwhatif.load_cluster(context=args["context"], max_input_size=options.max_input_size)
    paths = list(args["cluster"])
    key = tuple((p, *_stamp(p)) for p in paths)
    cluster = cache.get(key)
    if cluster is None:
        cluster = kwhatif.load_cluster(paths, max_input_size=options.max_input_size)
        while len(cache) >= _CACHED_CLUSTERS:
            cache.pop(next(iter(cache)))
        cache[key] = cluster
    return cluster


def _stamp(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (0, 0)
    return (st.st_mtime_ns, st.st_size)


def _worker(conn: Connection, options: ServerOptions) -> None:
    """The worker process: calls, one at a time, until the server closes the pipe."""
    sys.stdout = sys.stderr  # the protocol's stream is the server's, never the worker's
    cache: dict[Any, Cluster] = {}
    while True:
        try:
            name, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            conn.send(("ok", run_tool(name, args, options, cache)))
        except KwhatifError as e:
            conn.send(("error", str(e)))
        except MemoryError:
            conn.send(("error", "out of memory"))
        except Exception as e:  # noqa: BLE001 - the answer of a tool that failed, not a crash of the server
            conn.send(("error", f"internal error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"))


class ToolTimeout(Exception):
    pass


class Worker:
    """The process tool calls run in, started when first needed and ended when a call takes
    longer than the timeout (a thread could not be stopped)."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, Any]:
        with self._lock:
            if self._process is None or not self._process.is_alive():
                self._start()
            assert self._conn is not None
            self._conn.send((name, args))
            if not self._conn.poll(self.options.timeout):
                self.stop()
                raise ToolTimeout(f"the call took longer than {self.options.timeout:g} s (--timeout) and was stopped")
            try:
                answer: tuple[str, Any] = self._conn.recv()
            except EOFError:
                self.stop()
                return ("error", "internal error: the worker process ended")
            return answer

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        self._process = ctx.Process(target=_worker, args=(child, self.options), daemon=True)
        self._process.start()
        child.close()
        self._conn = parent

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.join(5)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
        if self._conn is not None:
            self._conn.close()
        self._process = None
        self._conn = None


# --- the server ------------------------------------------------------------------------------


def answer(options: ServerOptions, status: str, payload: Any) -> mcp_types.CallToolResult:
    """The CallToolResult of a worker's answer."""
    import mcp_types as types

    if status != "ok":
        # one line, its control characters visible, as the command writes it on standard error
        text = f"error: {visible(str(payload))}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
    doc, text, code = payload
    body = json.dumps(doc, indent=2, ensure_ascii=False)
    head = f"{text}\nexit status of the command: {code}"
    if len(body.encode()) > options.max_output:
        return types.CallToolResult(
            content=[
                types.TextContent(
                    type="text",
                    text=f"{head}\nerror: the JSON report is {len(body.encode())} bytes, more than the server's "
                    f"--max-output-size {options.max_output}: ask about fewer pods or nodes",
                )
            ],
            is_error=True,
        )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=head), types.TextContent(type="text", text=body)],
        structured_content=doc,
    )


def serve(options: ServerOptions) -> None:
    """Serve the tools over standard input and output until the client closes them."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    worker = Worker(options)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t.name,
                    description=t.description,
                    input_schema=t.input_schema(),
                    annotations=types.ToolAnnotations(
                        read_only_hint=True, destructive_hint=False, open_world_hint=False
                    ),
                )
                for t in TOOLS
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS_BY_NAME:
            return answer(options, "error", f"no tool named {params.name!r} (tools: {', '.join(TOOLS_BY_NAME)})")
        try:
            status, payload = await anyio.to_thread.run_sync(worker.call, params.name, dict(params.arguments or {}))
        except ToolTimeout as e:
            status, payload = "error", str(e)
        return answer(options, status, payload)

    server: Any = Server(
        SERVER_NAME,
        version=__version__,
        instructions="kwhatif answers what kube-scheduler would do with pods on a cluster, and why, without "
        "touching the cluster. Give each tool the cluster's files (or a kubeconfig context) and the pods, "
        "manifests or nodes to ask about.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

    async def main() -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        worker.stop()
