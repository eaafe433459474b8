"""NodeAffinity: nodeSelector and required node affinity in the Filter, the PreFilterResult
built from matchFields, the scheduler-enforced addedAffinity, and the preferred-terms score."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.errors import ConfigError
from kwhatif.framework.interface import Code, CycleState, NodeScore
from kwhatif.plugins import node_affinity as na

from builders import NodeBuilder, PodBuilder, make_handle, make_node, make_pod, plugin_args

POD_REASON = "node(s) didn't match Pod's node affinity/selector"
ENFORCED_REASON = "node(s) didn't match scheduler-enforced node affinity"
OK = (Code.SUCCESS, ())
MISMATCH = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (POD_REASON,))
ENFORCED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ENFORCED_REASON,))


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    e: dict[str, Any] = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def name_in(*names: str) -> dict[str, Any]:
    return expr("metadata.name", "In", *names)


def term(*exprs: dict[str, Any], fields: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    t: dict[str, Any] = {}
    if exprs:
        t["matchExpressions"] = list(exprs)
    if fields:
        t["matchFields"] = list(fields)
    return t


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def preferred(*weighted: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    return {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": w, "preference": t} for w, t in weighted]}


def with_affinity(node_affinity: dict[str, Any], b: PodBuilder | None = None) -> PodBuilder:
    return (b or make_pod().name("p")).affinity({"nodeAffinity": node_affinity})


def pod() -> PodBuilder:
    return make_pod().name("p")


ZONE_A = make_node().label("zone", "a").label("disk", "ssd").label("cores", "8").label("gen", "v2")


# --- Filter -------------------------------------------------------------------------------------


def run_filter(pod: PodBuilder, node: NodeBuilder, args: dict[str, Any] | None = None) -> tuple[Code, tuple[str, ...]]:
    h = make_handle([node.name("n1").obj()])
    pl = na.new(plugin_args(na.NAME, args), h)
    st = CycleState()
    p = pod.obj()
    pl.pre_filter(st, p)
    status = pl.filter(st, p, h.snapshot.get("n1"))
    return status.code, status.reasons


FILTER_CASES: list[tuple[str, PodBuilder, tuple[Code, tuple[str, ...]]]] = [
    ("no-constraints", pod(), OK),
    ("node-selector-match", pod().node_selector(zone="a"), OK),
    ("node-selector-value", pod().node_selector(zone="b"), MISMATCH),
    ("node-selector-missing-label", pod().node_selector(rack="r1"), MISMATCH),
    ("node-selector-all-keys", pod().node_selector(zone="a", disk="hdd"), MISMATCH),
    ("in", with_affinity(required(term(expr("zone", "In", "b", "a")))), OK),
    ("in-no-match", with_affinity(required(term(expr("zone", "In", "b", "c")))), MISMATCH),
    ("in-missing-label", with_affinity(required(term(expr("rack", "In", "r1")))), MISMATCH),
    ("not-in", with_affinity(required(term(expr("zone", "NotIn", "b")))), OK),
    ("not-in-value", with_affinity(required(term(expr("zone", "NotIn", "a")))), MISMATCH),
    ("not-in-missing-label", with_affinity(required(term(expr("rack", "NotIn", "r1")))), OK),
    ("exists", with_affinity(required(term(expr("disk", "Exists")))), OK),
    ("exists-missing", with_affinity(required(term(expr("gpu", "Exists")))), MISMATCH),
    ("does-not-exist", with_affinity(required(term(expr("gpu", "DoesNotExist")))), OK),
    ("does-not-exist-present", with_affinity(required(term(expr("disk", "DoesNotExist")))), MISMATCH),
    ("gt", with_affinity(required(term(expr("cores", "Gt", "4")))), OK),
    ("gt-equal", with_affinity(required(term(expr("cores", "Gt", "8")))), MISMATCH),
    ("lt", with_affinity(required(term(expr("cores", "Lt", "16")))), OK),
    ("lt-equal", with_affinity(required(term(expr("cores", "Lt", "8")))), MISMATCH),
    ("gt-missing-label", with_affinity(required(term(expr("memory-gb", "Gt", "1")))), MISMATCH),
    # a label value that is not an integer never satisfies Gt or Lt
    ("gt-label-not-integer", with_affinity(required(term(expr("gen", "Gt", "1")))), MISMATCH),
    ("lt-label-not-integer", with_affinity(required(term(expr("gen", "Lt", "100")))), MISMATCH),
    # the API server stores these, but the scheduler's label parsing rejects the term ("-1" is not
    # a valid label value, "five" not an integer), so it never matches
    ("gt-negative-bound", with_affinity(required(term(expr("cores", "Gt", "-1")))), MISMATCH),
    ("gt-bound-not-integer", with_affinity(required(term(expr("cores", "Gt", "five")))), MISMATCH),
    ("in-invalid-label-value", with_affinity(required(term(expr("zone", "In", "a", "not a label value")))), MISMATCH),
    # LazyErrorNodeSelector: a term that fails to parse is skipped, the others are still ORed
    (
        "invalid-term-then-match",
        with_affinity(required(term(expr("zone", "NotIn", "invalid value: ___@#$%^")), term(expr("zone", "In", "a")))),
        OK,
    ),
    (
        "expressions-anded",
        with_affinity(required(term(expr("zone", "In", "a"), expr("disk", "In", "hdd")))),
        MISMATCH,
    ),
    (
        "expressions-anded-match",
        with_affinity(required(term(expr("zone", "In", "a"), expr("disk", "In", "ssd")))),
        OK,
    ),
    (
        "terms-ored",
        with_affinity(required(term(expr("zone", "In", "b")), term(expr("disk", "In", "ssd")))),
        OK,
    ),
    (
        "terms-ored-none",
        with_affinity(required(term(expr("zone", "In", "b")), term(expr("disk", "In", "hdd")))),
        MISMATCH,
    ),
    ("match-fields-in", with_affinity(required(term(fields=(name_in("n1"),)))), OK),
    ("match-fields-in-other", with_affinity(required(term(fields=(name_in("n2"),)))), MISMATCH),
    ("match-fields-not-in", with_affinity(required(term(fields=(expr("metadata.name", "NotIn", "n1"),)))), MISMATCH),
    ("match-fields-not-in-other", with_affinity(required(term(fields=(expr("metadata.name", "NotIn", "n2"),)))), OK),
    (
        "fields-and-expressions-anded",
        with_affinity(required(term(expr("zone", "In", "b"), fields=(name_in("n1"),)))),
        MISMATCH,
    ),
    # an empty term matches nothing; a later term still can
    ("empty-term", with_affinity(required(term())), MISMATCH),
    ("empty-term-then-match", with_affinity(required(term(), term(expr("zone", "In", "a")))), OK),
    (
        "selector-and-affinity-both-needed",
        with_affinity(required(term(expr("zone", "In", "a"))), pod().node_selector(disk="hdd")),
        MISMATCH,
    ),
    (
        "selector-and-affinity",
        with_affinity(required(term(expr("zone", "In", "a"))), pod().node_selector(disk="ssd")),
        OK,
    ),
    # preferred terms never filter
    ("preferred-only", with_affinity(preferred((10, term(expr("zone", "In", "b"))))), OK),
]


@pytest.mark.parametrize("pod,expected", [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES])
def test_filter(pod: PodBuilder, expected: tuple[Code, tuple[str, ...]]) -> None:
    assert run_filter(pod, ZONE_A) == expected


# component-helpers/scheduling/corev1/nodeaffinity (v0.30.6) TestPodMatchesNodeSelectorAndAffinityTerms:
# GetRequiredNodeAffinity(pod).Match(node), which the NodeAffinity Filter, PodTopologySpread's
# node inclusion policy and the DaemonSet controller all use. Its cases with a nil or empty
# nodeSelectorTerms list are left out: the API server refuses such a pod (see below).
REQUIRED_CASES: list[tuple[str, PodBuilder, dict[str, str], str, bool]] = [
    ("no selector", pod(), {}, "", True),
    ("missing labels", pod().node_selector(foo="bar"), {}, "", False),
    ("same labels", pod().node_selector(foo="bar"), {"foo": "bar"}, "", True),
    ("node labels are superset", pod().node_selector(foo="bar"), {"foo": "bar", "baz": "blah"}, "", True),
    ("node labels are subset", pod().node_selector(foo="bar", baz="blah"), {"foo": "bar"}, "", False),
    (
        "Pod with matchExpressions using In operator that matches the existing node",
        with_affinity(required(term(expr("foo", "In", "bar", "value2")))),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "Pod with matchExpressions using Gt operator that matches the existing node",
        with_affinity(required(term(expr("kernel-version", "Gt", "0204")))),
        {"kernel-version": "0206"},
        "",
        True,
    ),
    (
        "Pod with matchExpressions using NotIn operator that matches the existing node",
        with_affinity(required(term(expr("mem-type", "NotIn", "DDR", "DDR2")))),
        {"mem-type": "DDR3"},
        "",
        True,
    ),
    (
        "Pod with matchExpressions using Exists operator that matches the existing node",
        with_affinity(required(term(expr("GPU", "Exists")))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        True,
    ),
    (
        "Pod with affinity that don't match node's labels won't schedule onto the node",
        with_affinity(required(term(expr("foo", "In", "value1", "value2")))),
        {"foo": "bar"},
        "",
        False,
    ),
    (
        "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
        with_affinity(required({"matchExpressions": []})),
        {"foo": "bar"},
        "",
        False,
    ),
    ("Pod with no Affinity will schedule onto a node", pod(), {"foo": "bar"}, "", True),
    (
        "Pod with Affinity but nil NodeSelector will schedule onto a node",
        with_affinity({"requiredDuringSchedulingIgnoredDuringExecution": None}),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "Pod with multiple matchExpressions ANDed that matches the existing node",
        with_affinity(required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        True,
    ),
    (
        "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
        with_affinity(required(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        False,
    ),
    (
        "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
        with_affinity(
            required(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2")))
        ),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, "
        "will schedule onto the node",
        with_affinity(required(term(expr("foo", "Exists"))), pod().node_selector(foo="bar")),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are "
        "deprecating) is not satisfied, won't schedule onto the node",
        with_affinity(required(term(expr("foo", "Exists"))), pod().node_selector(foo="bar")),
        {"foo": "barrrrrr"},
        "",
        False,
    ),
    (
        "Pod with an invalid value in Affinity term won't be scheduled onto the node",
        with_affinity(required(term(expr("foo", "NotIn", "invalid value: ___@#$%^")))),
        {"foo": "bar"},
        "",
        False,
    ),
    (
        "Pod with matchFields using In operator that matches the existing node",
        with_affinity(required(term(fields=(name_in("node_1"),)))),
        {},
        "node_1",
        True,
    ),
    (
        "Pod with matchFields using In operator that does not match the existing node",
        with_affinity(required(term(fields=(name_in("node_1"),)))),
        {},
        "node_2",
        False,
    ),
    (
        "Pod with two terms: matchFields does not match, but matchExpressions matches",
        with_affinity(required(term(fields=(name_in("node_1"),)), term(expr("foo", "In", "bar")))),
        {"foo": "bar"},
        "node_2",
        True,
    ),
    (
        "Pod with one term: matchFields does not match, but matchExpressions matches",
        with_affinity(required(term(expr("foo", "In", "bar"), fields=(name_in("node_1"),)))),
        {"foo": "bar"},
        "node_2",
        False,
    ),
    (
        "Pod with one term: both matchFields and matchExpressions match",
        with_affinity(required(term(expr("foo", "In", "bar"), fields=(name_in("node_1"),)))),
        {"foo": "bar"},
        "node_1",
        True,
    ),
    (
        "Pod with two terms: both matchFields and matchExpressions do not match",
        with_affinity(required(term(fields=(name_in("node_1"),)), term(expr("foo", "In", "not-match-to-bar")))),
        {"foo": "bar"},
        "node_2",
        False,
    ),
]


@pytest.mark.parametrize(
    "pod,labels,node_name,want", [c[1:] for c in REQUIRED_CASES], ids=[c[0] for c in REQUIRED_CASES]
)
def test_required_node_affinity_match(pod: PodBuilder, labels: dict[str, str], node_name: str, want: bool) -> None:
    assert na.RequiredNodeAffinity.of(pod.obj()).matches(labels, node_name) is want


@pytest.mark.parametrize(
    "node_affinity",
    [
        pytest.param({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": None}}, id="nil terms"),
        pytest.param({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}, id="empty terms"),
    ],
)
def test_required_without_terms_is_refused(node_affinity: dict[str, Any]) -> None:
    from kwhatif.errors import FieldError

    with pytest.raises(FieldError, match="must have at least one node selector term"):
        with_affinity(node_affinity).obj()


def test_parse_errors_are_upstreams_field_errors() -> None:
    # labels.NewRequirement's errors with the path NewLazyErrorNodeSelector gives them
    p = with_affinity(
        required(
            term(expr("zone", "In", "a")), term(expr("foo", "NotIn", "invalid value: ___@#$%^"), expr("gen", "Gt", "x"))
        )
    ).obj()
    assert p.affinity is not None and p.affinity.node_affinity is not None and p.affinity.node_affinity.required
    first, second = p.affinity.node_affinity.required.terms
    assert first.parse_errors == ()
    assert second.parse_errors == (
        'nodeSelectorTerms[1].matchExpressions[0].values[0][foo]: Invalid value: "invalid value: ___@#$%^": '
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
        "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        "nodeSelectorTerms[1].matchExpressions[1].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the "
        "value must be an integer",
    )


def test_filter_without_pre_filter_state() -> None:
    """Filter rebuilds the required affinity when PreFilter did not run (as in preemption)."""
    h = make_handle([ZONE_A.name("n1").obj()])
    pl = na.new(plugin_args(na.NAME), h)
    p = pod().node_selector(zone="b").obj()
    status = pl.filter(CycleState(), p, h.snapshot.get("n1"))
    assert (status.code, status.reasons) == MISMATCH


ADDED = {"addedAffinity": required(term(expr("pool", "In", "system")))}


@pytest.mark.parametrize(
    "pod,node,expected",
    [
        pytest.param(pod(), make_node().label("pool", "system"), OK, id="match"),
        pytest.param(pod(), make_node().label("pool", "user"), ENFORCED, id="mismatch"),
        pytest.param(pod(), make_node(), ENFORCED, id="missing-label"),
        # the enforced affinity is checked first and hides the pod's own mismatch
        pytest.param(pod().node_selector(zone="a"), make_node().label("pool", "user"), ENFORCED, id="enforced-first"),
        pytest.param(pod().node_selector(zone="a"), make_node().label("pool", "system"), MISMATCH, id="pod-mismatch"),
        pytest.param(
            pod().node_selector(zone="a"), make_node().label("pool", "system").label("zone", "a"), OK, id="both-match"
        ),
    ],
)
def test_filter_added_affinity(pod: PodBuilder, node: NodeBuilder, expected: tuple[Code, tuple[str, ...]]) -> None:
    assert run_filter(pod, node, ADDED) == expected


def test_added_affinity_without_terms_matches_nothing() -> None:
    args = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}
    assert run_filter(pod(), ZONE_A, args) == ENFORCED


# --- PreFilter ----------------------------------------------------------------------------------


def run_pre_filter(pod: PodBuilder, args: dict[str, Any] | None = None) -> tuple[Any, Code, tuple[str, ...]]:
    h = make_handle([make_node().name(n).obj() for n in ("n1", "n2", "n3")])
    result, status = na.new(plugin_args(na.NAME, args), h).pre_filter(CycleState(), pod.obj())
    names = None if result is None or result.all_nodes() else sorted(result.node_names or ())
    return names, status.code, status.reasons


ALL = None
CONFLICT = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("pod affinity terms conflict",))

PRE_FILTER_CASES: list[tuple[str, PodBuilder, dict[str, Any] | None, tuple[Any, ...]]] = [
    ("nothing-required", pod(), None, (ALL, Code.SKIP, ())),
    ("preferred-only", with_affinity(preferred((1, term(expr("zone", "In", "a"))))), None, (ALL, Code.SKIP, ())),
    ("node-selector", pod().node_selector(zone="a"), None, (ALL, Code.SUCCESS, ())),
    ("added-affinity", pod(), ADDED, (ALL, Code.SUCCESS, ())),
    ("expressions-only", with_affinity(required(term(expr("zone", "In", "a")))), None, (ALL, Code.SUCCESS, ())),
    ("match-fields", with_affinity(required(term(fields=(name_in("n1"),)))), None, (["n1"], Code.SUCCESS, ())),
    (
        "match-fields-and-expressions",
        with_affinity(required(term(expr("zone", "In", "a"), fields=(name_in("n2"),)))),
        None,
        (["n2"], Code.SUCCESS, ()),
    ),
    (
        "union-across-terms",
        with_affinity(required(term(fields=(name_in("n1"),)), term(fields=(name_in("n3"),)))),
        None,
        (["n1", "n3"], Code.SUCCESS, ()),
    ),
    (
        "intersection-within-term",
        with_affinity(required(term(fields=(name_in("n1"), name_in("n1"))))),
        None,
        (["n1"], Code.SUCCESS, ()),
    ),
    ("conflict", with_affinity(required(term(fields=(name_in("n1"), name_in("n2"))))), None, (ALL, *CONFLICT)),
    (
        "empty-intersection-plus-other-term",
        with_affinity(required(term(fields=(name_in("n1"), name_in("n2"))), term(fields=(name_in("n3"),)))),
        None,
        (["n3"], Code.SUCCESS, ()),
    ),
    (
        "term-without-match-fields-means-all",
        with_affinity(required(term(fields=(name_in("n1"),)), term(expr("zone", "In", "a")))),
        None,
        (ALL, Code.SUCCESS, ()),
    ),
    (
        "term-without-match-fields-first",
        with_affinity(required(term(expr("zone", "In", "a")), term(fields=(name_in("n1"),)))),
        None,
        (ALL, Code.SUCCESS, ()),
    ),
    (
        "not-in-only-means-all",
        with_affinity(required(term(fields=(expr("metadata.name", "NotIn", "n1"),)))),
        None,
        (ALL, Code.SUCCESS, ()),
    ),
    (
        "in-and-not-in",
        with_affinity(required(term(fields=(name_in("n1"), expr("metadata.name", "NotIn", "n2"))))),
        None,
        (["n1"], Code.SUCCESS, ()),
    ),
    (
        "empty-term-means-all",
        with_affinity(required(term(), term(fields=(name_in("n1"),)))),
        None,
        (ALL, Code.SUCCESS, ()),
    ),
    # a node that does not exist stays in the set: the runtime, not this plugin, drops it
    ("unknown-node", with_affinity(required(term(fields=(name_in("gone"),)))), None, (["gone"], Code.SUCCESS, ())),
]


@pytest.mark.parametrize("pod,args,expected", [c[1:] for c in PRE_FILTER_CASES], ids=[c[0] for c in PRE_FILTER_CASES])
def test_pre_filter(pod: PodBuilder, args: dict[str, Any] | None, expected: tuple[Any, ...]) -> None:
    assert run_pre_filter(pod, args) == expected


# --- Score --------------------------------------------------------------------------------------


NODES = {
    "a": make_node().label("zone", "a").label("disk", "ssd"),
    "b": make_node().label("zone", "a"),
    "c": make_node().label("disk", "ssd"),
    "d": make_node(),
}


def run_score(pod: PodBuilder, args: dict[str, Any] | None = None) -> tuple[Code, dict[str, int], dict[str, int]]:
    h = make_handle([b.name(n).obj() for n, b in NODES.items()])
    pl = na.new(plugin_args(na.NAME, args), h)
    p = pod.obj()
    st = CycleState()
    infos = [h.snapshot.get(n) for n in NODES]
    pre = pl.pre_score(st, p, infos)
    if pre.is_skip():
        return pre.code, {}, {}
    assert pre.is_success()
    scores = []
    for ni in infos:
        s, status = pl.score(st, p, ni)
        assert status.is_success()
        scores.append(NodeScore(ni.name, s))
    raw = {s.name: s.score for s in scores}
    assert pl.normalize_score(st, p, scores).is_success()
    return pre.code, raw, {s.name: s.score for s in scores}


ZONE = term(expr("zone", "In", "a"))
SSD = term(expr("disk", "In", "ssd"))

SCORE_CASES: list[tuple[str, PodBuilder, dict[str, Any] | None, tuple[Any, ...]]] = [
    ("no-preferences", pod(), None, (Code.SKIP, {}, {})),
    ("required-only", with_affinity(required(ZONE)), None, (Code.SKIP, {}, {})),
    (
        "weights-summed",
        with_affinity(preferred((5, ZONE), (3, SSD))),
        None,
        # 100*5/8 = 62 and 100*3/8 = 37 with Go integer division
        (Code.SUCCESS, {"a": 8, "b": 5, "c": 3, "d": 0}, {"a": 100, "b": 62, "c": 37, "d": 0}),
    ),
    (
        "single-term",
        with_affinity(preferred((7, ZONE))),
        None,
        (Code.SUCCESS, {"a": 7, "b": 7, "c": 0, "d": 0}, {"a": 100, "b": 100, "c": 0, "d": 0}),
    ),
    (
        "nothing-matches",
        with_affinity(preferred((7, term(expr("zone", "In", "z"))))),
        None,
        (Code.SUCCESS, {"a": 0, "b": 0, "c": 0, "d": 0}, {"a": 0, "b": 0, "c": 0, "d": 0}),
    ),
    (
        "match-fields",
        with_affinity(preferred((10, term(fields=(name_in("c"),))), (30, ZONE))),
        None,
        (Code.SUCCESS, {"a": 30, "b": 30, "c": 10, "d": 0}, {"a": 100, "b": 100, "c": 33, "d": 0}),
    ),
    (
        "expressions-anded",
        with_affinity(preferred((9, term(expr("zone", "In", "a"), expr("disk", "Exists"))), (1, SSD))),
        None,
        (Code.SUCCESS, {"a": 10, "b": 0, "c": 1, "d": 0}, {"a": 100, "b": 0, "c": 10, "d": 0}),
    ),
    (
        "added-preferred-only",
        pod(),
        {"addedAffinity": preferred((4, SSD))},
        (Code.SUCCESS, {"a": 4, "b": 0, "c": 4, "d": 0}, {"a": 100, "b": 0, "c": 100, "d": 0}),
    ),
    (
        "added-preferred-plus-pod",
        with_affinity(preferred((6, ZONE))),
        {"addedAffinity": preferred((4, SSD))},
        (Code.SUCCESS, {"a": 10, "b": 6, "c": 4, "d": 0}, {"a": 100, "b": 60, "c": 40, "d": 0}),
    ),
    (
        "added-required-only-skips",
        pod(),
        {"addedAffinity": required(ZONE)},
        (Code.SKIP, {}, {}),
    ),
    # addedAffinity preferred terms that parse to nothing still count as configured
    (
        "added-preferred-empty-terms",
        pod(),
        {"addedAffinity": preferred((4, term()))},
        (Code.SUCCESS, {"a": 0, "b": 0, "c": 0, "d": 0}, {"a": 0, "b": 0, "c": 0, "d": 0}),
    ),
]


@pytest.mark.parametrize("pod,args,expected", [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_score(pod: PodBuilder, args: dict[str, Any] | None, expected: tuple[Any, ...]) -> None:
    assert run_score(pod, args) == expected


def test_pre_score_without_nodes() -> None:
    h = make_handle([])
    st = CycleState()
    status = na.new(plugin_args(na.NAME), h).pre_score(st, with_affinity(preferred((1, ZONE))).obj(), [])
    assert status.code is Code.SUCCESS


INVALID_PREFERENCE = term(expr("zone", "NotIn", "invalid value: ___@#$%^"))
INVALID_PREFERENCE_ERROR = (
    '[1].matchExpressions[0].values[0][zone]: Invalid value: "invalid value: ___@#$%^": a valid label must be an '
    "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def test_pre_score_fails_on_a_preferred_term_it_cannot_parse() -> None:
    # getPodPreferredNodeAffinity -> NewPreferredSchedulingTerms errors, and PreScore returns
    # framework.AsStatus(err); the path counts the terms as given ([1], the second one)
    h = make_handle([b.name(n).obj() for n, b in NODES.items()])
    pl = na.new(plugin_args(na.NAME), h)
    p = with_affinity(preferred((5, ZONE), (3, INVALID_PREFERENCE))).obj()
    status = pl.pre_score(CycleState(), p, [h.snapshot.get(n) for n in NODES])
    assert (status.code, status.reasons) == (Code.ERROR, (INVALID_PREFERENCE_ERROR,))
    score, status = pl.score(CycleState(), p, h.snapshot.get("a"))
    assert (score, status.code, status.reasons) == (0, Code.ERROR, (INVALID_PREFERENCE_ERROR,))


def test_score_without_pre_score_state() -> None:
    """Score rebuilds the preferred terms when PreScore did not run."""
    h = make_handle([NODES["a"].name("a").obj()])
    pl = na.new(plugin_args(na.NAME), h)
    score, status = pl.score(CycleState(), with_affinity(preferred((5, ZONE))).obj(), h.snapshot.get("a"))
    assert (score, status.code) == (5, Code.SUCCESS)


# --- args ---------------------------------------------------------------------------------------


# Decoded, defaulted and validated by the configuration (kwhatif.config).
@pytest.mark.parametrize(
    "args,message",
    [
        pytest.param(
            {"addedAffinity": []}, "cannot unmarshal array into Go value of type v1.NodeAffinity", id="not-an-object"
        ),
        pytest.param({"bogus": 1}, 'unknown field "bogus"', id="unknown-field"),
        pytest.param({"addedAffinity": required(term(expr("zone", "Near", "a")))}, "operator", id="bad-operator"),
        pytest.param(
            {"addedAffinity": required(term(fields=(expr("metadata.name", "Exists"),)))},
            "NotIn",
            id="bad-field-operator",
        ),
    ],
)
def test_bad_args(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        plugin_args(na.NAME, args)
