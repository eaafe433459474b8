"""-o sarif: a SARIF 2.1.0 log (the OASIS Static Analysis Results Interchange Format), for code
scanning services that read it (GitHub code scanning, GitLab, Azure DevOps, IDE viewers).

One run, kwhatif the tool. Each kind of outcome is a rule with a stable id: ``does-not-fit/<Plugin>``
per filter plugin that turns the nodes away (``does-not-fit`` when no plugin is known), one per
refusal (``refused-by-quota``, ...), ``no-eligible-nodes``, ``not-checked``, ``unknown``, and ``note`` for what
kwhatif says about a workload it checked. Each workload that does not fit (check), or pod that
does not fit (schedule), is a result at its manifest's line: errors for failures, warnings for
the workloads kwhatif could not check, could not tell or that have no eligible node (errors with
--strict),
notes for the notes. The rules listed are those the results use, in the order of their ids.
"""

from __future__ import annotations

import json
import urllib.parse
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from kwhatif.report.base import OutputFormat
from kwhatif.report.check import CheckReport, WorkloadEntry, dominant_reason, file_and_line
from kwhatif.report.formats.formatter import Formatter
from kwhatif.report.plugin_info import sarif_help
from kwhatif.report.schedule import PodResult, ScheduleReport
from kwhatif.report.verdict import Verdict
from kwhatif.version import __version__

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://kwhatif.dev"

# the sources that name no file kwhatif can point at (manifests read from standard input)
_NOT_A_FILE = frozenset({"", "-", "<stdin>"})


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str  # PascalCase, as SARIF viewers show a rule
    short: str
    full: str
    help: str
    level: str  # its default level: error, warning or note


_DEFAULT_PLUGIN_HELP = "The message is kube-scheduler's FitError: it names, per reason, how many nodes gave it."

_VERDICT_RULES = {
    Verdict.REFUSED_BY_QUOTA: Rule(
        "refused-by-quota",
        "RefusedByQuota",
        "The API server refuses the pods: a ResourceQuota of the namespace is exceeded",
        "ResourceQuota admission refuses to create some of the workload's pods: with the pods already "
        "running in the namespace, they would use more than its quota allows.",
        "Raise the quota, lower the pods' requests or replicas, or free quota in the namespace.",
        "error",
    ),
    Verdict.REFUSED_BY_LIMIT_RANGE: Rule(
        "refused-by-limit-range",
        "RefusedByLimitRange",
        "The API server refuses the pods: a LimitRange of the namespace forbids them",
        "LimitRanger admission refuses to create the workload's pods: their requests or limits fall "
        "outside the min, max or maxLimitRequestRatio of a LimitRange of the namespace.",
        "Change the pods' requests and limits to meet the namespace's LimitRanges, or change the LimitRanges.",
        "error",
    ),
    Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE: Rule(
        "refused-by-namespace-lifecycle",
        "RefusedByNamespaceLifecycle",
        "The API server refuses the pods: their namespace does not exist",
        "NamespaceLifecycle admission refuses objects in a namespace that does not exist (or is being deleted).",
        "Create the namespace first, or put the workload in an existing one.",
        "error",
    ),
    Verdict.REFUSED_BY_PRIORITY: Rule(
        "refused-by-priority",
        "RefusedByPriority",
        "The API server refuses the pods: their PriorityClass does not exist",
        "Priority admission refuses pods whose priorityClassName names no PriorityClass of the cluster.",
        "Create the PriorityClass, or name an existing one.",
        "error",
    ),
    Verdict.REFUSED_BY_API: Rule(
        "refused-by-api",
        "RefusedByApiServer",
        "The API server refuses the object: it does not serve its group/version",
        "The object's apiVersion is not served by the cluster's release (removed or not yet served), "
        "so kubectl apply fails with no matches for its kind.",
        "Move the object to an apiVersion the release serves.",
        "error",
    ),
    Verdict.NO_ELIGIBLE_NODES: Rule(
        "no-eligible-nodes",
        "NoEligibleNodes",
        "The workload has no eligible node: it runs no pod",
        "No node matches the DaemonSet's nodeSelector, required node affinity and tolerations, so its "
        "controller creates no pod. A warning: it fails the gate with --strict.",
        "Check the workload's nodeSelector, node affinity and tolerations against the nodes' labels and taints.",
        "warning",
    ),
    Verdict.NOT_CHECKED: Rule(
        "not-checked",
        "NotChecked",
        "The object was not checked: kwhatif does not evaluate its kind",
        "The object is of a kind that may run pods but that kwhatif does not evaluate (a custom resource: "
        "the operator that watches it creates its pods, and kwhatif cannot tell which). A warning: it fails "
        "the gate with --strict.",
        "Check the pods the operator creates instead, from their own manifests.",
        "warning",
    ),
    Verdict.UNKNOWN: Rule(
        "unknown",
        "Unknown",
        "Whether the workload fits cannot be told from the cluster state",
        "The cluster state lacks objects a live cluster would have and the answer depends on "
        "(StorageClasses, PriorityClasses or Namespaces; a kubectl cluster-info dump saves none). A "
        "warning: it fails the gate with --strict.",
        "Add the missing objects with another --cluster file, or save the whole state with kwhatif snapshot.",
        "warning",
    ),
}
_DOES_NOT_FIT = Rule(
    "does-not-fit",
    "DoesNotFit",
    "Pods of the workload do not fit on the cluster",
    "kube-scheduler would leave some of the workload's pods Pending (or its pod group unplaced).",
    _DEFAULT_PLUGIN_HELP,
    "error",
)
_NOTE = Rule(
    "note",
    "Note",
    "What kwhatif notes about a workload",
    "How kwhatif read the workload (its controller, admission, updates): information, not a failure.",
    "Read the note: it says what kwhatif assumed or emulated for the workload.",
    "note",
)
_SCHEDULING_ERROR = Rule(
    "scheduling-error",
    "SchedulingError",
    "Scheduling the pod ended in an error",
    "A plugin returned an error for the pod (upstream retries it with backoff): the message is the error.",
    "Read the error: it is usually a missing or invalid object the pod refers to.",
    "error",
)
_GATED = Rule(
    "scheduling-gated",
    "SchedulingGated",
    "The pod waits for its scheduling gates",
    "The pod has spec.schedulingGates: kube-scheduler does not try it until they are removed.",
    "Remove the gates (or let the controller that owns them do so).",
    "warning",
)


