"""Behaviours of the releases already checked, read from their sources: DynamicResources' claim
look-ups (v1.31.2 to v1.36.2: the claims' assume cache)."""

from __future__ import annotations

import pytest

from kwhatif.api import parse
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.controlplane.admission.pod import Admission
from kwhatif.release.versions import get
from kwhatif.scheduling.scheduler import Attempt, Scheduler
from tests.builders import make_pod
from tests.test_versions import node


def _run(version: str, gates: str) -> Attempt:
    v = get(version, gates)
    state = ClusterState(version=v)
    state.nodes = {"n1": node("n1").obj()}
    adm = Admission({}, {}, v, PodRules.of(v))
    b = make_pod().name("p").uid("uid-p").set("spec.resourceClaims", [{"name": "gpu", "resourceClaimName": "missing"}])
    pod = adm.admit(parse.pod(b.dict(), rules=adm.rules), strict=True)
    return Scheduler(state, default_configuration(v)).schedule_one(pod)


@pytest.mark.parametrize(
    ("version", "gates", "reason"),
    [
        # the claim lister's NotFound (kept for 1.30, whose source was not read)
        ("1.30", "DynamicResourceAllocation=true", 'resourceclaim.resource.k8s.io "missing" not found'),
        # assumecache.NotFoundError, `could not find %v %q` with TypeName "ResourceClaim"
        # (openshift-kni/scheduler-plugins 4d80e29f1: vendor v1.31.2, claimAssumeCache.Get)
        ("1.31", "DynamicResourceAllocation=true", 'could not find ResourceClaim "default/missing"'),
        # claimTracker.Get over the same cache (openshift/kubernetes-autoscaler 70920d3c: vendor v1.36.2)
        ("1.36.2", "", 'could not find ResourceClaim "default/missing"'),
    ],
)
def test_a_missing_claim_is_worded_as_the_release_looks_it_up(version: str, gates: str, reason: str) -> None:
    att = _run(version, gates)
    assert reason in att.message, att.message


def test_a_claim_allocated_on_a_vanished_node_is_not_allocated_again() -> None:
    """A claim allocated on a node the cluster no longer has, reserved for the pod still bound to
    it (the pod exists until the pod garbage collector deletes it), stays allocated there: its
    nodeSelector matches no node, so DynamicResources' Filter answers "resourceclaim not available
    on the node" everywhere (dynamicresources.go Filter, availableOnNodes, openshift/kubernetes-
    autoscaler 70920d3c vendor v1.36.2), and the devices are not allocated elsewhere."""
    from tests.builders import make_cluster
    from tests.plugins.test_dynamic_resources import CLAIM, allocated, claim, reserved_for

    v = get("1.36.2")
    orphan = make_pod().name("old").uid("uid-old").node("gone")
    orphan.set("spec.resourceClaims", [{"name": "gpu", "resourceClaimName": CLAIM}])
    objs = [
        node("n1").dict(),
        orphan.dict(),
        reserved_for(allocated(claim(), node="gone", selector_node="gone"), uid="uid-old", name="old"),
    ]
    state = make_cluster(objs, v)
    assert state.orphaned_pods == 1 and state.orphaned_pod_uids == {"uid-old"}
    adm = Admission({}, {}, v, PodRules.of(v))
    b = make_pod().name("new").uid("uid-new")
    b.set("spec.resourceClaims", [{"name": "gpu", "resourceClaimName": CLAIM}])
    pod = adm.admit(parse.pod(b.dict(), rules=adm.rules), strict=True)
    att = Scheduler(state, default_configuration(v)).schedule_one(pod)
    assert att.feasible == []
    st = att.fit.filters["n1"].first if att.fit is not None else None
    assert st is not None and (st.plugin, st.code.label, tuple(st.reasons)) == (
        "DynamicResources",
        "UnschedulableAndUnresolvable",  # statusUnschedulable
        ("resourceclaim not available on the node",),
    )
