"""CheckReport: per workload, how many pods were wanted, placed and not placed, and why not."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kwhatif.api.core import Pod
from kwhatif.cache.pod_groups import group_key
from kwhatif.errors import ExitCode
from kwhatif.framework.types import PodOutcome
from kwhatif.report.base import ReportKind
from kwhatif.report.groups import SCHEDULED, GroupEntry
from kwhatif.report.schedule import (
    API_VERSION,
    PodResult,
    ScheduleReport,
    node_labels_field,
    result_dict,
    version_fields,
)
from kwhatif.report.verdict import FAILURES, REFUSALS, UNEVALUATED, WARNINGS, Verdict

_SOURCE_LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?: \(items\[(?P<item>\d+)\]\))?$")


@dataclass(frozen=True, slots=True)
class WorkloadEntry:
    kind: str
    namespace: str
    name: str
    source: str
    desired: int | None  # None: unknown (a custom resource kwhatif cannot expand)
    placed: int
    not_placed: int  # refused ones included
    dominant_reason: str | None
    message: str | None  # the FitError message of its first pod that did not fit, or the refusal
    replaced: int
    notes: tuple[str, ...]
    results: tuple[PodResult, ...]
    verdict: Verdict = Verdict.FITS
    refused: int = 0  # pods the API server refuses to create (LimitRange, quota)
    group: GroupEntry | None = None  # the Workload pod group its pods belong to (gang scheduling)
    custom: bool = False  # a custom resource (not checked: its operator makes the pods)
    verdict_notes: tuple[str, ...] = ()  # the notes that change or qualify the verdict (shown in every format)
    never_created: int = 0  # OrderedReady StatefulSet: pods after the first one that does not fit
    suspended: bool = False  # not checked: suspended (it creates no pods until it is resumed)

    @property
    def evicts(self) -> list[str]:
        """Running pods its pods would preempt, on any of their attempts."""
        return [f"{v.namespace}/{v.name}" for r in self.results for v in r.victims]

    @property
    def fits(self) -> bool:
        return self.verdict is Verdict.FITS

    @property
    def failed(self) -> bool:
        return self.verdict in FAILURES

    @property
    def warning(self) -> bool:
        return self.verdict in WARNINGS

    @property
    def checked(self) -> bool:
        """False when no pod was placed to reach the verdict: an object kwhatif does not expand
        into pods, or one whose answer the cluster state cannot give (unknown)."""
        return self.verdict not in UNEVALUATED

    @property
    def refused_by_admission(self) -> bool:
        """The API server refuses its pods (quota, LimitRange, a missing namespace)."""
        return self.verdict in REFUSALS

    @property
    def headline(self) -> str:
        """One line on what went wrong, for annotations and test cases."""
        if self.verdict is Verdict.NOT_CHECKED:
            what = (
                "suspended"
                if self.suspended
                else "a custom resource"
                if self.custom
                else "a kind kwhatif does not evaluate"
            )
            return f"{self.kind} {self.ref}: not checked ({what})"
        if self.verdict is Verdict.UNKNOWN:
            return f"{self.kind} {self.ref}: unknown ({self.dominant_reason})"
        if self.verdict is Verdict.NO_ELIGIBLE_NODES:
            return f"{self.kind} {self.ref}: no eligible nodes"
        if self.verdict is Verdict.FITS_AFTER_SCALE_UP:
            return f"{self.kind} {self.ref}: {self.message}"
        if self.verdict is Verdict.REFUSED_BY_API or (self.verdict in REFUSALS and not self.refused):
            # the object itself is refused (it asks for no pods, or kwhatif does not count them)
            return f"{self.kind} {self.ref}: {self.verdict}"
        if self.never_created and self.results:
            pending = self.results[-1].pod.name
            return (
                f"{self.kind} {self.ref}: {pending} does not fit; the {self.never_created} pod(s) "
                "after it are never created while it is pending (OrderedReady)"
            )
        if self.refused and self.refused == self.not_placed:
            return f"{self.kind} {self.ref}: {self.refused} of {self.desired_text} pods {self.verdict}"
        return f"{self.kind} {self.ref}: {self.not_placed} of {self.desired_text} pods do not fit"

    @property
    def ref(self) -> str:
        """namespace/name, or the name alone of a cluster-scoped object."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def desired_text(self) -> str:
        return "?" if self.desired is None else str(self.desired)

    def file_and_line(self) -> tuple[str, int]:
        return file_and_line(self.source)


