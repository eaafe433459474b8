"""What changes between kube-scheduler releases: the same input run as the release before a change
and the release that has it, both answers asserted. Inputs follow upstream's own unit-test cases
where the newer release has one (noted per case); the others are built to show the change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from kwhatif.api import parse
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.config.load import parse_configuration
from kwhatif.config.types import DynamicResourcesArgs
from kwhatif.controlplane.admission.pod import Admission
from kwhatif.errors import ConfigError
from kwhatif.framework.runtime import Framework
from kwhatif.release import versions
from kwhatif.release.versions import Release, get
from kwhatif.scheduling.scheduler import Attempt, Scheduler

from builders import PodBuilder, make_cluster, make_node, make_pod

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
Mi = 1024 * 1024


# --- helpers -------------------------------------------------------------------------------------


def pod_at(b: PodBuilder, version: str, strict: bool = True) -> Any:
    """A new pod as the release's API server admits it."""
    v = get(version)
    adm = Admission({}, {}, v, PodRules.of(v))
    if not b.d["metadata"].get("uid"):
        b.d["metadata"]["uid"] = f"uid-{b.d['metadata']['name']}"
    return adm.admit(parse.pod(b.dict(), rules=adm.rules), strict=strict)


def run(
    version: str,
    nodes: Sequence[Any],
    pod: PodBuilder,
    existing: Sequence[PodBuilder] = (),
    objs: Sequence[dict[str, Any]] = (),
    **cluster_fields: Any,
) -> Attempt:
    """One scheduling cycle of ``pod`` as kube-scheduler ``version``."""
    v = get(version)
    state = make_cluster(list(objs), v) if objs else ClusterState(version=v)
    state.nodes = {n.name: n for n in (b.obj() for b in nodes)}
    state.pods = [pod_at(e, version, strict=False) for e in existing]
    for k, val in cluster_fields.items():
        setattr(state, k, val)
    cfg = dataclasses.replace(default_configuration(v), percentage_of_nodes_to_score=100)
    sched = Scheduler(state, cfg)
    return sched.schedule_one(pod_at(pod, version))


def node(name: str, cpu: str = "4", memory: str = "8Gi", **labels: str) -> Any:
    b = make_node().name(name).capacity(cpu=cpu, memory=memory, pods="110")
    for k, val in labels.items():
        b.label(k.replace("__", "/").replace("_", "."), val)
    return b


def first(att: Attempt, name: str) -> tuple[str, str, tuple[str, ...]]:
    st = att.fit.filters[name].first
    assert st is not None, f"{name} is feasible"
    return st.plugin, st.code.label, st.reasons


def config_error(version: str, body: str) -> str:
    with pytest.raises(ConfigError) as ei:
        parse_configuration(HEADER + body, "sched.yaml", get(version))
    e = ei.value
    return f"{e.field}: {e.message}" if e.field else e.message


# --- the version table ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,want",
    [
        pytest.param("1.34", "1.34.10", id="minor-is-newest-patch"),
        pytest.param("v1.34", "1.34.10", id="v-prefix"),
        pytest.param("1.34.2", "1.34.2", id="exact-patch"),
        pytest.param("v1.30.6", "1.30.6", id="exact-with-v"),
        pytest.param("1.37", "1.37.2", id="newest-1.37-patch"),
    ],
)
def test_flag_versions(text: str, want: str) -> None:
    r = versions.resolve(text)
    assert str(r.version) == want and r.notes == ()


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("1.29", id="too-old"),
        pytest.param("1.39", id="too-new"),
        pytest.param("2.0", id="major"),
        pytest.param("1.34.x", id="bad-patch"),
        pytest.param("latest", id="word"),
        pytest.param("v1.34.2-eks-1", id="build-suffix-only-from-a-cluster"),
    ],
)
def test_flag_versions_refused(text: str) -> None:
    with pytest.raises(ValueError):
        versions.resolve(text)


@pytest.mark.parametrize(
    "git_version,want,note",
    [
        pytest.param("v1.31.2-eks-1a2b3c4", "1.31.2", "", id="eks"),
        pytest.param("v1.33.5-gke.1000", "1.33.5", "", id="gke"),
        pytest.param("v1.35.0+k3s1", "1.35.0", "", id="k3s"),
        pytest.param("v1.29.9", "1.30.14", "outside what kwhatif knows", id="older-than-supported"),
        pytest.param("v1.39.0", "1.38.0", "outside what kwhatif knows", id="newer-than-supported"),
        pytest.param("v1.34.99", "1.34.99", "newer than the newest 1.34 release", id="unknown-patch"),
    ],
)
def test_cluster_versions(git_version: str, want: str, note: str) -> None:
    r = versions.resolve(git_version, lenient=True)
    assert str(r.version) == want
    assert (note in r.notes[0]) if note else r.notes == ()


@pytest.mark.parametrize(
    "release,field,value",
    [
        pytest.param("1.30.6", "volume_binding_prefilter_result", True, id="prefilterresult-1.30.6"),
        pytest.param("1.30.7", "volume_binding_prefilter_result", False, id="prefilterresult-1.30.7-backport"),
        pytest.param("1.31.2", "preemption_resorts_victims", False, id="victims-1.31.2"),
        pytest.param("1.31.3", "preemption_resorts_victims", True, id="victims-1.31.3-backport"),
        pytest.param("1.33.5", "node_ports_count_sidecars", False, id="sidecar-ports-1.33.5"),
        pytest.param("1.33.6", "node_ports_count_sidecars", True, id="sidecar-ports-1.33.6-backport"),
        pytest.param("1.32.13", "node_ports_count_sidecars", False, id="sidecar-ports-not-in-1.32"),
        pytest.param("1.34.1", "taint_reason", "node(s) had untolerated taint {{{key}: {value}}}", id="taint-1.34.1"),
        pytest.param("1.34.2", "taint_reason", "node(s) had untolerated taint(s)", id="taint-1.34.2-backport"),
        pytest.param(
            "1.33.13", "taint_reason", "node(s) had untolerated taint {{{key}: {value}}}", id="taint-not-in-1.33"
        ),
    ],
)
def test_changes_land_at_their_patch(release: str, field: str, value: Any) -> None:
    assert getattr(versions.for_release(Release.parse(release)).behaviour, field) == value


