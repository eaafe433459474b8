"""DynamicResources: PreFilter, Filter, PostFilter, Reserve/Unreserve and Score, with the cases of
upstream's plugins/dynamicresources/dynamicresources_test.go (TestPlugin; same names, pods,
claims, classes, slices and expected statuses), and what kwhatif adds: claims created from
templates, explanations, hints."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest

from kwhatif.dra import features as F
from kwhatif.dra.claims import generate_claim_name
from kwhatif.framework.interface import Code, CycleState, NodeScore
from kwhatif.plugins import dynamic_resources as dr

from builders import make_cluster, make_handle, make_node, make_pod

NODE, NODE2 = "worker", "worker-2"
DRIVER = "some-driver"
POD, POD_UID = "my-pod", "1234"
RESOURCE = "my-resource"
CLAIM = f"{POD}-{RESOURCE}"
CLASS = "my-resource-class"
NS = "default"
V1 = "resource.k8s.io/v1"
ON = F.Features(enabled=True, admin_access=True, prioritized_list=True, scores=True)


def device_class(name: str = CLASS, *selectors: str) -> dict[str, Any]:
    spec = {"selectors": [{"cel": {"expression": e}} for e in selectors]} if selectors else {}
    return {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def node_slice(node: str, *devices: dict[str, Any], driver: str = DRIVER) -> dict[str, Any]:
    """st.MakeResourceSlice(node, driver): pool named after the node."""
    return {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{driver}"},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": list(devices) or [{"name": "instance-1"}],
        },
    }


def request(name: str = "req-1", cls: str = CLASS, **exactly: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, **exactly}}


def claim(
    name: str = CLAIM, *requests: dict[str, Any], owner: bool = True, status: dict[str, Any] | None = None, **meta: Any
) -> dict[str, Any]:
    m: dict[str, Any] = {"name": name, "namespace": NS, "uid": f"uid-{name}", **meta}
    if owner:
        m["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": POD_UID, "controller": True}]
    body: dict[str, Any] = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": m,
        "spec": {"devices": {"requests": list(requests) or [request()]}},
    }
    if status:
        body["status"] = status
    return body


def allocation(
    node: str = NODE,
    device: str = "instance-1",
    request_name: str = "req-1",
    admin: bool = False,
    selector_node: str | None = NODE,
) -> dict[str, Any]:
    result: dict[str, Any] = {"request": request_name, "driver": DRIVER, "pool": node, "device": device}
    if admin:
        result["adminAccess"] = True
    a: dict[str, Any] = {"devices": {"results": [result]}}
    if selector_node is not None:
        a["nodeSelector"] = {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [selector_node]}]}
            ]
        }
    return a


def allocated(c: dict[str, Any], **kw: Any) -> dict[str, Any]:
    c = copy.deepcopy(c)
    c["status"] = {"allocation": allocation(**kw)}
    return c


def reserved_for(c: dict[str, Any], uid: str = POD_UID, name: str = POD) -> dict[str, Any]:
    c = copy.deepcopy(c)
    c.setdefault("status", {})["reservedFor"] = [{"resource": "pods", "name": name, "uid": uid}]
    return c


def pod_with_claim_name(uid: str = POD_UID) -> Any:
    return (
        make_pod()
        .name(POD)
        .namespace(NS)
        .uid(uid)
        .set("spec.resourceClaims", [{"name": RESOURCE, "resourceClaimName": CLAIM}])
    )


def pod_with_claim_template(in_status: bool) -> Any:
    b = (
        make_pod()
        .name(POD)
        .namespace(NS)
        .uid(POD_UID)
        .set("spec.resourceClaims", [{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}])
    )
    if in_status:
        b.set("status.resourceClaimStatuses", [{"name": RESOURCE, "resourceClaimName": CLAIM}])
    return b


PENDING = claim()
ALLOCATED = allocated(PENDING)
OTHER_ALLOCATED = allocated(claim("other-claim", owner=False))
IN_USE = reserved_for(ALLOCATED)
BREAK_CEL = f'device.attributes["{DRIVER}"].healthy'


@dataclass
class Case:
    pod: Any
    objs: list[dict[str, Any]] = field(default_factory=list)
    nodes: tuple[str, ...] = (NODE,)
    features: F.Features = ON
    preenqueue: tuple[Code, str] | None = None  # expected non-success PreEnqueue status (PreFilter says the same)
    prefilter: tuple[Code, str] | None = None  # expected non-success PreFilter status
    filter: dict[str, tuple[Code, str]] = field(default_factory=dict)  # per node, non-success
    postfilter: tuple[Code, str] | None = None
    reserved: list[tuple[str, str, str]] | None = None  # devices the pod's claims hold after Reserve


CASES = [
    pytest.param(
        Case(
            make_pod().name("foo"),
            prefilter=(Code.SKIP, ""),
            postfilter=(Code.UNSCHEDULABLE, "no new claims to deallocate"),
        ),
        id="empty",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [ALLOCATED, allocated(claim("not-my-claim", owner=False), device="instance-2")],
            reserved=[(DRIVER, NODE, "instance-1")],
        ),
        id="claim-reference",
    ),
    pytest.param(
        Case(
            pod_with_claim_template(True),
            [ALLOCATED, claim("not-my-claim", owner=False)],
            reserved=[(DRIVER, NODE, "instance-1")],
        ),
        id="claim-template",
    ),
    pytest.param(
        Case(
            pod_with_claim_template(False).set("status.phase", "Pending").set("metadata.annotations", {"x": "y"}),
            [ALLOCATED],
            preenqueue=(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'pod "default/my-pod": ResourceClaim not created yet'),
        ),
        id="missing-claim",
    ),
    pytest.param(
        Case(
            pod_with_claim_template(True),
            [allocated(claim(deletionTimestamp="2026-01-01T00:00:00Z"))],
            preenqueue=(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'resourceclaim "my-pod-my-resource" is being deleted'),
        ),
        id="deleted-claim",
    ),
    pytest.param(
        Case(
            pod_with_claim_template(True),
            [
                allocated(
                    claim(
                        owner=False,
                        ownerReferences=[
                            {"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": POD_UID + "123", "controller": True}
                        ],
                    )
                )
            ],
            preenqueue=(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)",
            ),
        ),
        id="wrong-claim",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [PENDING, device_class()],
            filter={NODE: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims")},
            postfilter=(Code.UNSCHEDULABLE, "still not schedulable"),
        ),
        id="no-resources",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(), [PENDING, device_class(), node_slice(NODE)], reserved=[(DRIVER, NODE, "instance-1")]
        ),
        id="with-resources",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [PENDING, OTHER_ALLOCATED, device_class(), node_slice(NODE)],
            filter={NODE: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims")},
            postfilter=(Code.UNSCHEDULABLE, "still not schedulable"),
        ),
        id="exhausted-resources",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [
                PENDING,
                device_class(),
                node_slice(
                    NODE, {"name": "instance-1", "taints": [{"key": "example.com/taint", "effect": "NoExecute"}]}
                ),
            ],
            features=ON,
            reserved=[(DRIVER, NODE, "instance-1")],
        ),
        id="tainted-device-disabled",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [
                PENDING,
                device_class(),
                node_slice(
                    NODE, {"name": "instance-1", "taints": [{"key": "example.com/taint", "effect": "NoExecute"}]}
                ),
            ],
            features=F.Features(enabled=True, admin_access=True, prioritized_list=True, device_taints=True),
            filter={NODE: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims")},
            postfilter=(Code.UNSCHEDULABLE, "still not schedulable"),
        ),
        id="tainted-device-enabled",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [claim(CLAIM, request(adminAccess=True)), OTHER_ALLOCATED, device_class(), node_slice(NODE)],
            reserved=[(DRIVER, NODE, "instance-1")],
        ),
        id="request-admin-access-with-DRAAdminAccess-featuregate",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [claim(CLAIM, request(adminAccess=True)), OTHER_ALLOCATED, device_class(), node_slice(NODE)],
            features=F.Features(enabled=True, prioritized_list=True),
            filter={
                NODE: (
                    Code.ERROR,
                    'running "DynamicResources" filter plugin: claim default/my-pod-my-resource, request req-1: admin access is requested, but the feature is disabled',
                )
            },
        ),
        id="request-admin-access-without-DRAAdminAccess-featuregate",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [PENDING, allocated(claim("other-claim", owner=False), admin=True), device_class(), node_slice(NODE)],
            reserved=[(DRIVER, NODE, "instance-1")],
        ),
        id="structured-ignore-allocated-admin-access",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [claim(CLAIM, request(selectors=[{"cel": {"expression": BREAK_CEL}}])), device_class(), node_slice(NODE)],
            filter={
                NODE: (
                    Code.ERROR,
                    'running "DynamicResources" filter plugin: claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy',
                )
            },
        ),
        id="claim-parameters-CEL-runtime-error",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [PENDING, device_class(CLASS, BREAK_CEL), node_slice(NODE)],
            filter={
                NODE: (
                    Code.ERROR,
                    'running "DynamicResources" filter plugin: class my-resource-class: selector #0: CEL runtime error: no such key: healthy',
                )
            },
        ),
        id="class-parameters-CEL-runtime-error",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [
                claim(CLAIM, request(selectors=[{"cel": {"expression": BREAK_CEL}}])),
                device_class(),
                node_slice(NODE),
                node_slice(NODE2, {"name": "instance-1", "attributes": {"healthy": {"bool": True}}}),
            ],
            nodes=(NODE, NODE2),
            filter={
                NODE: (
                    Code.ERROR,
                    'running "DynamicResources" filter plugin: claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy',
                )
            },
        ),
        id="CEL-runtime-error-for-one-of-two-nodes",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [PENDING],
            prefilter=(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "request req-1: device class my-resource-class does not exist",
            ),
            postfilter=(Code.UNSCHEDULABLE, "no new claims to deallocate"),
        ),
        id="missing-class",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [allocated(PENDING, selector_node="no-such-node")],
            filter={NODE: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim not available on the node")},
            postfilter=(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed"),
        ),
        id="wrong-topology",
    ),
    pytest.param(Case(pod_with_claim_name(), [ALLOCATED], reserved=[(DRIVER, NODE, "instance-1")]), id="good-topology"),
    pytest.param(Case(pod_with_claim_name(), [IN_USE], reserved=[(DRIVER, NODE, "instance-1")]), id="reserved-okay"),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [IN_USE],
            features=F.Features(enabled=False),
            prefilter=(Code.SKIP, ""),
            postfilter=(Code.UNSCHEDULABLE, "plugin disabled"),
        ),
        id="DRA-disabled",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [
                claim(CLAIM, {"name": "req-1", "firstAvailable": [{"name": "subreq-1", "deviceClassName": CLASS}]}),
                device_class(),
            ],
            features=F.Features(enabled=True, admin_access=True),
            prefilter=(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "resource claim default/my-pod-my-resource, request req-1: has subrequests, but the DRAPrioritizedList feature is disabled",
            ),
            postfilter=(Code.UNSCHEDULABLE, "no new claims to deallocate"),
        ),
        id="claim-with-prioritized-list-feature-disabled",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [
                claim(
                    CLAIM,
                    {"name": "req-1", "firstAvailable": [{"name": "subreq-1", "deviceClassName": "does-not-exist"}]},
                )
            ],
            prefilter=(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "request req-1/subreq-1: device class does-not-exist does not exist",
            ),
            postfilter=(Code.UNSCHEDULABLE, "no new claims to deallocate"),
        ),
        id="claim-with-prioritized-list-unknown-device-class",
    ),
    pytest.param(
        Case(
            pod_with_claim_name(),
            [
                claim(CLAIM, {"name": "req-1", "firstAvailable": [{"name": "subreq-1", "deviceClassName": CLASS}]}),
                device_class(),
                node_slice(NODE),
            ],
            reserved=[(DRIVER, NODE, "instance-1")],
        ),
        id="claim-with-prioritized-list",
    ),
]


def setup(case: Case) -> tuple[Any, Any, list[Any]]:
    nodes = [make_node().name(n).label("kubernetes.io/hostname", n).obj() for n in case.nodes]
    cluster = make_cluster(case.objs)
    handle = make_handle(nodes, cluster=cluster)
    plugin = dr.new(None, handle, case.features)
    return plugin, handle, nodes


@pytest.mark.parametrize("case", CASES)
def test_plugin(case: Case) -> None:
    plugin, handle, nodes = setup(case)
    pod = case.pod.obj()
    enq = plugin.pre_enqueue(pod)
    if case.preenqueue is not None:
        assert (enq.code, enq.message()) == case.preenqueue
        _, pre = plugin.pre_filter(CycleState(), pod)
        assert (pre.code, pre.message()) == case.preenqueue
        return
    assert enq.code is Code.SUCCESS, enq
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod)
    if case.prefilter is not None:
        assert (pre.code, pre.message()) == case.prefilter
    else:
        assert pre.code is Code.SUCCESS, pre
    statuses = {}
    if pre.code is Code.SUCCESS:
        for n in nodes:
            st = plugin.filter(state, pod, handle.snapshot.get(n.name))
            statuses[n.name] = st
            want = case.filter.get(n.name)
            if want is None:
                assert st.code is Code.SUCCESS, (n.name, st)
            else:
                got = st
                if got.code is Code.ERROR:
                    # as the framework reports a filter plugin's error
                    got = got.with_plugin(dr.NAME)
                    msg = f'running "{dr.NAME}" filter plugin: {got.message()}'
                else:
                    msg = got.message()
                assert (got.code, msg) == want
    if case.postfilter is not None:
        _, post = plugin.post_filter(state, pod, statuses)
        assert (post.code, post.message()) == case.postfilter
    if case.reserved is not None:
        target = nodes[0].name
        pod = handle.snapshot.assume(pod, target)  # as the scheduler does before Reserve
        assert plugin.reserve(state, pod, target).code is Code.SUCCESS
        held = sorted(
            r.device_id
            for c in plugin.all_claims().values()
            if any(ref.uid == POD_UID for ref in c.reserved_for) and c.allocation
            for r in c.allocation.results
        )
        assert held == sorted(case.reserved)
        plugin.unreserve(state, pod, target)
        assert plugin.assumed == {}


def test_reserve_makes_the_next_pod_see_the_device_taken() -> None:
    case = Case(pod_with_claim_name(), [PENDING, claim("second", owner=False), device_class(), node_slice(NODE)])
    plugin, handle, nodes = setup(case)
    first = case.pod.obj()
    st1 = CycleState()
    plugin.pre_filter(st1, first)
    ni = handle.snapshot.get(NODE)
    assert plugin.filter(st1, first, ni).code is Code.SUCCESS
    first = handle.snapshot.assume(first, NODE)
    assert plugin.reserve(st1, first, NODE).code is Code.SUCCESS
    second = (
        make_pod()
        .name("p2")
        .namespace(NS)
        .uid("u2")
        .set("spec.resourceClaims", [{"name": "r", "resourceClaimName": "second"}])
        .obj()
    )
    st2 = CycleState()
    plugin.pre_filter(st2, second)
    got = plugin.filter(st2, second, ni)
    assert (got.code, got.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("cannot allocate all claims",))
    assert got.details == (
        "claim default/second, request req-1: needs 1 device(s); 1 match, 1 already allocated to default/my-pod-my-resource (1)",
    )
    plugin.unreserve(st1, first, NODE)
    handle.snapshot.forget(first)
    st3 = CycleState()
    plugin.pre_filter(st3, second)
    assert plugin.filter(st3, second, ni).code is Code.SUCCESS


def test_claims_from_templates_are_per_pod() -> None:
    tpl = {
        "apiVersion": V1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "gpu", "namespace": NS},
        "spec": {"spec": {"devices": {"requests": [request("gpu")]}}},
    }
    case = Case(make_pod(), [tpl, device_class(), node_slice(NODE, {"name": "a"}, {"name": "b"})])
    plugin, handle, nodes = setup(case)
    ni = handle.snapshot.get(NODE)
    held = []
    for name in ("train-0", "train-1", "train-2"):
        pod = (
            make_pod()
            .name(name)
            .namespace(NS)
            .uid(f"uid-{name}")
            .set("spec.resourceClaims", [{"name": "gpus", "resourceClaimTemplateName": "gpu"}])
            .obj()
        )
        state = CycleState()
        _, pre = plugin.pre_filter(state, pod)
        assert pre.code is Code.SUCCESS
        st = plugin.filter(state, pod, ni)
        if name == "train-2":
            assert st.reasons == ("cannot allocate all claims",)
            break
        claim_name = generate_claim_name(name, "gpus", NS)
        assert st.details == (
            f"claim default/{claim_name}: gpu -> {'a' if name == 'train-0' else 'b'} [some-driver/worker]",
        )
        pod = handle.snapshot.assume(pod, NODE)
        assert plugin.reserve(state, pod, NODE).code is Code.SUCCESS
        c = plugin.assumed[f"{NS}/{claim_name}"]
        assert (
            c.owner_references[0].name == name
            and c.owner_references[0].uid == f"uid-{name}"
            and c.owner_references[0].controller
        )
        held.append(c.name)
    assert len(set(held)) == 2
    assert plugin.explain_hints(pod) == [
        "claim default/"
        + generate_claim_name("train-2", "gpus", NS)
        + ", request gpu needs 1 device(s) of class my-resource-class on one node; at most 0 are free on any node"
    ]


@pytest.mark.parametrize(
    "pod_name, claim_name, want",
    [
        pytest.param("my-pod", "gpu", r"my-pod-gpu-[bcdfghjklmnpqrstvwxz2456789]{5}", id="short"),
        # resourceclaim controller: both parts shortened in proportion to their length
        pytest.param("p" * 50, "c" * 20, "p" * 39 + "-" + "c" * 15 + r"[bcdfghjklmnpqrstvwxz2456789]{5}", id="long"),
    ],
)
def test_generated_claim_names(pod_name, claim_name, want):
    import re

    name = generate_claim_name(pod_name, claim_name)
    assert re.fullmatch(want, name), name
    assert name == generate_claim_name(pod_name, claim_name)  # deterministic


def test_missing_template_and_claim_elsewhere_are_explained() -> None:
    other = claim("shared", owner=False)
    other["metadata"]["namespace"] = "team-b"
    case = Case(make_pod(), [other, device_class()])
    plugin, handle, _ = setup(case)
    pod = (
        make_pod()
        .name(POD)
        .namespace(NS)
        .uid(POD_UID)
        .set("spec.resourceClaims", [{"name": "r", "resourceClaimName": "shared"}])
        .obj()
    )
    _, pre = plugin.pre_filter(CycleState(), pod)
    assert (pre.code, pre.reasons) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        ('resourceclaim.resource.k8s.io "shared" not found',),
    )
    assert pre.details == (
        "a ResourceClaim named 'shared' exists in namespace team-b; a pod can only use those of its own namespace (default)",
    )
    pod = (
        make_pod()
        .name(POD)
        .namespace(NS)
        .uid(POD_UID)
        .set("spec.resourceClaims", [{"name": "r", "resourceClaimTemplateName": "nope"}])
        .obj()
    )
    _, pre = plugin.pre_filter(CycleState(), pod)
    assert (pre.code, pre.reasons) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        ('pod "default/my-pod": ResourceClaim not created yet',),
    )
    assert pre.details == (
        'the resourceclaim controller cannot create the pod\'s claim "r": resource claim template "nope": resourceclaimtemplate.resource.k8s.io "nope" not found',
    )


def test_score_prefers_earlier_alternatives() -> None:
    """1.35's Score: 8 - index of the chosen subrequest, per prioritized-list request."""
    c = claim(
        CLAIM,
        {
            "name": "req-1",
            "firstAvailable": [
                {
                    "name": "big",
                    "deviceClassName": CLASS,
                    "selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].size == "big"'}}],
                },
                {"name": "small", "deviceClassName": CLASS},
            ],
        },
    )
    case = Case(
        pod_with_claim_name(),
        [
            c,
            device_class(),
            node_slice(NODE, {"name": "d", "attributes": {"size": {"string": "big"}}}),
            node_slice(NODE2, {"name": "d", "attributes": {"size": {"string": "small"}}}),
        ],
        nodes=(NODE, NODE2),
    )
    plugin, handle, nodes = setup(case)
    assert isinstance(plugin, dr.DynamicResourcesScoring)
    pod = case.pod.obj()
    state = CycleState()
    plugin.pre_filter(state, pod)
    scores = []
    for n in nodes:
        assert plugin.filter(state, pod, handle.snapshot.get(n.name)).code is Code.SUCCESS
        s, st = plugin.score(state, pod, handle.snapshot.get(n.name))
        scores.append(NodeScore(n.name, s))
    assert [s.score for s in scores] == [8, 7]
    plugin.normalize_score(state, pod, scores)
    assert [s.score for s in scores] == [100, 87]