def does_not_fit_rule(plugin: str) -> Rule:
    return Rule(
        f"does-not-fit/{plugin}",
        f"DoesNotFit{plugin}",
        f"Pods do not fit: {plugin} turns the nodes away",
        f"kube-scheduler would leave pods Pending: {plugin} is the first failing plugin on most of the "
        "nodes that turn them away (the message is upstream's FitError).",
        sarif_help(plugin) or _DEFAULT_PLUGIN_HELP,
        "error",
    )


def failing_plugin(results: Iterable[PodResult]) -> str | None:
    """The plugin of the dominant reason (the reason that turned away the most nodes across the
    pods that did not fit, the table's DOMINANT REASON): the plugin that gives that reason, so
    that one reason is always filed under one rule, whichever plugin failed on more nodes."""
    results = [r for r in results if r.unschedulable]
    reason = dominant_reason(results)
    counts: Counter[str] = Counter()
    for r in results:
        for f in r.pre_filter:
            if reason is None or reason in f.reasons:
                counts[f.plugin] += 1
        for n in r.nodes:
            failure = n.upstream_failure
            if failure is not None and not n.excluded and (reason is None or reason in failure.reasons):
                counts[failure.plugin] += 1
    if not counts:
        return None
    best = max(counts.values())
    return min(p for p, c in counts.items() if c == best)


def artifact_uri(file: str) -> str:
    """A file name as a SARIF artifact URI: relative paths stay relative (to the directory the
    command ran in, which code scanning takes as the repository root), absolute ones are file: URIs."""
    path = file.replace("\\", "/")
    if PurePosixPath(path).is_absolute():
        return "file://" + urllib.parse.quote(path)
    return urllib.parse.quote(path)


def _location(source: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
    loc: dict[str, Any] = {}
    file, line = file_and_line(source)
    if file not in _NOT_A_FILE:
        loc["physicalLocation"] = {"artifactLocation": {"uri": artifact_uri(file)}, "region": {"startLine": line}}
    loc["logicalLocations"] = [
        {
            "name": name,
            "fullyQualifiedName": f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}",
            "kind": "object",
        }
    ]
    return loc


