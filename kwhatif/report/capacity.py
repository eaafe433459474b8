"""CapacityReport: how many copies of a pod fit, where they go, and what stops the next one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kwhatif.errors import ExitCode
from kwhatif.framework.types import PodOutcome
from kwhatif.release.versions import ChosenVersion
from kwhatif.report.base import ReportKind, from_record
from kwhatif.report.schedule import API_VERSION, PodResult, version_fields


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """A node's allocatable and the requests on it before and after the copies: cpu in millicores,
    memory and ephemeral-storage in bytes, pods as a count, and the extended resources it offers."""

    name: str
    labels: Mapping[str, str]
    allocatable: Mapping[str, int]
    before: Mapping[str, int]
    after: Mapping[str, int]


def usage_dict(u: NodeUsage) -> dict[str, Any]:
    return {
        "name": u.name,
        "labels": dict(u.labels),
        "allocatable": dict(u.allocatable),
        "requestedBefore": dict(u.before),
        "requestedAfter": dict(u.after),
    }


@dataclass(frozen=True, slots=True)
class CapacityReport:
    namespace: str
    name: str
    profile: str
    num_nodes: int
    fits: int
    per_node: dict[str, int]
    first_failure: str
    reasons: dict[str, int]
    stopped_by: str
    ties: int
    minimum: int | None
    failure: PodResult | None
    notes: tuple[str, ...] = ()
    scheduler_version: ChosenVersion | None = None
    usage: tuple[NodeUsage, ...] = ()

    @property
    def kind(self) -> ReportKind:
        return ReportKind.CAPACITY

    @property
    def exit_code(self) -> ExitCode:
        if self.minimum is not None and self.fits < self.minimum:
            return ExitCode.UNSCHEDULABLE
        return ExitCode.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind.value,
            "profile": self.profile,
            **version_fields(self.scheduler_version),
            "pod": {"namespace": self.namespace, "name": self.name},
            "fits": self.fits,
            "perNode": dict(self.per_node),
            "firstFailure": self.first_failure,
            "reasons": dict(self.reasons),
            "stoppedBy": self.stopped_by,
            "tiedPlacements": self.ties,
            "minimum": self.minimum,
            "notes": list(self.notes),
            # per node: allocatable and requested before and after the copies (cpu in millicores,
            # memory and ephemeral-storage in bytes, pods as a count)
            "nodes": [usage_dict(u) for u in self.usage],
        }


def capacity_report(
    res: Any,
    profile: str,
    num_nodes: int,
    minimum: int | None,
    scheduler_version: ChosenVersion | None = None,
    notes: tuple[str, ...] = (),
) -> CapacityReport:
    from kwhatif.report.schedule import pod_result

    failure = pod_result(res.failed_attempt) if res.failed_attempt is not None else None
    if failure is not None and failure.status is PodOutcome.SCHEDULED:
        failure = None
    # fits, per_node, first_failure, reasons, stopped_by and ties are the result's
    return from_record(
        CapacityReport,
        res,
        namespace=res.template.namespace,
        name=res.template.name,
        profile=profile,
        num_nodes=num_nodes,
        minimum=minimum,
        failure=failure,
        notes=tuple(res.notes) + notes,
        scheduler_version=scheduler_version,
        usage=tuple(res.usage),
    )
