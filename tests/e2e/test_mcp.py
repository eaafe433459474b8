"""`kwhatif mcp` end to end: the installed command started by the MCP SDK's own client over
standard input and output, its tools called as an agent calls them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, kwhatif_command

pytest.importorskip("mcp")

import anyio  # noqa: E402  (installed with mcp)
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

TOOLS = {"schedule", "check", "capacity", "drain", "autoscale", "diff"}


def session_run(
    calls: list[tuple[str, dict[str, Any]]],
    *extra: str,
    roots: tuple[Path, ...] = (ROOT,),
    env: dict[str, str] | None = None,
) -> Any:
    """Start `kwhatif mcp --root ...`, list its tools, make ``calls``; the tools and the results."""

    async def main() -> Any:
        args = ["mcp", *(a for r in roots for a in ("--root", str(r))), *extra]
        params = StdioServerParameters(command=kwhatif_command(), args=args, cwd=str(ROOT), env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, arguments) for name, arguments in calls]
            return tools, results

    return anyio.run(main)


def texts(result: Any) -> list[str]:
    return [c.text for c in result.content]


def test_tools_answer_with_the_commands_json_and_a_summary(run):
    calls = [
        ("schedule", {"cluster": ["samples/cluster.yaml"], "pods": ["samples/pods/gpu-inference.yaml"]}),
        ("check", {"cluster": ["samples/cluster.yaml"], "manifests": ["samples/workloads/release.yaml"]}),
        ("capacity", {"cluster": ["samples/cluster.yaml"], "pod": "samples/pods/web-canary.yaml", "max_copies": 5}),
        ("drain", {"cluster": ["samples/cluster.yaml"], "nodes": ["general-a-1"], "ignore_daemonsets": True}),
        # YAML text is an input too
        (
            "schedule",
            {"cluster": ["samples/cluster.yaml"], "pods": [(ROOT / "samples/pods/web-canary.yaml").read_text()]},
        ),
    ]
    tools, results = session_run(calls)
    *results, from_text = results
    assert not from_text.is_error
    assert from_text.structured_content["results"][0]["node"] == "general-c-2"
    assert {t.name for t in tools} == TOOLS
    for t in tools:
        assert t.annotations.read_only_hint is True
        assert "cluster" in t.input_schema["properties"] and "context" in t.input_schema["properties"]
        assert "apply" not in t.input_schema["properties"]
    commands = [
        ["schedule", "samples/pods/gpu-inference.yaml"],
        # the server names the manifests by their real paths
        ["check", str((ROOT / "samples/workloads/release.yaml").resolve())],
        ["capacity", "samples/pods/web-canary.yaml", "--max", "5"],
        ["drain", "general-a-1", "--ignore-daemonsets"],
    ]
    for result, args in zip(results, commands, strict=True):
        assert not result.is_error, texts(result)
        cli = run(*args, "--cluster", "samples/cluster.yaml", "-o", "json")
        summary, body = texts(result)
        assert json.loads(body) == json.loads(cli.out) == result.structured_content
        assert summary.endswith(f"exit status of the command: {cli.code}")
    sched, check, capacity, drain = (texts(r)[0] for r in results)
    assert sched.startswith(
        "0 of 1 pod scheduled, 1 unschedulable\nml/inference: Unschedulable 0/11 nodes are available"
    )
    assert check.startswith("4 of 4 workloads fit; 21 of 21 pods placed; 0 do not fit; 0 warnings")
    assert capacity.startswith("5 more copies of shop/web-canary fit\nper node: ")
    assert drain.startswith("drain general-a-1: 2 pods evicted, 2 placed, 0 not placed")
    # the answer docs/mcp.md shows is this one
    shown = (ROOT / "docs" / "mcp.md").read_text().split("structured\ncontent:\n\n```text\n", 1)[1].split("```", 1)[0]
    assert shown == sched + "\n"


def test_the_diff_tool_answers_with_the_commands_json(run):
    web = "samples/pods/web-canary.yaml"
    versions = {"scheduler_version": "1.33", "to_scheduler_version": "1.36"}
    calls = [("diff", {"cluster": ["samples/cluster.yaml"], "pods": [web], **versions})]
    _, (result,) = session_run(calls)
    assert not result.is_error, texts(result)
    cli = run(
        "diff",
        web,
        "--cluster",
        "samples/cluster.yaml",
        "--scheduler-version",
        "1.33",
        "--to-scheduler-version",
        "1.36",
        "-o",
        "json",
    )
    summary, body = texts(result)
    assert json.loads(body) == json.loads(cli.out) == result.structured_content
    assert summary.startswith("1.33.")
    assert "1 of 1 pod change\nshop/web-canary: " in summary
    assert summary.endswith(f"exit status of the command: {cli.code}")


def test_paths_outside_the_roots_and_bad_input_are_tool_errors(tmp_path):
    root = tmp_path / "root"
    (root / "pods").mkdir(parents=True)
    for name in ("cluster.yaml", "pods/web-canary.yaml"):
        (root / name).write_text((ROOT / "samples" / name).read_text())
    outside = tmp_path / "secret.yaml"
    outside.write_text((ROOT / "samples" / "cluster.yaml").read_text())
    (root / "leak.yaml").symlink_to(outside)  # a link out of the root is outside it
    web = "pods/web-canary.yaml"
    calls = [
        ("schedule", {"cluster": [str(outside)], "pods": [web]}),
        ("schedule", {"cluster": ["../secret.yaml"], "pending": True}),
        ("schedule", {"cluster": ["leak.yaml"], "pending": True}),
        ("capacity", {"cluster": ["cluster.yaml"], "pod": "pods/missing.yaml"}),
        ("drain", {"cluster": ["cluster.yaml"], "nodes": ["nope"]}),
        ("drain", {"cluster": ["cluster.yaml"], "nodes": "general-a-1"}),
        ("schedule", {"cluster": ["cluster.yaml"], "pods": [web], "apply": True}),
        ("check", {"manifests": [web]}),
        ("nosuch", {}),
        # the server goes on after errors; relative paths are taken from the first root
        ("capacity", {"cluster": ["cluster.yaml"], "pod": web, "max_copies": 1}),
    ]
    _, results = session_run(calls, roots=(root,))
    msgs = [texts(r)[0] for r in results]
    assert [r.is_error for r in results] == [True] * 9 + [False], msgs
    assert msgs[0] == f"error: cluster: {str(outside)!r} is outside the directories this server may read ({root})"
    assert msgs[1].startswith("error: cluster: '../secret.yaml' is outside the directories")
    assert msgs[2].startswith("error: cluster: 'leak.yaml' is outside the directories")
    assert msgs[3].startswith(f"error: {root}/pods/missing.yaml: ")
    assert msgs[4] == "error: nodes: no node named 'nope' in the cluster"
    assert msgs[5] == "error: nodes: must be a list of strings"
    assert msgs[6].startswith("error: apply: unknown argument (arguments: ")
    assert msgs[7] == "error: cluster: required: the cluster's files (cluster) or a kubeconfig context (context)"
    assert msgs[8] == "error: no tool named 'nosuch' (tools: schedule, check, capacity, drain, autoscale, diff)"
    assert msgs[9].startswith("1 more copy of shop/web-canary fit")


def test_a_call_over_the_time_limit_is_stopped_and_the_server_goes_on():
    calls = [
        ("capacity", {"cluster": ["samples/cluster.yaml"], "pod": "samples/pods/web-canary.yaml"}),
        ("nosuch", {}),
    ]
    _, results = session_run(calls, "--timeout", "0.05")
    assert results[0].is_error
    assert texts(results[0]) == ["error: the call took longer than 0.05 s (--timeout) and was stopped"]
    # the server answers the next call
    assert texts(results[1]) == [
        "error: no tool named 'nosuch' (tools: schedule, check, capacity, drain, autoscale, diff)"
    ]


def test_a_report_over_the_size_limit_is_its_summary_and_an_error():
    calls = [("capacity", {"cluster": ["samples/cluster.yaml"], "pod": "samples/pods/web-canary.yaml"})]
    _, (result,) = session_run(calls, "--max-output-size", "1k")
    assert result.is_error
    (text,) = texts(result)
    assert text.startswith("96 more copies of shop/web-canary fit")
    assert "more than the server's --max-output-size 1024" in text
