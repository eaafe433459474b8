"""Objects the API server would reject are refused with its message and the field path."""

from __future__ import annotations

import pytest

from kwhatif.errors import FieldError

from builders import make_node, make_pod


def assert_rejected(builder, field, message):
    """Building the object raises the API server's error for that field, with that message."""
    with pytest.raises(FieldError) as ei:
        builder.obj()
    assert ei.value.field == field
    assert message in ei.value.message


@pytest.mark.parametrize(
    "builder,field,message",
    [
        (
            make_pod().name("p").req(cpu="2").limits(cpu="1"),
            "spec.containers[0].resources.requests",
            'Invalid value: "2": must be less than or equal to cpu limit of 1',
        ),
        (
            make_pod().name("p").host_port(70000),
            "spec.containers[0].ports[0].containerPort",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        (
            make_pod()
            .name("p")
            .set("spec.containers", [{"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": 70000}]}]),
            "spec.containers[0].ports[0].hostPort",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        (
            make_pod().name("p").toleration("k", operator="Foo"),
            "spec.tolerations[0].operator",
            'Unsupported value: "Foo": supported values: "Equal", "Exists"',
        ),
        (
            make_pod().name("p").toleration("k", operator="Exists", value="v"),
            "spec.tolerations[0].operator",
            "value must be empty when `operator` is 'Exists'",
        ),
        (
            make_pod().name("p").toleration("", operator="Equal", value="v"),
            "spec.tolerations[0].operator",
            "operator must be Exists when `key` is empty",
        ),
        (
            make_pod().name("p").spread(0, "zone"),
            "spec.topologySpreadConstraints[0].maxSkew",
            "Invalid value: 0: must be greater than zero",
        ),
        (
            make_pod().name("p").spread(1, "zone", when="Sometimes"),
            "spec.topologySpreadConstraints[0].whenUnsatisfiable",
            'Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"',
        ),
        (make_pod().name("p").set("spec.containers", []), "spec.containers", "Required value"),
        (
            make_pod().name("p").req(cpu="1x"),
            "spec.containers[0].resources.requests[cpu]",
            "Invalid value: \"1x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            make_pod()
            .name("p")
            .affinity(
                {
                    "podAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}, "topologyKey": ""}]
                    }
                }
            ),
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
            "can not be empty",
        ),
        (
            make_pod().name("p").spread(1, "zone", when="ScheduleAnyway", minDomains=2),
            "spec.topologySpreadConstraints[0].minDomains",
            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
        ),
        (
            make_pod()
            .name("p")
            .set(
                "spec.containers",
                [
                    {
                        "name": "c",
                        "image": "x",
                        "resources": {"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "2"}},
                    }
                ],
            ),
            "spec.containers[0].resources.requests",
            "must be equal to example.com/gpu limit of 2",
        ),
    ],
    ids=[
        "requests-above-limits",
        "container-port-range",
        "host-port-range",
        "toleration-operator",
        "exists-with-value",
        "empty-key-equal",
        "max-skew",
        "when-unsatisfiable",
        "no-containers",
        "bad-quantity",
        "empty-topology-key",
        "min-domains-schedule-anyway",
        "extended-not-overcommittable",
    ],
)
def test_pod_rejected(builder, field, message):
    assert_rejected(builder, field, message)


def test_node_bad_taint_effect():
    with pytest.raises(FieldError) as ei:
        make_node().name("n").taint("k", "v", effect="Sometimes").obj()
    assert ei.value.field == "spec.taints[0].effect"
    assert 'Unsupported value: "Sometimes"' in ei.value.message


DNS_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


# ValidateNodeName (pkg/apis/core/validation): a node's name is a DNS-1123 subdomain, with the API
# server's field and message; its taints need a key and a known effect.
@pytest.mark.parametrize(
    "builder,field,message",
    [
        pytest.param(
            make_node().name("Node_1"),
            "metadata.name",
            f'Invalid value: "Node_1": {DNS_SUBDOMAIN_ERR}',
            id="name-upper",
        ),
        pytest.param(
            make_node().name("evil\x1b]0;t\x07"),
            "metadata.name",
            # the value as Go's %q prints it
            'Invalid value: "evil\\x1b]0;t\\a": ' + DNS_SUBDOMAIN_ERR,
            id="name-control",
        ),
        pytest.param(
            make_node().name("n" * 254), "metadata.name", "must be no more than 253 characters", id="name-too-long"
        ),
        pytest.param(
            make_node().name("n").taint("", "v"), "spec.taints[0].key", "Required value", id="taint-key-empty"
        ),
        pytest.param(
            make_node().name("n").taint("k", "v", effect=""),
            "spec.taints[0].effect",
            "Required value",
            id="taint-effect-empty",
        ),
    ],
)
def test_node_rejected(builder, field, message):
    assert_rejected(builder, field, message)


@pytest.mark.parametrize(
    "builder",
    [
        pytest.param(
            make_node().name("ip-10-0-1-2.ec2.internal").label("topology.kubernetes.io/zone", "us-east-1a"), id="dotted"
        ),
        pytest.param(make_node().name("n" * 253).label("kubernetes.io/hostname", "n"), id="longest-name"),
        # what the scheduler reads whatever the API server would say: integer taint values for
        # TaintTolerationComparisonOperators (negative ones are no label values), taints given twice
        pytest.param(make_node().name("n").taint("k", "-5"), id="negative-taint-value"),
        pytest.param(make_node().name("n").taint("k", "a").taint("k", "b"), id="taint-twice"),
        pytest.param(make_node().name("n").label("zone\x1b[31m", "a\r\nb"), id="odd-label"),
    ],
)
def test_node_accepted(builder):
    builder.obj()