def test_claims_of_pods_that_are_gone_are_deallocated() -> None:
    """Evictions (drain, preemption, an updated workload) delete pods; the resourceclaim
    controller then deallocates the claims they alone reserved, so their devices are free."""
    holder = make_pod().name("holder").namespace(NS).uid("uid-holder").node(NODE).obj()
    held = reserved_for(allocated(claim("held", owner=False)), uid="uid-holder", name="holder")
    case = Case(pod_with_claim_name(), [PENDING, held, device_class(), node_slice(NODE)])
    plugin, handle, nodes = setup(case)
    handle.snapshot.add_pod(holder)
    pod = case.pod.obj()
    state = CycleState()
    plugin.pre_filter(state, pod)
    assert plugin.filter(state, pod, handle.snapshot.get(NODE)).reasons == ("cannot allocate all claims",)
    handle.snapshot.remove_pod(holder)
    state = CycleState()
    plugin.pre_filter(state, pod)
    assert plugin.filter(state, pod, handle.snapshot.get(NODE)).code is Code.SUCCESS


def test_release_1_34_does_not_score() -> None:
    case = Case(pod_with_claim_name(), [PENDING, device_class(), node_slice(NODE)], features=F.for_release("1.34"))
    plugin, _, _ = setup(case)
    assert not isinstance(plugin, dr.DynamicResourcesScoring)
    # 1.33: every DRA feature off; only its pool rules differ from the newest release's
    assert F.for_release("1.33").pool_rules == 33
    assert dataclasses.replace(F.for_release("1.33"), pool_rules=36) == F.DISABLED
    assert (
        F.for_release("1.35").scores and F.for_release("1.35").prioritized_list and F.for_release("1.35").admin_access
    )


