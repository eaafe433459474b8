"""v1 defaults (pkg/scheduler/apis/config/v1): the default profile, args defaulted per plugin and
per field into their typed form, plugin sets merged as mergePlugins does, as kube-scheduler 1.30.6
(PINNED) does it; tests/test_versions.py covers what later releases change."""

from __future__ import annotations

import pytest
import yaml

from kwhatif.api.core import NodeAffinity
from kwhatif.config.defaults import default_args, default_configuration
from kwhatif.config.types import (
    PLUGIN_SET_FIELDS,
    DefaultPreemptionArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginArgs,
    PluginRef,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from kwhatif.errors import ConfigError

from .util import (
    CPU_MEMORY,
    DEFAULT_FILTER,
    DEFAULT_PRE_FILTER,
    DEFAULT_SCORE,
    DEFAULT_WEIGHTS,
    FIT_DEFAULT_STRATEGY,
    framework,
    parse,
)
from builders import PINNED

# --- defaults ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("", id="bare"),
        pytest.param("profiles: []\n", id="no-profiles"),
        pytest.param("profiles:\n- {}\n", id="empty-profile"),
        pytest.param("profiles:\n- schedulerName: default-scheduler\n  plugins: {}\n", id="empty-plugins"),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint: {enabled: [], disabled: []}\n  pluginConfig: []\n", id="empty-sets"
        ),
    ],
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


def fit(strategy: ScoringStrategy, ignored: tuple[str, ...] = ()) -> NodeResourcesFitArgs:
    return NodeResourcesFitArgs(ignored, (), strategy)


@pytest.mark.parametrize(
    "name,args,expected",
    [
        pytest.param(
            "NodeResourcesFit",
            "{ignoredResources: [example.com/foo]}",
            fit(FIT_DEFAULT_STRATEGY, ("example.com/foo",)),
            id="fit-ignored-only",
        ),
        pytest.param(
            "NodeResourcesFit",
            "{scoringStrategy: {type: MostAllocated}}",
            fit(ScoringStrategy("MostAllocated", CPU_MEMORY)),
            id="fit-most-no-resources",
        ),
        pytest.param(
            "NodeResourcesFit",
            "{scoringStrategy: {type: MostAllocated, resources: [{name: memory}, {name: cpu, weight: 0}, {name: x/y, weight: 7}]}}",
            fit(
                ScoringStrategy(
                    "MostAllocated", (ResourceSpec("memory", 1), ResourceSpec("cpu", 1), ResourceSpec("x/y", 7))
                )
            ),
            id="fit-resource-weights",
        ),
        # A strategy given without a type keeps "", which the Fit constructor rejects as upstream's does.
        pytest.param(
            "NodeResourcesFit",
            "{scoringStrategy: {resources: [{name: cpu, weight: 2}]}}",
            fit(ScoringStrategy("", (ResourceSpec("cpu", 2),))),
            id="fit-no-type",
        ),
        pytest.param(
            "NodeResourcesFit",
            "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 50}]}}}",
            fit(
                ScoringStrategy(
                    "RequestedToCapacityRatio",
                    CPU_MEMORY,
                    RequestedToCapacityRatioParam((UtilizationShapePoint(50, 0),)),
                )
            ),
            id="fit-rtcr-shape-point",
        ),
        pytest.param(
            "NodeResourcesBalancedAllocation",
            "{resources: [{name: cpu}, {name: example.com/gpu, weight: 0}]}",
            NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu", 1), ResourceSpec("example.com/gpu", 1))),
            id="balanced-weights",
        ),
        pytest.param(
            "NodeResourcesBalancedAllocation",
            "{resources: []}",
            NodeResourcesBalancedAllocationArgs(CPU_MEMORY),
            id="balanced-empty",
        ),
        pytest.param(
            "PodTopologySpread",
            "{defaultingType: List}",
            PodTopologySpreadArgs("List", ()),
            id="spread-list-no-constraints",
        ),
        pytest.param(
            "PodTopologySpread",
            "{defaultConstraints: []}",
            PodTopologySpreadArgs("System", ()),
            id="spread-system-default",
        ),
        pytest.param("InterPodAffinity", "{}", InterPodAffinityArgs(1, False), id="ipa-empty"),
        pytest.param(
            "InterPodAffinity", "{hardPodAffinityWeight: 0}", InterPodAffinityArgs(0, False), id="ipa-zero-kept"
        ),
        pytest.param(
            "InterPodAffinity",
            "{hardPodAffinityWeight: null, ignorePreferredTermsOfExistingPods: true}",
            InterPodAffinityArgs(1, True),
            id="ipa-null-defaulted",
        ),
        pytest.param(
            "DefaultPreemption",
            "{minCandidateNodesPercentage: 50}",
            DefaultPreemptionArgs(50, 100),
            id="preemption-partial",
        ),
        pytest.param("VolumeBinding", "{bindTimeoutSeconds: 0}", VolumeBindingArgs(0), id="volume-binding-zero-kept"),
        pytest.param("NodeAffinity", "{}", NodeAffinityArgs(), id="node-affinity-empty"),
        pytest.param(
            "NodeAffinity",
            "{apiVersion: kubescheduler.config.k8s.io/v1, kind: NodeAffinityArgs, addedAffinity: {}}",
            NodeAffinityArgs(NodeAffinity(), False),
            id="node-affinity-typemeta-stripped",
        ),
        pytest.param("NodeResourcesFit", "null", default_args(PINNED)["NodeResourcesFit"], id="null-args"),
        pytest.param("VolumeBinding", "", default_args(PINNED)["VolumeBinding"], id="missing-args"),
        pytest.param(
            "PodTopologySpread",
            "{kind: PodTopologySpreadArgs}",
            default_args(PINNED)["PodTopologySpread"],
            id="kind-only",
        ),
        pytest.param(
            "DefaultPreemption",
            "{apiVersion: kubescheduler.config.k8s.io/v1}",
            default_args(PINNED)["DefaultPreemption"],
            id="api-version-only",
        ),
    ],
)
def test_args_defaulted_per_field(name: str, args: str, expected: PluginArgs) -> None:
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
    [
        pytest.param("TaintToleration", "{anything: [1, 2]}", id="in-tree-without-args-kind"),
        pytest.param("OutOfTreePlugin", "{foo: bar}", id="out-of-tree"),
    ],
)
def test_args_without_args_kind_are_kept_raw(name: str, args: str) -> None:
    prof = parse(f"profiles:\n- pluginConfig:\n  - name: {name}\n    args: {args}\n").profiles[0]
    assert prof.unknown_args[name] == yaml.safe_load(args)
    assert name not in prof.plugin_config
    framework(prof)  # not read by the plugin, not rejected


