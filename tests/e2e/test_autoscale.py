"""`kwhatif autoscale` and `kwhatif check --autoscale` end to end: the sample autoscaled cluster, a
real EKS dump (groups discovered from the provider label), a GKE-labelled cluster with the status
ConfigMap's older text form, and a cluster scaled to zero."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

SAMPLE = ["--cluster", "samples/autoscale/cluster.yaml", "--node-groups", "samples/autoscale/nodegroups.yaml"]
ROLLOUT = "samples/autoscale/rollout.yaml"
EKS = Path("/work/shared/realworld/eks-cluster-info/cluster-info-dump.txt")


def doc(r):
    assert r.err == "" or "note:" in r.err, r.err
    return json.loads(r.out)


def outcomes(d):
    return {p["pod"]["name"].split("-")[0]: [] for p in d["pods"]} | {
        name: [p["outcome"] for p in d["pods"] if p["pod"]["name"].split("-")[0] == name]
        for name in {p["pod"]["name"].split("-")[0] for p in d["pods"]}
    }


def test_sample_one_loop(run):
    r = run("autoscale", ROLLOUT, *SAMPLE, "-o", "json")
    assert r.code == 1  # search: no group can host it
    d = doc(r)
    assert (d["kind"], d["autoscaler"]) == ("AutoscaleReport", "cluster-autoscaler")
    o = outcomes(d)
    assert o["web"] == ["existing"] * 5 + ["none"] * 4
    assert o["trainer"] == ["scale-up"] and o["search"] == ["none"]
    up = d["scaleUp"]
    assert up["expander"] == "least-waste"
    assert [(x["nodeGroup"], x["nodeCount"], len(x["pods"])) for x in up["options"]] == [
        ("general", 2, 4),
        ("compute", 1, 4),
        ("gpu", 1, 1),
    ]
    assert up["chosen"] == [
        {"nodeGroup": "gpu", "nodeCount": 1, "before": 0, "after": 1, "maxSize": 2, "nodes": ["gpu-new-0"]}
    ]
    assert up["expanderSteps"] == [{"expander": "least-waste", "kept": ["gpu"]}]
    web_waiting = [p["why"] for p in d["pods"] if p["pod"]["name"].startswith("web") and p["outcome"] == "none"]
    assert web_waiting == ["waits for a later scale-up"] * 4
    (no_group,) = up["noGroup"]
    assert no_group["reasons"] == {
        "compute": "Insufficient memory",
        "general": "Insufficient memory",
        "gpu": "node(s) had untolerated taint {nvidia.com/gpu: true}; Insufficient memory",
    }
    # the gpu group is at zero: its template, with the DaemonSet pod a new node runs
    gpu = next(g for g in d["nodeGroups"] if g["name"] == "gpu")
    assert gpu["template"]["from"] == "template"
    assert gpu["template"]["pods"] == ["kube-system/aws-node-template-node-for-gpu"]
    assert (gpu["before"], gpu["after"]) == (0, 1)
    general = next(g for g in d["nodeGroups"] if g["name"] == "general")
    assert general["template"]["from"] == "node ip-10-0-1-11.ec2.internal"
    assert d["summary"] == {"pods": 11, "existing": 5, "scaleUp": 1, "none": 5, "waiting": 4, "nodesAdded": {"gpu": 1}}


def test_sample_loops_until_nothing_changes(run):
    d = doc(run("autoscale", ROLLOUT, *SAMPLE, "--loops", "5", "-o", "json"))
    assert [[(c["nodeGroup"], c["nodeCount"]) for c in s["chosen"]] for s in [d["scaleUp"], *d["loops"]]] == [
        [("gpu", 1)],
        [("general", 2)],
        [],
    ]
    assert d["loops"][-1]["skipped"] == [{"nodeGroup": "general", "reason": "max node group size reached"}]
    assert d["summary"]["nodesAdded"] == {"general": 2, "gpu": 1}
    assert outcomes(d)["web"] == ["existing"] * 5 + ["scale-up"] * 4
    # the pod no group can host tells a template's filter from a group skipped before simulation
    (search,) = [p for p in d["pods"] if p["pod"]["name"].startswith("search")]
    assert search["why"] == "no group can host it"
    assert d["loops"][-1]["noGroup"][0]["reasons"]["general"] == "skipped: max node group size reached"


@pytest.mark.parametrize(
    ("flags", "chosen", "tie"),
    [
        # general and compute both take the 4 web pods: the random fallback breaks the tie, named
        (["--expander", "most-pods"], "compute", ["compute", "general"]),
        (["--expander", "least-nodes"], "compute", ["compute", "gpu"]),  # one node each
        (["--expander", "priority"], "general", []),
        (["--expander", "random"], "compute", ["compute", "general", "gpu"]),
    ],
)
def test_expanders(run, tmp_path, flags, chosen, tie):
    ngs = yaml.safe_load(Path("samples/autoscale/nodegroups.yaml").read_text())
    ngs["priorities"] = {10: [".*"], 50: ["general"]}
    f = tmp_path / "ng.yaml"
    f.write_text(yaml.safe_dump(ngs))
    d = doc(
        run(
            "autoscale",
            ROLLOUT,
            "--cluster",
            "samples/autoscale/cluster.yaml",
            "--node-groups",
            str(f),
            *flags,
            "-o",
            "json",
        )
    )
    assert d["scaleUp"]["chosen"][0]["nodeGroup"] == chosen
    assert d["scaleUp"]["tie"] == tie


def test_price_expander(run):
    d = doc(run("autoscale", ROLLOUT, *SAMPLE, "--expander", "price", "-o", "json"))
    assert d["scaleUp"]["expanderSteps"][0]["expander"] == "price"
    # general's 4-cpu nodes are nearest the preferred node size (2 cpus for 3 nodes) and cheapest
    assert d["scaleUp"]["chosen"][0]["nodeGroup"] == "general"
    assert [o["debug"] for o in d["scaleUp"]["options"]] == [
        "price score=4.1703",
        "price score=29.9393",
        "price score=16979.6268",
    ]


def test_limits(run):
    d = doc(run("autoscale", ROLLOUT, *SAMPLE, "--max-nodes-total", "3", "-o", "json"))
    assert d["scaleUp"]["chosen"] == []
    assert {p["why"] for p in d["pods"] if p["outcome"] == "none"} >= {"no group can host it"}
    # --cores-total: 24 cores in use, room for one 4-core node: the gpu node takes it
    d = doc(run("autoscale", ROLLOUT, *SAMPLE, "--cores-total", "0:28", "--loops", "3", "-o", "json"))
    assert d["summary"]["nodesAdded"] == {"gpu": 1}
    skipped = {s["nodeGroup"]: s["reason"] for s in d["loops"][-1]["skipped"]}
    assert skipped == {
        "general": 'exceeded quota: "cluster-wide", resources: cpu',
        "compute": 'exceeded quota: "cluster-wide", resources: cpu',
        "gpu": 'exceeded quota: "cluster-wide", resources: cpu',
    }


def test_balance_similar_node_groups(run, tmp_path):
    ngs = yaml.safe_load(Path("samples/autoscale/nodegroups.yaml").read_text())
    twin = dict(ngs["nodeGroups"][0], name="general-b", maxSize=3)
    twin.pop("nodeSelector")
    twin["template"] = {
        "metadata": {
            "labels": {
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "node.kubernetes.io/instance-type": "m5.xlarge",
                "eks.amazonaws.com/nodegroup": "general",
                "topology.kubernetes.io/zone": "us-east-1c",
            }
        },
        "status": {
            "capacity": {"cpu": "4", "memory": "16Gi", "pods": "58", "ephemeral-storage": "100Gi"},
            "allocatable": {"cpu": "3920m", "memory": "15784Mi", "pods": "58", "ephemeral-storage": "95Gi"},
        },
    }
    ngs["nodeGroups"].append(twin)
    f = tmp_path / "ng.yaml"
    f.write_text(yaml.safe_dump(ngs))
    args = [
        "autoscale",
        ROLLOUT,
        "--cluster",
        "samples/autoscale/cluster.yaml",
        "--node-groups",
        str(f),
        "--loops",
        "2",
    ]
    d = doc(run(*args, "--balance-similar-node-groups", "-o", "json"))
    later = d["loops"][0]
    # general (2 nodes) and general-b (none) are alike: the two new nodes even them out
    assert [(c["nodeGroup"], c["nodeCount"], c["after"]) for c in later["chosen"]] == [("general-b", 2, 2)]
    assert later["options"][0]["similarNodeGroups"] == ["general-b"]
    d = doc(run(*args, "-o", "json"))
    assert [(c["nodeGroup"], c["nodeCount"]) for c in d["loops"][0]["chosen"]] == [("general", 2)]


def test_check_autoscale(run, tmp_path):
    r = run("check", ROLLOUT, *SAMPLE, "--autoscale", "-o", "json")
    assert r.code == 1
    d = json.loads(r.out)
    verdicts = {w["name"]: w["verdict"] for w in d["workloads"]}
    assert verdicts == {"web": "fits after scale-up", "trainer": "fits after scale-up", "search": "DOES NOT FIT"}
    web = next(w for w in d["workloads"] if w["name"] == "web")
    assert web["message"] == "fits after scale-up: 4 pod(s) on 2 new node(s) of general"
    search = next(w for w in d["workloads"] if w["name"] == "search")
    assert search["message"].endswith(
        "cluster-autoscaler: no group can host it (compute: Insufficient memory; general: skipped: max node group size "
        "reached; gpu: node(s) had untolerated taint {nvidia.com/gpu: true}; Insufficient memory)"
    )
    assert d["autoscale"]["kind"] == "AutoscaleReport"
    assert d["summary"]["fitAfterScaleUp"] == 2
    # without the workload no group can host: exit 0; --strict fails what needs a scale-up
    docs = [x for x in yaml.safe_load_all(Path(ROLLOUT).read_text()) if x["metadata"]["name"] != "search"]
    f = tmp_path / "rollout.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    r = run("check", str(f), *SAMPLE, "--autoscale")
    assert r.code == 0, r.out
    assert "fits after scale-up" in r.out
    assert run("check", str(f), *SAMPLE, "--autoscale", "--strict").code == 1
    assert run("check", str(f), *SAMPLE[:2]).code == 1  # without --autoscale: it does not fit
    r = run("check", str(f), "--cluster", "samples/autoscale/cluster.yaml", "--node-groups", "x.yaml")
    assert r.code == 2 and "go with --autoscale" in r.err


@pytest.mark.parametrize("fmt", ["table", "wide", "yaml", "markdown", "html"])
def test_formats(run, fmt):
    r = run("autoscale", ROLLOUT, *SAMPLE, "--scale-down", "-o", fmt)
    assert r.code == 1, r.err
    assert "gpu" in r.out and "search" in r.out
    if fmt == "html":
        assert r.out.startswith("<!DOCTYPE html>") and '<span class="n new">' in r.out
    if fmt == "yaml":
        assert yaml.safe_load(r.out)["kind"] == "AutoscaleReport"


def test_scale_down(run):
    d = doc(run("autoscale", ROLLOUT, *SAMPLE, "--scale-down", "-o", "json"))
    sd = d["scaleDown"]
    assert sd["removable"] == []
    assert {n["node"]: n["reason"].split(":")[0] for n in sd["notRemovable"]} == {
        "ip-10-0-1-11.ec2.internal": "NotUnderutilized",
        "ip-10-0-1-21.ec2.internal": "NotUnderutilized",
        "ip-10-0-2-12.ec2.internal": "NotUnderutilized",
    }


def test_scale_down_of_an_idle_cluster(run, tmp_path):
    """Without the rollout, one general node's pod can move to the other: it goes (minSize 1 keeps
    the other); compute is at its minimum."""
    empty = tmp_path / "none.yaml"
    empty.write_text("apiVersion: v1\nkind: List\nitems: []\n")
    d = doc(
        run(
            "autoscale", "--pending", *SAMPLE, "--scale-down", "--scale-down-utilization-threshold", "0.6", "-o", "json"
        )
    )
    sd = d["scaleDown"]
    assert [(r["node"], r["podsTo"]) for r in sd["removable"]] == [
        ("ip-10-0-1-11.ec2.internal", {"shop/api-7d4f9-2kq8x": "ip-10-0-1-21.ec2.internal"})
    ]
    reasons = {n["node"]: n["reason"] for n in sd["notRemovable"]}
    assert reasons["ip-10-0-2-12.ec2.internal"].startswith("NodeGroupMinSizeReached: general")


def test_scale_from_zero(run, tmp_path):
    """No node at all: every group at zero with its template; the pods go to new nodes."""
    cluster = yaml.safe_load(Path("samples/autoscale/cluster.yaml").read_text())
    cluster["items"] = [o for o in cluster["items"] if o["kind"] not in ("Node", "Pod")]
    c = tmp_path / "cluster.yaml"
    c.write_text(yaml.safe_dump(cluster))
    ngs = {
        "apiVersion": "kwhatif/v1",
        "kind": "NodeGroups",
        "nodeGroups": [
            {
                "name": "small",
                "minSize": 0,
                "maxSize": 5,
                "template": {
                    "metadata": {"labels": {"kubernetes.io/os": "linux"}},
                    "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "58"}},
                },
            }
        ],
    }
    f = tmp_path / "ng.yaml"
    f.write_text(yaml.safe_dump(ngs))
    pods = tmp_path / "web.yaml"
    docs = list(yaml.safe_load_all(Path(ROLLOUT).read_text()))[:1]
    pods.write_text(yaml.safe_dump_all(docs))
    d = doc(run("autoscale", str(pods), "--cluster", str(c), "--node-groups", str(f), "-o", "json"))
    assert d["scaleUp"]["chosen"][0]["nodeGroup"] == "small"
    assert d["scaleUp"]["chosen"][0]["nodeCount"] == 3  # 3 of 9 one-cpu pods per node beside aws-node
    assert d["nodeGroups"][0]["template"]["pods"] == ["kube-system/aws-node-template-node-for-small"]
    assert d["summary"]["scaleUp"] == 9


@pytest.mark.skipif(not EKS.exists(), reason="the shared real-world dumps are not here")
def test_real_eks_dump(run, tmp_path):
    """A real EKS cluster-info dump: its managed node group is found by eks.amazonaws.com/nodegroup;
    no status ConfigMap, so its maximum is unknown (unbounded, said)."""
    inflate = Path("/work/shared/realworld/eks-ecommerce-app/autoscaling_test-inflate.yaml").read_text()
    f = tmp_path / "inflate.yaml"
    f.write_text(inflate.replace("replicas: 0 ", "replicas: 10 "))
    r = run("autoscale", str(f), "--cluster", str(EKS), "-o", "json")
    assert r.code == 1
    d = json.loads(r.out)
    (g,) = d["nodeGroups"]
    assert (g["name"], g["maxSize"], g["source"]) == ("ecommerce-dev-node-group", None, "eks.amazonaws.com/nodegroup")
    assert any("maximum size is unknown" in n for n in d["notes"])
    # its pods ask for Karpenter's nodes (managed-by: karpenter): the group's template refuses them
    assert d["scaleUp"]["noGroup"][0]["reasons"] == {
        "ecommerce-dev-node-group": "node(s) didn't match Pod's node affinity/selector"
    }
    # without that affinity: one 1-cpu pod per t3.small, the group grows
    body = list(yaml.safe_load_all(f.read_text()))
    dep = next(x for x in body if x and x.get("kind") == "Deployment")
    dep["spec"]["template"]["spec"].pop("affinity", None)
    f.write_text(yaml.safe_dump(dep))
    d = json.loads(run("autoscale", str(f), "--cluster", str(EKS), "-o", "json").out)
    assert d["scaleUp"]["chosen"][0]["nodeGroup"] == "ecommerce-dev-node-group"
    assert d["summary"]["none"] == 0


def test_gke_labels_and_text_status(run, tmp_path):
    """Nodes labelled cloud.google.com/gke-nodepool, sizes from the status ConfigMap's older text
    form; a pool at its maximum is skipped."""

    def node(name, pool):
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": {"kubernetes.io/hostname": name, "cloud.google.com/gke-nodepool": pool},
            },
            "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}},
        }

    status = """Cluster-autoscaler status at 2026-12-01 10:00:00.000000 +0000 UTC:
