"""`kwhatif mcp`'s autoscale tool under Karpenter: the command's Karpenter options as arguments,
and a summary that counts NodeClaims."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")

from .test_mcp import session_run, texts  # noqa: E402

K = "samples/karpenter/"


def test_autoscale_tool_takes_karpenters_inputs_and_counts_its_nodeclaims() -> None:
    calls = [
        (
            "autoscale",
            {
                "cluster": [K + "cluster.yaml"],
                "pods": [K + "workload.yaml"],
                "autoscaler": "karpenter",
                "instance_types": K + "instance-types.yaml",
                "consolidation": True,
                "scheduler_version": "1.33",
            },
        ),
        ("autoscale", {"cluster": [K + "cluster.yaml"], "pending": True, "instance_types": "/etc/hosts"}),
        ("autoscale", {"cluster": [K + "cluster.yaml"], "pending": True, "min_values_policy": "Lax"}),
    ]
    tools, (ok, outside, bad) = session_run(calls)
    schema = next(t for t in tools if t.name == "autoscale").input_schema["properties"]
    assert {"autoscaler", "node_pools", "instance_types", "consolidation", "min_values_policy"} <= set(schema)
    assert not ok.is_error
    summary, doc = texts(ok)
    lines = summary.splitlines()
    assert lines[0] == "karpenter: 10 pods: 5 fit existing nodes, 4 on 2 new NodeClaims (1.39/h), 1 get no node"
    assert len([line for line in lines if line.startswith("consolidation: ")]) == 2
    report = json.loads(doc)
    assert report["autoscaler"] == "karpenter"
    assert [c["name"] for c in report["scaleUp"]["nodeClaims"]] == ["gpu-1", "on-demand-1"]
    assert outside.is_error
    assert "instance_types: '/etc/hosts' is outside the directories this server may read" in texts(outside)[0]
    assert bad.is_error
    assert "min_values_policy" in texts(bad)[0]


def test_tool_error_shows_control_characters_as_the_command_does() -> None:
    pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: "a\\u001b[31m"}\nspec: {containers: [{name: c, image: x}]}\n'
    _, (result,) = session_run([("diff", {"cluster": ["samples/cluster.yaml"], "pods": [pod]})])
    assert result.is_error
    (text,) = texts(result)
    assert "\x1b" not in text
    assert text.startswith("error: <text 1>: Pod default/a^[[31m: metadata.name: Invalid value: ")
