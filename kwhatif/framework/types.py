"""Records shared by the scheduler, the plugins and every report (pkg/scheduler/framework/types.go).

The outcome of one scheduling attempt and the FitError text: plugins (preemption) render the same
message the scheduler does, and the report, check, capacity and drain read the same outcome enum.
"""

from __future__ import annotations

import enum
from typing import Mapping

from kwhatif.framework.interface import Status

NO_NODE_AVAILABLE_MSG = "0/{n} nodes are available"


class PodOutcome(enum.StrEnum):
    """How one scheduling attempt of a pod ended."""

    SCHEDULED = "Scheduled"
    UNSCHEDULABLE = "Unschedulable"  # a FitError, or a rejection at Reserve/Permit/PreBind
    ERROR = "Error"  # a plugin or the framework failed: upstream retries with backoff
    GATED = "Gated"  # PreEnqueue kept it out of the active queue


def fit_error_message(num_nodes: int, pre_filter_msg: str, statuses: Mapping[str, Status], post_filter_msg: str) -> str:
    """framework.FitError.Error(): the PreFilter message, else the sorted histogram of every
    node's reasons, then the PostFilter message."""
    msg = NO_NODE_AVAILABLE_MSG.format(n=num_nodes) + ":"
    if pre_filter_msg:
        msg += f" {pre_filter_msg}."
    else:
        counts: dict[str, int] = {}
        for st in statuses.values():
            for r in st.reasons:
                counts[r] = counts.get(r, 0) + 1
        entries = sorted(f"{v} {k}" for k, v in counts.items())
        if entries:
            msg += " " + ", ".join(entries) + "."
    if post_filter_msg:
        msg += f" {post_filter_msg}"
    return msg