@pytest.mark.parametrize(
    "gate,defaults",
    [
        pytest.param("MatchLabelKeysInPodAffinity", {30: False, 31: True, 37: True}, id="match-label-keys-affinity"),
        pytest.param("InPlacePodVerticalScaling", {32: False, 33: True}, id="in-place-resize"),
        pytest.param("PodLevelResources", {31: False, 32: False, 33: False, 34: True}, id="pod-level-resources"),
        pytest.param("DynamicResourceAllocation", {33: False, 34: True}, id="dra"),
        pytest.param("VolumeLimitScaling", {35: False, 36: False, 37: True}, id="volume-limit-scaling"),
        pytest.param("NodeDeclaredFeatures", {35: False, 36: True}, id="node-declared-features"),
        pytest.param("StorageCapacityScoring", {33: False, 36: False, 37: True}, id="storage-capacity-scoring"),
    ],
)
def test_gate_defaults(gate: str, defaults: dict[int, bool]) -> None:
    for minor, want in defaults.items():
        assert get(f"1.{minor}").gate(gate) is want, f"1.{minor}"


def _filters(version: str) -> list[str]:
    fw = framework_for(default_configuration(get(version)).profiles[0], version)
    return fw.names("filter")


def framework_for(profile: Any, version: str) -> Framework:
    from builders import make_framework

    return make_framework([make_node().name("n1").obj()], version=get(version), profile=profile)


@pytest.mark.parametrize(
    "version,filters,post_filter,weights",
    [
        pytest.param(
            "1.30",
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "EBSLimits",
                "GCEPDLimits",
                "NodeVolumeLimits",
                "AzureDiskLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
            ],
            ["DefaultPreemption"],
            {},
            id="1.30-in-tree-volume-limits",
        ),
        pytest.param(
            "1.31",
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
            ],
            ["DefaultPreemption"],
            {},
            id="1.31-without-them",
        ),
        pytest.param(
            "1.34",
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
                "DynamicResources",
            ],
            ["DynamicResources", "DefaultPreemption"],
            {},
            id="1.34-dynamic-resources",
        ),
        pytest.param(
            "1.35",
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
                "DynamicResources",
            ],
            ["DynamicResources", "DefaultPreemption"],
            {"DynamicResources": 2},
            id="1.35-dynamic-resources-scores",
        ),
        pytest.param(
            "1.36",
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
                "DynamicResources",
                "NodeDeclaredFeatures",
            ],
            ["DynamicResources", "DefaultPreemption"],
            {"DynamicResources": 2},
            id="1.36-node-declared-features",
        ),
    ],
)
def test_default_profile_per_release(
    version: str, filters: list[str], post_filter: list[str], weights: dict[str, int]
) -> None:
    fw = framework_for(default_configuration(get(version)).profiles[0], version)
    assert fw.names("filter") == filters
    assert fw.names("postFilter") == post_filter
    for name, w in weights.items():
        assert fw.score_weights[name] == w
    if not weights:
        assert "DynamicResources" not in fw.score_weights


# --- configuration -------------------------------------------------------------------------------


FILTER_EBS = "profiles:\n- plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n"
MULTI_EBS = "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: EBSLimits}]\n"
INVALID = 'was invalid in version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")'


def test_in_tree_volume_limit_names_in_configurations() -> None:
    """1.30 accepts them; 1.31 refuses them in plugin sets and pluginConfig (not multiPoint, whose
    plugins still exist); from 1.32 the registry no longer has them."""
    assert (
        parse_configuration(HEADER + FILTER_EBS, "s", get("1.30")).profiles[0].plugins["filter"].enabled[0].name
        == "EBSLimits"
    )
    assert (
        config_error("1.31", FILTER_EBS)
        == f'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": {INVALID}'
    )
    assert config_error("1.31", "profiles:\n- pluginConfig:\n  - {name: GCEPDLimits, args: {}}\n") == (
        f'profiles[0].pluginConfig[0]: Invalid value: "GCEPDLimits": {INVALID}'
    )
    cfg = parse_configuration(HEADER + MULTI_EBS, "s", get("1.31"))
    assert "EBSLimits" in framework_for(cfg.profiles[0], "1.31").names("filter")
    cfg = parse_configuration(HEADER + MULTI_EBS, "s", get("1.32"))
    with pytest.raises(ConfigError) as ei:
        framework_for(cfg.profiles[0], "1.32")
    assert ei.value.message == 'PreFilterPlugin "EBSLimits" does not exist'