Cluster-wide:
  Health:      Healthy (ready=3 unready=0 notStarted=0 longNotStarted=0 registered=3 longUnregistered=0)
NodeGroups:
  Name:        https://www.googleapis.com/compute/v1/projects/p/zones/z/instanceGroups/gke-c-default-pool-1a2b
  Health:      Healthy (ready=2 unready=0 notStarted=0 longNotStarted=0 registered=2 longUnregistered=0 cloudProviderTarget=2 (minSize=1, maxSize=2))
  Name:        https://www.googleapis.com/compute/v1/projects/p/zones/z/instanceGroups/gke-c-batch-pool-3c4d
  Health:      Healthy (ready=1 unready=0 notStarted=0 longNotStarted=0 registered=1 longUnregistered=0 cloudProviderTarget=1 (minSize=0, maxSize=6))
"""
    items = [
        node("gke-c-default-pool-1a2b-x1", "default-pool"),
        node("gke-c-default-pool-1a2b-x2", "default-pool"),
        node("gke-c-batch-pool-3c4d-y1", "batch-pool"),
    ]
    items.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "cluster-autoscaler-status", "namespace": "kube-system"},
            "data": {"status": status},
        }
    )
    c = tmp_path / "gke.yaml"
    c.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    pods = tmp_path / "pods.yaml"
    pods.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "job", "namespace": "default"},
                "spec": {
                    "replicas": 5,
                    "selector": {"matchLabels": {"app": "job"}},
                    "template": {
                        "metadata": {"labels": {"app": "job"}},
                        "spec": {
                            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1500m"}}}]
                        },
                    },
                },
            }
        )
    )
    d = doc(run("autoscale", str(pods), "--cluster", str(c), "-o", "json"))
    sizes = {g["name"]: (g["minSize"], g["maxSize"], g["before"]) for g in d["nodeGroups"]}
    assert sizes == {"batch-pool": (0, 6, 1), "default-pool": (1, 2, 2)}
    assert d["scaleUp"]["skipped"] == [{"nodeGroup": "default-pool", "reason": "max node group size reached"}]
    assert d["scaleUp"]["chosen"] == [
        {
            "nodeGroup": "batch-pool",
            "nodeCount": 2,
            "before": 1,
            "after": 3,
            "maxSize": 6,
            "nodes": ["batch-pool-new-0", "batch-pool-new-1"],
        }
    ]


def test_karpenter_without_node_pools(run):
    r = run("autoscale", ROLLOUT, *SAMPLE, "--autoscaler", "karpenter")
    assert r.code == 2
    assert r.err.strip() == "kwhatif: error: no karpenter.sh/v1 NodePool in the cluster state or in --node-pools"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("apiVersion: kwhatif/v1\nkind: NodeGroups\nnodeGroups: [{name: a, maxSize: x}]\n", "nodeGroups[0].maxSize"),
        (
            "apiVersion: kwhatif/v1\nkind: NodeGroups\nnodeGroups: [{name: a, nodes: [nope]}]\n",
            'nodeGroups[0].nodes[0]: Invalid value: "nope": no such node',
        ),
        (
            "apiVersion: kwhatif/v1\nkind: NodeGroups\nnodeGroups: [{name: a, minSize: 3, maxSize: 1}]\n",
            "must not be less than minSize",
        ),
        ("apiVersion: v1\nkind: Foo\n", "must be kwhatif/v1 NodeGroups"),
        (
            "apiVersion: kwhatif/v1\nkind: NodeGroups\npriorities: {1: ['(']}\nnodeGroups: [{name: a}]\n",
            "priorities[1]",
        ),
    ],
)
def test_bad_node_groups_file(run, tmp_path, body, error):
    f = tmp_path / "ng.yaml"
    f.write_text(body)
    r = run("autoscale", ROLLOUT, "--cluster", "samples/autoscale/cluster.yaml", "--node-groups", str(f))
    assert r.code == 2
    assert r.err.startswith(f"kwhatif: error: {f}") and error in r.err
    assert len(r.err.strip().splitlines()) == 1


def test_help_and_nothing_to_do(run):
    r = run("autoscale", "--help")
    assert r.code == 0 and "--node-groups" in r.out and "--scale-down" in r.out and "--autoscaler" in r.out
    r = run("autoscale", *SAMPLE)
    assert r.code == 2 and "nothing to autoscale for" in r.err


def test_live_and_snapshot_read_the_autoscaler_config_maps(run, tmp_path):
    """Live, the status ConfigMap gives the groups' sizes; `kwhatif snapshot` saves it (and the
    priority expander's), not the other ConfigMaps of kube-system."""
    from tests.e2e.fake_apiserver import FakeAPIServer

    items = yaml.safe_load(Path("samples/autoscale/cluster.yaml").read_text())["items"]
    other = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "coredns", "namespace": "kube-system"},
        "data": {"Corefile": "."},
    }
    prio = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cluster-autoscaler-priority-expander", "namespace": "kube-system"},
        "data": {"priorities": "10:\n  - .*\n50:\n  - compute\n"},
    }
    with FakeAPIServer([*items, other, prio]) as api:
        kubeconfig = api.kubeconfig(str(tmp_path / "kubeconfig"))
        live = run("autoscale", ROLLOUT, "--kubeconfig", kubeconfig, "--expander", "priority", "-o", "json")
        snap = tmp_path / "snap.json"
        assert run("snapshot", str(snap), "--kubeconfig", kubeconfig).code == 0
    d = json.loads(live.out)
    assert {g["name"]: (g["minSize"], g["maxSize"]) for g in d["nodeGroups"]} == {"compute": (1, 3), "general": (1, 4)}
    assert d["scaleUp"]["chosen"][0]["nodeGroup"] == "compute"  # the priority expander's ConfigMap
    saved = json.loads(snap.read_text())["items"]
    assert sorted(i["metadata"]["name"] for i in saved if i["kind"] == "ConfigMap") == [
        "cluster-autoscaler-priority-expander",
        "cluster-autoscaler-status",
    ]
    again = json.loads(run("autoscale", ROLLOUT, "--cluster", str(snap), "--expander", "priority", "-o", "json").out)
    assert again["scaleUp"] == d["scaleUp"]


