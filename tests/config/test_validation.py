"""Validation (ValidateKubeSchedulerConfiguration, validation_pluginargs.go) as kube-scheduler
1.30.6 (PINNED) does it, and NodeResourcesFit's args, which only its constructor checks."""

from __future__ import annotations

import pytest

from kwhatif.api.names import is_qualified_name
from kwhatif.config.types import (
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from kwhatif.config.validation import node_resources_fit_args_errors, validate_node_resources_fit_args
from kwhatif.errors import ConfigError

from .util import CPU_MEMORY, HEADER, framework, parse, raises

# --- NodeResourcesFit: checked by the plugin constructor only ---------------------------------


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
    assert prof.plugin_config["NodeResourcesFit"].scoring_strategy == ScoringStrategy(
        "RequestedToCapacityRatio", CPU_MEMORY
    )
    with pytest.raises(ConfigError):
        framework(prof)


def _fit(
    ignored: tuple[str, ...] = (),
    groups: tuple[str, ...] = (),
    type_: str = "LeastAllocated",
    weights: tuple[int, ...] = (1, 1),
    shape: tuple[tuple[int, int], ...] | None = None,
) -> NodeResourcesFitArgs:
    names = ("cpu", "memory", "example.com/gpu")
    rtcr = (
        None if shape is None else RequestedToCapacityRatioParam(tuple(UtilizationShapePoint(u, s) for u, s in shape))
    )
    resources = tuple(ResourceSpec(names[i], w) for i, w in enumerate(weights))
    return NodeResourcesFitArgs(ignored, groups, ScoringStrategy(type_, resources, rtcr))


# TestValidateFitArgs, TestValidate{LeastAllocated,MostAllocated,RequestedToCapacityRatio}ScoringStrategy
# (validation_pluginargs_test.go): every error ValidateNodeResourcesFitArgs finds, by field, in order.
@pytest.mark.parametrize(
    "args,fields",
    [
        pytest.param(_fit(ignored=("longvalue" + "a" * 64,)), ["ignoredResources[0]"], id="ignored-too-long"),
        pytest.param(
            # IsQualifiedName: an empty name part is both empty and unmatched by the pattern
            _fit(ignored=("example.com/",)),
            ["ignoredResources[0]", "ignoredResources[0]"],
            id="ignored-name-empty",
        ),
        pytest.param(_fit(ignored=("example.com/aaa/bbb",)), ["ignoredResources[0]"], id="ignored-two-slashes"),
        pytest.param(_fit(ignored=("example.com",)), [], id="ignored-valid"),
        pytest.param(_fit(groups=("example.com",)), [], id="groups-valid"),
        pytest.param(_fit(groups=("example.com/",)), ["ignoredResourceGroups[0]"] * 3, id="groups-slash"),
        pytest.param(_fit(groups=("a" * 64,)), ["ignoredResourceGroups[0]"], id="groups-too-long"),
        pytest.param(_fit(groups=("example.com/aa",)), ["ignoredResourceGroups[0]"], id="groups-contain-slash"),
        pytest.param(_fit(weights=(1, 10)), [], id="least-valid"),
        pytest.param(_fit(weights=(0,)), ["scoringStrategy.resources[0].weight"], id="least-weight-below"),
        pytest.param(_fit(weights=(101,)), ["scoringStrategy.resources[0].weight"], id="least-weight-above"),
        pytest.param(
            _fit(weights=(0, 101)),
            ["scoringStrategy.resources[0].weight", "scoringStrategy.resources[1].weight"],
            id="least-multi-invalid",
        ),
        pytest.param(
            _fit(type_="MostAllocated", weights=(0, 101)),
            ["scoringStrategy.resources[0].weight", "scoringStrategy.resources[1].weight"],
            id="most-multi-invalid",
        ),
        pytest.param(_fit(type_="RequestedToCapacityRatio", shape=()), ["scoringStrategy.shape"], id="rtcr-no-shape"),
        pytest.param(
            _fit(type_="RequestedToCapacityRatio", weights=(101,), shape=((30, 3),)),
            ["scoringStrategy.resources[0].weight"],
            id="rtcr-weight-above",
        ),
        pytest.param(_fit(type_="RequestedToCapacityRatio", shape=((30, 3),)), [], id="rtcr-valid"),
        pytest.param(
            _fit(type_="RequestedToCapacityRatio", shape=((-1, 3),)),
            ["scoringStrategy.shape[0].utilization"],
            id="rtcr-utilization-below",
        ),
        pytest.param(
            _fit(type_="RequestedToCapacityRatio", shape=((10, 3), (10, 3))),
            ["scoringStrategy.shape[1].utilization"],
            id="rtcr-duplicated-utilization",
        ),
        pytest.param(
            _fit(type_="RequestedToCapacityRatio", shape=((10, 3), (20, 3), (15, 3))),
            ["scoringStrategy.shape[2].utilization"],
            id="rtcr-non-increasing",
        ),
        pytest.param(
            _fit(type_="RequestedToCapacityRatio", shape=((10, -1),)),
            ["scoringStrategy.shape[0].score"],
            id="rtcr-score-below",
        ),
        pytest.param(
            # ValidateVolumeBindingArgs's four-point case, through the same shape check
            _fit(type_="RequestedToCapacityRatio", shape=((-1, 1), (10, -1), (20, 11), (101, 1))),
            [
                "scoringStrategy.shape[0].utilization",
                "scoringStrategy.shape[1].score",
                "scoringStrategy.shape[2].score",
                "scoringStrategy.shape[3].utilization",
            ],
            id="rtcr-every-point-error",
        ),
        pytest.param(
            _fit(type_="Foo", weights=(500,), groups=("a/b",)),
            ["ignoredResourceGroups[0]", "scoringStrategy.type", "scoringStrategy.resources[0].weight"],
            id="all-kinds-in-upstream-order",
        ),
    ],
)
def test_fit_args_errors(args: NodeResourcesFitArgs, fields: list[str]) -> None:
    assert [e.field for e in node_resources_fit_args_errors(args)] == fields
    if fields:
        with pytest.raises(ConfigError):
            validate_node_resources_fit_args(args)
    else:
        validate_node_resources_fit_args(args)


def test_fit_args_aggregate_text() -> None:
    with pytest.raises(ConfigError) as ei:
        validate_node_resources_fit_args(_fit(weights=(0, 101)))
    assert str(ei.value) == (
        "[scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100], "
        "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory not in valid range (0, 100]]"
    )


def test_constructor_error_names_the_plugin_before_the_field() -> None:
    # frameworkImpl: initializing plugin "NodeResourcesFit": <the constructor's error, field first>
    prof = parse(
        "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
        "    args: {scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: 101}]}}\n"
    ).profiles[0]
    with pytest.raises(ConfigError) as ei:
        framework(prof)
    assert str(ei.value) == (
        'profile "default-scheduler": initializing plugin "NodeResourcesFit": scoringStrategy.resources[0].weight: '
        "Invalid value: 101: resource weight of cpu not in valid range (0, 100]"
    )


def test_configuration_errors_are_aggregated_in_order() -> None:
    # ValidateKubeSchedulerConfiguration: Flatten(NewAggregate(errs)), errors in the order checked
    err = raises(HEADER + 'parallelism: 0\nprofiles:\n- schedulerName: ""\n  percentageOfNodesToScore: 200\n')
    assert err.field is None
    assert str(err) == (
        "sched.yaml: [parallelism: Invalid value: 0: should be an integer value greater than zero, "
        "profiles[0].schedulerName: Required value, "
        "profiles[0].percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]]"
    )


def test_repeated_errors_print_once() -> None:
    # the aggregate prints each message once, in the order first seen
    from kwhatif.config.errors import aggregate, required

    assert str(aggregate([required("a"), required("a")])) == "a: Required value"
    assert str(aggregate([required("a"), required("b"), required("a")])) == "[a: Required value, b: Required value]"


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
        "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: ["
        + expr
        + "]}]}}}",
    )


