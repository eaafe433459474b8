"""Every gate kwhatif models behind --feature-gates: the same input with the gate on and off,
under each release that has the gate, asserting both answers (scheduler plugins, the default
profile and the API server's side)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest
from test_versions import first, node

from kwhatif.api import parse
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.controlplane.admission.pod import Admission
from kwhatif.errors import FieldError
from kwhatif.release.featuregates import FeatureGateError
from kwhatif.release.versions import SUPPORTED_MINORS, SchedulerVersion, get
from kwhatif.scheduling.scheduler import Attempt, Scheduler

from builders import PodBuilder, make_pod


def version(minor: int, gates: str) -> SchedulerVersion:
    return get(f"1.{minor}", gates)


def admit(b: PodBuilder, v: SchedulerVersion) -> Any:
    adm = Admission({}, {}, v, PodRules.of(v))
    b.d["metadata"].setdefault("uid", f"uid-{b.d['metadata']['name']}")
    return adm.admit(parse.pod(b.dict(), rules=adm.rules), strict=True)


def run(v: SchedulerVersion, nodes: Sequence[Any], pod: PodBuilder, existing: Sequence[PodBuilder] = ()) -> Attempt:
    state = ClusterState(version=v)
    state.nodes = {n.name: n for n in (b.obj() for b in nodes)}
    adm = Admission({}, {}, v, PodRules.of(v))
    state.pods = [adm.admit(parse.pod(e.dict(), rules=adm.rules), strict=False) for e in existing]
    cfg = dataclasses.replace(default_configuration(v), percentage_of_nodes_to_score=100)
    return Scheduler(state, cfg).schedule_one(admit(pod, v))


def minors_from(first_minor: int) -> list[int]:
    return [m for m in SUPPORTED_MINORS if m >= first_minor]


def gate_off(minor: int, gate: str) -> str:
    """--feature-gates turning ``gate`` off, with every gate that is on and depends on it (from
    1.35 kube-scheduler refuses to leave a dependent on)."""
    from kwhatif.release.featuregates import dependencies

    off = [gate]
    deps = dependencies(minor)
    changed = True
    while changed:
        changed = False
        for feature, needs in sorted(deps.items()):
            if feature not in off and set(needs) & set(off) and get(f"1.{minor}").feature_gates.enabled(feature):
                off.append(feature)
                changed = True
    return ",".join(f"{g}=false" for g in off)


# --- TaintTolerationComparisonOperators (1.35 alpha) ---------------------------------------------


@pytest.mark.parametrize("minor", minors_from(35))
def test_taint_toleration_comparison_operators(minor: int) -> None:
    nodes = [
        node("n1").taint("gpu-mem", "16", "NoSchedule"),
        node("n2").taint("gpu-mem", "32", "NoSchedule"),
        node("n3").taint("gpu-mem", "x", "NoSchedule"),
        node("n4").taint("gpu-mem", "-3", "PreferNoSchedule"),
    ]
    pod = make_pod().name("p").toleration("gpu-mem", operator="Lt", value="20")
    on = run(version(minor, "TaintTolerationComparisonOperators=true"), nodes, pod)
    off = run(version(minor, "TaintTolerationComparisonOperators=false"), nodes, pod)
    assert on.feasible == ["n1", "n4"]  # 16 < 20; "x" is not an integer; -3 < 20 (scores: tolerated)
    assert first(on, "n2") == ("TaintToleration", "UnschedulableAndUnresolvable", ("node(s) had untolerated taint(s)",))
    assert {s.plugin: s.raw for s in on.prioritized.scores["n4"].scores}["TaintToleration"] == 0
    assert off.feasible == ["n4"]
    assert {s.plugin: s.raw for s in off.prioritized.scores["n4"].scores}["TaintToleration"] == 1
    assert any(
        "Lt needs the TaintTolerationComparisonOperators feature gate, off by default in 1." in n for n in off.notes
    )


@pytest.mark.parametrize(
    "op,value,taint,tolerated",
    [
        pytest.param("Gt", "900", "900", False, id="gt-strict"),
        pytest.param("Gt", "900", "901", True, id="gt-above"),
        pytest.param("Gt", "-10", "-5", True, id="gt-negative"),
        pytest.param("Lt", "10", "010", False, id="lt-taint-not-canonical"),
        pytest.param("Lt", "+10", "5", False, id="lt-toleration-plus-sign"),
        pytest.param("Lt", "9223372036854775808", "5", False, id="lt-outside-int64"),
        pytest.param("Lt", "-0", "-1", False, id="lt-minus-zero"),
    ],
)
def test_comparison_operators_compare_decimal_integers(op: str, value: str, taint: str, tolerated: bool) -> None:
    pod = make_pod().name("p").toleration("k", operator=op, value=value, effect="NoSchedule")
    att = run(version(35, "TaintTolerationComparisonOperators=true"), [node("n1").taint("k", taint)], pod)
    assert (att.feasible == ["n1"]) is tolerated


def test_comparison_operators_before_1_35() -> None:
    """1.34 does not know the gate: --feature-gates refuses it, and a Gt toleration matches nothing."""
    from kwhatif.release.featuregates import FeatureGateError

    with pytest.raises(FeatureGateError, match="unrecognized feature gate: TaintTolerationComparisonOperators"):
        version(34, "TaintTolerationComparisonOperators=true")
    pod = make_pod().name("p").toleration("k", operator="Gt", value="1", effect="NoSchedule")
    att = run(get("1.34"), [node("n1").taint("k", "5")], pod)
    assert att.feasible == []
    assert any("absent from 1.34" in n for n in att.notes)


# --- PodLevelResources (1.32 alpha, 1.34 beta) ---------------------------------------------------


def _pod_level(cpu: str) -> PodBuilder:
    return make_pod().name("p").req(cpu="1").set("spec.resources", {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}})


@pytest.mark.parametrize("minor", minors_from(32))
def test_pod_level_resources(minor: int) -> None:
    nodes = [node("n1", cpu="2")]
    on = run(version(minor, "PodLevelResources=true"), nodes, _pod_level("3"))
    code = "UnschedulableAndUnresolvable" if minor >= 34 else "Unschedulable"
    assert first(on, "n1") == ("NodeResourcesFit", code, ("Insufficient cpu",))
    off = run(version(minor, gate_off(minor, "PodLevelResources")), nodes, _pod_level("3"))
    assert off.feasible == ["n1"]
    how = "turned off by --feature-gates" if minor >= 34 else "off by default"
    assert any(n.startswith(f"spec.resources: the PodLevelResources feature gate is {how}") for n in off.notes)


# --- NodeDeclaredFeatures (1.35 alpha, 1.36 beta) ------------------------------------------------


@pytest.mark.parametrize("minor", minors_from(35))
def test_node_declared_features(minor: int) -> None:
    a, b = node("a"), node("b")
    b.d["status"]["declaredFeatures"] = ["RestartAllContainersOnContainerExits"]
    pod = make_pod().name("p")
    pod.d["spec"]["containers"][0]["restartPolicy"] = "Never"
    pod.d["spec"]["containers"][0]["restartPolicyRules"] = [
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}
    ]
    v_on = version(minor, "NodeDeclaredFeatures=true")
    assert "NodeDeclaredFeatures" in [n for n, _ in v_on.default_plugins()]
    v_off = None
    if minor >= 37:  # GA and locked to true in 1.37 (kube_features.go at ead35706)
        with pytest.raises(FeatureGateError, match="NodeDeclaredFeatures to false, feature is locked to true"):
            version(minor, gate_off(minor, "NodeDeclaredFeatures"))
    else:
        v_off = version(minor, gate_off(minor, "NodeDeclaredFeatures"))
        assert "NodeDeclaredFeatures" not in [n for n, _ in v_off.default_plugins()]
    on = run(v_on, [a, b], pod)
    assert on.feasible == ["b"]
    reason = (
        "node declared features check failed - unsatisfied requirements: RestartAllContainersOnContainerExits"
        if minor == 35
        else "node(s) didn't match Pod's required features"
    )
    assert first(on, "a") == ("NodeDeclaredFeatures", "UnschedulableAndUnresolvable", (reason,))
    if v_off is not None:
        assert run(v_off, [a, b], pod).feasible == ["a", "b"]


# --- MatchLabelKeysInPodTopologySpread (beta and on in every release) ----------------------------


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_match_label_keys_in_pod_topology_spread(minor: int) -> None:
    pod = (
        make_pod()
        .name("p")
        .label("app", "web")
        .label("hash", "new")
        .spread(1, "kubernetes.io/hostname", selector={"matchLabels": {"app": "web"}}, matchLabelKeys=["hash"])
    )
    nodes = [node("n1"), node("n2")]
    existing = [
        make_pod().name("old-1").node("n1").label("app", "web").label("hash", "old"),
        make_pod().name("old-2").node("n1").label("app", "web").label("hash", "old"),
        make_pod().name("new-1").node("n2").label("app", "web").label("hash", "new"),
    ]
    on = run(version(minor, "MatchLabelKeysInPodTopologySpread=true"), nodes, pod, existing)
    off = run(version(minor, gate_off(minor, "MatchLabelKeysInPodTopologySpread")), nodes, pod, existing)
    assert on.feasible == ["n1"]  # only hash=new pods count: n1 has 0, n2 has 1
    assert off.feasible == ["n2"]  # every app=web pod counts: n1 has 2, n2 has 1
    assert first(off, "n1") == (
        "PodTopologySpread",
        "Unschedulable",
        ("node(s) didn't match pod topology spread constraints",),
    )
    assert any("matchLabelKeys needs the MatchLabelKeysInPodTopologySpread" in n for n in off.notes)


# --- DynamicResourceAllocation (beta off until 1.33, on from 1.34) -------------------------------


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_dynamic_resource_allocation(minor: int) -> None:
    from kwhatif.release.featuregates import FeatureGateError, known

    if "DynamicResourceAllocation" not in known(minor):
        # 1.38 removed the gate (#141946): DRA is always on, and the gate is unknown
        with pytest.raises(FeatureGateError, match="unrecognized feature gate: DynamicResourceAllocation"):
            version(minor, "DynamicResourceAllocation=true")
        assert "DynamicResources" in [n for n, _ in version(minor, "").default_plugins()]
        return
    v_on = version(minor, "DynamicResourceAllocation=true")
    assert "DynamicResources" in [n for n, _ in v_on.default_plugins()]
    pod = make_pod().name("p").set("spec.resourceClaims", [{"name": "gpu", "resourceClaimName": "gpu-claim"}])
    on = run(v_on, [node("n1")], pod)
    assert on.feasible == []
    assert (
        on.fit is not None and on.fit.pre_filter is not None and on.fit.pre_filter.status.plugin == "DynamicResources"
    )
    if known(minor)["DynamicResourceAllocation"].locked:
        with pytest.raises(
            FeatureGateError,
            match="cannot set feature gate DynamicResourceAllocation to false, feature is locked to true",
        ):
            version(minor, gate_off(minor, "DynamicResourceAllocation"))
        return
    v_off = version(minor, gate_off(minor, "DynamicResourceAllocation"))
    assert "DynamicResources" not in [n for n, _ in v_off.default_plugins()]
    off = run(v_off, [node("n1")], pod)
    assert off.feasible == ["n1"]
    assert any(n.startswith("spec.resourceClaims: the DynamicResourceAllocation feature gate is") for n in off.notes)


@pytest.mark.parametrize("minor", SUPPORTED_MINORS)
def test_dynamic_resources_post_filter_of_a_pod_without_claims(minor: int) -> None:
    """DynamicResources' PostFilter reads its PreFilter state first, except in 1.33, which answers a
    pod without claims Unschedulable with no reason before reading it (dynamicresources.go of
    v1.30.6, v1.32.5, v1.33.3 and v1.34.7). Without the state (VolumeRestrictions' PreFilter, ahead
    of it, rejected the pod) it fails with "not found", and DefaultPreemption does not run."""
    v = version(minor, "DynamicResourceAllocation=true" if minor < 34 else "")
    cpu = run(v, [node("n1", cpu="1")], make_pod().name("p").req(cpu="2")).message
    pvc = run(v, [node("n1")], make_pod().name("p").pvc("data")).message
    insufficient = "0/1 nodes are available: 1 Insufficient cpu. "
    missing = '0/1 nodes are available: persistentvolumeclaim "data" not found. '
    preemption = "preemption: 0/1 nodes are available: 1 "
    if minor == 33:
        assert cpu == insufficient + preemption + "No preemption victims found for incoming pod."
        assert pvc == missing + preemption + "Preemption is not helpful for scheduling."
    else:
        # 1.34 made cpu beyond allocatable unresolvable
        helpful = (
            "Preemption is not helpful for scheduling."
            if minor >= 34
            else "No preemption victims found for incoming pod."
        )
        assert cpu == insufficient + "no new claims to deallocate, " + preemption + helpful
        assert pvc == missing + "not found"


# --- ContainerRestartRules (1.34 alpha, 1.35 beta) -----------------------------------------------


@pytest.mark.parametrize("minor", minors_from(34))
def test_container_restart_rules(minor: int) -> None:
    pod = make_pod().name("p")
    pod.d["spec"]["containers"][0]["restartPolicy"] = "Never"
    assert run(version(minor, "ContainerRestartRules=true"), [node("n1")], pod).feasible == ["n1"]
    with pytest.raises(FieldError, match=r"spec.containers\[0\].restartPolicy: Forbidden: may not be set for non-init"):
        admit(pod, version(minor, gate_off(minor, "ContainerRestartRules")))


@pytest.mark.parametrize("minor", minors_from(35))
def test_comparison_operators_in_spread_node_taints_policy(minor: int) -> None:
    """nodeTaintsPolicy Honor leaves out of the spreading the nodes whose taints the pod does not
    tolerate; a Lt toleration tolerates a smaller value only with the gate."""
    from builders import make_node

    def zone_node(name: str, zone: str, taint: str | None) -> Any:
        b = make_node().name(name).capacity(cpu="4", memory="8Gi", pods="110").label("zone", zone)
        return b.taint("gpu-mem", taint, "NoSchedule") if taint else b

    nodes = [zone_node("a1", "a", None), zone_node("b1", "b", "8")]
    existing = [make_pod().name("w1").node("a1").label("app", "web")]
    pod = (
        make_pod()
        .name("p")
        .label("app", "web")
        .toleration("gpu-mem", operator="Lt", value="20", effect="NoSchedule")
        .spread(1, "zone", selector={"matchLabels": {"app": "web"}}, nodeTaintsPolicy="Honor")
    )
    on = run(version(minor, "TaintTolerationComparisonOperators=true"), nodes, pod, existing)
    off = run(version(minor, "TaintTolerationComparisonOperators=false"), nodes, pod, existing)
    # on: zones a (1 pod) and b (0) count, a1 would make the skew 2
    assert on.feasible == ["b1"]
    assert first(on, "a1")[0] == "PodTopologySpread"
    # off: b1's taint is not tolerated, so zone b is left out of the spreading (a1 is fine) and
    # TaintToleration rejects b1
    assert off.feasible == ["a1"]
    assert first(off, "b1")[0] == "TaintToleration"