def _on(*names: str, scores: bool = True, rules: int = 36, binding_last: bool = False) -> F.Features:
    return F.Features(
        enabled=True, scores=scores, pool_rules=rules, binding_conditions_last=binding_last, **{n: True for n in names}
    )


@pytest.mark.parametrize(
    "release,want",
    [
        pytest.param("1.30", dataclasses.replace(F.DISABLED, pool_rules=31), id="1.30-off"),
        pytest.param("1.32", dataclasses.replace(F.DISABLED, pool_rules=32), id="1.32-beta-off"),
        pytest.param("1.33", dataclasses.replace(F.DISABLED, pool_rules=33), id="1.33-off"),
        pytest.param(
            # DRAResourceClaimDeviceStatus (beta, on) selects v1.34's experimental allocator
            "1.34",
            _on("admin_access", "prioritized_list", scores=False, rules=34, binding_last=True),
            id="1.34-ga",
        ),
        pytest.param("1.35.7", _on("admin_access", "prioritized_list", rules=35), id="1.35-scores"),
        pytest.param(
            "1.36",
            _on(
                "admin_access",
                "prioritized_list",
                "partitionable_devices",
                "device_taints",
                "consumable_capacity",
                "device_binding_and_status",
                "extended_resource",
                binding_last=True,
            ),
            id="1.36-betas-on",
        ),
        pytest.param(
            "1.37",
            _on(
                "admin_access",
                "prioritized_list",
                "partitionable_devices",
                "device_taints",
                "consumable_capacity",
                "device_binding_and_status",
                "extended_resource",
                binding_last=True,
            ),
            id="1.37",
        ),
    ],
)
def test_features_follow_the_release_gates(release: str, want: F.Features) -> None:
    """The DRA feature set is the release's gate defaults (kwhatif/versions.py): kube_features.go of
    1.34.7 and 1.35.7, CHANGELOG-1.36 and the 1.37 feature table for the later ones."""
    assert F.for_release(release) == want