@pytest.mark.parametrize(
    "body,field,message",
    [
        pytest.param(
            "parallelism: 0\n",
            "parallelism",
            "Invalid value: 0: should be an integer value greater than zero",
            id="parallelism",
        ),
        pytest.param(
            "percentageOfNodesToScore: 101\n",
            "percentageOfNodesToScore",
            "Invalid value: 101: not in valid range [0-100]",
            id="percentage-high",
        ),
        pytest.param(
            "percentageOfNodesToScore: -1\n",
            "percentageOfNodesToScore",
            "Invalid value: -1: not in valid range [0-100]",
            id="percentage-negative",
        ),
        pytest.param(
            "profiles:\n- percentageOfNodesToScore: 200\n",
            "profiles[0].percentageOfNodesToScore",
            "Invalid value: 200: not in valid range [0-100]",
            id="profile-percentage",
        ),
        pytest.param(
            "profiles:\n- schedulerName: ''\n", "profiles[0].schedulerName", "Required value", id="empty-name"
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- {}\n",
            "profiles[1].schedulerName",
            "Required value",
            id="missing-name-with-two-profiles",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- schedulerName: b\n- schedulerName: a\n",
            "profiles[2].schedulerName",
            "Duplicate value: profiles[0].schedulerName",
            id="duplicate-name",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n",
            "profiles[1].plugins.queueSort",
            'Invalid value: config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:"PrioritySort", Weight:0}}, '
            "Disabled:[]config.Plugin(nil)}: queueSort must be the same for all profiles",
            id="queue-sort-differs",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n- schedulerName: b\n",
            "profiles[1].plugins.queueSort",
            "Invalid value: config.PluginSet{Enabled:[]config.Plugin(nil), Disabled:[]config.Plugin(nil)}: "
            "queueSort must be the same for all profiles",
            id="queue-sort-missing-in-second",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}, {name: Other}]\n",
            "profiles[0].plugins.queueSort.Enabled",
            "Invalid value: 2: only one queue sort plugin can be enabled",
            id="two-queue-sorts",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n"
            "- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n"
            "  pluginConfig:\n  - name: PrioritySort\n    args: {x: 1}\n",
            "profiles[1].pluginConfig.args",
            'Invalid value: {"x": 1}: queueSort must be the same for all profiles',
            id="queue-sort-args-differ",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: ImageLocality\n  - name: NodeAffinity\n",
            "profiles[0].pluginConfig[2]",
            'Duplicate value: "NodeAffinity"',
            id="duplicate-plugin-config",
        ),
        pytest.param(
            "podInitialBackoffSeconds: 0\n",
            "podInitialBackoffSeconds",
            "Invalid value: 0: must be greater than 0",
            id="initial-backoff",
        ),
        pytest.param(
            "podInitialBackoffSeconds: 20\n",
            "podMaxBackoffSeconds",
            "Invalid value: 10: must be greater than or equal to PodInitialBackoffSeconds",
            id="max-backoff",
        ),
        pytest.param(
            "clientConnection: {burst: -1}\n",
            "clientConnection.burst",
            "Invalid value: -1: must be non-negative",
            id="burst",
        ),
        pytest.param(
            "leaderElection: {resourceLock: endpoints}\n",
            "leaderElection.resourceLock",
            'Invalid value: "endpoints": resourceLock value must be "leases"',
            id="resource-lock",
        ),
        pytest.param(
            "leaderElection: {leaseDuration: 5s}\n",
            "leaderElection.leaseDuration",
            "Invalid value: 10s: LeaseDuration must be greater than RenewDeadline",
            id="lease-not-above-renew",
        ),
        pytest.param(
            "leaderElection: {retryPeriod: -1.5s}\n",
            "leaderElection.retryPeriod",
            "Invalid value: -1.5s: must be greater than zero",
            id="retry-period",
        ),
        pytest.param(
            args("DefaultPreemption", "{minCandidateNodesPercentage: 101}"),
            f"{PC}.minCandidateNodesPercentage",
            "Invalid value: 101: not in valid range [0, 100]",
            id="preemption-percentage",
        ),
        pytest.param(
            args("DefaultPreemption", "{minCandidateNodesAbsolute: -1}"),
            f"{PC}.minCandidateNodesAbsolute",
            "Invalid value: -1: not in valid range [0, inf)",
            id="preemption-absolute",
        ),
        pytest.param(
            args("DefaultPreemption", "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}"),
            None,
            # both errors, aggregated as upstream prints them
            f"[{PC}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            f"minCandidateNodesAbsolute, {PC}.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at "
            "the same time as minCandidateNodesPercentage]",
            id="preemption-both-zero",
        ),
        pytest.param(
            args("InterPodAffinity", "{hardPodAffinityWeight: 101}"),
            f"{PC}.hardPodAffinityWeight",
            "Invalid value: 101: not in valid range [0, 100]",
            id="ipa-weight-high",
        ),
        pytest.param(
            args("InterPodAffinity", "{hardPodAffinityWeight: -1}"),
            f"{PC}.hardPodAffinityWeight",
            "Invalid value: -1: not in valid range [0, 100]",
            id="ipa-weight-negative",
        ),
        pytest.param(
            args("NodeResourcesBalancedAllocation", "{resources: [{name: cpu, weight: 2}]}"),
            f"{PC}.resources[0].weight",
            "Invalid value: 2: must be 1",
            id="balanced-weight",
        ),
        pytest.param(
            args("NodeResourcesBalancedAllocation", "{resources: [{name: cpu}, {name: cpu}]}"),
            f"{PC}.resources[1].name",
            'Duplicate value: "cpu"',
            id="balanced-duplicate",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}",
            ),
            f"{PC}.defaultingType",
            'Invalid value: "System": when .defaultConstraints are not empty',
            id="spread-system-with-constraints",
        ),
        pytest.param(
            args("PodTopologySpread", "{defaultingType: Both}"),
            f"{PC}.defaultingType",
            'Unsupported value: "Both": supported values: "System", "List"',
            id="spread-defaulting-type",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}",
            ),
            f"{PC}.defaultConstraints[0].maxSkew",
            "Invalid value: 0: not in valid range (0, inf)",
            id="spread-max-skew",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]}",
            ),
            f"{PC}.defaultConstraints[0].topologyKey",
            "Required value: can not be empty",
            id="spread-empty-key",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: -zone, whenUnsatisfiable: DoNotSchedule}]}",
            ),
            f"{PC}.defaultConstraints[0].topologyKey",
            f'Invalid value: "-zone": {QNAME_ERR}',
            id="spread-bad-key",
        ),
        pytest.param(
            args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone}]}"),
            f"{PC}.defaultConstraints[0].whenUnsatisfiable",
            "Required value: can not be empty",
            id="spread-empty-when",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Maybe}]}",
            ),
            f"{PC}.defaultConstraints[0].whenUnsatisfiable",
            'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
            id="spread-bad-when",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                "whenUnsatisfiable: DoNotSchedule, labelSelector: {}}]}",
            ),
            f"{PC}.defaultConstraints[0].labelSelector",
            "Forbidden: constraint must not define a selector, as they deduced for each pod",
            id="spread-selector",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                "whenUnsatisfiable: DoNotSchedule}, {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}",
            ),
            f"{PC}.defaultConstraints[1]",
            'Duplicate value: "{zone, DoNotSchedule}"',
            id="spread-duplicate",
        ),
        pytest.param(
            args("VolumeBinding", "{bindTimeoutSeconds: -1}"),
            f"{PC}.bindTimeoutSeconds",
            "Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value",
            id="volume-binding-timeout",
        ),
        pytest.param(
            args("VolumeBinding", "{shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}"),
            f"{PC}.shape",
            "Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint{Utilization:0, Score:0}, "
            "config.UtilizationShapePoint{Utilization:100, Score:10}}: "
            "unexpected field `shape`, remove it or turn on the feature gate VolumeCapacityPriority",
            id="volume-binding-shape",
        ),
        pytest.param(
            na_expr("{key: a, operator: Like, values: [b]}"),
            f"{NA_REQ}.matchExpressions[0].operator",
            'Unsupported value: "Like": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
            id="na-operator",
        ),
        pytest.param(
            na_expr("{key: a, operator: In}"),
            f"{NA_REQ}.matchExpressions[0].values",
            "Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
            id="na-in-nil-values",
        ),
        pytest.param(
            na_expr("{key: a, operator: NotIn, values: []}"),
            f"{NA_REQ}.matchExpressions[0].values",
            "Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
            id="na-in-empty-values",
        ),
        pytest.param(
            na_expr("{key: a, operator: Exists, values: [b]}"),
            f"{NA_REQ}.matchExpressions[0].values",
            'Invalid value: []string{"b"}: values set must be empty for exists and does not exist',
            id="na-exists-values",
        ),
        pytest.param(
            na_expr("{key: a, operator: Gt, values: [x]}"),
            f"{NA_REQ}.matchExpressions[0].values[0]",
            "Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
            id="na-gt-not-integer",
        ),
        pytest.param(
            na_expr("{key: 'a b', operator: Exists}"),
            f"{NA_REQ}.matchExpressions[0].key",
            f'Invalid value: "a b": {QNAME_ERR}',
            id="na-bad-key",
        ),
        pytest.param(
            na_expr("{key: a, operator: In, values: ['b c']}"),
            f"{NA_REQ}.matchExpressions[0].values[0][a]",
            "Invalid value: \"b c\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
            "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
            "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            id="na-bad-value",
        ),
        pytest.param(
            args(
                "NodeAffinity",
                "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                "[{matchFields: [{key: metadata.name, operator: In, values: [a, b]}]}]}}}",
            ),
            f"{NA_REQ}.matchFields[0].values",
            'Invalid value: []string{"a", "b"}: must have one element',
            id="na-fields-values",
        ),
        pytest.param(
            args(
                "NodeAffinity",
                "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                "[{matchFields: [{key: metadata.name, operator: Exists}]}]}}}",
            ),
            f"{NA_REQ}.matchFields[0].operator",
            'Unsupported value: "Exists": supported values: "In", "NotIn"',
            id="na-fields-operator",
        ),
        pytest.param(
            args(
                "NodeAffinity",
                "{addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
                "[{weight: 5, preference: {matchExpressions: [{key: a, operator: In}]}}]}}",
            ),
            f"{NA_PREF}.matchExpressions[0].values",
            "Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
            id="na-preferred",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: http://e\n  prioritizeVerb: prioritize\n",
            "extenders[0].weight",
            "Invalid value: 0: must have a positive weight applied to it",
            id="extender-weight",
        ),
        pytest.param(
            "extenders:\n- {urlPrefix: http://a, bindVerb: bind}\n- {urlPrefix: http://b, bindVerb: bind}\n",
            "extenders",
            'Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
            id="extender-two-binders",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: http://e\n  managedResources: [{name: cpu}]\n",
            "extenders[0].managedResources[0].name",
            'Invalid value: "cpu": is an invalid extended resource name',
            id="extender-native-resource",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: http://e\n  managedResources: [{name: example.com/gpu}, {name: example.com/gpu}]\n",
            "extenders[0].managedResources[1].name",
            'Invalid value: "example.com/gpu": duplicate extender managed resource name',
            id="extender-duplicate-resource",
        ),
    ],
)
def test_validation_errors(body: str, field: str | None, message: str) -> None:
    err = raises(HEADER + body)
    assert (err.field, err.message) == (field, message)
    assert str(err) == (f"sched.yaml: {field}: {message}" if field else f"sched.yaml: {message}")
    assert "\n" not in str(err)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            args(
                "NodeAffinity",
                "{addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
                "[{weight: 1000, preference: {matchExpressions: [{key: a, operator: In, values: [b]}]}}]}}",
            ),
            id="na-weight-not-range-checked",
        ),
        pytest.param(
            args(
                "NodeAffinity",
                "{addedAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
                "[{weight: 0, preference: {matchExpressions: [{key: a, operator: In}]}}]}}",
            ),
            id="na-zero-weight-term-skipped",
        ),
        pytest.param(
            args(
                "NodeAffinity",
                "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{}]}}}",
            ),
            id="na-empty-term-skipped",
        ),
        pytest.param(
            args(
                "PodTopologySpread",
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                "whenUnsatisfiable: DoNotSchedule}, {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}",
            ),
            id="spread-same-key-other-action",
        ),
        pytest.param(
            args("DefaultPreemption", "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 5}"),
            id="preemption-one-zero",
        ),
        pytest.param(
            "leaderElection: {leaderElect: false, resourceLock: endpoints, leaseDuration: 1s}\n",
            id="no-leader-election",
        ),
        pytest.param(
            "parallelism: 1\npodInitialBackoffSeconds: 3\npodMaxBackoffSeconds: 3\nclientConnection: {qps: 12.5, burst: 0}\n",
            id="client-and-backoff",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort, weight: 0}]\n"
            "- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n",
            id="queue-sort-weight-0-equals-none",
        ),
    ],
)
def test_valid_edge_cases(body: str) -> None:
    # accepted, and every profile's plugins are built from it (as kube-scheduler starts)
    for prof in parse(body).profiles:
        framework(prof)


def test_extenders_are_refused_after_validation() -> None:
    err = raises(HEADER + "extenders:\n- urlPrefix: http://e\n  filterVerb: filter\n")
    assert err.field == "extenders"
    assert "extenders are not supported" in err.message


# --- helpers ported from Go ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,problems",
    [
        pytest.param("zone", 0, id="plain"),
        pytest.param("topology.kubernetes.io/zone", 0, id="prefixed"),
        pytest.param("a/b/c", 1, id="two-slashes"),
        pytest.param("/zone", 1, id="empty-prefix"),
        pytest.param("Example.com/zone", 1, id="upper-prefix"),
        pytest.param("x" * 64, 1, id="too-long"),
        pytest.param("-a", 1, id="bad-start"),
        pytest.param("", 2, id="empty"),
    ],
)
def test_qualified_names(name: str, problems: int) -> None:
    assert len(is_qualified_name(name)) == problems