@pytest.mark.parametrize(
    "body,before,after",
    [
        pytest.param(
            "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: Other}]\n      disabled: [{name: '*'}]\n",
            (
                "1.33",
                'Invalid value: config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:"Other", Weight:0}}, '
                'Disabled:[]config.Plugin{config.Plugin{Name:"*", Weight:0}}}: queueSort must be the same for all profiles',
            ),
            (
                "1.34",
                'Invalid value: {"Enabled":[{"Name":"Other","Weight":0}],"Disabled":[{"Name":"*","Weight":0}]}: '
                "must be the same for all profiles",
            ),
            id="queue-sort-message-1.34",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: Other}]\n",
            ("1.33", "Disabled:[]config.Plugin(nil)}: queueSort must be the same for all profiles"),
            ("1.37", 'Invalid value: {"Enabled":[{"Name":"Other","Weight":0}],"Disabled":null}: must be the same'),
            id="queue-sort-nil-disabled-as-json",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- schedulerName: a\n",
            ("1.33", "profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName"),
            # encoding/json's text of the other *field.Path, whose fields are unexported
            ("1.34", "profiles[1].schedulerName: Duplicate value: {}"),
            id="duplicate-scheduler-name-as-json",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {shape: [{utilization: 0, score: 0}]}\n",
            (
                "1.33",
                "Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint{Utilization:0, Score:0}}",
            ),
            ("1.34", 'Invalid value: [{"Utilization":0,"Score":0}]: unexpected field `shape`'),
            id="volume-binding-shape-as-json",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {shape: [{utilization: 0, score: 0}]}\n",
            ("1.32", "turn on the feature gate VolumeCapacityPriority"),
            ("1.33", "turn on the feature gate StorageCapacityScoring"),
            id="volume-binding-shape-gate-renamed-1.33",
        ),
    ],
)
def test_configuration_messages(body: str, before: tuple[str, str], after: tuple[str, str]) -> None:
    assert before[1] in config_error(before[0], body)
    assert after[1] in config_error(after[0], body)
    assert after[1] not in config_error(before[0], body)


def test_fit_shape_order_message() -> None:
    """ValidateNodeResourcesFitArgs, in the plugin constructor: reworded in 1.34."""
    body = (
        "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
        "        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n"
        "          shape: [{utilization: 50, score: 1}, {utilization: 10, score: 2}]\n"
    )

    def err(version: str) -> str:
        cfg = parse_configuration(HEADER + body, "s", get(version))
        with pytest.raises(ConfigError) as ei:
            framework_for(cfg.profiles[0], version)
        return ei.value.message

    assert err("1.33").endswith("Invalid value: 10: utilization values must be sorted in increasing order")
    assert err("1.34").endswith("Invalid value: 10: values must be sorted in increasing order")


def test_dynamic_resources_args() -> None:
    """DynamicResourcesArgs is a kind of the v1 scheme from 1.34 (filterTimeout defaults to 10s)."""
    body = "profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args: {filterTimeout: 5s}\n"
    cfg = parse_configuration(HEADER + body, "s", get("1.34"))
    assert cfg.profiles[0].plugin_config["DynamicResources"] == DynamicResourcesArgs(filter_timeout_ns=5_000_000_000)
    assert default_configuration(get("1.34")).profiles[0].plugin_config["DynamicResources"] == DynamicResourcesArgs(
        filter_timeout_ns=10_000_000_000
    )
    # 1.33: not an args kind, kept raw (runtime.Unknown), like any plugin without args
    profile_1_33 = parse_configuration(HEADER + body, "s", get("1.33")).profiles[0]
    assert profile_1_33.unknown_args["DynamicResources"] == {"filterTimeout": "5s"}
    assert "DynamicResources" not in profile_1_33.plugin_config
    # a *metav1.Duration, printed as encoding/json's text of it (apimachinery's field errors, 1.34+)
    assert config_error("1.34", body.replace("5s", "-1s")).endswith(
        'profiles[0].pluginConfig[0].args.filterTimeout: Invalid value: "-1s": must be zero or positive'
    )
    assert 'unknown field "bindingTimeout"' in config_error(
        "1.34", body.replace("filterTimeout: 5s", "bindingTimeout: 5s")
    )
    assert "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled" in config_error(
        "1.35", body.replace("filterTimeout: 5s", "bindingTimeout: 5s")
    )


# --- plugins and the framework -------------------------------------------------------------------


def test_taint_reason() -> None:
    """#134740 (1.35.0), back-ported to 1.34.2 (#135023): the reason no longer names the taint, so
    the FitError histogram groups all tainted nodes."""
    nodes = [node("n1").taint("a", "1"), node("n2").taint("b", "2")]
    before = run("1.34.1", nodes, make_pod().name("p"))
    after = run("1.34.2", nodes, make_pod().name("p"))
    assert before.message.startswith(
        "0/2 nodes are available: 1 node(s) had untolerated taint {a: 1}, 1 node(s) had untolerated taint {b: 2}."
    )
    assert after.message.startswith("0/2 nodes are available: 2 node(s) had untolerated taint(s).")
    assert first(after, "n1") == (
        "TaintToleration",
        "UnschedulableAndUnresolvable",
        ("node(s) had untolerated taint(s)",),
    )


def test_fit_error_counts_nodes_outside_the_prefilter_result() -> None:
    """#126022 (1.32.0): nodes a PreFilterResult left out count as "node(s) didn't satisfy plugin(s) [...]"."""
    nodes = [node("n1", cpu="1"), node("n2"), node("n3")]
    pod = (
        make_pod()
        .name("p")
        .req(cpu="2")
        .affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                        ]
                    }
                }
            }
        )
    )
    before = run("1.31", nodes, pod)
    after = run("1.32", nodes, pod)
    assert before.message == (
        "0/3 nodes are available: 1 Insufficient cpu. preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
    )
    assert after.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
        "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling."
    )


