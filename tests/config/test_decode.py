"""The document reader and the strict v1 decoder: Go's decoding errors, JSON and YAML subtleties."""

from __future__ import annotations

import json

import pytest

from kwhatif.config.load import parse_configuration
from kwhatif.config.types import InterPodAffinityArgs

from .util import HEADER, framework, parse, raises
from builders import PINNED

# --- decoding ------------------------------------------------------------------------------------

JSON_HEADER = '"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"'


@pytest.mark.parametrize(
    "text,field,message",
    [
        pytest.param(HEADER + "foo: 1\n", None, 'unknown field "foo"', id="unknown-top"),
        pytest.param(
            HEADER + "profiles:\n- SchedulerName: a\n",
            "profiles[0]",
            'unknown field "SchedulerName"',
            id="case-sensitive",
        ),
        pytest.param(
            HEADER + "profiles:\n- plugins:\n    score:\n      enabled: [{name: A, wieght: 1}]\n",
            "profiles[0].plugins.score.enabled[0]",
            'unknown field "wieght"',
            id="unknown-in-plugin",
        ),
        pytest.param(
            HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {resources: [{Name: cpu}]}}\n",
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0]",
            'unknown field "Name"',
            id="unknown-nested-args",
        ),
        pytest.param(
            HEADER
            + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 1, extra: true}\n",
            "profiles[0].pluginConfig[0].args",
            'unknown field "extra"',
            id="unknown-in-args",
        ),
        pytest.param(
            HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
            "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists, value: x}]}]}}}\n",
            "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]",
            'unknown field "value"',
            id="unknown-in-embedded-core-type",
        ),
        pytest.param(
            HEADER
            + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultingType: List, defaultConstraints: "
            "[{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabel: {}}}]}\n",
            "profiles[0].pluginConfig[0].args.defaultConstraints[0].labelSelector",
            'unknown field "matchLabel"',
            id="unknown-in-label-selector",
        ),
        pytest.param(
            HEADER + "parallelism: 2\nparallelism: 3\n",
            None,
            'invalid YAML: line 4: key "parallelism" already set in map',
            id="yaml-duplicate-key",
        ),
        pytest.param(
            "{" + JSON_HEADER + ', "parallelism": 2, "parallelism": 3}',
            None,
            'duplicate field "parallelism"',
            id="json-duplicate-key",
        ),
        pytest.param(
            HEADER + "parallelism: two\n",
            "parallelism",
            "cannot unmarshal string into Go value of type int32",
            id="type-string",
        ),
        pytest.param(
            HEADER + "parallelism: 1.5\n",
            "parallelism",
            "cannot unmarshal number 1.5 into Go value of type int32",
            id="type-fraction",
        ),
        pytest.param(
            "{" + JSON_HEADER + ', "parallelism": 2.0}',
            "parallelism",
            "cannot unmarshal number 2.0 into Go value of type int32",
            id="type-json-float",
        ),
        pytest.param(
            HEADER + "percentageOfNodesToScore: 3000000000\n",
            "percentageOfNodesToScore",
            "cannot unmarshal number 3000000000 into Go value of type int32",
            id="type-int32-range",
        ),
        pytest.param(
            HEADER + "profiles:\n- plugins:\n    score:\n      enabled: [{name: A, weight: '5'}]\n",
            "profiles[0].plugins.score.enabled[0].weight",
            "cannot unmarshal string into Go value of type int32",
            id="type-weight-string",
        ),
        pytest.param(
            HEADER + "profiles:\n  schedulerName: a\n",
            "profiles",
            "cannot unmarshal object into Go value of type []v1.KubeSchedulerProfile",
            id="type-object-for-list",
        ),
        pytest.param(
            HEADER + "profiles:\n- schedulerName: 7\n",
            "profiles[0].schedulerName",
            "cannot unmarshal number into Go value of type string",
            id="type-number-for-string",
        ),
        pytest.param(
            HEADER + "enableProfiling: 'yes'\n",
            "enableProfiling",
            "cannot unmarshal string into Go value of type bool",
            id="type-bool",
        ),
        pytest.param(
            HEADER + "leaderElection: {leaseDuration: 15}\n",
            "leaderElection.leaseDuration",
            "cannot unmarshal number into Go value of type string",
            id="duration-number",
        ),
        pytest.param(
            HEADER + "leaderElection: {leaseDuration: 15x}\n",
            "leaderElection.leaseDuration",
            'time: unknown unit "x" in duration "15x"',
            id="duration-unit",
        ),
        pytest.param(
            HEADER + "leaderElection: {leaseDuration: null}\n",
            "leaderElection.leaseDuration",
            'time: invalid duration ""',
            id="duration-null",
        ),
        # A type error wins over an unknown field found before it, as Go's decoder reports it first.
        pytest.param(
            HEADER + "foo: 1\nparallelism: x\n",
            "parallelism",
            "cannot unmarshal string into Go value of type int32",
            id="type-error-wins",
        ),
        # Fatal errors of the nested args decoding win over the top level's unknown fields.
        pytest.param(
            HEADER
            + "foo: 1\nprofiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {kind: InterPodAffinityArgs}\n",
            "profiles[0].pluginConfig[0].args",
            "args for plugin NodeAffinity were not of type NodeAffinityArgs.kubescheduler.config.k8s.io, "
            "got InterPodAffinityArgs.kubescheduler.config.k8s.io",
            id="args-fatal-wins",
        ),
        pytest.param(
            HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {apiVersion: kubescheduler.config.k8s.io/v1beta3}\n",
            "profiles[0].pluginConfig[0].args",
            'decoding args for plugin NodeAffinity: no kind "NodeAffinityArgs" is registered for version "kubescheduler.config.k8s.io/v1beta3"',
            id="args-version",
        ),
        pytest.param(
            HEADER + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {kind: FooArgs}\n",
            "profiles[0].pluginConfig[0].args",
            'decoding args for plugin NodeAffinity: no kind "FooArgs" is registered for version "kubescheduler.config.k8s.io/v1"',
            id="args-kind-unknown",
        ),
        pytest.param(
            HEADER + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: [1]\n",
            "profiles[0].pluginConfig[0].args",
            "couldn't get version/kind: cannot unmarshal array into Go value of type v1.NodeAffinityArgs",
            id="args-not-object",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
            None,
            'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" '
            "(kube-scheduler v1.30 reads kubescheduler.config.k8s.io/v1)",
            id="old-api-version",
        ),
        pytest.param(
            "apiVersion: v1\nkind: KubeSchedulerConfiguration\n",
            None,
            'no kind "KubeSchedulerConfiguration" is registered for version "v1"',
            id="core-api-version",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
            None,
            'no kind "Policy" is registered for version "kubescheduler.config.k8s.io/v1"',
            id="other-kind",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: NodeAffinityArgs\n",
            None,
            "couldn't decode as KubeSchedulerConfiguration, got kubescheduler.config.k8s.io/v1, Kind=NodeAffinityArgs",
            id="other-v1-kind",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1\nprofiles: []\n",
            "kind",
            "Object 'Kind' is missing",
            id="no-kind",
        ),
        pytest.param(
            "kind: KubeSchedulerConfiguration\n", "apiVersion", "Object 'apiVersion' is missing", id="no-api-version"
        ),
        pytest.param(
            "apiVersion: 1\nkind: KubeSchedulerConfiguration\n",
            "apiVersion",
            "couldn't get version/kind: cannot unmarshal number into Go value of type string",
            id="api-version-type",
        ),
        pytest.param(
            "{apiVersion: kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration}",
            None,
            "invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes",
            id="flow-yaml-is-json",
        ),
        pytest.param(
            "  {" + JSON_HEADER + "} trailing", None, "invalid JSON at line 1 column 90: Extra data", id="json-trailing"
        ),
        pytest.param(
            "{" + JSON_HEADER + ', "parallelism": NaN}', None, "invalid JSON: invalid JSON value NaN", id="json-nan"
        ),
        pytest.param(
            HEADER + "---\n" + HEADER,
            None,
            "the file holds 2 YAML documents; a KubeSchedulerConfiguration file holds one",
            id="two-documents",
        ),
        pytest.param(
            "- apiVersion: v1\n- kind: List\n",
            None,
            "couldn't get version/kind: the document is an array, not an object",
            id="top-level-list",
        ),
        pytest.param(
            "just a string\n",
            None,
            "couldn't get version/kind: the document is a string, not an object",
            id="top-level-scalar",
        ),
        pytest.param(
            "# nothing here\n",
            None,
            "Object 'Kind' is missing: the file holds no KubeSchedulerConfiguration",
            id="empty",
        ),
        pytest.param(
            HEADER + "profiles: !!python/object:os.system {}\n",
            None,
            "invalid YAML at line 3 column 11: could not determine a constructor for the tag "
            "'tag:yaml.org,2002:python/object:os.system' (only plain YAML is accepted)",
            id="python-tag",
        ),
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
        "profiles": [
            {"schedulerName": "x", "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 4}]}}}
        ],
    }
    cfg = parse_configuration("\n  " + json.dumps(doc), "sched.json", PINNED)
    fw = framework(cfg.profiles[0])
    assert cfg.profiles[0].scheduler_name == "x"
    assert fw.names("score")[0] == "ImageLocality" and fw.score_weights["ImageLocality"] == 4


