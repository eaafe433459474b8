"""`kwhatif check` as a CI gate on real manifests (tests/e2e/realworld/gate, see SOURCES.md):
every object gets a verdict, and the run goes on past one the API server refuses."""

from __future__ import annotations

import json

RW = "tests/e2e/realworld"
GATE = f"{RW}/gate"
CLUSTER = "samples/cluster.yaml"


def check_json(run, *args: str) -> tuple[int, dict, str]:
    r = run("check", *args, "-o", "json")
    return r.code, json.loads(r.out) if r.out.strip() else {}, r.err


def verdicts(doc: dict) -> dict[str, tuple[str, int, int, str | None]]:
    return {
        f"{w['kind']} {w['namespace']}/{w['name']}": (w["verdict"], w["placed"], w["refused"], w["message"])
        for w in doc["workloads"]
    }


def test_a_missing_priority_class_is_that_workloads_verdict(run):
    code, d, err = check_json(run, f"{GATE}/priority-missing.yaml", "--cluster", CLUSTER)
    assert code == 1, err
    got = verdicts(d)
    assert got["Pod default/nginx"] == (
        "refused by Priority",
        0,
        1,
        'pods "nginx" is forbidden: no PriorityClass with name high-priority was found',
    )
    verdict, placed, refused, message = got["Deployment default/nginx-high"]
    assert (verdict, placed, refused) == ("refused by Priority", 0, 2)
    assert message is not None and message.startswith('pods "nginx-high-')
    assert message.endswith('" is forbidden: no PriorityClass with name high-priority was found')
    assert got["Deployment default/nginx-plain"] == ("fits", 1, 0, None)
    assert d["summary"]["refused"] == 3
    r = run("check", f"{GATE}/priority-missing.yaml", "--cluster", CLUSTER)
    assert r.code == 1
    assert "refused by Priority" in r.out and "1/3 workloads fit" in r.out


def test_an_api_version_the_release_does_not_serve_is_refused_and_the_rest_is_checked(run):
    code, d, err = check_json(run, f"{GATE}/unserved-versions.yaml", "--cluster", CLUSTER)
    assert code == 1, err
    got = verdicts(d)
    assert got["PodDisruptionBudget default/cockroachdb-budget"] == (
        "refused by the API server",
        0,
        0,
        'no matches for kind "PodDisruptionBudget" in version "policy/v1beta1"',
    )
    assert got["CronJob default/hello"] == (
        "refused by the API server",
        0,
        0,
        'no matches for kind "CronJob" in version "batch/v1beta1"',
    )
    assert got["Deployment default/hello-web"] == ("fits", 1, 0, None)
    r = run("check", f"{GATE}/unserved-versions.yaml", "--cluster", CLUSTER)
    assert r.code == 1, r.err
    assert "PodDisruptionBudget default/cockroachdb-budget (" in r.out
    assert "): refused by the API server\n" in r.out
    r = run("check", f"{GATE}/unserved-versions.yaml", "--cluster", CLUSTER, "-o", "markdown")
    assert r.code == 1, r.err
    assert (
        '| ❌ CronJob `default/hello` | ? | 0 | 0 | no matches for kind "CronJob" in version "batch/v1beta1" |' in r.out
    )


def test_a_dump_without_control_plane_pods_answers_as_its_newest_kubelet(run):
    # an EKS `cluster-info dump`: no kube-scheduler or kube-apiserver pod, kubelets v1.31.13-eks-ecaa3a6
    r = run("check", f"{GATE}/unserved-versions.yaml", "--cluster", f"{RW}/eks/cluster-info-dump.txt")
    assert r.code == 1, r.err
    assert r.out.splitlines()[-1].endswith(
        "(profile default-scheduler, 2 nodes, kube-scheduler 1.31.14 from the nodes' kubelets)"
    )
    assert (
        "kube-scheduler 1.31.14 taken from the nodes' kubelets: the state names no kube-scheduler or kube-apiserver "
        "image, and the control plane is at least as new as its newest kubelet (v1.31.13-eks-ecaa3a6; kubelets may "
        "be up to 3 minors older, never newer); give --scheduler-version to answer as the cluster's release"
    ) in r.out + r.err
