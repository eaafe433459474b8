"""`kwhatif autoscale --autoscaler karpenter` from the installed command, on samples/karpenter."""

from __future__ import annotations

import json

import pytest

CLUSTER = "samples/karpenter/cluster.yaml"
TYPES = "samples/karpenter/instance-types.yaml"
WORKLOAD = "samples/karpenter/workload.yaml"
BASE = ("autoscale", WORKLOAD, "--cluster", CLUSTER, "--instance-types", TYPES, "--scheduler-version", "1.33")


def test_json_report(run) -> None:
    r = run(*BASE, "-o", "json")
    assert r.code == 1, r.err  # the arm64 cache gets no node
    doc = json.loads(r.out)
    assert doc["kind"] == "AutoscaleReport" and doc["autoscaler"] == "karpenter"
    assert doc["nodePools"] == ["default-spot", "on-demand", "gpu"]
    outcomes = {p["pod"]["name"].rsplit("-", 2)[0]: p for p in doc["pods"]}
    assert outcomes["train"]["outcome"] == "scale-up" and outcomes["train"]["nodePool"] == "gpu"
    assert outcomes["edge-cache"]["outcome"] == "none"
    in_flight = [p for p in doc["pods"] if p["inFlight"]]
    assert [p["node"] for p in in_flight] == ["default-spot-q9rtx"]
    claims = {c["name"]: c for c in doc["scaleUp"]["nodeClaims"]}
    gpu = claims["gpu-1"]
    assert gpu["instanceTypes"] == ["g5.xlarge", "g5.2xlarge", "g5.12xlarge"]
    assert gpu["requirements"]["taints"] == ["nvidia.com/gpu=true:NoSchedule"]
    assert gpu["requirements"]["labels"]["workload"] == "gpu"
    assert (gpu["price"], gpu["zone"], gpu["capacityType"]) == (1.006, "us-east-1a", "on-demand")
    assert gpu["daemonSetOverhead"] == {"cpu": "125m", "memory": "128Mi", "pods": "2"}
    (nowhere,) = doc["scaleUp"]["noPool"]
    assert nowhere["reasons"]["gpu"] == "did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)"
    assert nowhere["reasons"]["on-demand"] == (
        "incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in "
        "kubernetes.io/arch In [amd64]"
    )
    assert doc["summary"] == {"pods": 10, "existing": 5, "scaleUp": 4, "none": 1, "nodeClaims": 2, "pricePerHour": 1.39}


def test_consolidation(run) -> None:
    r = run(*BASE, "--consolidation", "-o", "json")
    doc = json.loads(r.out)
    cons = doc["consolidation"]
    first = cons["candidates"][0]
    assert (first["node"], first["action"], first["reason"], first["kind"]) == (
        "ip-10-0-3-32.ec2.internal",
        "delete",
        "underutilized",
        "single-node",
    )
    stays = {s["node"]: s["why"] for s in cons["stays"]}
    assert stays["ip-10-0-1-10.ec2.internal"] == "node isn't managed by karpenter"
    assert stays["ip-10-0-2-21.ec2.internal"] == "pdb prevents pod evictions (PodDisruptionBudget=[shop/payments])"
    assert cons["budgets"] == {"default-spot": 1, "gpu": 0, "on-demand": 1}


@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "yaml"])
def test_every_format(run, fmt: str) -> None:
    r = run(*BASE, "--consolidation", "-o", fmt)
    assert r.code == 1, r.err
    assert "gpu-1" in r.out and "g5.xlarge" in r.out
    assert "ip-10-0-3-32.ec2.internal" in r.out


def test_default_is_karpenter_and_node_catalog(run) -> None:
    """Without --autoscaler and --instance-types: Karpenter (NodePools, no cluster-autoscaler groups)
    over the instance types of the cluster's nodes, with a note."""
    r = run("autoscale", WORKLOAD, "--cluster", CLUSTER, "--scheduler-version", "1.33", "-o", "json")
    doc = json.loads(r.out)
    assert doc["autoscaler"] == "karpenter"
    assert any("the catalog is the 3 instance type(s) of the cluster's own nodes" in n for n in doc["notes"])


def test_operator_options(run) -> None:
    r = run(*BASE, "--min-values-policy", "BestEffort", "--preference-policy", "Ignore", "-o", "json")
    assert json.loads(r.out)["options"] == {
        "minValuesPolicy": "BestEffort",
        "preferencePolicy": "Ignore",
        "spotToSpotConsolidation": "false",
    }


def test_bad_instance_types_file(run, tmp_path) -> None:
    bad = tmp_path / "types.yaml"
    bad.write_text(
        "apiVersion: kwhatif/v1\nkind: InstanceTypes\ninstanceTypes:\n"
        "- name: m5.large\n  capacity: {cpu: '2', memory: 8Gi}\n  offerings: [{zone: a, price: cheap}]\n"
    )
    r = run("autoscale", WORKLOAD, "--cluster", CLUSTER, "--instance-types", str(bad))
    assert r.code == 2
    assert r.out == ""
    assert r.err.strip().endswith(
        'instance type m5.large: instanceTypes[0].offerings[0].price: Invalid value: "cheap": must be a number of at least 0'
    )
    assert len(r.err.strip().splitlines()) == 1


