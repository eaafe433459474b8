"""Edge cases of `kwhatif autoscale` and `kwhatif diff` from the installed command: what each output
format says when a report is capped, escaped or at a limit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.e2e.conftest import SAMPLES

CLUSTER = str(SAMPLES / "cluster.yaml")
PODS = str(SAMPLES / "pods")


@pytest.mark.parametrize("output", ["junit", "github", "sarif"])
def test_diff_capped_node_list_reads_as_one_sentence(run, output: str) -> None:
    # 1.30 -> 1.38 changes the reasons of more than ten nodes for data/nightly-export: the text
    # lists ten and says how many more; that line has no two sides, so no "->" after it
    r = run("diff", "-f", PODS, "--cluster", CLUSTER, "--scheduler-version", "1.30",
            "--to-scheduler-version", "1.38", "-o", output)  # fmt: skip
    assert r.code == 0, r.err
    if output == "junit":
        text = "".join(e.text or "" for e in ET.fromstring(r.out).iter("system-out"))
    elif output == "sarif":
        text = "\n".join(x["message"]["text"] for x in json.loads(r.out)["runs"][0]["results"])
    else:
        text = r.out
    assert "... and 1 more nodes differ (-o json lists them)" in text
    assert "more nodes differ (-o json lists them) ->" not in text
    assert "...: and" not in text


def test_autoscale_markdown_scale_up_is_a_list(run) -> None:
    # the scale-up lines are Markdown list items (a "\-" would join them into one paragraph), and
    # each group's reason is nested under the pod no group can host
    a = SAMPLES / "autoscale"
    r = run("autoscale", str(a / "rollout.yaml"), "--cluster", str(a / "cluster.yaml"),
            "--node-groups", str(a / "nodegroups.yaml"), "--scheduler-version", "1.33", "-o", "markdown")  # fmt: skip
    assert r.code == 1, r.err
    lines = r.out.splitlines()
    start = lines.index("**Scale-up, loop 1:**") + 2
    block = lines[start : start + 9]
    assert block == [
        "- chosen: gpu +1 (0 -\\> 1, max 2)",
        "- option general: 2 nodes for 4 pods [waste=1.2500]",
        "- option compute: 1 node for 4 pods [waste=1.5000]",
        "- option gpu: 1 node for 1 pod [waste=1.0000]",
        "- least-waste kept gpu",
        "- no group can host shop/search-5bd9bfd447-sp28k:",
        "  - compute: Insufficient memory",
        "  - general: Insufficient memory",
        "  - gpu: node(s) had untolerated taint {nvidia.com/gpu: true}; Insufficient memory",
    ]


def test_karpenter_markdown_consolidation_nests_each_commands_pods(run) -> None:
    k = SAMPLES / "karpenter"
    r = run("autoscale", "--pending", "--cluster", str(k / "cluster.yaml"), "--instance-types",
            str(k / "instance-types.yaml"), "--consolidation", "--scheduler-version", "1.33", "-o", "markdown")  # fmt: skip
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    start = lines.index("### Consolidation") + 2
    assert lines[start : start + 6] == [
        "- \\[single-node-1] delete ip-10-0-3-32.ec2.internal (NodePool default-spot): underutilized, single-node;"
        " saves $0.0814/h",
        "  - shop/web-77f9-3 -\\> ip-10-0-1-10.ec2.internal",
        "- \\[single-node-2] delete ip-10-0-3-31.ec2.internal (NodePool default-spot): underutilized, single-node;"
        " saves $0.0665/h",
        "  - shop/web-77f9-0 -\\> ip-10-0-2-21.ec2.internal",
        "  - shop/web-77f9-1 -\\> ip-10-0-2-21.ec2.internal",
        "  - shop/web-77f9-2 -\\> ip-10-0-2-21.ec2.internal",
    ]


def test_scale_down_threshold_nan_is_bad_input(run) -> None:
    # a float range lets "nan" through; every comparison with it is false, so each node would be
    # taken as underutilized
    a = SAMPLES / "autoscale"
    r = run("autoscale", str(a / "rollout.yaml"), "--cluster", str(a / "cluster.yaml"), "--node-groups",
            str(a / "nodegroups.yaml"), "--scale-down", "--scale-down-utilization-threshold", "nan")  # fmt: skip
    assert r.code == 2
    assert r.err == "kwhatif: error: --scale-down-utilization-threshold: must be between 0 and 1, not nan\n"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_values_policy": "bogus"}, "min_values_policy: must be one of Strict, BestEffort, not 'bogus'"),
        ({"preference_policy": "ignore"}, "preference_policy: must be one of Respect, Ignore, not 'ignore'"),
        (
            {"scale_down": True, "scale_down_utilization_threshold": 5.0},
            "scale_down_utilization_threshold: must be between 0 and 1, not 5.0",
        ),
        ({"max_nodes_total": -1}, "max_nodes_total: must be at least 0, not -1"),
    ],
    ids=["min-values-policy", "preference-policy", "threshold", "max-nodes-total"],
)
def test_python_api_autoscale_rejects_bad_options_as_input_errors(kwargs: dict, message: str) -> None:
    # the command's option types check these values; the API's caller gets the same InputError (exit
    # status 2), not a ValueError from inside the engine
    import kwhatif

    cluster = kwhatif.load_cluster(str(SAMPLES / "karpenter" / "cluster.yaml"))
    with pytest.raises(kwhatif.InputError) as err:
        cluster.autoscale(str(SAMPLES / "karpenter" / "workload.yaml"), **kwargs)
    assert str(err.value) == message
    assert err.value.exit_code == 2


def test_diff_unknown_to_profile_names_the_to_flag(run, tmp_path) -> None:
    pod = str(SAMPLES / "pods" / "web-canary.yaml")
    r = run("diff", pod, "--cluster", CLUSTER, "--to-profile", "nope")
    assert (r.code, r.err.splitlines()[-1]) == (
        2,
        "kwhatif: error: --to-profile: no profile named 'nope' (profiles: default-scheduler)",
    )
    other = tmp_path / "other.yaml"
    other.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: other\n"
    )
    r = run("diff", pod, "--cluster", CLUSTER, "--profile", "default-scheduler", "--to-config", str(other))
    assert (r.code, r.err.splitlines()[-1]) == (
        2,
        "kwhatif: error: --profile (in --to-config): no profile named 'default-scheduler' (profiles: other)",
    )


def test_karpenter_html_consolidation_nests_each_commands_pods(run) -> None:
    k = SAMPLES / "karpenter"
    r = run("autoscale", "--pending", "--cluster", str(k / "cluster.yaml"), "--instance-types",
            str(k / "instance-types.yaml"), "--consolidation", "--scheduler-version", "1.33", "-o", "html")  # fmt: skip
    assert r.code == 0, r.err
    assert (
        "<li>[single-node-2] delete ip-10-0-3-31.ec2.internal (NodePool default-spot): underutilized, single-node; "
        "saves $0.0665/h<ul><li>shop/web-77f9-0 -&gt; ip-10-0-2-21.ec2.internal</li>"
        "<li>shop/web-77f9-1 -&gt; ip-10-0-2-21.ec2.internal</li>"
        "<li>shop/web-77f9-2 -&gt; ip-10-0-2-21.ec2.internal</li></ul></li>\n"
    ) in r.out


@pytest.mark.parametrize("karpenter", [False, True], ids=["cluster-autoscaler", "karpenter"])
def test_autoscale_huge_replica_count_is_bad_input_not_a_hang(run, tmp_path, karpenter: bool) -> None:
    huge = tmp_path / "huge.yaml"
    huge.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: huge, namespace: shop}\n"
        "spec:\n  replicas: 2000000000\n  selector: {matchLabels: {app: huge}}\n"
        "  template:\n    metadata: {labels: {app: huge}}\n"
        "    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}\n"
    )
    state = SAMPLES / ("karpenter" if karpenter else "autoscale") / "cluster.yaml"
    r = run("autoscale", str(huge), "--cluster", str(state))
    assert r.code == 2
    assert r.err.endswith(
        "huge.yaml: Deployment shop/huge: spec.replicas: replicas 2000000000 would make more than 100000 pods "
        "to place in one autoscale run\n"
    )


def test_python_api_render_names_the_formats_a_report_has() -> None:
    import kwhatif

    cluster = kwhatif.load_cluster(str(SAMPLES / "autoscale" / "cluster.yaml"))
    a = SAMPLES / "autoscale"
    report = cluster.autoscale(
        str(a / "rollout.yaml"), node_groups=str(a / "nodegroups.yaml"), scheduler_version="1.33"
    )
    with pytest.raises(kwhatif.InputError) as err:
        kwhatif.render(report, "sarif")
    assert str(err.value) == (
        "output: an AutoscaleReport report has no sarif format (one of table, wide, json, yaml, markdown, html)"
    )


NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: p}}
spec:
{spec}  template:
    metadata: {{labels: {labels}}}
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: {requirements}
"""


