"""Karpenter's operator options that change its decisions, as flags of `kwhatif autoscale`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def karpenter_operator_options(fn: F) -> F:
    """--min-values-policy, --preference-policy and --spot-to-spot-consolidation (Karpenter's
    MinValuesPolicy, PreferencePolicy and the SpotToSpotConsolidation feature gate)."""
    fn = click.option(
        "--spot-to-spot-consolidation",
        is_flag=True,
        help="Karpenter's SpotToSpotConsolidation feature gate: consolidation may replace a spot node by a "
        "cheaper spot one.",
    )(fn)
    fn = click.option(
        "--preference-policy",
        type=click.Choice(["Respect", "Ignore"]),
        default="Respect",
        show_default=True,
        help="Karpenter's PreferencePolicy: Ignore drops preferred affinities and ScheduleAnyway spreads.",
    )(fn)
    fn = click.option(
        "--min-values-policy",
        type=click.Choice(["Strict", "BestEffort"]),
        default="Strict",
        show_default=True,
        help="Karpenter's MinValuesPolicy: BestEffort relaxes a NodePool's minValues instead of refusing the pod.",
    )(fn)
    return fn