@pytest.mark.parametrize(
    "release,code",
    [
        pytest.param("1.35", Code.SUCCESS, id="1.35-taints-ignored"),
        pytest.param("1.36", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, id="1.36-taints-respected"),
    ],
)
def test_plugin_takes_the_features_of_the_handles_release(release: str, code: Code) -> None:
    """Without a features override the plugin answers as handle.version: DRADeviceTaints is on from
    1.36, so a NoExecute device taint keeps the pod off the device there only."""
    from kwhatif.release.versions import get

    objs = [
        PENDING,
        device_class(),
        node_slice(NODE, {"name": "instance-1", "taints": [{"key": "example.com/taint", "effect": "NoExecute"}]}),
    ]
    version = get(release)
    handle = make_handle([make_node().name(NODE).obj()], cluster=make_cluster(objs, version=version), version=version)
    plugin = dr.new(None, handle)
    assert isinstance(plugin, dr.DynamicResourcesScoring)
    pod = pod_with_claim_name().obj()
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod)
    assert pre.code is Code.SUCCESS
    assert plugin.filter(state, pod, handle.snapshot.get(NODE)).code is code


def test_plugin_without_prefilter_state() -> None:
    """A PreFilter ahead of DynamicResources rejected the pod: Filter, Score, Reserve and
    PostFilter find no state ("not found")."""
    from kwhatif.release.versions import get

    handle = make_handle([make_node().name(NODE).obj()], version=get("1.35"))
    plugin = dr.new(None, handle)
    pod, ni = make_pod().name("p").obj(), handle.snapshot.get(NODE)
    assert plugin.filter(CycleState(), pod, ni).message() == "not found"
    assert plugin.score(CycleState(), pod, ni)[1].message() == "not found"
    assert plugin.reserve(CycleState(), pod, NODE).message() == "not found"
    assert plugin.post_filter(CycleState(), pod, {})[1].message() == "not found"