# the NodePool CRD's validations (kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml, v1.14.1)
@pytest.mark.parametrize(
    ("spec", "labels", "requirements", "error"),
    [
        ("", "{}", "[{key: kubernetes.io/hostname, operator: In, values: [a]}]",
         'spec.template.spec.requirements[0].key: Invalid value: "kubernetes.io/hostname": '
         'label "kubernetes.io/hostname" is restricted'),
        ("", "{}", "[{key: karpenter.sh/nodepool, operator: In, values: [a]}]",
         'spec.template.spec.requirements[0].key: Invalid value: "karpenter.sh/nodepool": '
         'label "karpenter.sh/nodepool" is restricted'),
        ("", "{x.karpenter.sh/team: a}", "[]",
         'spec.template.metadata.labels: Invalid value: "x.karpenter.sh/team": label domain "karpenter.sh" is restricted'),
        ("  weight: 0\n", "{}", "[]", "spec.weight: Invalid value: 0: must be between 1 and 100"),
        ("  replicas: -1\n", "{}", "[]", "spec.replicas: Invalid value: -1: must be at least 0"),
        ("  replicas: 2\n  weight: 5\n", "{}", "[]",
         "spec.weight: Invalid value: 5: 'weight' is not supported on static NodePools"),
        ("  disruption: {budgets: [{nodes: '1', schedule: '@daily'}]}\n", "{}", "[]",
         "spec.disruption.budgets[0].schedule: Invalid value: \"@daily\": 'schedule' must be set with 'duration'"),
    ],
    ids=["hostname", "nodepool-label", "karpenter-domain", "weight-0", "replicas", "static-weight", "schedule"],
)  # fmt: skip
def test_nodepool_crd_validations(run, tmp_path, spec: str, labels: str, requirements: str, error: str) -> None:
    pools = tmp_path / "pools.yaml"
    pools.write_text(NODEPOOL.format(spec=spec, labels=labels, requirements=requirements))
    k = SAMPLES / "karpenter"
    r = run("autoscale", "--pending", "--cluster", str(k / "cluster.yaml"), "--node-pools", str(pools))
    assert r.code == 2
    assert r.err.splitlines()[-1] == f"kwhatif: error: {pools}: NodePool p: {error}"