NODE_POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "default"},
    "spec": {
        "template": {
            "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}
        }
    },
}


def test_karpenter_node_pools_are_named(run, tmp_path):
    """NodePools beside node groups: cluster-autoscaler's answer says it leaves them out; a state
    with NodePools and no node group answers as Karpenter."""
    pools = tmp_path / "nodepool.yaml"
    pools.write_text(yaml.safe_dump(NODE_POOL))
    d = doc(run("autoscale", ROLLOUT, *SAMPLE, "--cluster", str(pools), "-o", "json"))
    assert d["autoscaler"] == "cluster-autoscaler"
    assert any(n.startswith("Karpenter provisioning not modelled: 1 NodePool(s)") for n in d["notes"])
    bare = tmp_path / "bare.yaml"
    cluster = yaml.safe_load(Path("samples/autoscale/cluster.yaml").read_text())
    for o in cluster["items"]:
        if o["kind"] == "Node":
            o["metadata"]["labels"].pop("eks.amazonaws.com/nodegroup")
    bare.write_text(yaml.safe_dump(cluster))
    r = run("autoscale", ROLLOUT, "--cluster", str(bare), "--cluster", str(pools), "-o", "json")
    assert doc(r)["autoscaler"] == "karpenter"


def test_python_api_is_the_commands_document(run):
    """Cluster.autoscale(...) returns the report `kwhatif autoscale -o json` prints."""
    import kwhatif

    cluster = kwhatif.load_cluster("samples/autoscale/cluster.yaml")
    report = cluster.autoscale(ROLLOUT, node_groups="samples/autoscale/nodegroups.yaml", loops=2)
    assert isinstance(report, kwhatif.AutoscaleReport)
    r = run("autoscale", ROLLOUT, *SAMPLE, "--loops", "2", "-o", "json")
    assert report.to_dict() == json.loads(r.out)
    assert int(report.exit_code) == r.code == 1
    assert cluster.pending_pods == ()  # the cluster itself is never changed
    with pytest.raises(kwhatif.InputError, match="nothing to autoscale for"):
        cluster.autoscale()