class _Log:
    """The results of one run and the rules they use."""

    def __init__(self) -> None:
        self.rules: dict[str, Rule] = {}
        self.results: list[tuple[Rule, dict[str, Any]]] = []

    def add(
        self, rule: Rule, level: str, text: str, location: dict[str, Any], properties: dict[str, Any], suffix: str = ""
    ) -> None:
        self.rules.setdefault(rule.id, rule)
        result: dict[str, Any] = {
            "ruleId": rule.id,
            "level": level,
            "message": {"text": text},
            "locations": [location],
            # what code scanning tracks a result by across runs: the object and the rule (and
            # which of the object's notes)
            "partialFingerprints": {
                "kwhatifObject/v1": f"{location['logicalLocations'][0]['fullyQualifiedName']}/{rule.id}{suffix}"
            },
            "properties": properties,
        }
        self.results.append((rule, result))

    def document(self, summary: str) -> str:
        index = {rule_id: i for i, rule_id in enumerate(sorted(self.rules))}
        results = [{"ruleId": r["ruleId"], "ruleIndex": index[rule.id], **_rest(r)} for rule, r in self.results]
        return log_document(self.rules, results, summary)


def log_document(rules_by_id: Mapping[str, Rule], results: list[Any], summary: str) -> str:
    """The SARIF log of one run: its rules (sorted by id) and ``results`` as they are given."""
    rules = [_rule_dict(rules_by_id[i]) for i in sorted(rules_by_id)]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kwhatif",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "results": results,
                "properties": {"summary": summary},
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def schedule_result(r: PodResult) -> tuple[Rule, dict[str, Any]] | None:
    """A pod's result of the schedule log and its rule; None for a pod that fits."""
    if r.fits:
        return None
    if r.gated:
        rule, level = _GATED, "warning"
    elif r.errored:
        rule, level = _SCHEDULING_ERROR, "error"
    else:
        plugin = failing_plugin([r])
        rule, level = (does_not_fit_rule(plugin) if plugin else _DOES_NOT_FIT), "error"
    text = f"Pod {r.pod}: {r.message or r.status.value}"
    properties = {"status": r.status.value, "profile": r.profile, "hints": list(r.hints)}
    log = _Log()
    log.add(rule, level, text, _location(r.source, "Pod", r.pod.namespace, r.pod.name), properties)
    return log.results[0]


def schedule_summary(report: ScheduleReport) -> str:
    s = report.summary
    return f"{s.scheduled}/{s.pods} pods scheduled on {report.num_nodes} nodes"


def _rest(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "ruleId"}


def _rule_dict(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.full},
        "help": {"text": rule.help},
        "defaultConfiguration": {"level": rule.level},
    }


class SarifFormatter(Formatter):
    output_format = OutputFormat.SARIF

    def check(self, report: CheckReport) -> str:
        log = _Log()
        for w in report.workloads:
            location = _location(w.source, w.kind, w.namespace, w.name)
            msg = ""
            if not w.fits:
                rule = self._workload_rule(w)
                level = "error" if w.failed or report.strict else "warning"
                msg = w.message or w.dominant_reason or (w.notes[-1] if w.notes else str(w.verdict))
                log.add(rule, level, f"{w.headline}: {msg}", location, _workload_properties(w))
            for i, note in enumerate(w.notes):
                if not w.fits and note == msg:
                    continue  # the result's own message already
                text = f"{w.kind} {w.ref}: {note}"
                log.add(_NOTE, "note", text, location, _workload_properties(w), f"/{i}")
        return log.document(f"{report.summary_line()} on {report.schedule.num_nodes} nodes")

    def schedule(self, report: ScheduleReport) -> str:
        log = _Log()
        for r in report.final_results():
            got = schedule_result(r)
            if got is not None:
                log.rules.setdefault(got[0].id, got[0])
                log.results.append(got)
        return log.document(schedule_summary(report))

    @staticmethod
    def _workload_rule(w: WorkloadEntry) -> Rule:
        if w.verdict in _VERDICT_RULES:
            return _VERDICT_RULES[w.verdict]
        plugin = failing_plugin(w.results)
        return does_not_fit_rule(plugin) if plugin else _DOES_NOT_FIT


def _workload_properties(w: WorkloadEntry) -> dict[str, Any]:
    return {
        "kind": w.kind,
        "namespace": w.namespace,
        "name": w.name,
        "verdict": str(w.verdict),
        "desired": w.desired,
        "placed": w.placed,
        "notPlaced": w.not_placed,
        "refused": w.refused,
    }
