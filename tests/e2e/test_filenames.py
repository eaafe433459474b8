"""kubectl's -f/--filename (files, directories, -R, '-') and -k/--kustomize on schedule, check and
capacity, alongside the positional arguments."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import SAMPLES

CLUSTER = str(SAMPLES / "cluster.yaml")
WEB = (SAMPLES / "pods" / "web-canary.yaml").read_text()


def pod(name: str, cpu: str = "100m") -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: shop\nspec:\n  containers:\n"
        f"  - name: c\n    image: x\n    resources:\n      requests: {{cpu: {cpu}}}\n"
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """top/a.yaml, top/b.json, top/notes.txt (ignored in a directory), top/sub/c.yml"""
    top = tmp_path / "top"
    (top / "sub").mkdir(parents=True)
    (top / "a.yaml").write_text(pod("a"))
    (top / "b.json").write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "b", "namespace": "shop"},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            }
        )
    )
    (top / "notes.txt").write_text("not a manifest: {")
    (top / "sub" / "c.yml").write_text(pod("c"))
    return top


def names(out: str) -> list[str]:
    return [r["pod"]["name"] for r in json.loads(out)["results"]]


@pytest.mark.parametrize(
    "args, expected",
    [
        pytest.param(["-f", "{top}"], ["a", "b"], id="dir-own-files-only"),
        pytest.param(["-f", "{top}", "-R"], ["a", "b", "c"], id="dir-recursive"),
        pytest.param(["--filename", "{top}/sub/c.yml", "-f", "{top}/a.yaml"], ["a", "c"], id="repeatable"),
        pytest.param(["{top}/a.yaml", "-f", "{top}/sub"], ["a", "c"], id="with-positional"),
        pytest.param(["-f", "-"], ["web-canary"], id="stdin"),
    ],
)
def test_schedule_filename(run, tree, args, expected):
    argv = [a.format(top=tree) for a in args]
    r = run("schedule", *argv, "--cluster", CLUSTER, "-o", "json", stdin=WEB)
    assert r.code == 0, r.err
    assert sorted(names(r.out)) == expected


def test_a_named_file_is_read_whatever_its_extension(run, tmp_path):
    f = tmp_path / "pod.txt"
    f.write_text(pod("odd"))
    r = run("schedule", "-f", str(f), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    assert names(r.out) == ["odd"]


def test_check_and_capacity_take_filename(run, tree):
    r = run("check", "-f", str(SAMPLES / "workloads"), "--cluster", CLUSTER, "-o", "json")
    assert r.code in (0, 1), r.err
    assert sorted(w["name"] for w in json.loads(r.out)["workloads"]) == [
        "log-agent",
        "reindex",
        "search",
        "train-llm",
        "web",
    ]
    r = run("capacity", "-f", str(tree / "a.yaml"), "--cluster", CLUSTER, "-o", "json", "--max", "3")
    assert r.code == 0, r.err
    assert json.loads(r.out)["fits"] == 3


@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(
            ["schedule", "-f", "{tmp}/missing.yaml"],
            "kwhatif: error: {tmp}/missing.yaml: no such file or directory",
            id="missing",
        ),
        pytest.param(
            ["schedule", "-f", "{tmp}/empty"],
            "kwhatif: error: {tmp}/empty: the directory holds no .json, .yaml or .yml file (-R reads its subdirectories)",
            id="empty-dir",
        ),
        pytest.param(
            ["check", "-f", "-", "--cluster", "-"],
            "Error: standard input can feed either the manifests or --cluster, not both",
            id="stdin-twice",
        ),
        pytest.param(["check"], "Error: nothing to check: give MANIFEST files, -f PATH or -k DIR", id="check-nothing"),
        pytest.param(
            ["capacity"], "Error: nothing to count: give POD_OR_WORKLOAD, -f PATH or -k DIR", id="capacity-nothing"
        ),
    ],
)
def test_filename_errors(run, tmp_path, argv, message):
    (tmp_path / "empty").mkdir()
    args = [a.format(tmp=tmp_path) for a in argv]
    if "--cluster" not in args:
        args += ["--cluster", CLUSTER]
    r = run(*args, stdin="")
    assert r.code == 2
    assert message.format(tmp=tmp_path) in r.err and "Traceback" not in r.err


# --- -k/--kustomize ----------------------------------------------------------------------------------


def fake_tool(bindir: Path, name: str, body: str) -> None:
    """A fake `kubectl` or `kustomize` on PATH: a Python script that records its arguments."""
    bindir.mkdir(exist_ok=True)
    script = bindir / name
    script.write_text(f"#!{sys.executable}\nimport sys, pathlib\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


RENDER = (
    "pathlib.Path(sys.argv[0] + '.args').write_text(' '.join(sys.argv[1:]))\n"
    "sys.stdout.write(pathlib.Path(sys.argv[-1], 'rendered.yaml').read_text())"
)


@pytest.fixture
def kustomization(tmp_path: Path) -> Path:
    d = tmp_path / "overlay"
    d.mkdir()
    (d / "rendered.yaml").write_text(pod("from-kustomize") + "---\n" + pod("second"))
    return d


@pytest.mark.parametrize(
    "tools, used, args",
    [
        pytest.param(("kubectl", "kustomize"), "kubectl", "kustomize {dir}", id="kubectl-first"),
        pytest.param(("kustomize",), "kustomize", "build {dir}", id="kustomize-build"),
    ],
)
def test_kustomize_renders_with_the_tool_on_path(run, tmp_path, kustomization, tools, used, args):
    bindir = tmp_path / "bin"
    for t in tools:
        fake_tool(bindir, t, RENDER)
    r = run("schedule", "-k", str(kustomization), "--cluster", CLUSTER, "-o", "json", env={"PATH": str(bindir)})
    assert r.code == 0, r.err
    assert names(r.out) == ["from-kustomize", "second"]
    assert (bindir / f"{used}.args").read_text() == args.format(dir=kustomization)
    assert [p.name for p in bindir.glob("*.args")] == [f"{used}.args"]


def test_kustomize_without_either_tool(run, tmp_path, kustomization):
    (tmp_path / "bin").mkdir()
    r = run("check", "-k", str(kustomization), "--cluster", CLUSTER, env={"PATH": str(tmp_path / "bin")})
    assert r.code == 2
    assert r.err.splitlines()[-1] == (
        "kwhatif: error: -k/--kustomize: neither kubectl nor kustomize is on PATH: -k renders with "
        "`kubectl kustomize DIR` or `kustomize build DIR`"
    )


def test_kustomize_failure_shows_its_stderr(run, tmp_path, kustomization):
    fake_tool(tmp_path / "bin", "kubectl", "sys.stderr.write('Error: accumulating resources: boom\\n'); sys.exit(1)")
    r = run("check", "-k", str(kustomization), "--cluster", CLUSTER, env={"PATH": str(tmp_path / "bin")})
    assert r.code == 2
    lines = r.err.splitlines()
    assert "Error: accumulating resources: boom" in lines
    assert (
        lines[-1]
        == f"kwhatif: error: {kustomization}: kubectl kustomize failed with exit status 1 (its errors are above)"
    )


def test_errors_in_a_rendered_stream_name_the_directory(run, tmp_path, kustomization):
    (kustomization / "rendered.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: [\n")
    fake_tool(tmp_path / "bin", "kubectl", RENDER)
    r = run("check", "-k", str(kustomization), "--cluster", CLUSTER, env={"PATH": str(tmp_path / "bin")})
    assert r.code == 2
    assert r.err.splitlines()[-1].startswith(f"kwhatif: error: {kustomization}")
    assert "Traceback" not in r.err


def test_kustomize_with_files_and_positional(run, tmp_path, tree, kustomization):
    fake_tool(tmp_path / "bin", "kubectl", RENDER)
    r = run(
        "schedule",
        str(tree / "a.yaml"),
        "-f",
        str(tree / "b.json"),
        "-k",
        str(kustomization),
        "--cluster",
        CLUSTER,
        "-o",
        "json",
        env={"PATH": str(tmp_path / "bin") + os.pathsep + os.environ.get("PATH", "")},
    )
    assert r.code == 0, r.err
    assert sorted(names(r.out)) == ["a", "b", "from-kustomize", "second"]
