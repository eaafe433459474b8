"""`kwhatif mcp`'s autoscale tool under Karpenter, end to end: the installed command started by the
MCP SDK's client, the tool called with the options `kwhatif autoscale` has for Karpenter (the
autoscaler, a NodePools file, an InstanceTypes file, consolidation and the operator options), its
answer the command's own JSON."""

from __future__ import annotations

import json

import pytest

from .conftest import ROOT

pytest.importorskip("mcp")

from .test_mcp import session_run, texts  # noqa: E402

CLUSTER = "samples/karpenter/cluster.yaml"
TYPES = "samples/karpenter/instance-types.yaml"
WORKLOAD = "samples/karpenter/workload.yaml"

# an arm64 NodePool for the cache the sample's pools cannot host
ARM_POOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: arm}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [arm64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
"""


def test_autoscale_tool_takes_karpenters_options(run, tmp_path):
    pools = tmp_path / "nodepools.yaml"
    pools.write_text(ARM_POOL)
    common = {"cluster": [CLUSTER], "pods": [WORKLOAD], "instance_types": TYPES, "scheduler_version": "1.33"}
    calls = [
        ("autoscale", {**common, "consolidation": True}),
        (
            "autoscale",
            {
                **common,
                "autoscaler": "karpenter",
                "node_pools": str(pools),
                "consolidation": True,
                "spot_to_spot_consolidation": True,
                "min_values_policy": "BestEffort",
                "preference_policy": "Ignore",
            },
        ),
        ("autoscale", {**common, "min_values_policy": "Lenient"}),
    ]
    _, (plain, full, bad) = session_run(calls, roots=(ROOT, tmp_path))
    base = ("autoscale", WORKLOAD, "--cluster", CLUSTER, "--instance-types", TYPES, "--scheduler-version", "1.33")
    commands = [
        [*base, "--consolidation"],
        [
            *base,
            "--autoscaler",
            "karpenter",
            "--node-pools",
            str(pools),
            "--consolidation",
            "--spot-to-spot-consolidation",
            "--min-values-policy",
            "BestEffort",
            "--preference-policy",
            "Ignore",
        ],
    ]
    for result, args in zip((plain, full), commands, strict=True):
        assert not result.is_error, texts(result)
        cli = run(*args, "-o", "json")
        summary, body = texts(result)
        assert json.loads(body) == json.loads(cli.out) == result.structured_content
        assert summary.endswith(f"exit status of the command: {cli.code}")

    doc = full.structured_content
    assert doc["autoscaler"] == "karpenter"
    assert doc["nodePools"] == ["default-spot", "on-demand", "gpu", "arm"]
    assert doc["options"]["spotToSpotConsolidation"] == "true"
    assert (doc["options"]["minValuesPolicy"], doc["options"]["preferencePolicy"]) == ("BestEffort", "Ignore")
    cache = next(p for p in doc["pods"] if p["pod"]["name"].startswith("edge-cache"))
    assert (cache["outcome"], cache["nodePool"]) == ("scale-up", "arm")

    # the summary says what Karpenter would launch and consolidate
    summary = texts(plain)[0].splitlines()
    assert summary[0] == "karpenter: 10 pods: 5 fit existing nodes, 4 on 2 new NodeClaims (1.39/h), 1 get no node"
    assert summary[1] == "NodeClaim gpu-1 of NodePool gpu: g5.xlarge, g5.2xlarge, g5.12xlarge (1.006/h)"
    assert "consolidation: delete ip-10-0-3-32.ec2.internal (underutilized, single-node)" in summary

    assert bad.is_error
    assert texts(bad) == ["error: min_values_policy: must be one of Strict, BestEffort, not 'Lenient'"]