@pytest.mark.parametrize(
    "name,pod,used,want_before,want_after",
    [
        # transcribed from upstream noderesources/fit_test.go (TestEnoughRequests, TestStorageRequests):
        # node allocatable cpu 10m, memory 20, pods 32, example.com/aaa 5, ephemeral-storage 20
        pytest.param(
            "too many resources fails",
            {"cpu": "1m", "memory": "1"},
            {"cpu": "10m", "memory": "20"},
            "Unschedulable",
            "Unschedulable",
            id="used-up-stays-unschedulable",
        ),
        pytest.param(
            "extended resource capacity enforced",
            {"cpu": "1m", "memory": "1", "example.com/aaa": "10"},
            {},
            "Unschedulable",
            "UnschedulableAndUnresolvable",
            id="extended-above-capacity",
        ),
        pytest.param(
            "extended resource allocatable enforced",
            {"cpu": "1m", "memory": "1", "example.com/aaa": "1"},
            {"example.com/aaa": "5"},
            "Unschedulable",
            "Unschedulable",
            id="extended-used-up",
        ),
        pytest.param(
            "storage ephemeral local storage request exceeds allocatable",
            {"ephemeral-storage": "25"},
            {"cpu": "2m", "memory": "2"},
            "Unschedulable",
            "UnschedulableAndUnresolvable",
            id="ephemeral-above-allocatable",
        ),
    ],
)
def test_fit_unresolvable_above_allocatable(
    name: str, pod: dict[str, str], used: dict[str, str], want_before: str, want_after: str
) -> None:
    """#131345 (1.34.0): a request above the node's allocatable is UnschedulableAndUnresolvable."""
    n = make_node().name("n1")
    n.d["status"]["allocatable"] = {
        "cpu": "10m",
        "memory": "20",
        "pods": "32",
        "example.com/aaa": "5",
        "ephemeral-storage": "20",
    }
    existing = [_requesting(make_pod().name("used").node("n1"), used)] if used else []
    incoming = _requesting(make_pod().name("p"), pod)
    for version, want in (("1.33", want_before), ("1.34", want_after)):
        att = run(version, [n], incoming, existing)
        assert first(att, "n1")[1] == want, (version, name)


def _requesting(b: PodBuilder, requests: dict[str, str]) -> PodBuilder:
    b.d["spec"]["containers"][0]["resources"] = {"requests": dict(requests)}
    return b


def test_fit_unresolvable_changes_the_preemption_text() -> None:
    """The node whose allocatable is too small is no longer a preemption candidate."""
    nodes = [node("n1", cpu="2")]
    existing = [make_pod().name("low").node("n1").priority(0).req(cpu="1")]
    pod = make_pod().name("p").priority(100).req(cpu="3")
    # 1.33: preemption evicts the low pod in its dry run and the node still lacks cpu
    assert run("1.33", nodes, pod, existing).message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu."
    )
    assert run("1.34", nodes, pod, existing).message == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: "
        "1 Preemption is not helpful for scheduling."
    )


def test_dynamic_resources_post_filter() -> None:
    """1.34: DynamicResources' PostFilter runs before DefaultPreemption: "no new claims to deallocate, "."""
    nodes = [node("n1", cpu="1")]
    pod = make_pod().name("p").req(cpu="2")
    assert run("1.33", nodes, pod).message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod."
    )
    assert run("1.34", nodes, pod).message == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: "
        "1 Preemption is not helpful for scheduling."
    )


def test_dynamic_resources_post_filter_without_its_state() -> None:
    """1.34+: when a PreFilter ahead of DynamicResources rejects the pod, its PostFilter has no state
    and fails with "not found"; the message has no preemption text."""
    nodes = [node("n1")]
    pod = make_pod().name("p").pvc("data")
    assert run("1.33", nodes, pod).message == (
        '0/1 nodes are available: persistentvolumeclaim "data" not found. preemption: 0/1 nodes are available: '
        "1 Preemption is not helpful for scheduling."
    )
    assert (
        run("1.34", nodes, pod).message == '0/1 nodes are available: persistentvolumeclaim "data" not found. not found'
    )


def test_dynamic_resources_scores_zero_from_1_35() -> None:
    nodes = [node("n1"), node("n2")]
    att34 = run("1.34", nodes, make_pod().name("p").req(cpu="1"))
    att35 = run("1.35", nodes, make_pod().name("p").req(cpu="1"))
    assert "DynamicResources" not in att34.weights
    assert att35.weights["DynamicResources"] == 2
    assert [(s.raw, s.weighted) for s in att35.prioritized.scores["n1"].scores if s.plugin == "DynamicResources"] == [
        (0, 0)
    ]
    assert {n: s.total for n, s in att34.prioritized.scores.items()} == {
        n: s.total for n, s in att35.prioritized.scores.items()
    }


def test_sidecars_count_in_non_zero_requests() -> None:
    """#127878 (1.32.0): a sidecar that requests nothing adds the default non-zero memory too."""
    b = make_pod().name("p").req(cpu="1").init_container("side", sidecar=True, cpu="500m").init_container("i", cpu="1")
    before = pod_at(b, "1.31")
    after = pod_at(b, "1.32")
    assert (before.non0_cpu, before.non0_mem) == (1500, 200 * Mi)
    assert (after.non0_cpu, after.non0_mem) == (1500, 400 * Mi)
    assert before.requests == after.requests


def test_balanced_allocation_skips_best_effort_pods() -> None:
    """#130260 (1.33.0)."""
    nodes = [node("n1"), node("n2")]
    before = run("1.32", nodes, make_pod().name("p"))
    after = run("1.33", nodes, make_pod().name("p"))
    assert "NodeResourcesBalancedAllocation" not in before.skipped_score_plugins
    assert "NodeResourcesBalancedAllocation" in after.skipped_score_plugins
    assert [s.plugin for s in after.prioritized.scores["n1"].scores].count("NodeResourcesBalancedAllocation") == 0


