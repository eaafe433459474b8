"""`kwhatif` on real-world manifests and cluster dumps (tests/e2e/realworld, see SOURCES.md):
admission, controllers and CI behaviour that change the answer."""

from __future__ import annotations

import json

RW = "tests/e2e/realworld"
EKS = f"{RW}/eks/cluster-info-dump.txt"


def check_json(run, *args: str) -> tuple[int, dict, str]:
    r = run("check", *args, "-o", "json")
    return r.code, json.loads(r.out) if r.out.strip() else {}, r.err


def test_kubernetes_io_prefixed_resources_are_native(run):
    # v1.30 accepts kubernetes.io/-prefixed container resources (no standard name needed, and
    # overcommit allowed); the scheduler then counts them like any scalar resource
    code, d, err = check_json(run, f"{RW}/derived/job-kubernetes-io-resource.yaml", "--cluster", EKS)
    assert code == 1, err
    (w,) = d["workloads"]
    assert (w["kind"], w["name"], w["desired"], w["placed"]) == ("Job", "j-e2e-1", 1, 0)
    assert w["dominantReason"] == "Insufficient kubernetes.io/something"
    assert w["message"].startswith(
        "0/2 nodes are available: 2 Insufficient kubernetes.io/something, 2 Insufficient subdomain.kubernetes.io/something."
    )


INVALID_LABEL_VALUE_ERROR = (
    '[0].matchExpressions[0].values[0][kubernetes.io/os]: Invalid value: "invalid value: ___@#$%^": a valid label '
    "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def test_node_affinity_value_the_scheduler_cannot_parse(run):
    # the API server stores a NotIn/In value that is no label value; the scheduler's selector
    # parsing rejects the term: a required term never matches, a preferred one fails PreScore
    code, d, err = check_json(run, f"{RW}/derived/selenium-hub-invalid-node-affinity.yaml", "--cluster", EKS)
    assert code == 1, err
    rows = {w["name"]: w for w in d["workloads"]}
    required = rows["selenium-hub-required"]
    assert required["message"] == (
        "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    (res,) = [r for r in d["results"] if r["pod"]["name"].startswith("selenium-hub-required-")]
    assert f"the scheduler cannot parse this required node affinity term, so it never matches: nodeSelectorTerms{INVALID_LABEL_VALUE_ERROR}" in res["hints"]
    preferred = rows["selenium-hub-preferred"]
    assert preferred["message"] == f'running PreScore plugin "NodeAffinity": {INVALID_LABEL_VALUE_ERROR}'
    (res,) = [r for r in d["results"] if r["pod"]["name"].startswith("selenium-hub-preferred-")]
    assert res["status"] == "Error"
