"""The rolling-update rules of controlplane/controllers/rollout.py: which running pods make room
for an update, OrderedReady creation, and the HorizontalPodAutoscaler's replica bounds."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api.autoscaling import HorizontalPodAutoscaler
from kwhatif.cache.cluster import Workload
from kwhatif.controlplane.controllers.rollout import (
    Rollout,
    autoscaled,
    created_in_order,
    ordered_ready,
    plan_rollout,
    pod_management_policy,
    subset,
    template_unchanged,
)


def workload(kind: str, cpu: str = "500m", **spec: Any) -> Workload:
    body = {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]},
            },
            **spec,
        },
    }
    return Workload(kind, "default", "web", "", body, "x.yaml")


RUNNING = frozenset({"default/web-a", "default/web-b"})
SURGE_1 = {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}
STS_NEVER_SURGES = (
    "StatefulSet: its template changes and a StatefulSet never surges: the controller deletes each pod before it "
    "creates its replacement, so --surge replaces them as without it"
)
DS_SURGES = (
    "DaemonSet: its template changes and its rolling update (maxSurge 1) starts each new pod next to the old one: "
    "both are placed"
)
DS_DELETES_FIRST = (
    "DaemonSet: its template changes and its update (maxSurge 0, or OnDelete) deletes each old pod before it "
    "creates the new one, so --surge replaces them as without it"
)


@pytest.mark.parametrize(
    "new,current,running,surge,want",
    [
        # without --surge every kind's running pods leave first
        pytest.param(workload("Deployment", "1"), workload("Deployment"), RUNNING, False, Rollout(True), id="recreate"),
        pytest.param(
            workload("StatefulSet", "1"), workload("StatefulSet"), RUNNING, False, Rollout(True), id="sts-recreate"
        ),
        # --surge: a Deployment's running pods all stay beside the new ones
        pytest.param(workload("Deployment", "1"), workload("Deployment"), RUNNING, True, Rollout(False), id="deploy"),
        pytest.param(workload("Deployment"), None, RUNNING, True, Rollout(False), id="deploy-no-object"),
        # stateful_set_control.go updateStatefulSet: each pod of an old revision is deleted first
        pytest.param(
            workload("StatefulSet", "1"),
            workload("StatefulSet"),
            RUNNING,
            True,
            Rollout(True, notes=(STS_NEVER_SURGES,)),
            id="sts-changed",
        ),
        pytest.param(workload("StatefulSet"), workload("StatefulSet"), RUNNING, True, Rollout(False), id="sts-same"),
        pytest.param(
            workload("StatefulSet"),
            None,
            RUNNING,
            True,
            Rollout(
                True,
                notes=(
                    STS_NEVER_SURGES,
                    "StatefulSet: the cluster state has no StatefulSet object to compare its template with: taken "
                    "as changed",
                ),
            ),
            id="sts-no-object",
        ),
        # daemon/update.go rollingUpdate with maxSurge: the new pod starts next to the old one
        pytest.param(
            workload("DaemonSet", "1", **SURGE_1),
            workload("DaemonSet", **SURGE_1),
            RUNNING,
            True,
            Rollout(False, RUNNING, (DS_SURGES,)),
            id="ds-surge",
        ),
        pytest.param(
            workload("DaemonSet", "1"),
            workload("DaemonSet"),
            RUNNING,
            True,
            Rollout(True, notes=(DS_DELETES_FIRST,)),
            id="ds-max-surge-0",
        ),
        # update_test.go TestDaemonSetUpdatesNoTemplateChanged: template not changed, no pod removed
        pytest.param(workload("DaemonSet"), workload("DaemonSet"), RUNNING, True, Rollout(False), id="ds-same"),
        # nothing runs: nothing to replace
        pytest.param(workload("StatefulSet", "1"), None, frozenset(), True, Rollout(False), id="new"),
    ],
)
def test_plan_rollout(
    new: Workload, current: Workload | None, running: frozenset[str], surge: bool, want: Rollout
) -> None:
    assert plan_rollout(new, current, running, surge=surge) == want


@pytest.mark.parametrize(
    "placed,created",
    [
        pytest.param([], 0, id="none"),
        pytest.param([True, True, True], 3, id="all-placed"),
        # the first pending pod is created; the ones after it wait for it to be Running and Ready
        pytest.param([True, False, True], 2, id="second-pending"),
        pytest.param([False, True], 1, id="first-pending"),
        pytest.param([True, True, False], 3, id="last-pending"),
    ],
)
def test_created_in_order(placed: list[bool], created: int) -> None:
    assert created_in_order(placed) == created


@pytest.mark.parametrize(
    "w,policy,ordered",
    [
        # apps/v1 defaults_test.go TestSetDefaultStatefulSet: podManagementPolicy defaults to OrderedReady
        pytest.param(workload("StatefulSet"), "OrderedReady", True, id="default"),
        pytest.param(workload("StatefulSet", podManagementPolicy="Parallel"), "Parallel", False, id="parallel"),
        pytest.param(workload("StatefulSet", podManagementPolicy=""), "OrderedReady", True, id="empty"),
        pytest.param(workload("Deployment"), "OrderedReady", False, id="not-a-statefulset"),
    ],
)
def test_pod_management_policy(w: Workload, policy: str, ordered: bool) -> None:
    assert (pod_management_policy(w), ordered_ready(w)) == (policy, ordered)


def hpa(min_replicas: int, max_replicas: int, kind: str = "Deployment", name: str = "web") -> HorizontalPodAutoscaler:
    return HorizontalPodAutoscaler("default", "web-hpa", kind, name, "apps/v1", min_replicas, max_replicas)


BOUNDS = "HorizontalPodAutoscaler web-hpa (minReplicas 3, maxReplicas 5)"


@pytest.mark.parametrize(
    "replicas,hpas,hpa_max,want,note",
    [
        # podautoscaler/horizontal_test.go TestZeroReplicas: spec 0 -> 0 (ScalingDisabled)
        pytest.param(0, [hpa(3, 5)], False, 0, f"{BOUNDS}: the target has 0 replicas, so autoscaling is disabled"),
        # TestTooFewReplicas: 2 -> minReplicas 3
        pytest.param(2, [hpa(3, 5)], False, 3, f"{BOUNDS}: 2 replica(s) are raised to minReplicas 3 at once"),
        # TestTooManyReplicas: 10 -> maxReplicas 5
        pytest.param(10, [hpa(3, 5)], False, 5, f"{BOUNDS}: 10 replicas are lowered to maxReplicas 5 at once"),
        pytest.param(
            4,
            [hpa(3, 5)],
            False,
            4,
            f"{BOUNDS}: 4 replica(s), within its bounds (it may scale up to 5; see --hpa-max)",
        ),
        pytest.param(4, [hpa(3, 5)], True, 5, f"{BOUNDS}: checked at maxReplicas 5 (--hpa-max)"),
        pytest.param(None, [hpa(3, 5)], False, 3, f"{BOUNDS}: 1 replica(s) are raised to minReplicas 3 at once"),
        pytest.param(4, [hpa(3, 5, kind="StatefulSet")], False, 4, None, id="other-kind"),
        pytest.param(4, [hpa(3, 5, name="api")], False, 4, None, id="other-name"),
    ],
)
def test_autoscaled(
    replicas: int | None, hpas: list[HorizontalPodAutoscaler], hpa_max: bool, want: int, note: str | None
) -> None:
    w = workload("Deployment") if replicas is None else workload("Deployment", replicas=replicas)
    notes: list[str] = []
    got = autoscaled(w, hpas, hpa_max, notes)
    assert (got.body["spec"].get("replicas", 1), notes) == (want, [note] if note else [])
    assert w.body["spec"].get("replicas") == replicas  # the manifest's object is not changed


def test_autoscaled_only_scaled_kinds() -> None:
    job = Workload("Job", "default", "web", "", {"kind": "Job", "spec": {"parallelism": 2}}, "x.yaml")
    notes: list[str] = []
    assert autoscaled(job, [hpa(3, 5, kind="Job")], False, notes) is job
    assert notes == []


@pytest.mark.parametrize(
    "new,old,want",
    [
        pytest.param({"cpu": "500m"}, {"cpu": "0.5", "memory": "1Gi"}, True, id="quantity-and-defaulted-field"),
        pytest.param({"cpu": "1"}, {"cpu": "500m"}, False, id="quantity-changed"),
        pytest.param({"cpu": 1}, {"cpu": "1000m"}, True, id="bare-number"),
        pytest.param({"args": ["a"]}, {"args": ["a", "b"]}, False, id="list-length"),
        pytest.param({"name": "x"}, {}, False, id="missing-in-old"),
        pytest.param({"image": "nginx"}, {"image": "nginx:1"}, False, id="not-a-quantity"),
        pytest.param({"x": None}, {"x": "1"}, False, id="null"),
    ],
)
def test_subset(new: dict[str, Any], old: dict[str, Any], want: bool) -> None:
    assert subset(new, old) is want


def test_template_unchanged_drops_a_limit() -> None:
    # a container that drops its limit changes the pod, although what it still sets is as before
    old = workload("DaemonSet")
    old.body["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "1"}
    assert template_unchanged(old, workload("DaemonSet")) is False
    assert template_unchanged(workload("DaemonSet"), old) is False
    assert template_unchanged(old, old) is True