def _resized(cpu_status: str, infeasible: bool = False) -> PodBuilder:
    b = make_pod().name("resized").node("n1").req(cpu="1")
    b.set(
        "status.containerStatuses",
        [{"name": "c0", "allocatedResources": {"cpu": cpu_status}, "resources": {"requests": {"cpu": cpu_status}}}],
    )
    if infeasible:
        b.set("status.conditions", [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}])
    return b


@pytest.mark.parametrize(
    "existing,fits_1_32,fits_1_33",
    [
        pytest.param(_resized("2"), True, False, id="resized-up-counts-max-of-spec-allocated-actuated"),
        pytest.param(_resized("500m", infeasible=True), True, True, id="infeasible-resize-counts-allocated"),
    ],
)
def test_in_place_resize(existing: PodBuilder, fits_1_32: bool, fits_1_33: bool) -> None:
    """1.33 (InPlacePodVerticalScaling beta, on): a running pod counts the larger of its spec,
    allocated and actuated requests; an Infeasible resize counts allocated/actuated only."""
    nodes = [node("n1", cpu="4")]
    pod = make_pod().name("p").req(cpu="2500m")
    assert run("1.32", nodes, pod, [existing]).feasible == (["n1"] if fits_1_32 else [])
    assert run("1.33", nodes, pod, [existing]).feasible == (["n1"] if fits_1_33 else [])


def test_in_place_resize_infeasible_ignores_spec() -> None:
    v = "1.33"
    assert pod_at(_resized("500m", infeasible=True), v, strict=False).requests.milli_cpu == 500
    assert pod_at(_resized("500m"), v, strict=False).requests.milli_cpu == 1000


def _sidecar_port_pod(name: str) -> PodBuilder:
    b = make_pod().name(name).set("spec.hostNetwork", True)
    b.set(
        "spec.initContainers",
        [{"name": "side", "image": "x", "restartPolicy": "Always", "ports": [{"containerPort": 8081}]}],
    )
    return b


def test_node_ports_count_sidecar_ports() -> None:
    """#132040 (1.34.0), back-ported to 1.33.6 (#133390); upstream issue #132037's reproduction."""
    nodes = [node("n1")]
    existing = [_sidecar_port_pod("p1").node("n1")]
    assert run("1.33.5", nodes, _sidecar_port_pod("p2"), existing).feasible == ["n1"]
    att = run("1.33.6", nodes, _sidecar_port_pod("p2"), existing)
    assert att.message.startswith(
        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."
    )
    assert run("1.34.0", nodes, _sidecar_port_pod("p2"), existing).feasible == []


def _victims_scenario() -> tuple[list[Any], list[PodBuilder], Any]:
    """Two nodes with one PDB-violating victim each; node a also has a more important
    non-violating victim. Unsorted, a's victims[0] is its low-priority violating pod."""
    nodes = [node("a", cpu="4"), node("b", cpu="4")]
    existing = [
        make_pod().name("a-low").node("a").priority(1).req(cpu="2").label("pdb", "yes"),
        make_pod().name("a-mid").node("a").priority(5).req(cpu="2"),
        make_pod().name("b-pdb").node("b").priority(4).req(cpu="2").label("pdb", "yes"),
        make_pod().name("b-high").node("b").priority(200).req(cpu="1"),
    ]
    pdb = parse.pod_disruption_budget(
        {
            "metadata": {"name": "pdb", "namespace": "default"},
            "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"pdb": "yes"}}},
            "status": {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2},
        }
    )
    return nodes, existing, pdb


def test_preemption_keeps_victims_sorted() -> None:
    """#128307 (1.32.0), back-ported to 1.30.7 and 1.31.3: with both kinds of victims on a node the
    victims are sorted again, so the candidate choice (lowest highest-priority victim) reads the
    right one."""
    nodes, existing, pdb = _victims_scenario()
    pod = make_pod().name("p").priority(100).req(cpu="3")
    before = run("1.30.6", nodes, pod, existing, pdbs=[pdb])
    after = run("1.30.7", nodes, pod, existing, pdbs=[pdb])
    assert (before.nominated_node, sorted(v.name for v in before.victims)) == ("a", ["a-low", "a-mid"])
    assert (after.nominated_node, sorted(v.name for v in after.victims)) == ("b", ["b-pdb"])
    assert run("1.31.2", nodes, pod, existing, pdbs=[pdb]).nominated_node == "a"
    assert run("1.31.3", nodes, pod, existing, pdbs=[pdb]).nominated_node == "b"


# --- storage -------------------------------------------------------------------------------------


def _local_pv_objs(node_name: str) -> list[dict[str, Any]]:
    return [
        {
            "kind": "StorageClass",
            "metadata": {"name": "local"},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
        {
            "kind": "PersistentVolume",
            "metadata": {"name": "pv-local", "resourceVersion": "1"},
            "spec": {
                "capacity": {"storage": "10Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "local",
                "local": {"path": "/mnt"},
                "claimRef": {"namespace": "default", "name": "data"},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "kubernetes.io/hostname", "operator": "In", "values": [node_name]}
                                ]
                            }
                        ]
                    }
                },
            },
            "status": {"phase": "Bound"},
        },
        {
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "data",
                "namespace": "default",
                "resourceVersion": "1",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "local",
                "volumeName": "pv-local",
                "resources": {"requests": {"storage": "10Gi"}},
            },
            "status": {"phase": "Bound"},
        },
    ]