def test_missing_name():
    b = make_pod()
    b.d["metadata"].pop("name")
    with pytest.raises(FieldError) as ei:
        b.obj()
    assert ei.value.field == "metadata.name"


@pytest.mark.parametrize(
    "label,matches",
    [
        ("7", True),
        ("5", False),
        ("+9", True),
        ("1_0", False),
        (" 9", False),
        ("9.0", False),
        ("99999999999999999999", False),
    ],
    ids=["greater", "equal", "signed", "underscore", "space", "decimal", "overflow"],
)
def test_gt_parses_labels_as_go_does(label, matches):
    from kwhatif.api.labels import Op, Requirement

    assert Requirement("gen", Op.GT, frozenset({"5"}), 5).matches({"gen": label}) is matches


def test_empty_preferred_list_still_scores():
    pod = (
        make_pod()
        .name("p")
        .affinity(
            {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "preference": {}}]}}
        )
        .obj()
    )
    assert pod.affinity is not None and pod.affinity.node_affinity is not None
    assert pod.affinity.node_affinity.preferred == () and pod.affinity.node_affinity.preferred_set


@pytest.mark.parametrize(
    "builder,field,message",
    [
        (make_pod().name("Bad_Name"), "metadata.name", "a lowercase RFC 1123 subdomain must consist of"),
        (make_pod().name("p").namespace("NS!"), "metadata.namespace", "a lowercase RFC 1123 label must consist of"),
        (
            make_pod().name("p").req(**{"foo": "1"}),
            "spec.containers[0].resources.requests[foo]",
            "must be a standard resource type or fully qualified",
        ),
        (
            make_pod().name("p").req(**{"foo bar": "1"}),
            "spec.containers[0].resources.requests[foo bar]",
            "name part must consist of alphanumeric characters",
        ),
        (make_pod().name("p").set("spec.containers", [{"name": "c"}]), "spec.containers[0].image", "Required value"),
        (
            # validateResourceRequirements checks the limits first
            make_pod().name("p").req(**{"example.com/gpu": "500m"}).limits(**{"example.com/gpu": "500m"}),
            "spec.containers[0].resources.limits[example.com/gpu]",
            'Invalid value: "500m": must be an integer',
        ),
        (
            make_pod().name("p").req(cpu="-1"),
            "spec.containers[0].resources.requests[cpu]",
            "must be greater than or equal to 0",
        ),
        # the messages show value.String(): the canonical text, after the defaulting's rounding
        (
            # validateResourceRequirements checks the limits first
            make_pod().name("p").req(**{"example.com/gpu": "0.5"}).limits(**{"example.com/gpu": "0.5"}),
            "spec.containers[0].resources.limits[example.com/gpu]",
            'Invalid value: "500m": must be an integer',
        ),
        (
            make_pod().name("p").req(cpu="-0.0001"),
            "spec.containers[0].resources.requests[cpu]",
            'Invalid value: "-1m": must be greater than or equal to 0',
        ),
        (
            make_pod().name("p").req(cpu="2000m").limits(cpu="1000m"),
            "spec.containers[0].resources.requests",
            'Invalid value: "2": must be less than or equal to cpu limit of 1',
        ),
        (
            make_pod().name("p").req(pods="1"),
            "spec.containers[0].resources.requests[pods]",
            "must be a standard resource for containers",
        ),
        (
            # (the builder sets the limit a valid pod needs: the limits are checked first)
            make_pod().name("p").req(**{"requests.example.com/gpu": "1"}),
            "spec.containers[0].resources.limits[requests.example.com/gpu]",
            "doesn't follow extended resource name standard",
        ),
    ],
    ids=[
        "pod-name",
        "namespace",
        "unqualified-resource",
        "bad-resource-name",
        "no-image",
        "fractional-extended",
        "negative",
        "fractional-extended-canonical",
        "negative-rounded-away-from-zero",
        "limit-canonical",
        "not-a-container-resource",
        "quota-style-extended",
    ],
)
def test_more_api_rejections(builder, field, message):
    assert_rejected(builder, field, message)


@pytest.mark.parametrize(
    "requests,limits,scalar",
    [
        pytest.param({"kubernetes.io/something": "10"}, {}, {"kubernetes.io/something": 10}, id="prefixed-native"),
        # not an integer resource: 500m is valid, and the scheduler counts Value(), rounded up
        pytest.param(
            {"subdomain.kubernetes.io/something": "500m"},
            {},
            {"subdomain.kubernetes.io/something": 1},
            id="subdomain-prefixed-native-not-integer",
        ),
        # native resources may be overcommitted: a request below its limit is valid
        pytest.param(
            {"kubernetes.io/something": "1"},
            {"kubernetes.io/something": "2"},
            {"kubernetes.io/something": 1},
            id="prefixed-native-overcommit",
        ),
    ],
)
def test_prefixed_native_resources_are_valid(requests, limits, scalar):
    # validateContainerResourceName (v1.30): a name with a kubernetes.io/ prefix is native and
    # needs no standard name; the overcommit and integer rules bind only extended resources.
    pod = make_pod().name("p").req(**requests).limits(**limits).obj()
    assert pod.requests.scalar == scalar