def test_bad_nodepool(run, tmp_path) -> None:
    bad = tmp_path / "pools.yaml"
    bad.write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: broken}\nspec:\n  template:\n    spec:\n"
        "      requirements: [{key: karpenter.sh/capacity-type, operator: Within, values: [spot]}]\n"
    )
    r = run("autoscale", WORKLOAD, "--cluster", CLUSTER, "--node-pools", str(bad), "--instance-types", TYPES)
    assert r.code == 2
    assert 'NodePool broken: spec.template.spec.requirements[0].operator: Unsupported value: "Within"' in r.err


def test_consolidation_replaces_a_lone_on_demand_node(run, tmp_path) -> None:
    """The sample with only the on-demand node, running one small pod: Karpenter replaces it by a
    cheaper spot NodeClaim of the heaviest NodePool (on-demand to spot is allowed)."""
    import yaml

    from .conftest import ROOT

    doc = yaml.safe_load((ROOT / CLUSTER).read_text())
    keep = "ip-10-0-2-21.ec2.internal"
    items = []
    for item in doc["items"]:
        if item["kind"] == "Node" and item["metadata"]["name"] != keep:
            continue
        if item["kind"] == "Pod" and (
            item["spec"].get("nodeName") != keep or item["metadata"]["name"].startswith("payments")
        ):
            continue
        items.append(item)
    items.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": "tiny",
                "namespace": "shop",
                "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "tiny", "uid": "u", "controller": True}
                ],
            },
            "spec": {
                "nodeName": keep,
                "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "500m"}}}],
            },
            "status": {"phase": "Running"},
        }
    )
    doc["items"] = items
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump(doc))
    r = run(
        "autoscale", "--pending", "--cluster", str(cluster), "--instance-types", TYPES, "--consolidation", "-o", "json"
    )
    assert r.code == 0, r.err
    (cand,) = json.loads(r.out)["consolidation"]["candidates"]
    assert (cand["node"], cand["action"], cand["kind"]) == (keep, "replace", "single-node")
    repl = cand["replacement"]
    assert (repl["nodePool"], repl["capacityType"], repl["instanceTypes"][0]) == ("default-spot", "spot", "c5.large")
    assert cand["podsTo"] == {"shop/tiny": "the replacement NodeClaim"}
    assert cand["savingsPerHour"] == round(0.192 - repl["price"], 6)


def test_karpenter_and_kube_scheduler_disagree(run, tmp_path) -> None:
    """Karpenter reads a pod's node affinity matchExpressions only (requirements.go), so a pod
    pinned by matchFields to a node that does not exist looks placeable on an existing node to it:
    it nominates that node and launches nothing, while kube-scheduler refuses every node."""
    pod = tmp_path / "pinned.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: pinned, namespace: shop}\nspec:\n  affinity:\n"
        "    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n"
        "        - matchFields: [{key: metadata.name, operator: In, values: [ghost]}]\n"
        "  containers:\n  - {name: c, image: x, resources: {requests: {cpu: 100m}}}\n"
    )
    r = run(
        "autoscale",
        str(pod),
        "--cluster",
        CLUSTER,
        "--instance-types",
        TYPES,
        "--scheduler-version",
        "1.33",
        "-o",
        "json",
    )
    assert r.code == 1
    (p,) = json.loads(r.out)["pods"]
    assert p["outcome"] == "none"
    assert p["why"].startswith("Karpenter nominates existing node ip-10-0-1-10.ec2.internal and launches nothing, ")
    assert p["why"].endswith(
        "but kube-scheduler does not place it there: 0/4 nodes are available: 4 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )


def test_python_api_is_the_commands_document(run) -> None:
    """Cluster.autoscale(...) under Karpenter returns the report `kwhatif autoscale -o json` prints."""
    import kwhatif

    cluster = kwhatif.load_cluster(CLUSTER)
    report = cluster.autoscale(WORKLOAD, instance_types=TYPES, consolidation=True, scheduler_version="1.33")
    r = run(*BASE, "--consolidation", "-o", "json")
    assert report.to_dict() == json.loads(r.out)
    assert int(report.exit_code) == r.code == 1


def test_python_api_refuses_an_unknown_operator_option() -> None:
    """The API takes Karpenter's operator options as the command's choices, and names the bad one."""
    import kwhatif
    from kwhatif.errors import InputError

    cluster = kwhatif.load_cluster(CLUSTER)
    with pytest.raises(InputError) as e:
        cluster.autoscale(WORKLOAD, instance_types=TYPES, preference_policy="Prefer", scheduler_version="1.33")
    assert str(e.value) == "preference_policy: must be one of Respect, Ignore, not 'Prefer'"
