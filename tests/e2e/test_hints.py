"""Hints of `kwhatif schedule` say what the failing reasons say."""

from __future__ import annotations

import json

CLUSTER = "samples/cluster.yaml"


def _pod(spec: str) -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, labels: {app: s}}\n"
        f"spec:\n{spec}  containers: [{{name: c, image: i}}]\n"
    )


def test_a_spread_key_no_node_has_is_a_missing_label_not_a_skew(run, tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text(
        _pod(
            "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: example.com/rack, whenUnsatisfiable: "
            "DoNotSchedule, labelSelector: {matchLabels: {app: s}}}\n"
        )
    )
    r = run("schedule", str(pod), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    (result,) = json.loads(r.out)["results"]
    assert result["hints"] == [
        "8 node(s) (general-a-1, general-a-2, general-a-3 and 5 more) fail only the topology spread constraints: "
        "they lack the label example.com/rack the constraints spread over (a node without its topologyKey belongs "
        "to no domain); label them, or spread over a key they have"
    ]
    table = run("schedule", str(pod), "--cluster", CLUSTER)
    assert "maxSkew would be exceeded" not in table.out
    assert (
        "hint: 8 node(s) (general-a-1, general-a-2, general-a-3 and 5 more) fail only the topology spread" in table.out
    )
