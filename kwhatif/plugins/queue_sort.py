"""PrioritySort (pkg/scheduler/framework/plugins/queuesort): higher priority first, then the
earlier queue timestamp. kwhatif adds the input order as a last, deterministic tie-breaker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.framework.interface import QueuedPodInfo, QueueSortPlugin
from kwhatif.plugins.info import PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "PrioritySort"


class PrioritySort(QueueSortPlugin):
    NAME = NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod.priority, b.pod.priority
        return p1 > p2 or (p1 == p2 and (a.timestamp, a.order) < (b.timestamp, b.order))


def new(args: None, handle: Handle) -> PrioritySort:
    return PrioritySort()


INFO = PluginInfo(NAME)