@pytest.mark.parametrize(
    ("item", "error"),
    [
        ('{name: a, capacity: {cpu: "-2", memory: 8Gi}, offerings: [{zone: z, price: 0.1}]}',
         'instanceTypes[0].capacity.cpu: Invalid value: "-2": must be greater than or equal to 0'),
        ("{name: a, capacity: {cpu: 2, memory: 8Gi}, offerings: [{zone: z, capacityType: ondemand, price: 0.1}]}",
         'instanceTypes[0].offerings[0].capacityType: Unsupported value: "ondemand": '
         'supported values: "on-demand", "spot", "reserved"'),
        ("{name: a, capacity: {cpu: 2, memory: 8Gi}, offerings: [{zone: z, price: .nan}]}",
         "instanceTypes[0].offerings[0].price: Invalid value: nan: must be a number of at least 0"),
        ("{name: a, capacity: {cpu: 2, memory: 8Gi}, offerings: [{zone: z, price: .inf}]}",
         "instanceTypes[0].offerings[0].price: Invalid value: inf: must be a number of at least 0"),
    ],
    ids=["negative-capacity", "capacity-type-typo", "nan-price", "infinite-price"],
)  # fmt: skip
def test_instance_types_bad_fields(run, tmp_path, item: str, error: str) -> None:
    types = tmp_path / "types.yaml"
    types.write_text(f"apiVersion: kwhatif/v1\nkind: InstanceTypes\ninstanceTypes:\n- {item}\n")
    k = SAMPLES / "karpenter"
    r = run("autoscale", "--pending", "--cluster", str(k / "cluster.yaml"), "--instance-types", str(types))
    assert r.code == 2
    assert r.err.splitlines()[-1] == f"kwhatif: error: {types}: instance type a: {error}"


def test_bad_expander_in_the_node_groups_file_names_the_file(run, tmp_path) -> None:
    groups = tmp_path / "groups.yaml"
    groups.write_text(
        "apiVersion: kwhatif/v1\nkind: NodeGroups\nexpander: least-waste,,\nnodeGroups:\n"
        "- name: general\n  maxSize: 4\n  nodeSelector: {eks.amazonaws.com/nodegroup: general}\n"
    )
    a = SAMPLES / "autoscale"
    r = run("autoscale", str(a / "rollout.yaml"), "--cluster", str(a / "cluster.yaml"), "--node-groups", str(groups))
    assert r.code == 2
    assert r.err.splitlines()[-1] == (
        f"kwhatif: error: {groups}: NodeGroups: expander: Expander  not supported "
        "(expanders: random, most-pods, least-waste, least-nodes, price, priority)"
    )


