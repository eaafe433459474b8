"""A plugin whose PreFilter or PreScore did not run (a profile disabled that point but kept its
Filter or Score) finds nothing in CycleState; each plugin words that error as upstream's does
(getPreFilterState / getPreScoreState / getStateData of its package, wrapping ErrNotFound)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kwhatif.framework.interface import Code, CycleState, NodeScore, Status
from kwhatif.plugins import inter_pod_affinity as ipa
from kwhatif.plugins import node_ports as np
from kwhatif.plugins import node_resources_fit as fit
from kwhatif.plugins import pod_topology_spread as pts
from kwhatif.plugins import taint_toleration as tt
from kwhatif.plugins import volume_binding as vb
from kwhatif.plugins import volume_restrictions as vr

from builders import make_handle, make_node, make_pod, plugin_args


def _run(module: Any, point: str) -> Status:
    h = make_handle([make_node().name("n1").obj()])
    pl = module.new(plugin_args(module.NAME), h)
    pod = make_pod().name("p").obj()
    ni = h.snapshot.get("n1")
    state = CycleState()
    call: dict[str, Callable[[], Any]] = {
        "filter": lambda: pl.filter(state, pod, ni),
        "score": lambda: pl.score(state, pod, ni)[1],
        "normalize": lambda: pl.normalize_score(state, pod, [NodeScore("n1", 0)]),
        "addPod": lambda: pl.add_pod(state, pod, ni.pods[0] if ni.pods else None, ni),
        "reserve": lambda: pl.reserve(state, pod, "n1"),
        "preBind": lambda: pl.pre_bind(state, pod, "n1"),
    }
    st: Status = call[point]()
    return st


CASES = [
    pytest.param(tt, "score", 'failed to read "PreScoreTaintToleration" from cycleState: not found', id="taint-score"),
    pytest.param(np, "filter", 'reading "PreFilterNodePorts" from cycleState: not found', id="ports-filter"),
    pytest.param(
        fit, "filter", 'error reading "PreFilterNodeResourcesFit" from cycleState: not found', id="fit-filter"
    ),
    pytest.param(
        ipa, "filter", 'error reading "PreFilterInterPodAffinity" from cycleState: not found', id="affinity-filter"
    ),
    pytest.param(
        ipa, "addPod", 'error reading "PreFilterInterPodAffinity" from cycleState: not found', id="affinity-add-pod"
    ),
    pytest.param(
        ipa, "score", 'failed to read "PreScoreInterPodAffinity" from cycleState: not found', id="affinity-score"
    ),
    pytest.param(
        ipa,
        "normalize",
        'failed to read "PreScoreInterPodAffinity" from cycleState: not found',
        id="affinity-normalize",
    ),
    pytest.param(pts, "filter", 'reading "PreFilterPodTopologySpread" from cycleState: not found', id="spread-filter"),
    pytest.param(pts, "addPod", 'reading "PreFilterPodTopologySpread" from cycleState: not found', id="spread-add-pod"),
    pytest.param(
        pts, "score", 'error reading "PreScorePodTopologySpread" from cycleState: not found', id="spread-score"
    ),
    pytest.param(
        pts, "normalize", 'error reading "PreScorePodTopologySpread" from cycleState: not found', id="spread-normalize"
    ),
    pytest.param(vr, "filter", 'cannot read "PreFilterVolumeRestrictions" from cycleState', id="restrictions-filter"),
    pytest.param(vb, "filter", "not found", id="binding-filter"),
    pytest.param(vb, "reserve", "not found", id="binding-reserve"),
    pytest.param(vb, "preBind", "not found", id="binding-pre-bind"),
]


@pytest.mark.parametrize("module,point,message", CASES)
def test_missing_state_is_an_error_in_upstream_words(module: Any, point: str, message: str) -> None:
    st = _run(module, point)
    assert st.code is Code.ERROR
    assert st.reasons == (message,)
