"""KubeSchedulerConfiguration v1: decoding, defaults, plugin-set merging, validation, and the
scheduler-configuration behaviours listed in the fidelity sample's README, as kube-scheduler
1.30.6 (PINNED) reads it; tests/test_versions.py covers what later releases change."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from builders import PINNED, make_framework, make_node
from fidelity import SAMPLE as FIDELITY_SAMPLE
from kwhatif.errors import ConfigError
from kwhatif.framework.config import (
    is_qualified_name,
    load_configuration,
    parse_configuration,
)
from kwhatif.framework.profile import PLUGIN_SET_FIELDS, PluginRef, default_args, default_configuration
from kwhatif.framework.runtime import Framework

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
SAMPLE = FIDELITY_SAMPLE / "config"

DEFAULT_SCORE = [
    "TaintToleration",
    "NodeAffinity",
    "NodeResourcesFit",
    "VolumeBinding",
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
]
DEFAULT_WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}
DEFAULT_FILTER = [
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
]
DEFAULT_PRE_FILTER = [
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
]


def parse(body: str) -> Any:
    return parse_configuration(HEADER + body, "sched.yaml", PINNED)


def framework(prof: Any) -> Framework:
    return make_framework([make_node().name("n1").obj()], profile=prof)


def raises(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_configuration(text, "sched.yaml", PINNED)
    return info.value


# --- defaults ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    ["", "profiles: []\n", "profiles:\n- {}\n", "profiles:\n- schedulerName: default-scheduler\n  plugins: {}\n",
     "profiles:\n- plugins:\n    multiPoint: {enabled: [], disabled: []}\n  pluginConfig: []\n"],
    ids=["bare", "no-profiles", "empty-profile", "empty-plugins", "empty-sets"],
)
def test_defaults_equal_upstream_default_profile(body: str) -> None:
    cfg = parse(body)
    assert cfg.profiles == default_configuration(PINNED).profiles
    assert cfg.percentage_of_nodes_to_score == 0
    assert cfg.source == "sched.yaml"


def test_default_profile_expands_as_upstream() -> None:
    fw = framework(parse("").profiles[0])
    assert fw.names("preEnqueue") == ["SchedulingGates"]
    assert fw.names("queueSort") == ["PrioritySort"]
    assert fw.names("preFilter") == DEFAULT_PRE_FILTER
    assert fw.names("filter") == DEFAULT_FILTER
    assert fw.names("postFilter") == ["DefaultPreemption"]
    assert fw.names("score") == DEFAULT_SCORE
    assert fw.score_weights == DEFAULT_WEIGHTS
    assert fw.names("reserve") == ["VolumeBinding"]
    assert fw.names("preBind") == ["VolumeBinding"]
    assert fw.names("bind") == ["DefaultBinder"]


def test_percentages() -> None:
    cfg = parse("percentageOfNodesToScore: 40\nprofiles:\n- percentageOfNodesToScore: 100\n")
    assert cfg.percentage_of_nodes_to_score == 40
    assert cfg.profiles[0].percentage_of_nodes_to_score == 100
    assert parse("").profiles[0].percentage_of_nodes_to_score is None


# --- plugin args: defaulted per plugin, then per field ------------------------------------------


FIT_DEFAULT_STRATEGY = {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}


@pytest.mark.parametrize(
    "name,args,expected",
    [
        ("NodeResourcesFit", "{ignoredResources: [example.com/foo]}",
         {"ignoredResources": ["example.com/foo"], "ignoredResourceGroups": [], "scoringStrategy": FIT_DEFAULT_STRATEGY}),
        ("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated}}",
         {"ignoredResources": [], "ignoredResourceGroups": [],
          "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}),
        ("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, resources: [{name: memory}, {name: cpu, weight: 0}, {name: x/y, weight: 7}]}}",
         {"ignoredResources": [], "ignoredResourceGroups": [],
          "scoringStrategy": {"type": "MostAllocated", "resources": [
              {"name": "memory", "weight": 1}, {"name": "cpu", "weight": 1}, {"name": "x/y", "weight": 7}]}}),
        # A strategy given without a type keeps "", which the Fit constructor rejects as upstream's does.
        ("NodeResourcesFit", "{scoringStrategy: {resources: [{name: cpu, weight: 2}]}}",
         {"ignoredResources": [], "ignoredResourceGroups": [],
          "scoringStrategy": {"type": "", "resources": [{"name": "cpu", "weight": 2}]}}),
        ("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 50}]}}}",
         {"ignoredResources": [], "ignoredResourceGroups": [],
          "scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": FIT_DEFAULT_STRATEGY["resources"],
                              "requestedToCapacityRatio": {"shape": [{"utilization": 50, "score": 0}]}}}),
        ("NodeResourcesBalancedAllocation", "{resources: [{name: cpu}, {name: example.com/gpu, weight: 0}]}",
         {"resources": [{"name": "cpu", "weight": 1}, {"name": "example.com/gpu", "weight": 1}]}),
        ("NodeResourcesBalancedAllocation", "{resources: []}",
         {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}),
        ("PodTopologySpread", "{defaultingType: List}", {"defaultingType": "List", "defaultConstraints": []}),
        ("PodTopologySpread", "{defaultConstraints: []}", {"defaultingType": "System", "defaultConstraints": []}),
        ("InterPodAffinity", "{}", {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False}),
        ("InterPodAffinity", "{hardPodAffinityWeight: 0}", {"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": False}),
        ("InterPodAffinity", "{hardPodAffinityWeight: null, ignorePreferredTermsOfExistingPods: true}",
         {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": True}),
        ("DefaultPreemption", "{minCandidateNodesPercentage: 50}", {"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 100}),
        ("VolumeBinding", "{bindTimeoutSeconds: 0}", {"bindTimeoutSeconds": 0}),
        ("NodeAffinity", "{}", {}),
        ("NodeAffinity", "{apiVersion: kubescheduler.config.k8s.io/v1, kind: NodeAffinityArgs, addedAffinity: {}}",
         {"addedAffinity": {}}),
        ("NodeResourcesFit", "null", default_args(PINNED)["NodeResourcesFit"]),
        ("VolumeBinding", "", default_args(PINNED)["VolumeBinding"]),
        ("PodTopologySpread", "{kind: PodTopologySpreadArgs}", default_args(PINNED)["PodTopologySpread"]),
        ("DefaultPreemption", "{apiVersion: kubescheduler.config.k8s.io/v1}", default_args(PINNED)["DefaultPreemption"]),
    ],
    ids=[
        "fit-ignored-only", "fit-most-no-resources", "fit-resource-weights", "fit-no-type",
        "fit-rtcr-shape-point", "balanced-weights", "balanced-empty", "spread-list-no-constraints",
        "spread-system-default", "ipa-empty", "ipa-zero-kept", "ipa-null-defaulted", "preemption-partial",
        "volume-binding-zero-kept", "node-affinity-empty", "node-affinity-typemeta-stripped",
        "null-args", "missing-args", "kind-only", "api-version-only",
    ],
)
def test_args_defaulted_per_field(name: str, args: str, expected: dict[str, Any]) -> None:
    entry = f"  - name: {name}\n" + (f"    args: {args}\n" if args else "")
    prof = parse(f"profiles:\n- pluginConfig:\n{entry}").profiles[0]
    assert prof.plugin_config[name] == expected
    # Every other plugin with args gets its full defaults.
    for other, defaults in default_args(PINNED).items():
        if other != name:
            assert prof.plugin_config[other] == defaults


def test_args_only_for_enabled_plugins() -> None:
    prof = parse("profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: NodeAffinity}]\n").profiles[0]
    assert "NodeAffinity" not in prof.plugin_config
    assert set(prof.plugin_config) == set(default_args(PINNED)) - {"NodeAffinity"}


@pytest.mark.parametrize(
    "name,args",
    [("TaintToleration", "{anything: [1, 2]}"), ("OutOfTreePlugin", "{foo: bar}")],
    ids=["in-tree-without-args-kind", "out-of-tree"],
)
def test_args_without_args_kind_are_kept_raw(name: str, args: str) -> None:
    prof = parse(f"profiles:\n- pluginConfig:\n  - name: {name}\n    args: {args}\n").profiles[0]
    assert prof.plugin_config[name] == yaml.safe_load(args)
    framework(prof)  # not read by the plugin, not rejected


def test_fit_args_are_not_validated_by_the_configuration() -> None:
    # validatePluginConfig keys Fit as "NodeResourcesFitArgs": only the constructor checks its args.
    prof = parse(
        "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
        "    args: {scoringStrategy: {type: Foo, resources: [{name: cpu, weight: 500}]}, ignoredResourceGroups: [a/b]}\n"
    ).profiles[0]
    with pytest.raises(ConfigError):
        framework(prof)


def test_rtcr_without_shape_passes_configuration() -> None:
    # Upstream validation accepts it and kube-scheduler then crashes; here the constructor refuses.
    prof = parse(
        "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: RequestedToCapacityRatio}}\n"
    ).profiles[0]
    assert prof.plugin_config["NodeResourcesFit"]["scoringStrategy"] == {
        "type": "RequestedToCapacityRatio",
        "resources": FIT_DEFAULT_STRATEGY["resources"],
    }
    with pytest.raises(ConfigError):
        framework(prof)


# --- plugin sets: merge, multiPoint, weights ----------------------------------------------------


def _moved_first(first: str, weight: int) -> tuple[list[str], dict[str, int]]:
    return [first] + [n for n in DEFAULT_SCORE if n != first], {**DEFAULT_WEIGHTS, first: weight}


@pytest.mark.parametrize(
    "plugins,score,weights,filters",
    [
        ("multiPoint:\n  enabled:\n  - {name: TaintToleration, weight: 1}\n  - {name: NodeAffinity, weight: 8}\n"
         "  - {name: NodeResourcesBalancedAllocation, weight: 10}\n  - {name: PodTopologySpread, weight: 4}\n",
         DEFAULT_SCORE,
         {**DEFAULT_WEIGHTS, "TaintToleration": 1, "NodeAffinity": 8, "NodeResourcesBalancedAllocation": 10, "PodTopologySpread": 4},
         DEFAULT_FILTER),
        ("multiPoint:\n  enabled: [{name: NodeAffinity}]\n", DEFAULT_SCORE, {**DEFAULT_WEIGHTS, "NodeAffinity": 1}, DEFAULT_FILTER),
        ("multiPoint:\n  enabled: [{name: ImageLocality, weight: 0}]\n", DEFAULT_SCORE, DEFAULT_WEIGHTS, DEFAULT_FILTER),
        ("multiPoint:\n  enabled: [{name: TaintToleration, weight: 150}, {name: ImageLocality, weight: 1000}]\n",
         DEFAULT_SCORE, {**DEFAULT_WEIGHTS, "TaintToleration": 150, "ImageLocality": 1000}, DEFAULT_FILTER),
        ("multiPoint:\n  enabled: [{name: ImageLocality, weight: -3}]\n",
         DEFAULT_SCORE, {**DEFAULT_WEIGHTS, "ImageLocality": -3}, DEFAULT_FILTER),
        ("multiPoint:\n  enabled: [{name: CinderLimits}]\n", DEFAULT_SCORE, DEFAULT_WEIGHTS, DEFAULT_FILTER + ["CinderLimits"]),
        ("score:\n  enabled: [{name: NodeResourcesFit, weight: 9}]\n", *_moved_first("NodeResourcesFit", 9), DEFAULT_FILTER),
        ("score:\n  enabled: [{name: TaintToleration}]\n", *_moved_first("TaintToleration", 1), DEFAULT_FILTER),
        ("score:\n  enabled: [{name: PodTopologySpread, weight: 0}]\n", *_moved_first("PodTopologySpread", 1), DEFAULT_FILTER),
        ("score:\n  disabled: [{name: ImageLocality}]\n",
         DEFAULT_SCORE[:-1], {k: v for k, v in DEFAULT_WEIGHTS.items() if k != "ImageLocality"}, DEFAULT_FILTER),
        ("score:\n  enabled:\n  - {name: NodeResourcesBalancedAllocation}\n  - {name: NodeAffinity, weight: 5}\n"
         "  - {name: ImageLocality, weight: 1}\n  disabled: [{name: '*'}]\n",
         ["NodeResourcesBalancedAllocation", "NodeAffinity", "ImageLocality"],
         {"NodeResourcesBalancedAllocation": 1, "NodeAffinity": 5, "ImageLocality": 1},
         DEFAULT_FILTER),
        ("filter:\n  disabled: [{name: NodeAffinity}]\n", DEFAULT_SCORE, DEFAULT_WEIGHTS,
         [n for n in DEFAULT_FILTER if n != "NodeAffinity"]),
        ("filter:\n  enabled: [{name: NodePorts}, {name: NodeResourcesFit}, {name: PodTopologySpread}]\n  disabled: [{name: '*'}]\n",
         DEFAULT_SCORE, DEFAULT_WEIGHTS, ["NodePorts", "NodeResourcesFit", "PodTopologySpread"]),
        ("multiPoint:\n  disabled: [{name: NodeAffinity}]\n",
         [n for n in DEFAULT_SCORE if n != "NodeAffinity"], {k: v for k, v in DEFAULT_WEIGHTS.items() if k != "NodeAffinity"},
         [n for n in DEFAULT_FILTER if n != "NodeAffinity"]),
        ("multiPoint:\n  enabled: [{name: PrioritySort}, {name: NodeName}, {name: DefaultBinder}]\n  disabled: [{name: '*'}]\n",
         [], {}, ["NodeName"]),
    ],
    ids=[
        "multipoint-replaced-in-place", "multipoint-no-weight-is-1", "weight-0-is-1", "weights-above-100",
        "negative-weight-last", "multipoint-new-plugin-appended", "score-enabled-moves-first",
        "score-enabled-no-weight-is-1", "score-enabled-weight-0", "score-disabled-one", "score-disabled-star",
        "filter-disabled-one", "filter-disabled-star", "multipoint-disabled", "multipoint-star-reenabled",
    ],
)
def test_plugin_sets(plugins: str, score: list[str], weights: dict[str, int], filters: list[str]) -> None:
    body = "profiles:\n- plugins:\n" + "".join(f"    {line}\n" for line in plugins.splitlines())
    fw = framework(parse(body).profiles[0])
    assert fw.names("score") == score
    assert {n: fw.score_weights[n] for n in fw.names("score")} == weights
    assert fw.names("filter") == filters


def test_filter_disabled_keeps_prefilter_and_score() -> None:
    fw = framework(parse("profiles:\n- plugins:\n    filter:\n      disabled: [{name: NodeAffinity}]\n").profiles[0])
    assert "NodeAffinity" not in fw.names("filter")
    assert "NodeAffinity" in fw.names("preFilter")
    assert "NodeAffinity" in fw.names("preScore")
    assert "NodeAffinity" in fw.names("score")


def test_multipoint_disabled_removes_every_point() -> None:
    fw = framework(parse("profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: VolumeBinding}]\n").profiles[0])
    for point in ("preFilter", "filter", "preScore", "score", "reserve", "preBind"):
        assert "VolumeBinding" not in fw.names(point)


def test_merged_sets_as_mergeplugins() -> None:
    prof = parse(
        "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: Custom}, {name: NodeAffinity, weight: 7}]\n"
        "      disabled: [{name: ImageLocality}]\n    score:\n      disabled: [{name: '*'}]\n"
    ).profiles[0]
    assert set(prof.plugins) == set(PLUGIN_SET_FIELDS)
    multi = prof.plugins["multiPoint"]
    names = [r.name for r in multi.enabled]
    assert "ImageLocality" not in names
    assert names[-1] == "Custom"  # not a default plugin: appended
    assert multi.enabled[names.index("NodeAffinity")] == PluginRef("NodeAffinity", 7)
    assert names.index("NodeAffinity") == 5  # replaced in place
    assert multi.disabled == ("ImageLocality",)
    assert prof.plugins["score"].disabled == ("*",)
    assert prof.plugins["filter"].enabled == () and prof.plugins["filter"].disabled == ()


@pytest.mark.parametrize(
    "plugins,message",
    [
        ("multiPoint:\n  enabled: [{name: TaintToleration, weight: -3}]\n", "total score of Score plugins could overflow"),
        ("multiPoint:\n  disabled: [{name: '*'}]\n", "only one queue sort plugin required for profile with scheduler name"),
        ("multiPoint:\n  enabled: [{name: PrioritySort}]\n  disabled: [{name: '*'}]\n", "at least one bind plugin is needed"),
        ("multiPoint:\n  enabled: [{name: NoSuchPlugin}]\n", '"NoSuchPlugin" does not exist'),
        ("score:\n  enabled: [{name: TaintToleration}, {name: TaintToleration}]\n", "already registered"),
    ],
    ids=["negative-first-weight-overflows", "star-without-queue-sort", "star-without-binder", "unknown-plugin", "duplicate"],
)
def test_framework_rejects(plugins: str, message: str) -> None:
    body = "profiles:\n- plugins:\n" + "".join(f"    {line}\n" for line in plugins.splitlines())
    prof = parse(body).profiles[0]  # the configuration itself is valid
    with pytest.raises(ConfigError) as info:
        framework(prof)
    assert message.replace('"', "'") in str(info.value).replace('"', "'")


def test_multiple_profiles() -> None:
    cfg = parse(
        "profiles:\n- schedulerName: default-scheduler\n- schedulerName: second\n"
        "  plugins:\n    score:\n      enabled: [{name: NodeResourcesFit, weight: 2}]\n      disabled: [{name: '*'}]\n"
        "  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 5}\n"
    )
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler", "second"]
    first, second = cfg.profile("default-scheduler"), cfg.profile("second")
    assert first is not None and second is not None
    assert first == default_configuration(PINNED).profiles[0]
    assert second.plugin_config["InterPodAffinity"]["hardPodAffinityWeight"] == 5
    assert framework(first).names("score") == DEFAULT_SCORE
    fw = framework(second)
    assert fw.names("score") == ["NodeResourcesFit"]
    assert fw.score_weights["NodeResourcesFit"] == 2
    assert cfg.profile("third") is None


# --- validation (ValidateKubeSchedulerConfiguration) --------------------------------------------

ARGS = "profiles:\n- pluginConfig:\n  - name: {name}\n    args: {args}\n"


def args(name: str, a: str) -> str:
    return ARGS.format(name=name, args=a)


PC = "profiles[0].pluginConfig[0].args"
NA_REQ = f"{PC}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
NA_PREF = f"{PC}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
QNAME_ERR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def na_expr(expr: str) -> str:
    return args(
        "NodeAffinity",
        "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [" + expr + "]}]}}}",
    )


@pytest.mark.parametrize(
    "body,field,message",
    [
        ("parallelism: 0\n", "parallelism", "Invalid value: 0: should be an integer value greater than zero"),
        ("percentageOfNodesToScore: 101\n", "percentageOfNodesToScore", "Invalid value: 101: not in valid range [0-100]"),
        ("percentageOfNodesToScore: -1\n", "percentageOfNodesToScore", "Invalid value: -1: not in valid range [0-100]"),
        ("profiles:\n- percentageOfNodesToScore: 200\n", "profiles[0].percentageOfNodesToScore",
         "Invalid value: 200: not in valid range [0-100]"),
        ("profiles:\n- schedulerName: ''\n", "profiles[0].schedulerName", "Required value"),
        ("profiles:\n- schedulerName: a\n- {}\n", "profiles[1].schedulerName", "Required value"),
        ("profiles:\n- schedulerName: a\n- schedulerName: b\n- schedulerName: a\n", "profiles[2].schedulerName",
         "Duplicate value: profiles[0].schedulerName"),
        ("profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n",
         "profiles[1].plugins.queueSort",
         'Invalid value: config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:"PrioritySort", Weight:0}}, '
         "Disabled:[]config.Plugin(nil)}: queueSort must be the same for all profiles"),
        ("profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n- schedulerName: b\n",
         "profiles[1].plugins.queueSort",
         "Invalid value: config.PluginSet{Enabled:[]config.Plugin(nil), Disabled:[]config.Plugin(nil)}: "
         "queueSort must be the same for all profiles"),
        ("profiles:\n- plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}, {name: Other}]\n",
         "profiles[0].plugins.queueSort.Enabled", "Invalid value: 2: only one queue sort plugin can be enabled"),
        ("profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n"
         "- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n"
         "  pluginConfig:\n  - name: PrioritySort\n    args: {x: 1}\n",
         "profiles[1].pluginConfig.args", 'Invalid value: {"x": 1}: queueSort must be the same for all profiles'),
        ("profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: ImageLocality\n  - name: NodeAffinity\n",
         "profiles[0].pluginConfig[2]", 'Duplicate value: "NodeAffinity"'),
        ("podInitialBackoffSeconds: 0\n", "podInitialBackoffSeconds", "Invalid value: 0: must be greater than 0"),
        ("podInitialBackoffSeconds: 20\n", "podMaxBackoffSeconds",
         "Invalid value: 10: must be greater than or equal to PodInitialBackoffSeconds"),
        ("clientConnection: {burst: -1}\n", "clientConnection.burst", "Invalid value: -1: must be non-negative"),
        ("leaderElection: {resourceLock: endpoints}\n", "leaderElection.resourceLock",
         'Invalid value: "endpoints": resourceLock value must be "leases"'),
        ("leaderElection: {leaseDuration: 5s}\n", "leaderElection.leaseDuration",
         "Invalid value: 10s: LeaseDuration must be greater than RenewDeadline"),
        ("leaderElection: {retryPeriod: -1.5s}\n", "leaderElection.retryPeriod", "Invalid value: -1.5s: must be greater than zero"),
        (args("DefaultPreemption", "{minCandidateNodesPercentage: 101}"), f"{PC}.minCandidateNodesPercentage",
         "Invalid value: 101: not in valid range [0, 100]"),
        (args("DefaultPreemption", "{minCandidateNodesAbsolute: -1}"), f"{PC}.minCandidateNodesAbsolute",
         "Invalid value: -1: not in valid range [0, inf)"),
        (args("DefaultPreemption", "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}"),
         f"{PC}.minCandidateNodesPercentage", "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute"),
        (args("InterPodAffinity", "{hardPodAffinityWeight: 101}"), f"{PC}.hardPodAffinityWeight",
         "Invalid value: 101: not in valid range [0, 100]"),
        (args("InterPodAffinity", "{hardPodAffinityWeight: -1}"), f"{PC}.hardPodAffinityWeight",
         "Invalid value: -1: not in valid range [0, 100]"),
        (args("NodeResourcesBalancedAllocation", "{resources: [{name: cpu, weight: 2}]}"), f"{PC}.resources[0].weight",
         "Invalid value: 2: must be 1"),
        (args("NodeResourcesBalancedAllocation", "{resources: [{name: cpu}, {name: cpu}]}"), f"{PC}.resources[1].name",
         'Duplicate value: "cpu"'),
        (args("PodTopologySpread", "{defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}"),
         f"{PC}.defaultingType", 'Invalid value: "System": when .defaultConstraints are not empty'),
        (args("PodTopologySpread", "{defaultingType: Both}"), f"{PC}.defaultingType",
         'Unsupported value: "Both": supported values: "System", "List"'),
        (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}"),
         f"{PC}.defaultConstraints[0].maxSkew", "Invalid value: 0: not in valid range (0, inf)"),
        (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]}"),
         f"{PC}.defaultConstraints[0].topologyKey", "Required value: can not be empty"),
        (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: -zone, whenUnsatisfiable: DoNotSchedule}]}"),
         f"{PC}.defaultConstraints[0].topologyKey", f'Invalid value: "-zone": {QNAME_ERR}'),
        (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone}]}"),
         f"{PC}.defaultConstraints[0].whenUnsatisfiable", "Required value: can not be empty"),
        (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Maybe}]}"),
         f"{PC}.defaultConstraints[0].whenUnsatisfiable",
         'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"'),
        (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
              "whenUnsatisfiable: DoNotSchedule, labelSelector: {}}]}"),
         f"{PC}.defaultConstraints[0].labelSelector",
         "Forbidden: constraint must not define a selector, as they deduced for each pod"),
        (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
              "whenUnsatisfiable: DoNotSchedule}, {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}"),
         f"{PC}.defaultConstraints[1]", 'Duplicate value: "{zone, DoNotSchedule}"'),
        (args("VolumeBinding", "{bindTimeoutSeconds: -1}"), f"{PC}.bindTimeoutSeconds",
         "Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"),
        (args("VolumeBinding", "{shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}"), f"{PC}.shape",
         "Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint{Utilization:0, Score:0}, "
         "config.UtilizationShapePoint{Utilization:100, Score:10}}: "
         "unexpected field `shape`, remove it or turn on the feature gate VolumeCapacityPriority"),
        (na_expr("{key: a, operator: Like, values: [b]}"), f"{NA_REQ}.matchExpressions[0].operator",
         'Unsupported value: "Like": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'),
        (na_expr("{key: a, operator: In}"), f"{NA_REQ}.matchExpressions[0].values",
         "Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"),
        (na_expr("{key: a, operator: NotIn, values: []}"), f"{NA_REQ}.matchExpressions[0].values",
         "Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"),
        (na_expr("{key: a, operator: Exists, values: [b]}"), f"{NA_REQ}.matchExpressions[0].values",
         'Invalid value: []string{"b"}: values set must be empty for exists and does not exist'),
        (na_expr("{key: a, operator: Gt, values: [x]}"), f"{NA_REQ}.matchExpressions[0].values[0]",
         "Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"),
        (na_expr("{key: 'a b', operator: Exists}"), f"{NA_REQ}.matchExpressions[0].key", f'Invalid value: "a b": {QNAME_ERR}'),
        (na_expr("{key: a, operator: In, values: ['b c']}"), f"{NA_REQ}.matchExpressions[0].values[0][a]",
         "Invalid value: \"b c\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
         "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
         "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
        (args("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
              "[{matchFields: [{key: metadata.name, operator: In, values: [a, b]}]}]}}}"),
         f"{NA_REQ}.matchFields[0].values", 'Invalid value: []string{"a", "b"}: must have one element'),
        (args("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
              "[{matchFields: [{key: metadata.name, operator: Exists}]}]}}}"),
         f"{NA_REQ}.matchFields[0].operator", 'Unsupported value: "Exists": supported values: "In", "NotIn"'),
        (args("NodeAffinity", "{addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
              "[{weight: 5, preference: {matchExpressions: [{key: a, operator: In}]}}]}}"),
         f"{NA_PREF}.matchExpressions[0].values",
         "Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"),
        ("extenders:\n- urlPrefix: http://e\n  prioritizeVerb: prioritize\n", "extenders[0].weight",
         "Invalid value: 0: must have a positive weight applied to it"),
        ("extenders:\n- {urlPrefix: http://a, bindVerb: bind}\n- {urlPrefix: http://b, bindVerb: bind}\n", "extenders",
         'Invalid value: "found 2 extenders implementing bind": only one extender can implement bind'),
        ("extenders:\n- urlPrefix: http://e\n  managedResources: [{name: cpu}]\n", "extenders[0].managedResources[0].name",
         'Invalid value: "cpu": is an invalid extended resource name'),
        ("extenders:\n- urlPrefix: http://e\n  managedResources: [{name: example.com/gpu}, {name: example.com/gpu}]\n",
         "extenders[0].managedResources[1].name", 'Invalid value: "example.com/gpu": duplicate extender managed resource name'),
    ],
    ids=[
        "parallelism", "percentage-high", "percentage-negative", "profile-percentage", "empty-name",
        "missing-name-with-two-profiles", "duplicate-name", "queue-sort-differs", "queue-sort-missing-in-second",
        "two-queue-sorts", "queue-sort-args-differ", "duplicate-plugin-config", "initial-backoff", "max-backoff",
        "burst", "resource-lock", "lease-not-above-renew", "retry-period", "preemption-percentage",
        "preemption-absolute", "preemption-both-zero", "ipa-weight-high", "ipa-weight-negative",
        "balanced-weight", "balanced-duplicate", "spread-system-with-constraints", "spread-defaulting-type",
        "spread-max-skew", "spread-empty-key", "spread-bad-key", "spread-empty-when", "spread-bad-when",
        "spread-selector", "spread-duplicate", "volume-binding-timeout", "volume-binding-shape",
        "na-operator", "na-in-nil-values", "na-in-empty-values", "na-exists-values", "na-gt-not-integer",
        "na-bad-key", "na-bad-value", "na-fields-values", "na-fields-operator", "na-preferred",
        "extender-weight", "extender-two-binders", "extender-native-resource", "extender-duplicate-resource",
    ],
)
def test_validation_errors(body: str, field: str, message: str) -> None:
    err = raises(HEADER + body)
    assert (err.field, err.message) == (field, message)
    assert str(err) == f"sched.yaml: {field}: {message}"
    assert "\n" not in str(err)


@pytest.mark.parametrize(
    "body",
    [
        args("NodeAffinity", "{addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
             "[{weight: 1000, preference: {matchExpressions: [{key: a, operator: In, values: [b]}]}}]}}"),
        args("NodeAffinity", "{addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
             "[{weight: 0, preference: {matchExpressions: [{key: a, operator: In}]}}]}}"),
        args("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{}]}}}"),
        args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
             "whenUnsatisfiable: DoNotSchedule}, {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}"),
        args("DefaultPreemption", "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 5}"),
        "leaderElection: {leaderElect: false, resourceLock: endpoints, leaseDuration: 1s}\n",
        "parallelism: 1\npodInitialBackoffSeconds: 3\npodMaxBackoffSeconds: 3\nclientConnection: {qps: 12.5, burst: 0}\n",
        "profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort, weight: 0}]\n"
        "- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n",
    ],
    ids=["na-weight-not-range-checked", "na-zero-weight-term-skipped", "na-empty-term-skipped",
         "spread-same-key-other-action", "preemption-one-zero", "no-leader-election", "client-and-backoff",
         "queue-sort-weight-0-equals-none"],
)
def test_valid_edge_cases(body: str) -> None:
    parse(body)


def test_extenders_are_refused_after_validation() -> None:
    err = raises(HEADER + "extenders:\n- urlPrefix: http://e\n  filterVerb: filter\n")
    assert err.field == "extenders"
    assert "extenders are not supported" in err.message


# --- decoding ------------------------------------------------------------------------------------

JSON_HEADER = '"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"'


@pytest.mark.parametrize(
    "text,field,message",
    [
        (HEADER + "foo: 1\n", None, 'unknown field "foo"'),
        (HEADER + "profiles:\n- SchedulerName: a\n", "profiles[0]", 'unknown field "SchedulerName"'),
        (HEADER + "profiles:\n- plugins:\n    score:\n      enabled: [{name: A, wieght: 1}]\n",
         "profiles[0].plugins.score.enabled[0]", 'unknown field "wieght"'),
        (HEADER + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {resources: [{Name: cpu}]}}\n",
         "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0]", 'unknown field "Name"'),
        (HEADER + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 1, extra: true}\n",
         "profiles[0].pluginConfig[0].args", 'unknown field "extra"'),
        (HEADER + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
         "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists, value: x}]}]}}}\n",
         "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]",
         'unknown field "value"'),
        (HEADER + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultingType: List, defaultConstraints: "
         "[{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabel: {}}}]}\n",
         "profiles[0].pluginConfig[0].args.defaultConstraints[0].labelSelector", 'unknown field "matchLabel"'),
        (HEADER + "parallelism: 2\nparallelism: 3\n", None, 'invalid YAML: line 4: key "parallelism" already set in map'),
        ("{" + JSON_HEADER + ', "parallelism": 2, "parallelism": 3}', None, 'duplicate field "parallelism"'),
        (HEADER + "parallelism: two\n", "parallelism", "cannot unmarshal string into Go value of type int32"),
        (HEADER + "parallelism: 1.5\n", "parallelism", "cannot unmarshal number 1.5 into Go value of type int32"),
        ("{" + JSON_HEADER + ', "parallelism": 2.0}', "parallelism", "cannot unmarshal number 2.0 into Go value of type int32"),
        (HEADER + "percentageOfNodesToScore: 3000000000\n", "percentageOfNodesToScore",
         "cannot unmarshal number 3000000000 into Go value of type int32"),
        (HEADER + "profiles:\n- plugins:\n    score:\n      enabled: [{name: A, weight: '5'}]\n",
         "profiles[0].plugins.score.enabled[0].weight", "cannot unmarshal string into Go value of type int32"),
        (HEADER + "profiles:\n  schedulerName: a\n", "profiles",
         "cannot unmarshal object into Go value of type []v1.KubeSchedulerProfile"),
        (HEADER + "profiles:\n- schedulerName: 7\n", "profiles[0].schedulerName", "cannot unmarshal number into Go value of type string"),
        (HEADER + "enableProfiling: 'yes'\n", "enableProfiling", "cannot unmarshal string into Go value of type bool"),
        (HEADER + "leaderElection: {leaseDuration: 15}\n", "leaderElection.leaseDuration",
         "cannot unmarshal number into Go value of type string"),
        (HEADER + "leaderElection: {leaseDuration: 15x}\n", "leaderElection.leaseDuration", 'time: unknown unit "x" in duration "15x"'),
        (HEADER + "leaderElection: {leaseDuration: null}\n", "leaderElection.leaseDuration", 'time: invalid duration ""'),
        # A type error wins over an unknown field found before it, as Go's decoder reports it first.
        (HEADER + "foo: 1\nparallelism: x\n", "parallelism", "cannot unmarshal string into Go value of type int32"),
        # Fatal errors of the nested args decoding win over the top level's unknown fields.
        (HEADER + "foo: 1\nprofiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {kind: InterPodAffinityArgs}\n",
         "profiles[0].pluginConfig[0].args",
         "args for plugin NodeAffinity were not of type NodeAffinityArgs.kubescheduler.config.k8s.io, "
         "got InterPodAffinityArgs.kubescheduler.config.k8s.io"),
        (HEADER + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {apiVersion: kubescheduler.config.k8s.io/v1beta3}\n",
         "profiles[0].pluginConfig[0].args",
         'decoding args for plugin NodeAffinity: no kind "NodeAffinityArgs" is registered for version "kubescheduler.config.k8s.io/v1beta3"'),
        (HEADER + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {kind: FooArgs}\n",
         "profiles[0].pluginConfig[0].args",
         'decoding args for plugin NodeAffinity: no kind "FooArgs" is registered for version "kubescheduler.config.k8s.io/v1"'),
        (HEADER + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: [1]\n", "profiles[0].pluginConfig[0].args",
         "couldn't get version/kind: cannot unmarshal array into Go value of type v1.NodeAffinityArgs"),
        ("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n", None,
         'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" '
         "(kube-scheduler v1.30 reads kubescheduler.config.k8s.io/v1)"),
        ("apiVersion: v1\nkind: KubeSchedulerConfiguration\n", None,
         'no kind "KubeSchedulerConfiguration" is registered for version "v1"'),
        ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n", None,
         'no kind "Policy" is registered for version "kubescheduler.config.k8s.io/v1"'),
        ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: NodeAffinityArgs\n", None,
         "couldn't decode as KubeSchedulerConfiguration, got kubescheduler.config.k8s.io/v1, Kind=NodeAffinityArgs"),
        ("apiVersion: kubescheduler.config.k8s.io/v1\nprofiles: []\n", "kind", "Object 'Kind' is missing"),
        ("kind: KubeSchedulerConfiguration\n", "apiVersion", "Object 'apiVersion' is missing"),
        ("apiVersion: 1\nkind: KubeSchedulerConfiguration\n", "apiVersion",
         "couldn't get version/kind: cannot unmarshal number into Go value of type string"),
        ("{apiVersion: kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration}", None,
         "invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes"),
        ("  {" + JSON_HEADER + "} trailing", None, "invalid JSON at line 1 column 90: Extra data"),
        ("{" + JSON_HEADER + ', "parallelism": NaN}', None, "invalid JSON: invalid JSON value NaN"),
        (HEADER + "---\n" + HEADER, None, "the file holds 2 YAML documents; a KubeSchedulerConfiguration file holds one"),
        ("- apiVersion: v1\n- kind: List\n", None, "couldn't get version/kind: the document is an array, not an object"),
        ("just a string\n", None, "couldn't get version/kind: the document is a string, not an object"),
        ("# nothing here\n", None, "Object 'Kind' is missing: the file holds no KubeSchedulerConfiguration"),
        (HEADER + "profiles: !!python/object:os.system {}\n", None,
         "invalid YAML at line 3 column 11: could not determine a constructor for the tag "
         "'tag:yaml.org,2002:python/object:os.system' (only plain YAML is accepted)"),
    ],
    ids=[
        "unknown-top", "case-sensitive", "unknown-in-plugin", "unknown-nested-args", "unknown-in-args",
        "unknown-in-embedded-core-type", "unknown-in-label-selector", "yaml-duplicate-key", "json-duplicate-key",
        "type-string", "type-fraction", "type-json-float", "type-int32-range", "type-weight-string",
        "type-object-for-list", "type-number-for-string", "type-bool", "duration-number", "duration-unit",
        "duration-null", "type-error-wins", "args-fatal-wins", "args-version", "args-kind-unknown",
        "args-not-object", "old-api-version", "core-api-version", "other-kind", "other-v1-kind", "no-kind",
        "no-api-version", "api-version-type", "flow-yaml-is-json", "json-trailing", "json-nan", "two-documents",
        "top-level-list", "top-level-scalar", "empty", "python-tag",
    ],
)
def test_decoding_errors(text: str, field: str | None, message: str) -> None:
    err = raises(text)
    assert (err.field, err.message) == (field, message)
    assert str(err).startswith("sched.yaml: ")
    assert "\n" not in str(err)


def test_broken_yaml() -> None:
    err = raises(HEADER + "profiles: [\n")
    assert err.message.startswith("invalid YAML at line 4 column 1: ")  # the wording is libyaml's


def test_json_document() -> None:
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "x", "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 4}]}}}],
    }
    cfg = parse_configuration("\n  " + json.dumps(doc), "sched.json", PINNED)
    fw = framework(cfg.profiles[0])
    assert cfg.profiles[0].scheduler_name == "x"
    assert fw.names("score")[0] == "ImageLocality" and fw.score_weights["ImageLocality"] == 4


def test_json_duplicates_in_args() -> None:
    def doc(name: str) -> str:
        return "{" + JSON_HEADER + ', "profiles": [{"pluginConfig": [{"name": "' + name + '", "args": {"a": 1, "a": 2}}]}]}'

    # Typed args are decoded strictly; raw args (a runtime.Unknown) are kept as they are.
    err = raises(doc("InterPodAffinity"))
    assert (err.field, err.message) == ("profiles[0].pluginConfig[0].args", 'duplicate field "a"')
    assert parse_configuration(doc("TaintToleration"), "s.json", PINNED).profiles[0].plugin_config["TaintToleration"] == {"a": 2}
    err = raises(doc("InterPodAffinity").replace('"a"', '"hardPodAffinityWeight"'))
    assert (err.field, err.message) == ("profiles[0].pluginConfig[0].args", 'duplicate field "hardPodAffinityWeight"')


def test_yaml_subtleties() -> None:
    cfg = parse(
        "parallelism: 4.0\n"  # a YAML 4.0 reaches Go's JSON decoder as 4
        "profiles:\n- schedulerName: 2024-01-01\n"  # a timestamp stays a string
        "  pluginConfig:\n  - &ipa {name: InterPodAffinity, args: {hardPodAffinityWeight: 3}}\n"
        "- schedulerName: other\n  pluginConfig:\n  - *ipa\n"
    )
    assert [p.scheduler_name for p in cfg.profiles] == ["2024-01-01", "other"]
    assert cfg.profiles[1].plugin_config["InterPodAffinity"]["hardPodAffinityWeight"] == 3
    # A merge key's values may be overridden: that is not a key set twice.
    cfg = parse("profiles:\n- &p {schedulerName: a, percentageOfNodesToScore: 5}\n- <<: *p\n  schedulerName: b\n")
    assert [(p.scheduler_name, p.percentage_of_nodes_to_score) for p in cfg.profiles] == [("a", 5), ("b", 5)]


def test_alias_bomb() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    text = HEADER + "profiles:\n- pluginConfig:\n  - name: Foo\n    args:\n" + "".join(f"      {line}\n" for line in lines)
    err = raises(text)
    assert err.message == "invalid YAML: aliases expand to too many values (an alias bomb?)"


def test_load_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_configuration(str(tmp_path / "missing.yaml"), PINNED)
    assert str(info.value) == f"{tmp_path / 'missing.yaml'}: no such file or directory"
    with pytest.raises(ConfigError) as info:
        load_configuration(str(tmp_path), PINNED)
    assert str(info.value) == f"{tmp_path}: is a directory"
    bad = tmp_path / "bad.yaml"
    prefix = HEADER + "profiles:\n- schedulerName: "
    bad.write_bytes(prefix.encode() + b"\xff\n")
    with pytest.raises(ConfigError) as info:
        load_configuration(str(bad), PINNED)
    assert str(info.value) == f"{bad}: not UTF-8 text (byte {len(prefix)})"
    good = tmp_path / "good.yaml"
    good.write_text(HEADER)
    assert load_configuration(str(good), PINNED).source == str(good)


# --- helpers ported from Go ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,problems",
    [("zone", 0), ("topology.kubernetes.io/zone", 0), ("a/b/c", 1), ("/zone", 1), ("Example.com/zone", 1),
     ("x" * 64, 1), ("-a", 1), ("", 2)],
    ids=["plain", "prefixed", "two-slashes", "empty-prefix", "upper-prefix", "too-long", "bad-start", "empty"],
)
def test_qualified_names(name: str, problems: int) -> None:
    assert len(is_qualified_name(name)) == problems


# --- the sample configurations -------------------------------------------------------------------


def _sample_dirs() -> list[Path]:
    return sorted(SAMPLE.glob("k*")) if SAMPLE.is_dir() else []


def _names(listed: str) -> list[str]:
    return listed.split(",")


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="fidelity sample not present")
@pytest.mark.parametrize("case", _sample_dirs(), ids=lambda p: p.name)
def test_sample_configuration(case: Path) -> None:
    meta = json.loads((case / "meta.json").read_text())
    raw = yaml.safe_load((case / "sched-config.yaml").read_text())
    cfg = load_configuration(str(case / "sched-config.yaml"), PINNED)
    assert [p.scheduler_name for p in cfg.profiles] == meta["profiles"]
    pod_profile = "second-scheduler" if "spec.schedulerName: second-scheduler" in meta["edits"] else "default-scheduler"
    prof = cfg.profile(pod_profile)
    assert prof is not None
    raw_prof = next(p for p in raw["profiles"] if p.get("schedulerName", "default-scheduler") == pod_profile)
    raw_plugins = raw_prof.get("plugins") or {}
    fw = framework(prof)
    args = prof.plugin_config
    for note in meta["notes"]:
        if m := re.fullmatch(r"(\w+) weight (\d+) via multiPoint", note):
            assert fw.score_weights[m[1]] == int(m[2])
        elif note == "weights via multiPoint (default entries replaced in place)":
            assert fw.names("score") == DEFAULT_SCORE
            for e in raw_plugins["multiPoint"]["enabled"]:
                assert fw.score_weights[e["name"]] == e["weight"]
        elif note == "weights via score.enabled (override the multiPoint entry)":
            given = raw_plugins["score"]["enabled"]
            assert fw.names("score")[: len(given)] == [e["name"] for e in given]
            for e in given:
                assert fw.score_weights[e["name"]] == e["weight"]
        elif m := re.fullmatch(r"score\.disabled (\w+)", note):
            assert m[1] not in fw.names("score")
        elif m := re.fullmatch(r"score '\*' disabled, then ([\w,]+) enabled", note):
            assert fw.names("score") == _names(m[1])
            for e in raw_plugins["score"]["enabled"]:
                assert fw.score_weights[e["name"]] == (e.get("weight") or 1)
        elif m := re.fullmatch(r"filter\.disabled (\w+)", note):
            assert m[1] not in fw.names("filter") and m[1] in fw.names("preFilter") and m[1] in fw.names("score")
        elif m := re.fullmatch(r"filter '\*' disabled, then ([\w,]+) enabled", note):
            assert fw.names("filter") == _names(m[1])
        elif m := re.fullmatch(r"hardPodAffinityWeight (\d+)", note):
            assert args["InterPodAffinity"]["hardPodAffinityWeight"] == int(m[1])
        elif note == "resources omitted: defaults to cpu:1, memory:1":
            assert args["NodeResourcesFit"]["scoringStrategy"]["resources"] == FIT_DEFAULT_STRATEGY["resources"]
        elif note == "partial NodeResourcesFit args: scoringStrategy still defaults to LeastAllocated cpu/memory":
            assert args["NodeResourcesFit"]["scoringStrategy"] == FIT_DEFAULT_STRATEGY
        elif note == "ignoredResourceGroups matches the prefix before '/'":
            assert args["NodeResourcesFit"]["ignoredResourceGroups"]
        elif m := re.fullmatch(r"List defaultConstraints (.+)", note):
            spread = args["PodTopologySpread"]
            assert spread["defaultingType"] == "List"
            assert len(spread["defaultConstraints"]) == len(m[1].split(","))
        elif m := re.fullmatch(r"addedAffinity required .+", note):
            assert "requiredDuringSchedulingIgnoredDuringExecution" in args["NodeAffinity"]["addedAffinity"]
        elif m := re.fullmatch(r"addedAffinity preferred (\d+) term\(s\)", note):
            added = args["NodeAffinity"]["addedAffinity"]
            assert len(added["preferredDuringSchedulingIgnoredDuringExecution"]) == int(m[1])
        elif note == "two profiles; pod uses second-scheduler":
            assert len(cfg.profiles) == 2 and pod_profile == "second-scheduler"
        else:
            pytest.fail(f"note not checked: {note!r}")