def test_diff_of_a_workload_without_check_points_to_check(run) -> None:
    r = run("diff", str(SAMPLES / "workloads" / "ml-batch.yaml"), "--cluster", CLUSTER)
    assert r.code == 2
    assert r.err.splitlines()[-1].endswith(
        "ml-batch.yaml: Job ml/train-llm: diff compares Pods; add --check to compare Job objects"
    )


def test_options_of_the_other_autoscaler_are_bad_usage(run) -> None:
    a, k = SAMPLES / "autoscale", SAMPLES / "karpenter"
    r = run("autoscale", str(a / "rollout.yaml"), "--cluster", str(a / "cluster.yaml"), "--node-groups",
            str(a / "nodegroups.yaml"), "--consolidation", "--instance-types", str(k / "instance-types.yaml"))  # fmt: skip
    assert r.code == 2
    assert r.err.splitlines()[-1] == (
        "kwhatif: error: --instance-types, --consolidation: apply to --autoscaler karpenter only; "
        "this run answers as cluster-autoscaler"
    )
    # the state's NodePools make Karpenter the default
    r = run("autoscale", "--pending", "--cluster", str(k / "cluster.yaml"), "--scale-down")
    assert r.code == 2
    assert r.err.splitlines()[-1] == (
        "kwhatif: error: --scale-down: applies to --autoscaler cluster-autoscaler only; this run answers as karpenter"
    )


def test_node_pools_file_makes_karpenter_the_default(run, tmp_path) -> None:
    # a state without NodePools and the NodePools of a file: Karpenter answers and the file's pool
    # provisions (cluster-autoscaler answered before, --node-pools ignored)
    pools = tmp_path / "pools.yaml"
    pools.write_text(NODEPOOL.format(spec="", labels="{}", requirements="[]"))
    pod = tmp_path / "pod.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\n"
        "spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '20'}}}]}\n"
    )
    k = SAMPLES / "karpenter"
    r = run("autoscale", str(pod), "--cluster", CLUSTER, "--node-pools", str(pools),
            "--instance-types", str(k / "instance-types.yaml"), "-o", "json")  # fmt: skip
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["autoscaler"] == "karpenter"
    assert [(p["outcome"], p["nodePool"]) for p in doc["pods"]] == [("scale-up", "p")]


@pytest.mark.parametrize("field", ["feature_gates", "to_feature_gates"])
def test_python_api_gate_values_must_be_booleans(field: str) -> None:
    # {"PodLevelResources": "false"} is truthy: it turned the gate on
    import kwhatif

    cluster = kwhatif.load_cluster(CLUSTER)
    with pytest.raises(kwhatif.InputError) as err:
        cluster.diff(str(SAMPLES / "pods" / "web-canary.yaml"), scheduler_version="1.34",
                     **{field: {"PodLevelResources": "false"}})  # fmt: skip
    assert str(err.value) == f"{field}: PodLevelResources: expected true or false, got 'false'"


def test_every_group_at_its_maximum_cuts_pods_off(run, tmp_path) -> None:
    # no template refused the pods: each group is skipped at its maximum, as upstream's event says
    # ("pod didn't trigger scale-up: 2 max node group size reached"); a limit, exit status 1
    groups = tmp_path / "groups.yaml"
    groups.write_text(
        "apiVersion: kwhatif/v1\nkind: NodeGroups\nnodeGroups:\n"
        "- {name: general, minSize: 1, maxSize: 2, nodeSelector: {eks.amazonaws.com/nodegroup: general}}\n"
        "- {name: compute, minSize: 1, maxSize: 1, nodeSelector: {eks.amazonaws.com/nodegroup: compute}}\n"
    )
    a = SAMPLES / "autoscale"
    r = run("autoscale", str(a / "rollout.yaml"), "--cluster", str(a / "cluster.yaml"), "--node-groups", str(groups),
            "--scheduler-version", "1.33", "-o", "json")  # fmt: skip
    assert r.code == 1, r.err
    doc = json.loads(r.out)
    whys = {p["why"] for p in doc["pods"] if p["outcome"] == "none"}
    assert whys == {"cut off by maxSize of compute, general"}
    assert doc["scaleUp"]["noGroup"][0]["reasons"] == {
        "compute": "skipped: max node group size reached",
        "general": "skipped: max node group size reached",
    }