def test_volume_binding_prefilter_result() -> None:
    """#125398 (1.32.0), back-ported to 1.30.7 (#127585) and 1.31.3 (#127584): VolumeBinding no longer
    narrows the nodes to a bound local PV's hostname affinity; its Filter still rejects the others."""
    nodes = [node("n1"), node("n2"), node("n3")]
    pod = make_pod().name("p").pvc("data")
    before = run("1.30.6", nodes, pod, objs=_local_pv_objs("n1"))
    after = run("1.30.7", nodes, pod, objs=_local_pv_objs("n1"))
    assert sorted(before.fit.excluded) == ["n2", "n3"] and before.node == "n1"
    assert after.fit.excluded == frozenset() and after.node == "n1"
    assert first(after, "n2") == (
        "VolumeBinding",
        "UnschedulableAndUnresolvable",
        ("node(s) had volume node affinity conflict",),
    )


def test_volume_binding_node_affinity_reason() -> None:
    """#129887 (1.33.0)."""
    nodes = [node("n1"), node("n2")]
    pod = make_pod().name("p").pvc("data")
    assert first(run("1.32", nodes, pod, objs=_local_pv_objs("n1")), "n2")[2] == (
        "node(s) had volume node affinity conflict",
    )
    assert first(run("1.33", nodes, pod, objs=_local_pv_objs("n1")), "n2")[2] == (
        "node(s) didn't match PersistentVolume's node affinity",
    )


def _rwop_objs() -> list[dict[str, Any]]:
    return [
        {
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "solo",
                "namespace": "default",
                "resourceVersion": "1",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {
                "accessModes": ["ReadWriteOncePod"],
                "volumeName": "pv-solo",
                "storageClassName": "",
                "resources": {"requests": {"storage": "1Gi"}},
            },
            "status": {"phase": "Bound"},
        },
        {
            "kind": "PersistentVolume",
            "metadata": {"name": "pv-solo", "resourceVersion": "1"},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOncePod"],
                "storageClassName": "",
                "csi": {"driver": "csi.example.com", "volumeHandle": "h1"},
                "claimRef": {"namespace": "default", "name": "solo"},
            },
            "status": {"phase": "Bound"},
        },
    ]


def test_read_write_once_pod_reason() -> None:
    """VolumeRestrictions' ReadWriteOncePod reason is reworded in 1.34.0."""
    nodes = [node("n1")]
    existing = [make_pod().name("holder").node("n1").pvc("solo")]
    pod = make_pod().name("p").pvc("solo")
    assert first(run("1.33", nodes, pod, existing, _rwop_objs()), "n1")[2] == (
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode",
    )
    assert first(run("1.34", nodes, pod, existing, _rwop_objs()), "n1")[2] == (
        "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod",
    )


def _csi_objs(limit: int, driver: str = "csi.example.com", prevent: bool | None = None) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = [
        {
            "kind": "CSINode",
            "metadata": {"name": "n1"},
            "spec": {"drivers": [{"name": "other.csi", "nodeID": "n1", "allocatable": {"count": limit}}]},
        },
        {
            "kind": "PersistentVolume",
            "metadata": {"name": "pv-new", "resourceVersion": "1"},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "",
                "csi": {"driver": driver, "volumeHandle": "new"},
                "claimRef": {"namespace": "default", "name": "new"},
            },
            "status": {"phase": "Bound"},
        },
        {
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "new",
                "namespace": "default",
                "resourceVersion": "1",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "volumeName": "pv-new",
                "storageClassName": "",
                "resources": {"requests": {"storage": "1Gi"}},
            },
            "status": {"phase": "Bound"},
        },
    ]
    if prevent is not None:
        spec: dict[str, Any] = {"attachRequired": True}
        if prevent:
            spec["preventPodSchedulingIfMissing"] = True
        objs.append({"kind": "CSIDriver", "metadata": {"name": driver}, "spec": spec})
    return objs


def test_volume_attachments_count_from_1_32() -> None:
    """Upstream issue #126502, fixed in 1.32.0: a volume still attached (a deleted pod's, detaching)
    counts against the CSINode's limit."""
    objs = _csi_objs(1, driver="other.csi") + [
        {
            "kind": "PersistentVolume",
            "metadata": {"name": "pv-old", "resourceVersion": "1"},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "",
                "csi": {"driver": "other.csi", "volumeHandle": "old"},
            },
            "status": {"phase": "Released"},
        },
        {
            "kind": "VolumeAttachment",
            "metadata": {"name": "va-old"},
            "spec": {"attacher": "other.csi", "nodeName": "n1", "source": {"persistentVolumeName": "pv-old"}},
        },
    ]
    pod = make_pod().name("p").pvc("new")
    assert run("1.31", [node("n1")], pod, objs=objs).feasible == ["n1"]
    assert first(run("1.32", [node("n1")], pod, objs=objs), "n1") == (
        "NodeVolumeLimits",
        "Unschedulable",
        ("node(s) exceed max volume count",),
    )


def test_node_allocatable_attach_limits_until_1_31() -> None:
    n = node("n1")
    n.d["status"]["allocatable"]["attachable-volumes-csi-csi.example.com"] = "0"
    objs = _csi_objs(5) + [
        {
            "kind": "CSINode",
            "metadata": {"name": "n1"},
            "spec": {"drivers": [{"name": "csi.example.com", "nodeID": "n1"}]},
        }
    ]
    objs = [o for o in objs if not (o["kind"] == "CSINode" and o["spec"]["drivers"][0]["name"] == "other.csi")]
    pod = make_pod().name("p").pvc("new")
    assert first(run("1.31", [n], pod, objs=objs), "n1")[0] == "NodeVolumeLimits"
    assert run("1.32", [n], pod, objs=objs).feasible == ["n1"]


