"""DefaultBinder (pkg/scheduler/framework/plugins/defaultbinder). The framework's Bind extension
point hands the decision to the run's Binder (recording, or the API with --apply)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.framework.interface import SUCCESS, BindPlugin, CycleState, Status
from kwhatif.plugins.info import PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "DefaultBinder"


class DefaultBinder(BindPlugin):
    NAME = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        binder = self.handle.binder
        if binder is None:
            return SUCCESS
        return binder.bind(pod, node_name)


def new(args: None, handle: Handle) -> DefaultBinder:
    return DefaultBinder(handle)


INFO = PluginInfo(NAME)
