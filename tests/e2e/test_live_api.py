"""The Python API and the MCP server on a live cluster (the local HTTPS API server of the live
tests): the same documents as the command's --kubeconfig/--context, and nothing written."""

from __future__ import annotations

import json

import pytest

import kwhatif
from tests.e2e.test_live import api, pod_file  # noqa: F401  (the fixture)


def test_a_live_cluster_through_the_api_is_the_commands(api, run, tmp_path):  # noqa: F811
    pod = pod_file(tmp_path, "new", "1")
    cluster = kwhatif.load_cluster(kubeconfig=api.kubeconfig_path, context="test")
    assert cluster.nodes == ("n1", "n2", "n3")
    for call, args in (
        (lambda: cluster.schedule(pending=True, all_namespaces=True), ["schedule", "--pending", "-A"]),
        (lambda: cluster.schedule(pod), ["schedule", pod]),
        (lambda: cluster.capacity(pod), ["capacity", pod]),
    ):
        r = run(*args, "--kubeconfig", api.kubeconfig_path, "--context", "test", "-o", "json")
        assert call().to_dict() == json.loads(r.out), args
    # reading only: no request but GET
    assert {m for m, _ in api.requests} == {"GET"}


def test_the_mcp_server_reads_a_context_of_its_kubeconfig(api, run, tmp_path):  # noqa: F811
    pytest.importorskip("mcp")
    from .test_mcp import session_run, texts

    calls = [("schedule", {"context": "test", "pending": True, "all_namespaces": True})]
    _, (result,) = session_run(calls, env={"KUBECONFIG": api.kubeconfig_path}, roots=(tmp_path,))
    assert not result.is_error, texts(result)
    r = run("schedule", "--pending", "-A", "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert result.structured_content == json.loads(r.out)
    assert {m for m, _ in api.requests} == {"GET"}
