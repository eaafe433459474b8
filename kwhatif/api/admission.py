"""What the API server's admission plugins set on a new pod before the scheduler sees it.

Priority (spec.priority and spec.preemptionPolicy from the PriorityClass or the global default)
and RuntimeClass (spec.overhead from the class's podFixed overhead).
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

from kwhatif.api.core import Pod, PriorityClass, RuntimeClass
from kwhatif.api.parse import build_pod
from kwhatif.errors import FieldError

# Built-in classes every cluster has (pkg/apis/scheduling).
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": PriorityClass("system-node-critical", 2000001000, False, None),
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2000000000, False, None),
}
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"


@dataclasses.dataclass(frozen=True, slots=True)
class Admission:
    priority_classes: Mapping[str, PriorityClass]
    runtime_classes: Mapping[str, RuntimeClass]

    def global_default(self) -> PriorityClass | None:
        # Several global defaults can exist after a race; upstream takes the lowest value.
        best: PriorityClass | None = None
        for pc in self.priority_classes.values():
            if pc.global_default and (best is None or pc.value < best.value):
                best = pc
        return best

    def admit(self, pod: Pod, strict: bool) -> Pod:
        """Resolve priority and overhead. ``strict`` (new pods): a missing PriorityClass or
        RuntimeClass is an error, as the API server rejects such a pod; existing pods keep what
        they have."""
        changes: dict[str, object] = {}
        if not pod.priority_resolved:
            pc: PriorityClass | None
            if pod.priority_class_name:
                pc = self.priority_classes.get(pod.priority_class_name) or SYSTEM_PRIORITY_CLASSES.get(
                    pod.priority_class_name
                )
                if pc is None and strict:
                    raise FieldError(
                        f"no PriorityClass with name {pod.priority_class_name} was found",
                        field="spec.priorityClassName",
                    )
            else:
                pc = self.global_default()
                if pc is not None:
                    changes["priority_class_name"] = pc.name
            changes["priority"] = pc.value if pc else 0
            changes["priority_resolved"] = True
            if not pod.preemption_policy:
                changes["preemption_policy"] = (pc.preemption_policy if pc else None) or DEFAULT_PREEMPTION_POLICY
        elif not pod.preemption_policy:
            pc = self.priority_classes.get(pod.priority_class_name) if pod.priority_class_name else None
            changes["preemption_policy"] = (pc.preemption_policy if pc else None) or DEFAULT_PREEMPTION_POLICY
        rc = self.runtime_classes.get(pod.runtime_class_name) if pod.runtime_class_name else None
        if pod.runtime_class_name and rc is None and strict:
            raise FieldError(f'RuntimeClass "{pod.runtime_class_name}" not found', field="spec.runtimeClassName")
        if rc is not None and (rc.node_selector or rc.tolerations):
            # The RuntimeClass admission plugin merges the class's scheduling into the pod.
            selector = dict(pod.node_selector)
            for key, value in rc.node_selector.items():
                have = selector.get(key)
                if have is not None and have != value:
                    if strict:
                        raise FieldError(
                            f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                            f"pod.spec.nodeSelector[{key}] = {have}",
                            field="spec.nodeSelector",
                        )
                    continue
                selector[key] = value
            changes["node_selector"] = selector
            changes["tolerations"] = pod.tolerations + tuple(t for t in rc.tolerations if t not in pod.tolerations)
        if rc is not None and pod.overhead is None:
            if rc.overhead is not None:
                # Requests depend on the overhead: rebuild to derive them again.
                kw = {
                    fld.name: getattr(pod, fld.name)
                    for fld in dataclasses.fields(pod)
                    if fld.name not in ("requests", "non0_cpu", "non0_mem", "request_list")
                }
                kw.update(changes)
                kw["overhead"] = dict(rc.overhead)
                return build_pod(**kw)
        return dataclasses.replace(pod, **changes) if changes else pod  # type: ignore[arg-type]