@pytest.mark.parametrize(
    "version,prevent,want",
    [
        pytest.param("1.35", None, None, id="1.35-gate-off"),
        pytest.param("1.37", None, None, id="1.37-no-csidriver-object"),
        pytest.param("1.37", False, None, id="1.37-csidriver-without-opt-in"),
        pytest.param("1.37", True, "csi.example.com CSI driver is not installed on the node", id="1.37-opt-in"),
    ],
)
def test_csi_driver_missing_on_node(version: str, prevent: bool | None, want: str | None) -> None:
    """#135012 (1.35.0, gate VolumeLimitScaling off until 1.37), opt-in per CSIDriver from 1.36 (#137343)."""
    att = run(version, [node("n1")], make_pod().name("p").pvc("new"), objs=_csi_objs(5, prevent=prevent))
    if want is None:
        assert att.feasible == ["n1"]
    else:
        assert first(att, "n1") == ("NodeVolumeLimits", "Unschedulable", (want,))


# --- admission: what the release's API server does to a new pod ----------------------------------


def _affinity_pod() -> PodBuilder:
    return (
        make_pod()
        .name("p")
        .label("app", "web")
        .label("version", "v2")
        .affinity(
            {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchLabels": {"app": "web"}},
                            "topologyKey": "kubernetes.io/hostname",
                            "matchLabelKeys": ["version"],
                        }
                    ]
                }
            }
        )
    )


def test_pod_affinity_match_label_keys() -> None:
    """#123638 (1.31.0, MatchLabelKeysInPodAffinity beta and on): the API server merges
    matchLabelKeys into the selector; 1.30's drops the field."""
    nodes = [node("n1"), node("n2")]
    existing = [
        make_pod().name("web-v1").node("n1").label("app", "web").label("version", "v1"),
        make_pod().name("web-v2").node("n2").label("app", "web").label("version", "v2"),
    ]
    before = run("1.30", nodes, _affinity_pod(), existing)
    after = run("1.31", nodes, _affinity_pod(), existing)
    assert before.feasible == ["n1", "n2"]
    assert any("matchLabelKeys/mismatchLabelKeys" in n for n in before.notes)
    assert after.feasible == ["n2"]


def test_spread_match_label_keys_merged_by_the_api_server() -> None:
    """#129874 (1.34.0): the API server merges spread matchLabelKeys into the selector; the
    scheduler merges them too, so the answer is the same."""
    b = (
        make_pod()
        .name("p")
        .label("app", "web")
        .label("hash", "x")
        .spread(1, "kubernetes.io/hostname", selector={"matchLabels": {"app": "web"}}, matchLabelKeys=["hash"])
    )
    before, after = pod_at(b, "1.33"), pod_at(b, "1.34")
    assert len(before.topology_spread_constraints[0].label_selector.requirements) == 1
    assert len(after.topology_spread_constraints[0].label_selector.requirements) == 2
    nodes = [node("n1"), node("n2")]
    existing = [make_pod().name("w").node("n1").label("app", "web").label("hash", "x")]
    assert run("1.33", nodes, b, existing).feasible == run("1.34", nodes, b, existing).feasible == ["n2"]


def _pod_level(cpu: str) -> PodBuilder:
    return make_pod().name("p").req(cpu="1").set("spec.resources", {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}})


@pytest.mark.parametrize(
    "version,note,fits",
    [
        pytest.param("1.31", "has no pod-level resources", True, id="1.31-unknown-field"),
        pytest.param("1.33", "PodLevelResources feature gate is off", True, id="1.33-gate-off"),
        pytest.param("1.34", None, False, id="1.34-beta-on"),
    ],
)
def test_pod_level_resources(version: str, note: str | None, fits: bool) -> None:
    """#132999 (1.34.0, PodLevelResources beta and on): spec.resources replaces the container sum
    in the Filter; before, the API server drops the field (with a note naming it)."""
    att = run(version, [node("n1", cpu="2")], _pod_level("3"))
    assert (att.feasible == ["n1"]) is fits
    if note is None:
        assert not any("spec.resources" in n for n in att.notes)
        assert first(att, "n1") == ("NodeResourcesFit", "UnschedulableAndUnresolvable", ("Insufficient cpu",))
    else:
        assert any(n.startswith("spec.resources:") and note in n for n in att.notes)


