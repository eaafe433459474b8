"""`kwhatif check` with objects the API server refuses for a field: a verdict each, the rest checked."""

from __future__ import annotations

import json

import pytest
import yaml

CLUSTER = "samples/cluster.yaml"

_QUANTITY = "spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: \"abc\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: good}
spec:
  replicas: 2
  selector: {matchLabels: {app: good}}
  template:
    metadata: {labels: {app: good}}
    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: bad}
spec:
  replicas: 3
  selector: {matchLabels: {app: bad}}
  template:
    metadata: {labels: {app: bad}}
    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: abc}}}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: negative}
spec:
  replicas: -1
  selector: {matchLabels: {app: negative}}
  template:
    metadata: {labels: {app: negative}}
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad-toleration}
spec:
  tolerations: [{key: "a b", operator: Exists}]
  containers: [{name: c, image: i}]
---
apiVersion: v1
kind: Pod
metadata: {name: fine}
spec:
  containers: [{name: c, image: i}]
"""

_KEY_ERROR = (
    "spec.tolerations[0].key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', "
    "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
    "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def test_one_invalid_workload_among_valid_ones(run, tmp_path):
    manifest = tmp_path / "release.yaml"
    manifest.write_text(_MANIFEST)
    r = run("check", str(manifest), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    assert "Traceback" not in r.err
    d = json.loads(r.out)
    got = {
        (w["kind"], w["name"]): (w["verdict"], w["desired"], w["placed"], w["refused"], w["message"])
        for w in d["workloads"]
    }
    assert got == {
        ("Deployment", "good"): ("fits", 2, 2, 0, None),
        ("Deployment", "bad"): ("refused by the API server", 3, 0, 3, _QUANTITY),
        ("StatefulSet", "negative"): (
            "refused by the API server",
            None,
            0,
            0,
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        ),
        ("Pod", "bad-toleration"): ("refused by the API server", 1, 0, 1, _KEY_ERROR),
        ("Pod", "fine"): ("fits", 1, 1, 0, None),
    }
    assert d["summary"]["workloads"] == 5
    assert d["summary"]["fit"] == 2
    assert d["summary"]["doNotFit"] == 3
    assert d["summary"]["refused"] == 4
    assert d["summary"]["placed"] == 3

    table = run("check", str(manifest), "--cluster", CLUSTER)
    assert table.code == 1, table.err
    assert f"Deployment default/bad ({manifest}:11): refused by the API server\n  {_QUANTITY}\n" in table.out
    assert f"  {_KEY_ERROR}\n" in table.out
    assert "2/5 workloads fit" in table.out


def test_a_selector_that_does_not_select_the_template_is_that_workloads_refusal(run, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {app: x}}\n"
        "  template:\n    metadata: {labels: {app: y}}\n    spec: {containers: [{name: c, image: i}]}\n"
    )
    r = run("check", str(bad), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    (w,) = json.loads(r.out)["workloads"]
    assert w["verdict"] == "refused by the API server"
    assert w["message"] == (
        'spec.template.metadata.labels: Invalid value: {"app": "y"}: `selector` does not match template `labels`'
    )


def test_unreadable_yaml_is_still_exit_2(run, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Deployment\n  bad: [\n")
    r = run("check", str(bad), "--cluster", CLUSTER)
    assert r.code == 2
    assert "Traceback" not in r.err


# Cases of upstream's toleration validation tests (pkg/apis/core/validation), transcribed: the
# toleration and the field error the API server answers (None: accepted).
_TOLERATIONS = {
    "exists-with-key": ({"key": "foo", "operator": "Exists", "effect": "NoSchedule"}, None),
    "equal-with-value": ({"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}, None),
    "empty-operator-means-equal": ({"key": "foo", "value": "bar"}, None),
    "empty-key-exists-matches-all": ({"operator": "Exists"}, None),
    "empty-key-exists-with-effect": ({"operator": "Exists", "effect": "NoExecute"}, None),
    "qualified-key": ({"key": "example.com/foo", "operator": "Exists"}, None),
    "noexecute-with-seconds": (
        {"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
        None,
    ),
    "negative-seconds": ({"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -1}, None),
    "invalid-key": (
        {"key": "nospecialchars^=@", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
        'spec.tolerations[0].key: Invalid value: "nospecialchars^=@": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ),
    "empty-key-with-equal": (
        {"operator": "Equal", "value": "bar", "effect": "NoSchedule"},
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which '
        'means "match all values and all keys"',
    ),
    "exists-with-value": (
        {"key": "foo", "operator": "Exists", "value": "bar", "effect": "NoSchedule"},
        'spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"foo", Operator:"Exists", Value:"bar", '
        "Effect:\"NoSchedule\", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'",
    ),
    "invalid-value": (
        {"key": "foo", "operator": "Equal", "value": "bad value!", "effect": "NoSchedule"},
        'spec.tolerations[0].operator: Invalid value: "bad value!": a valid label must be an empty string or '
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ),
    "invalid-effect": (
        {"key": "foo", "operator": "Exists", "effect": "NoScheduleNoAdmit"},
        'spec.tolerations[0].effect: Unsupported value: "NoScheduleNoAdmit": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"',
    ),
    "seconds-without-noexecute": (
        {"key": "foo", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 20},
        "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set",
    ),
    "unsupported-operator": (
        {"key": "foo", "operator": "In", "value": "bar"},
        'spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"',
    ),
}


@pytest.mark.parametrize("version", ["1.30", "1.34"])
def test_toleration_validation(run, tmp_path, version):
    docs = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"tolerations": [toleration], "containers": [{"name": "c", "image": "i"}]},
        }
        for name, (toleration, _) in _TOLERATIONS.items()
    ]
    manifest = tmp_path / "pods.yaml"
    manifest.write_text(yaml.safe_dump_all(docs))
    r = run("check", str(manifest), "--cluster", CLUSTER, "--scheduler-version", version, "-o", "json")
    assert r.code == 1, r.err
    got = {
        w["name"]: w["message"] if w["verdict"] == "refused by the API server" else None
        for w in json.loads(r.out)["workloads"]
    }
    assert got == {name: error for name, (_, error) in _TOLERATIONS.items()}


def test_a_workload_name_the_api_server_refuses_and_verdicts_in_document_order(run, tmp_path):
    manifest = tmp_path / "names.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: first}\nspec: {containers: [{name: c, image: i}]}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: second}\n"
        "spec: {containers: [{name: c, image: i, resources: {requests: {memory: 1kk}}}]}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: third}\nspec: {containers: [{name: c, image: i}]}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: Bad_Name}\nspec:\n"
        "  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n"
        "    spec: {containers: [{name: c, image: i}]}\n"
    )
    r = run("check", str(manifest), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    got = [(w["kind"], w["name"], w["verdict"], w["message"]) for w in json.loads(r.out)["workloads"]]
    assert got == [
        (
            "Deployment",
            "Bad_Name",
            "refused by the API server",
            'metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case '
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
        ("Pod", "first", "fits", None),
        (
            "Pod",
            "second",
            "refused by the API server",
            'spec.containers[0].resources.requests[memory]: Invalid value: "1kk": unable to parse quantity\'s suffix',
        ),
        ("Pod", "third", "fits", None),
    ]


def test_an_invalid_update_of_a_running_workload_leaves_its_pods_running(run, tmp_path):
    web = tmp_path / "web.yaml"
    web.write_text(open("samples/workloads/release.yaml").read().split("---")[0].replace('cpu: "1"', 'cpu: "abc"'))
    r = run("check", str(web), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    (w,) = json.loads(r.out)["workloads"]
    assert (w["verdict"], w["desired"], w["replaced"], w["refused"]) == ("refused by the API server", 8, 0, 8)
    assert w["notes"] == ["the API server refuses the update: the 6 running pod(s) keep running"]
    assert w["message"] == (
        'spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "abc": quantities must match the '
        "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


def test_an_invalid_object_that_runs_no_pods_is_its_own_refusal(run, tmp_path):
    # a LimitRange and a PriorityClass the API server refuses: each its verdict, the rest created
    manifest = tmp_path / "objects.yaml"
    manifest.write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: bad-pc}\nvalue: high\n---\n"
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: default}\nspec:\n  limits:\n"
        "  - type: Container\n    default: {cpu: lots}\n---\n"
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: good-pc}\nvalue: 1000\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priorityClassName: good-pc\n"
        "  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n"
    )
    r = run("check", str(manifest), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    assert "Traceback" not in r.err
    got = {(w["kind"], w["name"]): (w["verdict"], w["message"]) for w in json.loads(r.out)["workloads"]}
    assert got == {
        ("Pod", "p"): ("fits", None),
        ("PriorityClass", "bad-pc"): ("refused by the API server", 'value: expected an integer, got string "high"'),
        ("LimitRange", "lr"): (
            "refused by the API server",
            'spec.limits[0].default[cpu]: Invalid value: "lots": quantities must match the regular expression '
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
    }
    # the refused LimitRange is never created, so it sets no defaults on the pod
    table = run("check", str(manifest), "--cluster", CLUSTER)
    assert table.code == 1
    assert "1/3 workloads fit" in table.out
