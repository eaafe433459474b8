"""scheduling.k8s.io Workload and PodGroup: read in the apiVersions each release's API server
serves, validated as it validates them; bad input is one line naming the file, object and field."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api.workload import refuse_unserved
from kwhatif.errors import InputError
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import Document
from kwhatif.release.versions import get as get_version


def _pg(spec: dict[str, Any], version: str = "scheduling.k8s.io/v1alpha2") -> dict[str, Any]:
    return {"apiVersion": version, "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "ml"}, "spec": spec}


def _wl(spec: dict[str, Any], version: str = "scheduling.k8s.io/v1alpha2") -> dict[str, Any]:
    return {"apiVersion": version, "kind": "Workload", "metadata": {"name": "train", "namespace": "ml"}, "spec": spec}


GANG4 = {"schedulingPolicy": {"gang": {"minCount": 4}}}
REF = {"podGroupTemplateRef": {"workload": {"workloadName": "train", "podGroupTemplateName": "workers"}}}


def _doc(body: dict[str, Any], source: str = "objs.yaml") -> Document:
    return Document(body, source, body["kind"], body["apiVersion"])


def _load(body: dict[str, Any], release: str = "1.36.2") -> Any:
    doc = _doc(body)
    return build_cluster([doc], version=get_version(release))


def test_pod_group_and_workload_are_read() -> None:
    state = _load(_pg({**REF, **GANG4}))
    pg = state.pod_groups["ml/pg"]
    assert (pg.policy.gang, pg.policy.min_count, pg.workload_name, pg.template_name) == (True, 4, "train", "workers")
    wl = _load(
        _wl(
            {"podGroupTemplates": [{"name": "workers", **GANG4}, {"name": "driver", "schedulingPolicy": {"basic": {}}}]}
        )
    )
    tmpls = wl.scheduling_workloads["ml/train"].templates
    assert [(t.name, t.policy.describe()) for t in tmpls] == [("workers", "gang (minCount 4)"), ("driver", "basic")]


def test_pod_joins_its_group_by_scheduling_group() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w-0", "namespace": "ml"},
        "spec": {
            "containers": [{"name": "c", "image": "i"}],
            "schedulingGroup": {"podGroupName": "pg"},
            "nodeName": "n",
        },
    }
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "1"}}}
    state = build_cluster([_doc(node, "c.yaml"), _doc(pod, "c.yaml")], version=get_version("1.36.2"))
    assert state.pods[0].pod_group == "pg"


@pytest.mark.parametrize(
    "body,message",
    [
        pytest.param(
            _pg({**REF, "schedulingPolicy": {"gang": {"minCount": 0}}}),
            "objs.yaml: PodGroup ml/pg: spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1",
            id="min-count-zero",
        ),
        pytest.param(
            _pg({**REF, "schedulingPolicy": {"gang": {}}}),
            "objs.yaml: PodGroup ml/pg: spec.schedulingPolicy.gang.minCount: Required value",
            id="min-count-missing",
        ),
        pytest.param(
            _pg({**REF, "schedulingPolicy": {"gang": {"minCount": 2}, "basic": {}}}),
            "objs.yaml: PodGroup ml/pg: spec.schedulingPolicy: Invalid value: must specify exactly one of: `basic`, `gang`",
            id="both-policies",
        ),
        pytest.param(
            _pg({**REF}),
            "objs.yaml: PodGroup ml/pg: spec.schedulingPolicy: Invalid value: must specify one of: `basic`, `gang`",
            id="no-policy",
        ),
        pytest.param(
            _pg({"podGroupTemplateRef": {"workload": {"workloadName": "train"}}, **GANG4}),
            "objs.yaml: PodGroup ml/pg: spec.podGroupTemplateRef.workload.podGroupTemplateName: Required value",
            id="template-name-missing",
        ),
        pytest.param(
            _wl({"podGroupTemplates": []}),
            "objs.yaml: Workload ml/train: spec.podGroupTemplates: Required value: must have at least one item",
            id="no-templates",
        ),
        pytest.param(
            _wl({"podGroupTemplates": [{"name": f"t{i}", **GANG4} for i in range(9)]}),
            "objs.yaml: Workload ml/train: spec.podGroupTemplates: Too many: 9: must have at most 8 items",
            id="too-many-templates",
        ),
        pytest.param(
            _wl({"podGroupTemplates": [{"name": "w", **GANG4}, {"name": "w", **GANG4}]}),
            'objs.yaml: Workload ml/train: spec.podGroupTemplates[1].name: Duplicate value: "w"',
            id="duplicate-template",
        ),
        pytest.param(
            _wl({"podGroupTemplates": [{"name": "Workers", **GANG4}]}),
            'objs.yaml: Workload ml/train: spec.podGroupTemplates[0].name: Invalid value: "Workers": must be a valid DNS label',
            id="template-name-not-dns-label",
        ),
    ],
)
def test_invalid_objects_are_refused_in_one_line(body: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as ei:
        _load(body)
    assert str(ei.value) == message
    assert "\n" not in str(ei.value)


@pytest.mark.parametrize(
    "release,api_version,served",
    [
        pytest.param("1.36.2", "scheduling.k8s.io/v1alpha2", True, id="1.36-v1alpha2"),
        pytest.param("1.36.2", "scheduling.k8s.io/v1alpha1", False, id="1.36-no-v1alpha1"),
        pytest.param("1.36.2", "scheduling.k8s.io/v1beta1", False, id="1.36-no-v1beta1"),
        pytest.param("1.37", "scheduling.k8s.io/v1beta1", True, id="1.37-v1beta1"),
        pytest.param("1.37", "scheduling.k8s.io/v1alpha3", True, id="1.37-v1alpha3"),
        pytest.param("1.37", "scheduling.k8s.io/v1alpha2", False, id="1.37-no-v1alpha2"),
        pytest.param("1.35", "scheduling.k8s.io/v1alpha2", False, id="1.35-no-pod-group"),
        pytest.param("1.34", "scheduling.k8s.io/v1alpha2", False, id="1.34-no-workload-api"),
    ],
)
def test_pod_group_api_versions_per_release(release: str, api_version: str, served: bool) -> None:
    body = _pg({**REF, **GANG4}, api_version)
    state = _load(body, release)  # read in any version; refused once the release is known
    v = get_version(release)
    if served:
        refuse_unserved(state.pod_groups.values(), dict(v.behaviour.workload_api_served), str(v.release))
        return
    with pytest.raises(InputError) as ei:
        refuse_unserved(state.pod_groups.values(), dict(v.behaviour.workload_api_served), str(v.release))
    assert str(ei.value).startswith(
        f"objs.yaml: PodGroup ml/pg: apiVersion: unknown apiVersion '{api_version}' for PodGroup ("
    )
