"""1.38, answered from upstream's changelog and PR descriptions (not checked against the real
scheduler): its feature gates, the changes it records, and each change's effect on a cycle."""

from __future__ import annotations

import pytest

import kwhatif.plugins.default_preemption as dp
from kwhatif.release import featuregates as fg
from kwhatif.release import versions
from kwhatif.release.featuregates import FeatureGateError, known, parse
from kwhatif.release.versions import get
from tests.builders import make_pod
from tests.plugins.test_default_preemption import bound, infos, pdb
from tests.test_versions import first, node, run

# CHANGELOG-1.38 (v1.38.0-alpha.1 and alpha.2): gates 1.37 has and 1.38 no longer knows
REMOVED_138 = [
    ("PodSchedulingReadiness", 141741),
    ("DynamicResourceAllocation", 141946),
    ("MatchLabelKeysInPodAffinity", 141744),
    ("SeparateTaintEvictionController", 141789),
    ("KubeletTracing", 141714),
    ("ServiceAccountTokenPodNodeInfo", 135338),
    ("WindowsHostNetwork", 142018),
    ("CustomResourceFieldSelectors", 141207),
    ("CRDValidationRatcheting", 141207),
]


@pytest.mark.parametrize(("name", "pr"), REMOVED_138, ids=[n for n, _ in REMOVED_138])
def test_1_38_refuses_the_gates_it_removed(name: str, pr: int) -> None:
    assert name in known(37) and name not in known(38)
    with pytest.raises(FeatureGateError) as ei:
        parse(f"{name}=true", 38)
    assert str(ei.value) == f"feature-gates: unrecognized feature gate: {name}"
    # what it switched stays as 1.37 left it by default (on, but the withdrawn WindowsHostNetwork)
    assert get("1.38").gate(name) is known(37)[name].default is (name != "WindowsHostNetwork")


@pytest.mark.parametrize("name", ["DRADeviceTaints", "DRADeviceTaintRules"])
def test_1_38_locks_the_device_taint_gates(name: str) -> None:
    """#140256: GA and locked to true."""
    assert known(37)[name] == fg.FeatureSpec(True, fg.Stage.GA, False)
    assert known(38)[name] == fg.FeatureSpec(True, fg.Stage.GA, True)
    with pytest.raises(FeatureGateError) as ei:
        parse(f"{name}=false", 38)
    assert str(ei.value) == f"feature-gates: cannot set feature gate {name} to false, feature is locked to true"


def test_1_37_keeps_the_gates_1_38_removes() -> None:
    """A 1.37 gate table transcribed from a commit after the release branch had three of 1.38's
    removals; CHANGELOG-1.38 places them in 1.38."""
    for name in ("PodSchedulingReadiness", "KubeletTracing", "ServiceAccountTokenPodNodeInfo"):
        assert known(37)[name] == fg.FeatureSpec(True, fg.Stage.GA, True)


def test_1_38_is_answered_from_sources_with_a_note_and_the_default_stays_1_36_2() -> None:
    r = versions.resolve("1.38")
    assert str(r.version) == "1.38.0"
    assert r.notes == ("1.38 (from sources, not checked against the real scheduler)",)
    assert versions.resolve("1.37").notes == ()
    assert str(versions.resolve("1.37").version) == "1.37.2"
    assert str(versions.default_version()) == "1.36.2"


def test_1_38_records_its_changes_with_their_prs() -> None:
    new = [c for c in get("1.38").changes if c not in get("1.37").changes]
    assert sorted(pr for c in new for pr in c.prs) == [140798, 141182, 141340, 141785, 141898, 142202]
    assert all(c.landed == ("1.38.0",) for c in new)
    assert get("1.38").behaviour.dra_pool_rules == 38 and get("1.37").behaviour.dra_pool_rules == 36


def test_spread_empty_label_selector_matches_every_pod_from_1_38() -> None:
    """#141340: `labelSelector: {}` was ignored (it counted no pod); 1.38 counts every pod of the
    namespace. Two pods on a, none on b, maxSkew 1: the incoming pod must go to b."""
    nodes = [node("a", zone="z1"), node("b", zone="z2")]
    existing = [make_pod().name(f"e{i}").node("a").label("app", "x") for i in range(2)]
    pod = (
        make_pod()
        .name("p")
        .set(
            "spec.topologySpreadConstraints",
            [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}],
        )
    )
    assert run("1.37", nodes, pod, existing).feasible == ["a", "b"]
    att = run("1.38", nodes, pod, existing)
    assert att.feasible == ["b"]
    assert first(att, "a") == (
        "PodTopologySpread",
        "Unschedulable",
        ("node(s) didn't match pod topology spread constraints",),
    )


@pytest.mark.parametrize(
    ("pods", "pdbs", "violating_137", "violating_138"),
    [
        pytest.param(
            [bound("a", "n1", 0, app="web")], [pdb("p", 0, selector={})], [], ["a"], id="empty-selector-covers-all"
        ),
        pytest.param([bound("a", "n1", 0)], [pdb("p", 0, selector={})], [], ["a"], id="unlabeled-pod-too"),
        pytest.param([bound("a", "n1", 0, app="web")], [pdb("p", 0)], [], [], id="no-selector-still-none"),
        pytest.param([bound("a", "n1", 0)], [pdb("p", 0, {"app": "web"})], [], [], id="unlabeled-pod-mismatch"),
    ],
)
def test_preemption_honours_empty_selector_pdbs_from_1_38(
    pods: list, pdbs: list, violating_137: list[str], violating_138: list[str]
) -> None:
    """#141785: a policy/v1 PDB with `selector: {}` covers every pod of its namespace."""
    for empty_matches_all, want in ((False, violating_137), (True, violating_138)):
        bad, _ = dp.filter_pods_with_pdb_violation(infos(*pods), pdbs, empty_matches_all)
        assert [pi.pod.name for pi in bad] == want
    assert get("1.38").behaviour.preemption_pdb_empty_selector_matches_all
    assert not get("1.37").behaviour.preemption_pdb_empty_selector_matches_all