def file_and_line(source: str) -> tuple[str, int]:
    """The file and line an object's ``source`` names ("deploy.yaml:12 (items[3])"); line 1
    when it names none."""
    m = _SOURCE_LINE.match(source)
    if m:
        return m.group("file"), int(m.group("line"))
    return source.split(" (")[0], 1


@dataclass(frozen=True, slots=True)
class CheckReport:
    schedule: ScheduleReport
    workloads: tuple[WorkloadEntry, ...]
    notes: tuple[str, ...] = ()
    strict: bool = False  # warnings (not checked, no eligible nodes) fail the gate
    autoscale: Any = None  # check --autoscale: the AutoscaleReport of what did not fit

    @property
    def kind(self) -> ReportKind:
        return ReportKind.CHECK

    @property
    def exit_code(self) -> ExitCode:
        """The exit policy, in one place: 1 when a workload does not fit or is refused, or
        (--strict) when one could not be checked or has no eligible node."""
        if any(w.failed or (self.strict and w.warning) for w in self.workloads):
            return ExitCode.UNSCHEDULABLE
        return ExitCode.OK

    def summary_line(self) -> str:
        return summary_line_of([w.verdict for w in self.workloads], self.strict)

    def to_dict(self) -> dict[str, Any]:
        s = self.schedule.summary
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind.value,
            "profile": self.schedule.profile,
            **version_fields(self.schedule.scheduler_version),
            "workloads": [
                {
                    "kind": w.kind,
                    "namespace": w.namespace,
                    "name": w.name,
                    "source": w.source,
                    "desired": w.desired,
                    "placed": w.placed,
                    "notPlaced": w.not_placed,
                    "dominantReason": w.dominant_reason,
                    "message": w.message,
                    "replaced": w.replaced,
                    "refused": w.refused,
                    "verdict": str(w.verdict),
                    "evicts": w.evicts,
                    "notes": list(w.notes),
                    **({"podGroup": w.group.to_dict()} if w.group is not None else {}),
                    # OrderedReady StatefulSets: pods after the first that does not fit
                    **({"neverCreated": w.never_created} if w.never_created else {}),
                    "pods": [str(r.pod) for r in w.results],
                }
                for w in self.workloads
            ],
            "results": [result_dict(r) for r in self.schedule.results],
            "notes": list(dict.fromkeys((*self.notes, *self.schedule.notes))),
            "strict": self.strict,
            **({"autoscale": self.autoscale.to_dict()} if self.autoscale is not None else {}),
            **node_labels_field(self.schedule),
            "summary": {
                "workloads": len(self.workloads),
                "fit": sum(1 for w in self.workloads if w.fits),
                "doNotFit": sum(1 for w in self.workloads if w.failed),
                "warnings": sum(1 for w in self.workloads if w.warning),
                "notChecked": sum(1 for w in self.workloads if w.verdict is Verdict.NOT_CHECKED),
                "unknown": sum(1 for w in self.workloads if w.verdict is Verdict.UNKNOWN),
                **(
                    {"fitAfterScaleUp": sum(1 for w in self.workloads if w.verdict is Verdict.FITS_AFTER_SCALE_UP)}
                    if self.autoscale is not None
                    else {}
                ),
                "pods": s.pods,
                "placed": s.scheduled,
                "notPlaced": s.pods - s.scheduled,
                "refused": sum(w.refused for w in self.workloads),
                "preempted": s.preempted,
            },
        }


def summary_line_of(verdicts: list[Verdict] | list[str], strict: bool) -> str:
    """The one summary line of a check, from its workloads' verdicts: the table's headline and
    the HTML page's (from the JSON document's verdicts) are this one line, never two counts."""
    if not verdicts:
        return "no workloads to check"
    vs = [Verdict(v) for v in verdicts]
    checked = [v for v in vs if v not in WARNINGS or v is Verdict.FITS_AFTER_SCALE_UP]
    line = f"{sum(1 for v in checked if v is Verdict.FITS)}/{len(checked)} workloads fit"
    no_nodes = vs.count(Verdict.NO_ELIGIBLE_NODES)
    not_checked = vs.count(Verdict.NOT_CHECKED)
    unknown = vs.count(Verdict.UNKNOWN)
    after = vs.count(Verdict.FITS_AFTER_SCALE_UP)
    if after:
        line += f", {after} after scale-up"
    if no_nodes:
        line += f", {no_nodes} with no eligible nodes"
    no_nodes += after  # --strict fails them too
    if not_checked:
        line += f", {not_checked} not checked"
    if unknown:
        line += f", {unknown} unknown"
    if strict and (no_nodes or not_checked or unknown):
        line += " (--strict: they fail)"
    return line