# --- plugin sets: merge, multiPoint, weights ----------------------------------------------------


def _moved_first(first: str, weight: int) -> tuple[list[str], dict[str, int]]:
    return [first] + [n for n in DEFAULT_SCORE if n != first], {**DEFAULT_WEIGHTS, first: weight}


@pytest.mark.parametrize(
    "plugins,score,weights,filters",
    [
        pytest.param(
            "multiPoint:\n  enabled:\n  - {name: TaintToleration, weight: 1}\n  - {name: NodeAffinity, weight: 8}\n"
            "  - {name: NodeResourcesBalancedAllocation, weight: 10}\n  - {name: PodTopologySpread, weight: 4}\n",
            DEFAULT_SCORE,
            {
                **DEFAULT_WEIGHTS,
                "TaintToleration": 1,
                "NodeAffinity": 8,
                "NodeResourcesBalancedAllocation": 10,
                "PodTopologySpread": 4,
            },
            DEFAULT_FILTER,
            id="multipoint-replaced-in-place",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: NodeAffinity}]\n",
            DEFAULT_SCORE,
            {**DEFAULT_WEIGHTS, "NodeAffinity": 1},
            DEFAULT_FILTER,
            id="multipoint-no-weight-is-1",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: ImageLocality, weight: 0}]\n",
            DEFAULT_SCORE,
            DEFAULT_WEIGHTS,
            DEFAULT_FILTER,
            id="weight-0-is-1",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: TaintToleration, weight: 150}, {name: ImageLocality, weight: 1000}]\n",
            DEFAULT_SCORE,
            {**DEFAULT_WEIGHTS, "TaintToleration": 150, "ImageLocality": 1000},
            DEFAULT_FILTER,
            id="weights-above-100",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: ImageLocality, weight: -3}]\n",
            DEFAULT_SCORE,
            {**DEFAULT_WEIGHTS, "ImageLocality": -3},
            DEFAULT_FILTER,
            id="negative-weight-last",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: CinderLimits}]\n",
            DEFAULT_SCORE,
            DEFAULT_WEIGHTS,
            DEFAULT_FILTER + ["CinderLimits"],
            id="multipoint-new-plugin-appended",
        ),
        pytest.param(
            "score:\n  enabled: [{name: NodeResourcesFit, weight: 9}]\n",
            *_moved_first("NodeResourcesFit", 9),
            DEFAULT_FILTER,
            id="score-enabled-moves-first",
        ),
        pytest.param(
            "score:\n  enabled: [{name: TaintToleration}]\n",
            *_moved_first("TaintToleration", 1),
            DEFAULT_FILTER,
            id="score-enabled-no-weight-is-1",
        ),
        pytest.param(
            "score:\n  enabled: [{name: PodTopologySpread, weight: 0}]\n",
            *_moved_first("PodTopologySpread", 1),
            DEFAULT_FILTER,
            id="score-enabled-weight-0",
        ),
        pytest.param(
            "score:\n  disabled: [{name: ImageLocality}]\n",
            DEFAULT_SCORE[:-1],
            {k: v for k, v in DEFAULT_WEIGHTS.items() if k != "ImageLocality"},
            DEFAULT_FILTER,
            id="score-disabled-one",
        ),
        pytest.param(
            "score:\n  enabled:\n  - {name: NodeResourcesBalancedAllocation}\n  - {name: NodeAffinity, weight: 5}\n"
            "  - {name: ImageLocality, weight: 1}\n  disabled: [{name: '*'}]\n",
            ["NodeResourcesBalancedAllocation", "NodeAffinity", "ImageLocality"],
            {"NodeResourcesBalancedAllocation": 1, "NodeAffinity": 5, "ImageLocality": 1},
            DEFAULT_FILTER,
            id="score-disabled-star",
        ),
        pytest.param(
            "filter:\n  disabled: [{name: NodeAffinity}]\n",
            DEFAULT_SCORE,
            DEFAULT_WEIGHTS,
            [n for n in DEFAULT_FILTER if n != "NodeAffinity"],
            id="filter-disabled-one",
        ),
        pytest.param(
            "filter:\n  enabled: [{name: NodePorts}, {name: NodeResourcesFit}, {name: PodTopologySpread}]\n  disabled: [{name: '*'}]\n",
            DEFAULT_SCORE,
            DEFAULT_WEIGHTS,
            ["NodePorts", "NodeResourcesFit", "PodTopologySpread"],
            id="filter-disabled-star",
        ),
        pytest.param(
            "multiPoint:\n  disabled: [{name: NodeAffinity}]\n",
            [n for n in DEFAULT_SCORE if n != "NodeAffinity"],
            {k: v for k, v in DEFAULT_WEIGHTS.items() if k != "NodeAffinity"},
            [n for n in DEFAULT_FILTER if n != "NodeAffinity"],
            id="multipoint-disabled",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: PrioritySort}, {name: NodeName}, {name: DefaultBinder}]\n  disabled: [{name: '*'}]\n",
            [],
            {},
            ["NodeName"],
            id="multipoint-star-reenabled",
        ),
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
    fw = framework(
        parse("profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: VolumeBinding}]\n").profiles[0]
    )
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
        pytest.param(
            "multiPoint:\n  enabled: [{name: TaintToleration, weight: -3}]\n",
            "total score of Score plugins could overflow",
            id="negative-first-weight-overflows",
        ),
        pytest.param(
            "multiPoint:\n  disabled: [{name: '*'}]\n",
            "only one queue sort plugin required for profile with scheduler name",
            id="star-without-queue-sort",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: PrioritySort}]\n  disabled: [{name: '*'}]\n",
            "at least one bind plugin is needed",
            id="star-without-binder",
        ),
        pytest.param(
            "multiPoint:\n  enabled: [{name: NoSuchPlugin}]\n", '"NoSuchPlugin" does not exist', id="unknown-plugin"
        ),
        pytest.param(
            "score:\n  enabled: [{name: TaintToleration}, {name: TaintToleration}]\n",
            "already registered",
            id="duplicate",
        ),
    ],
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
    assert second.plugin_config["InterPodAffinity"] == InterPodAffinityArgs(5, False)
    assert framework(first).names("score") == DEFAULT_SCORE
    fw = framework(second)
    assert fw.names("score") == ["NodeResourcesFit"]
    assert fw.score_weights["NodeResourcesFit"] == 2
    assert cfg.profile("third") is None