def test_pod_level_resources_fit_scores_containers() -> None:
    """1.34+: NodeResourcesFit's Filter and BalancedAllocation read the pod-level request, Fit's
    scorer still sums the containers (its scorer is built without the pod-level flag)."""
    nodes = [node("n1", cpu="4", memory="8Gi"), node("n2", cpu="4", memory="8Gi")]
    att = run("1.34", nodes, _pod_level("2"))
    raw = {s.plugin: s.raw for s in att.prioritized.scores["n1"].scores}
    # LeastAllocated over cpu 1 (the container) of 4 and memory 200Mi (non-zero default) of 8Gi
    assert raw["NodeResourcesFit"] == (100 * 3 // 4 + 100 * (8192 - 200) // 8192) // 2
    # BalancedAllocation sees cpu 2 of 4 and no memory: |0.5 - 0| / 2 = 0.25 -> 75
    assert raw["NodeResourcesBalancedAllocation"] == 75
    assert pod_at(_pod_level("2"), "1.34").requests.milli_cpu == 2000


def test_pod_level_requests_default_from_containers() -> None:
    """defaultPodRequests: with pod-level limits, a missing pod-level request takes the containers'
    aggregate, else the limit."""
    b = make_pod().name("p").req(cpu="1").set("spec.resources", {"limits": {"cpu": "4", "memory": "1Gi"}})
    p = pod_at(b, "1.34")
    assert p.pod_requests is not None
    assert (p.requests.milli_cpu, p.requests.memory) == (1000, 1024 * Mi)


# --- the release a run answers as ----------------------------------------------------------------


def test_cluster_pods_are_derived_as_the_release_derives_them() -> None:
    """A cluster loaded for one release and scheduled as another counts its pods as the latter."""
    state = ClusterState(version=get("1.31"))
    state.nodes = {"n1": node("n1").obj()}
    sidecar = make_pod().name("s").node("n1").init_container("side", sidecar=True)
    state.pods = [pod_at(sidecar, "1.31", strict=False)]
    assert state.pods[0].non0_mem == 200 * Mi
    Scheduler(state, default_configuration(get("1.32")))
    assert state.version.release == Release(32, 13)
    assert state.pods[0].non0_mem == 400 * Mi


# --- 1.36 and 1.37 -------------------------------------------------------------------------------


def test_balanced_allocation_scores_the_change_of_balance() -> None:
    """#135573 (1.36.0): 50 + (50 + balance with the pod - balance without it) / 2."""
    n = make_node().name("n1")
    n.d["status"]["allocatable"] = {"cpu": "4", "memory": "10000", "pods": "110"}
    m = make_node().name("n2")
    m.d["status"]["allocatable"] = {"cpu": "4", "memory": "10000", "pods": "110"}
    pod = _requesting(make_pod().name("p"), {"cpu": "1", "memory": "2000"})

    def raw(version: str) -> int:
        att = run(version, [n, m], pod)
        return {s.plugin: s.raw for s in att.prioritized.scores["n1"].scores}["NodeResourcesBalancedAllocation"]

    assert raw("1.35") == 97  # fractions (0.25, 0.2): (1 - 0.025) * 100
    assert raw("1.36") == 73  # 50 + (50 + 97 - 100) // 2


def test_image_locality_counts_image_volumes() -> None:
    """#130231 (1.36.0) and #138951 (1.37.0)."""
    nodes = [
        make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").image(500 * Mi, "b:latest"),
        make_node().name("n2").capacity(cpu="4", memory="8Gi", pods="110").image(500 * Mi, "b:latest"),
    ]
    pod = make_pod().name("p").image("a").volume({"name": "v", "image": {"reference": "b"}})

    def raw(version: str) -> int:
        return {s.plugin: s.raw for s in run(version, nodes, pod).prioritized.scores["n1"].scores}["ImageLocality"]

    assert (raw("1.35"), raw("1.36"), raw("1.37")) == (0, 48, 24)


def test_preemption_message_when_it_succeeds() -> None:
    """#140180 (1.37): the FitError of a pod that preempts carries DefaultPreemption's message."""
    nodes = [node("m01", cpu="4"), node("m02", cpu="4")]
    existing = [
        make_pod().name("big").node("m01").priority(1000).req(cpu="4"),
        make_pod().name("low").node("m02").priority(1).req(cpu="2"),
    ]
    pod = make_pod().name("p").priority(100000).req(cpu="3")
    assert run("1.36", nodes, pod, existing).message == "0/2 nodes are available: 2 Insufficient cpu."
    assert run("1.37", nodes, pod, existing).message == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node m02, "
        "preempting 1 victims"
    )


def test_node_declared_features() -> None:
    """#136042 (1.36.0, beta and on): a pod that restarts all containers on a container's exit needs
    nodes declaring RestartAllContainersOnContainerExits."""
    a = node("a")
    b = node("b")
    b.d["status"]["declaredFeatures"] = ["RestartAllContainersOnContainerExits"]
    pod = make_pod().name("p")
    pod.d["spec"]["containers"][0]["restartPolicyRules"] = [
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}
    ]
    assert run("1.35", [a, b], pod).feasible == ["a", "b"]
    att = run("1.36", [a, b], pod)
    assert att.feasible == ["b"]
    assert first(att, "a") == (
        "NodeDeclaredFeatures",
        "UnschedulableAndUnresolvable",
        ("node(s) didn't match Pod's required features",),
    )


@pytest.mark.parametrize("minor", versions.SUPPORTED_MINORS)
def test_empty_configuration_is_the_default_profile(minor: int) -> None:
    """Every release: a configuration without profiles gets that release's default profile, and
    the framework builds it (every default plugin is registered)."""
    v = get(f"1.{minor}")
    cfg = parse_configuration(HEADER, "s", v)
    assert cfg.profiles == default_configuration(v).profiles
    assert cfg.version is v or cfg.version.release == v.release
    framework_for(cfg.profiles[0], f"1.{minor}")


@pytest.mark.parametrize(
    "reported,source,text",
    [
        pytest.param("", versions.VersionSource.DUMP, "kube-scheduler 1.30.6 from the dump", id="supported"),
        pytest.param(
            "v1.8.4",
            versions.VersionSource.DUMP,
            "kube-scheduler 1.30.6 (the dump's v1.8.4 is older than the releases kwhatif answers as)",
            id="older-dump",
        ),
        pytest.param(
            "v1.40.1-eks-1",
            versions.VersionSource.LIVE,
            "kube-scheduler 1.30.6 (the cluster's v1.40.1-eks-1 is newer than the releases kwhatif answers as)",
            id="newer-live",
        ),
    ],
)
def test_summary_names_a_release_outside_the_supported_ones(reported, source, text):
    chosen = versions.ChosenVersion(get("1.30.6"), source, (), reported)
    assert chosen.describe() == text
    assert chosen.report_fields()["schedulerVersion"] == "1.30.6"
