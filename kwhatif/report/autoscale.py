"""AutoscaleReport: what the cluster's autoscaler would do for pods that do not fit the existing
nodes (kwhatif autoscale). Plain data, built from the engine's result; its exit policy here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kwhatif.errors import ExitCode
from kwhatif.report.base import ReportKind
from kwhatif.report.pod_outcomes import outcome_counts
from kwhatif.report.schedule import API_VERSION, version_fields

if TYPE_CHECKING:
    from kwhatif.autoscaler.orchestrator import ScaleUpResult
    from kwhatif.autoscaler.scaledown import ScaleDownResult
    from kwhatif.release.versions import ChosenVersion
    from kwhatif.report.check import CheckReport
    from kwhatif.report.karpenter import KarpenterReport
    from kwhatif.whatif.autoscale import AutoscaleResult

WAITS = "waits for a later scale-up"


@dataclass(frozen=True, slots=True)
class PodLine:
    namespace: str
    name: str
    outcome: str  # existing | scale-up | none
    node: str | None
    node_group: str | None
    why: str | None
    loop: int

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class GroupLine:
    name: str
    min_size: int
    max_size: int | None
    before: int
    after: int
    source: str
    template_node: str | None
    template_origin: str | None
    template_pods: tuple[str, ...]
    template_allocatable: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class OptionLine:
    node_group: str
    node_count: int
    pods: tuple[str, ...]
    similar: tuple[str, ...]
    debug: str


@dataclass(frozen=True, slots=True)
class ChosenLine:
    node_group: str
    node_count: int
    before: int
    after: int
    max_size: int
    nodes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScaleUpSection:
    loop: int
    expander: str
    options: tuple[OptionLine, ...]
    skipped: Mapping[str, str]
    chosen: tuple[ChosenLine, ...]
    no_group: tuple[tuple[str, Mapping[str, str]], ...]
    steps: tuple[tuple[str, tuple[str, ...]], ...]
    tie: tuple[str, ...]
    template_checks: Mapping[str, Mapping[str, str]]
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "expander": self.expander,
            "options": [
                {
                    "nodeGroup": o.node_group,
                    "nodeCount": o.node_count,
                    "pods": list(o.pods),
                    **({"similarNodeGroups": list(o.similar)} if o.similar else {}),
                    **({"debug": o.debug} if o.debug else {}),
                }
                for o in self.options
            ],
            "skipped": [{"nodeGroup": g, "reason": r} for g, r in self.skipped.items()],
            "chosen": [
                {
                    "nodeGroup": c.node_group,
                    "nodeCount": c.node_count,
                    "before": c.before,
                    "after": c.after,
                    "maxSize": c.max_size,
                    "nodes": list(c.nodes),
                }
                for c in self.chosen
            ],
            "expanderSteps": [{"expander": e, "kept": list(k)} for e, k in self.steps],
            "tie": list(self.tie),
            "noGroup": [{"pod": p, "reasons": dict(r)} for p, r in self.no_group],
            "templateChecks": {g: dict(c) for g, c in self.template_checks.items()},
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class RemovableLine:
    node: str
    node_group: str | None
    utilization: float
    pods_to: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ScaleDownSection:
    threshold: float
    removable: tuple[RemovableLine, ...]
    not_removable: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "utilizationThreshold": self.threshold,
            "removable": [
                {
                    "node": r.node,
                    "nodeGroup": r.node_group,
                    "utilization": r.utilization,
                    "podsTo": dict(r.pods_to),
                }
                for r in self.removable
            ],
            "notRemovable": [{"node": n, "reason": why} for n, why in self.not_removable],
        }


@dataclass(frozen=True, slots=True)
class AutoscaleReport:
    autoscaler: str
    expander: str
    groups: tuple[GroupLine, ...]
    pods: tuple[PodLine, ...]
    scale_ups: tuple[ScaleUpSection, ...]
    scale_down: ScaleDownSection | None
    notes: tuple[str, ...] = ()
    scheduler_version: ChosenVersion | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # another autoscaler's own sections

    @property
    def kind(self) -> ReportKind:
        return ReportKind.AUTOSCALE

    @property
    def exit_code(self) -> ExitCode:
        """1 when a pod gets no node: no group can host it, or a limit cuts it off (a pod that waits
        for a later loop of the autoscaler does not fail)."""
        if any(p.outcome == "none" and p.why != WAITS for p in self.pods):
            return ExitCode.UNSCHEDULABLE
        return ExitCode.OK

    def summary(self) -> dict[str, Any]:
        added: dict[str, int] = {}
        for s in self.scale_ups:
            for c in s.chosen:
                added[c.node_group] = added.get(c.node_group, 0) + c.node_count
        return {
            **outcome_counts(self.pods),
            "waiting": sum(1 for p in self.pods if p.outcome == "none" and p.why == WAITS),
            "nodesAdded": dict(sorted(added.items())),
            **({"removableNodes": len(self.scale_down.removable)} if self.scale_down is not None else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        first = self.scale_ups[0].to_dict() if self.scale_ups else None
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind.value,
            "autoscaler": self.autoscaler,
            **version_fields(self.scheduler_version),
            "nodeGroups": [
                {
                    "name": g.name,
                    "minSize": g.min_size,
                    "maxSize": g.max_size,
                    "before": g.before,
                    "after": g.after,
                    "source": g.source,
                    "template": {
                        "node": g.template_node,
                        "from": g.template_origin,
                        "allocatable": dict(g.template_allocatable),
                        "pods": list(g.template_pods),
                    }
                    if g.template_node
                    else None,
                }
                for g in self.groups
            ],
            "pods": [
                {
                    "pod": {"namespace": p.namespace, "name": p.name},
                    "outcome": p.outcome,
                    "node": p.node,
                    "nodeGroup": p.node_group,
                    "why": p.why,
                    "loop": p.loop,
                }
                for p in self.pods
            ],
            "scaleUp": first,
            "loops": [s.to_dict() for s in self.scale_ups[1:]],
            "scaleDown": self.scale_down.to_dict() if self.scale_down is not None else None,
            **dict(self.extra),
            "notes": list(self.notes),
            "summary": self.summary(),
        }


def scale_up_section(loop: int, res: ScaleUpResult) -> ScaleUpSection:
    return ScaleUpSection(
        loop,
        res.expander,
        tuple(OptionLine(o.group, o.node_count, o.pods, o.similar, o.debug) for o in res.options),
        dict(res.skipped),
        tuple(ChosenLine(c.group, c.node_count, c.current, c.new, c.max, c.nodes) for c in res.chosen),
        tuple((n.pod, dict(n.reasons)) for n in res.no_group),
        tuple((s.expander, s.kept) for s in res.steps),
        res.tie,
        {g: dict(c) for g, c in res.template_checks.items()},
        tuple(res.notes),
    )


def scale_down_section(res: ScaleDownResult) -> ScaleDownSection:
    return ScaleDownSection(
        res.threshold,
        tuple(RemovableLine(r.node, r.group, r.utilization, dict(r.pods_to)) for r in res.removable),
        tuple((n.node, n.reason) for n in res.not_removable),
    )


def any_autoscale_report(
    res: AutoscaleResult, scheduler_version: ChosenVersion | None = None, notes: tuple[str, ...] = ()
) -> AutoscaleReport | KarpenterReport:
    """The report of either autoscaler's answer (Karpenter's in report/karpenter.py)."""
    if res.karpenter is not None:
        from kwhatif.report.karpenter import karpenter_report

        return karpenter_report(res.karpenter, scheduler_version, (*res.notes, *notes), res.karpenter_options)
    return autoscale_report(res, scheduler_version, notes)


def autoscale_report(
    res: AutoscaleResult, scheduler_version: ChosenVersion | None = None, notes: tuple[str, ...] = ()
) -> AutoscaleReport:
    return AutoscaleReport(
        res.autoscaler,
        res.expander,
        tuple(
            GroupLine(
                g.name,
                g.min_size,
                g.max_size,
                g.before,
                g.after,
                g.source,
                g.template_node,
                g.template_origin,
                g.template_pods,
                dict(g.template_allocatable),
            )
            for g in res.groups
        ),
        tuple(
            PodLine(p.pod.namespace, p.pod.name, p.outcome.value, p.node, p.node_group, p.why, p.loop) for p in res.pods
        ),
        tuple(scale_up_section(i + 1, s) for i, s in enumerate(res.loops)),
        scale_down_section(res.scale_down) if res.scale_down is not None else None,
        tuple(res.notes) + notes,
        scheduler_version,
    )


def with_autoscale(report: CheckReport, auto: AutoscaleReport) -> CheckReport:
    """`check --autoscale`: a workload whose pods that do not fit all go to new nodes is "fits
    after scale-up" (naming the groups and node counts); one that does not fit says why the
    autoscaler gives some of its pods no node, with each group's reason."""
    import dataclasses

    from kwhatif.framework.types import PodOutcome
    from kwhatif.report.verdict import Verdict

    by_pod = {p.key: p for p in auto.pods}
    reasons: dict[str, Mapping[str, str]] = {}
    for s in auto.scale_ups:
        for pod, r in s.no_group:
            reasons[pod] = r
    entries = []
    for w in report.workloads:
        if w.verdict is not Verdict.DOES_NOT_FIT or w.refused or w.never_created:
            entries.append(w)
            continue
        lines = [by_pod.get(str(r.pod)) for r in w.results if r.status is not PodOutcome.SCHEDULED]
        if lines and all(x is not None and x.outcome == "scale-up" for x in lines):
            nodes: dict[str, set[str]] = {}
            pods: dict[str, int] = {}
            for x in lines:
                assert x is not None and x.node_group is not None
                nodes.setdefault(x.node_group, set()).add(x.node or "")
                pods[x.node_group] = pods.get(x.node_group, 0) + 1
            what = ", ".join(f"{pods[g]} pod(s) on {len(nodes[g])} new node(s) of {g}" for g in sorted(nodes))
            entries.append(
                dataclasses.replace(
                    w,
                    verdict=Verdict.FITS_AFTER_SCALE_UP,
                    message=f"fits after scale-up: {what}",
                    dominant_reason="scale-up",
                )
            )
            continue
        first = next((x for x in lines if x is not None and x.outcome != "scale-up"), None)
        if first is not None:
            why = f"cluster-autoscaler: {first.why}"
            per_group = reasons.get(first.key)
            if per_group:
                why += " (" + "; ".join(f"{g}: {r}" for g, r in per_group.items()) + ")"
            message = f"{w.message}; {why}" if w.message else why
            entries.append(dataclasses.replace(w, message=message))
        else:
            entries.append(w)
    return dataclasses.replace(report, workloads=tuple(entries), autoscale=auto)
