"""The gang gates per release: in 1.37 GangScheduling and WorkloadAwarePreemption are no longer
gates (kube_features.go at kubernetes/kubernetes ead35706) and what they switched follows
GenericWorkload."""

from __future__ import annotations

import pytest

from kwhatif.release import versions
from kwhatif.release.workload_gates import GangGates, dependency_errors, gang_gates


@pytest.mark.parametrize(
    "release,gates,want",
    [
        pytest.param("1.36", "", GangGates(), id="1.36-defaults"),
        pytest.param("1.36", "GenericWorkload=true", GangGates(generic_workload=True), id="1.36-generic-only"),
        pytest.param(
            "1.36",
            "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true",
            GangGates(True, True, False, True),
            id="1.36-all",
        ),
        pytest.param("1.37", "", GangGates(), id="1.37-defaults"),
        pytest.param("1.37", "GenericWorkload=true", GangGates(True, True, False, True), id="1.37-generic-brings-all"),
        pytest.param(
            "1.37",
            "GenericWorkload=true,TopologyAwareWorkloadScheduling=true",
            GangGates(True, True, True, True),
            id="1.37-topology",
        ),
    ],
)
def test_gang_gates(release: str, gates: str, want: GangGates) -> None:
    v = versions.get(release, gates)
    assert gang_gates(v, {}) == want
    assert dependency_errors(v, {}) == []


@pytest.mark.parametrize(
    "release,gates,plugin",
    [
        pytest.param("1.36", "GenericWorkload=true", False, id="1.36-needs-its-gate"),
        pytest.param("1.36", "GenericWorkload=true,GangScheduling=true", True, id="1.36-gate-on"),
        pytest.param("1.37", "", False, id="1.37-off"),
        pytest.param("1.37", "GenericWorkload=true", True, id="1.37-generic-workload"),
    ],
)
def test_default_profile_has_gang_scheduling(release: str, gates: str, plugin: bool) -> None:
    v = versions.get(release, gates)
    assert ("GangScheduling" in [n for n, _ in v.default_plugins()]) is plugin