def test_shared_device_capacity_across_pods() -> None:
    """1.36 defaults (consumable capacity on): pods share a device that allows multiple
    allocations, each Reserve taking its capacity; the third does not fit."""
    dev = {"name": "nic", "allowMultipleAllocations": True, "capacity": {"bandwidth": {"value": "10G"}}}
    objs = [device_class(), node_slice(NODE, dev)] + [
        claim(f"c{i}", request(capacity={"requests": {"bandwidth": "4G"}}), owner=False) for i in range(3)
    ]
    case = Case(make_pod(), objs, features=F.for_release("1.36"))
    plugin, handle, _ = setup(case)
    ni = handle.snapshot.get(NODE)
    got = []
    for i in range(3):
        pod = (
            make_pod()
            .name(f"p{i}")
            .namespace(NS)
            .uid(f"u{i}")
            .set("spec.resourceClaims", [{"name": "r", "resourceClaimName": f"c{i}"}])
            .obj()
        )
        state = CycleState()
        plugin.pre_filter(state, pod)
        st = plugin.filter(state, pod, ni)
        got.append((st.code, st.details[:1] if st.code is Code.SUCCESS else st.reasons + st.details))
        if st.code is Code.SUCCESS:
            pod = handle.snapshot.assume(pod, NODE)
            plugin.reserve(state, pod, NODE)
    assert got == [
        (Code.SUCCESS, ("claim default/c0: req-1 -> nic (shared: bandwidth 4000000000) [some-driver/worker]",)),
        (Code.SUCCESS, ("claim default/c1: req-1 -> nic (shared: bandwidth 4000000000) [some-driver/worker]",)),
        (
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            (
                "cannot allocate all claims",
                "claim default/c2, request req-1: needs 1 device(s); 1 match, 1 without the capacity it asks for left",
            ),
        ),
    ]