def test_json_duplicates_in_args() -> None:
    def doc(name: str) -> str:
        return (
            "{"
            + JSON_HEADER
            + ', "profiles": [{"pluginConfig": [{"name": "'
            + name
            + '", "args": {"a": 1, "a": 2}}]}]}'
        )

    # Typed args are decoded strictly; raw args (a runtime.Unknown) are kept as they are.
    err = raises(doc("InterPodAffinity"))
    assert (err.field, err.message) == ("profiles[0].pluginConfig[0].args", 'duplicate field "a"')
    assert parse_configuration(doc("TaintToleration"), "s.json", PINNED).profiles[0].unknown_args[
        "TaintToleration"
    ] == {"a": 2}
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
    assert cfg.profiles[1].plugin_config["InterPodAffinity"] == InterPodAffinityArgs(3, False)
    # A merge key's values may be overridden: that is not a key set twice.
    cfg = parse("profiles:\n- &p {schedulerName: a, percentageOfNodesToScore: 5}\n- <<: *p\n  schedulerName: b\n")
    assert [(p.scheduler_name, p.percentage_of_nodes_to_score) for p in cfg.profiles] == [("a", 5), ("b", 5)]


def test_alias_bomb() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    text = (
        HEADER + "profiles:\n- pluginConfig:\n  - name: Foo\n    args:\n" + "".join(f"      {line}\n" for line in lines)
    )
    err = raises(text)
    assert err.message == "invalid YAML: aliases expand to too many values (an alias bomb?)"
