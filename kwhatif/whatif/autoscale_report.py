"""`kwhatif autoscale`'s answer, as the command line and the Python API give it: the input pods
(their notes told as each tells notes), the engine's answer for them and its report. Apart from
whatif/autoscale.py, which report/autoscale.py reads (the module graph keeps no cycle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kwhatif.whatif.autoscale import AutoscaleOptions, autoscale, input_pods

if TYPE_CHECKING:
    from kwhatif.cache.cluster import ClusterState
    from kwhatif.config.types import SchedulerConfiguration
    from kwhatif.release.versions import ChosenVersion
    from kwhatif.report.autoscale import AutoscaleReport
    from kwhatif.report.karpenter import KarpenterReport


def run_report(
    state: ClusterState,
    docs: list[Any],
    config: SchedulerConfiguration,
    chosen: ChosenVersion,
    options: AutoscaleOptions,
    limits_: Any,
    *,
    pending: bool,
    namespace: str | None,
    profile: str | None,
    note: Callable[[str], None],
) -> AutoscaleReport | KarpenterReport:
    """The pods of ``docs`` (and with ``pending`` the cluster's pending pods of the
    configuration's schedulers), what ``note`` is told about them, the autoscaler's answer for
    them and its report."""
    from kwhatif.report.autoscale import any_autoscale_report

    profiles = frozenset(p.scheduler_name for p in config.profiles)
    pods, notes = input_pods(
        state, docs, pending=pending, namespace=namespace or "default", profile=profile, profiles=profiles
    )
    for line in notes:
        note(line)
    result = autoscale(state, pods, config, options, limits_)
    return any_autoscale_report(result, chosen, chosen.notes)