def dominant_reason(results: list[PodResult]) -> str | None:
    """The reason that turned away most nodes across the workload's pods that did not fit."""
    counts: Counter[str] = Counter()
    for r in results:
        if r.status is PodOutcome.SCHEDULED:
            continue
        if r.status is PodOutcome.GATED:
            counts[r.message or "gated"] += 1
            continue
        for n in r.nodes:
            f = n.upstream_failure
            if f is not None and not n.excluded:
                counts.update(f.reasons)
        if not r.nodes:
            counts.update(r.reason_counts)
        for f in r.pre_filter:
            counts.update(f.reasons)
    if not counts:
        return None
    best = max(counts.values())
    return sorted(k for k, v in counts.items() if v == best)[0]


def check_report(result: Any, schedule: ScheduleReport, *, strict: bool = False) -> CheckReport:
    by_pod = {str(r.pod): r for r in schedule.results}
    entries = []
    for w in result.workloads:
        results = tuple(by_pod[f"{p.namespace}/{p.name}"] for p in w.pods if f"{p.namespace}/{p.name}" in by_pod)
        placed = sum(1 for r in results if r.status is PodOutcome.SCHEDULED)
        first_bad = next((r for r in results if r.status is not PodOutcome.SCHEDULED), None)
        # pods a DaemonSet already runs (kept with --surge) count as placed
        never = getattr(w, "never_created", 0)
        already = max(0, (w.desired or 0) - len(w.pods) - w.refused - never) if w.verdict is None else 0
        not_placed = len(w.pods) - placed + w.refused + never
        if w.verdict is not None:
            verdict = w.verdict
        elif w.refused and w.refused_by is not None:
            verdict = w.refused_by
        elif not_placed:
            verdict = Verdict.DOES_NOT_FIT
        else:
            verdict = Verdict.FITS
        reason = dominant_reason(list(results))
        message = first_bad.message if first_bad else None
        if w.refusal is not None and (reason is None or verdict is w.refused_by):
            reason = w.refusal.split(" is forbidden: ", 1)[-1].split(" is invalid: ", 1)[-1]
            message = w.refusal
        if verdict is Verdict.UNKNOWN:
            reason = "; ".join(dict.fromkeys(short for short, _ in w.missing))
            message = "cannot tell: " + "; ".join(text for _, text in w.missing)
        group = _group_of(w.pods, schedule.groups)
        if group is not None and group.verdict != SCHEDULED and verdict is Verdict.DOES_NOT_FIT:
            # the group's verdict: all-or-nothing, so the pods that fit alone are not placed either
            message = f"pod group {group.pod_group} is {group.verdict}: {group.lacks or group.message}"
        entries.append(
            WorkloadEntry(
                kind=w.kind,
                namespace=w.namespace,
                name=w.name,
                source=w.source,
                desired=w.desired,
                placed=placed + already,
                not_placed=not_placed,
                dominant_reason=reason,
                message=message,
                replaced=w.replaced,
                notes=tuple(w.notes),
                results=results,
                verdict=verdict,
                refused=w.refused,
                group=group,
                custom=w.custom,
                verdict_notes=tuple(w.verdict_notes),
                never_created=never,
                suspended=getattr(w, "suspended", False),
            )
        )
    return CheckReport(schedule, tuple(entries), notes=tuple(result.notes), strict=strict)


def _group_of(pods: Iterable[Pod], groups: Iterable[GroupEntry]) -> GroupEntry | None:
    """The pod group of a workload whose pods are all in one group."""
    keys = {group_key(p) for p in pods}
    if len(keys) != 1:
        return None
    key = keys.pop()
    return next((g for g in groups if g.pod_group == key), None) if key else None