def test_mcp_tool(run):
    """`kwhatif mcp`'s autoscale tool answers with the command's document and a summary."""
    pytest.importorskip("mcp")
    from tests.e2e.test_mcp import session_run, texts

    args = {
        "cluster": ["samples/autoscale/cluster.yaml"],
        "pods": [ROLLOUT],
        "node_groups": "samples/autoscale/nodegroups.yaml",
        "loops": 2,
    }
    _, (result,) = session_run([("autoscale", args)])
    assert not result.is_error, texts(result)
    summary, body = texts(result)
    # the server names the files by their real paths (a group's source is its file)
    real = [str(Path(p).resolve()) for p in (ROLLOUT, "samples/autoscale/nodegroups.yaml")]
    cli = run(
        "autoscale",
        real[0],
        "--cluster",
        "samples/autoscale/cluster.yaml",
        "--node-groups",
        real[1],
        "--loops",
        "2",
        "-o",
        "json",
    )
    assert json.loads(body) == json.loads(cli.out)
    assert summary.startswith(
        "cluster-autoscaler: 11 pods: 5 fit existing nodes, 5 after scale-up, 1 get no node; general +2, gpu +1\n"
        "shop/search-5bd9bfd447-sp28k: no group can host it"
    )
    assert summary.endswith("exit status of the command: 1")
