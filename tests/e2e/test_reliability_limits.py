"""No input crashes the command or makes it work without end, from the installed command: explicit
YAML tags that cannot be built in every input, deep nesting, limits past their maxima, FIFOs,
devices and silent pipes, credential plugins that never stop writing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import SAMPLES, kwhatif_command
from tests.e2e.fake_apiserver import FakeAPIServer
from tests.e2e.test_live import cluster_objects

CLUSTER = str(SAMPLES / "cluster.yaml")
POD = str(SAMPLES / "pods" / "tie.yaml")
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "tmpl", "labels": {"kubernetes.io/hostname": "tmpl"}},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
}


def one_error_line(r) -> str:
    lines = [ln for ln in r.err.splitlines() if not ln.startswith("kwhatif: note:")]
    assert len(lines) == 1, r.err
    assert "Traceback" not in r.err and "internal error" not in r.err
    return lines[0]


# --- explicit YAML tags ------------------------------------------------------------------------

TAGS = [
    ("!!float x", "cannot decode !!str `x` as a !!float"),
    ("!!bool x", "cannot decode !!str `x` as a !!bool"),
    ("!!int x", "cannot decode !!str `x` as a !!int"),
    ("!!null x", "cannot decode !!str `x` as a !!null"),
    ("!!timestamp x", "cannot decode !!str `x` as a !!timestamp"),
    ("!!timestamp 2024-13-45", "cannot decode !!str `2024-13-45` as a !!timestamp"),
    ("!!float [1]", "cannot decode a collection as a !!float"),
]


@pytest.mark.parametrize(("tagged", "message"), TAGS, ids=[t for t, _ in TAGS])
@pytest.mark.parametrize("where", ["manifest", "cluster", "config", "add-node", "kubeconfig"])
def test_an_explicit_tag_its_value_cannot_take_is_refused_in_every_input(run, tmp_path, where, tagged, message):
    """go-yaml's resolve refuses what PyYAML's constructors would raise from."""
    f = tmp_path / "in.yaml"
    args: list[str]
    if where == "manifest":
        f.write_text(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p, labels: {{a: {tagged}}}}}\nspec: {{containers: [{{name: c, image: x}}]}}\n"
        )
        args = ["schedule", str(f), "--cluster", CLUSTER]
    elif where == "cluster":
        f.write_text(CLUSTER_TEXT.replace("name: cp-1\n", f"name: cp-1\n    x: {tagged}\n", 1))
        args = ["schedule", POD, "--cluster", str(f)]
    elif where == "config":
        f.write_text(
            f"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: {tagged}\n"
        )
        args = ["schedule", POD, "--cluster", CLUSTER, "--config", str(f)]
    elif where == "add-node":
        f.write_text(yaml.safe_dump(NODE) + f"extra: {tagged}\n")
        args = ["schedule", POD, "--cluster", CLUSTER, "--add-node", str(f)]
    else:
        f.write_text(f"apiVersion: v1\nkind: Config\npreferences: {{x: {tagged}}}\nclusters: []\n")
        args = ["schedule", POD, "--kubeconfig", str(f)]
    r = run(*args)
    assert r.code == 2, r.err
    line = one_error_line(r)
    assert line.startswith(f"kwhatif: error: {f}") and "invalid YAML at line" in line and line.endswith(message)


CLUSTER_TEXT = Path(CLUSTER).read_text()


# --- nesting ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["capacity", "check"])
@pytest.mark.parametrize("depth", [150, 2000])
def test_a_workload_nested_too_deeply_is_refused_before_it_is_copied(run, tmp_path, command, depth):
    deep = "{a: " * depth + "1" + "}" * depth
    f = tmp_path / "d.yaml"
    f.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n"
        f"    spec:\n      containers: [{{name: c, image: x}}]\n      x: {deep}\n"
    )
    r = run(command, str(f), "--cluster", CLUSTER)
    if command == "check":
        # the API server's strict decoding refuses the unknown field first, whatever it holds: the
        # workload is refused (a verdict), and nothing walks the deep value
        assert r.code == 1
        assert 'strict decoding error: unknown field "spec.template.spec.x"' in r.out
        return
    assert r.code == 2
    line = one_error_line(r)
    assert "Deployment default/d: spec.template.spec.x.a.a.a.a.a.a.a.a...: nested more than 100 levels deep" in line


def test_deep_aliases_are_measured_without_recursion(run, tmp_path):
    depth = 3000
    f = tmp_path / "a.yaml"
    f.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata: {}\nx: &a "
        + "[" * depth
        + "1"
        + "]" * depth
        + "\ny: *a\n"
    )
    r = run("schedule", POD, "--cluster", CLUSTER, "--cluster", str(f))
    assert r.code == 0, r.err


# --- limits a user sets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        (
            "--max-input-size",
            "65G",
            "Error: Invalid value for '--max-input-size': '65G' is above the largest size kwhatif reads, 64G",
        ),
        ("--max-input-size", "9" * 40 + "G", "is above the largest size kwhatif reads, 64G"),
        (
            "--request-timeout",
            "25h",
            "Error: Invalid value for '--request-timeout': '25h' is above the longest timeout, 24h (0 waits forever)",
        ),
        ("--request-timeout", "9" * 30 + "h", "is above the longest timeout, 24h"),
        (
            "--add-node",
            "{node}:5001",
            "kwhatif: error: --add-node: count 5001 in '{node}:5001' is above 5000 (the most nodes a cluster is supported with)",
        ),
        ("--add-node", "{node}:" + "9" * 30, "is above 5000 (the most nodes a cluster is supported with)"),
    ],
)
def test_every_limit_a_user_sets_has_a_maximum(run, tmp_path, flag, value, message):
    node = tmp_path / "n.yaml"
    node.write_text(yaml.safe_dump(NODE))
    r = run("schedule", POD, "--cluster", CLUSTER, flag, value.replace("{node}", str(node)))
    assert r.code == 2
    assert "Traceback" not in r.err
    assert message.replace("{node}", str(node)) in r.err


def test_the_add_node_counts_are_bounded_together(run, tmp_path):
    node = tmp_path / "n.yaml"
    node.write_text(yaml.safe_dump(NODE))
    r = run("schedule", POD, "--cluster", CLUSTER, "--add-node", f"{node}:3000", "--add-node", f"{node}:3000")
    assert r.code == 2
    assert (
        one_error_line(r)
        == "kwhatif: error: --add-node: 6000 nodes in all is above 5000 (the most nodes a cluster is supported with)"
    )


@pytest.mark.parametrize(("flag", "value"), [("--max", "150001"), ("--min", "150001"), ("--max", "0")])
def test_capacity_copies_are_bounded(run, flag, value):
    r = run("capacity", POD, "--cluster", CLUSTER, flag, value)
    assert r.code == 2 and "is not in the range" in r.err


def test_the_largest_input_size_reads_a_small_file_without_asking_for_64g(run):
    r = run("schedule", POD, "--cluster", CLUSTER, "--max-input-size", "64G")
    assert r.code == 0, r.err


# --- reads that never end, or never start -----------------------------------------------------------


def _fifo(tmp_path: Path, name: str = "fifo") -> str:
    path = tmp_path / name
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("where", ["cluster", "manifest", "config", "add-node"])
def test_a_fifo_nobody_writes_ends_at_the_read_timeout(run, tmp_path, where):
    fifo = _fifo(tmp_path)
    args = {
        "cluster": ["schedule", POD, "--cluster", fifo],
        "manifest": ["schedule", fifo, "--cluster", CLUSTER],
        "config": ["schedule", POD, "--cluster", CLUSTER, "--config", fifo],
        "add-node": ["schedule", POD, "--cluster", CLUSTER, "--add-node", fifo],
    }[where]
    start = time.monotonic()
    r = run(*args, "--request-timeout", "1s")
    assert time.monotonic() - start < 20
    assert r.code == 2
    assert one_error_line(r).endswith(f"{fifo}: cannot read: no writer opened it within 1s (see --request-timeout)")


def test_a_fifo_that_is_written_is_read(run, tmp_path):
    fifo = _fifo(tmp_path)
    text = Path(CLUSTER).read_bytes()

    def writer() -> None:
        with open(fifo, "wb") as fh:
            fh.write(text)

    threading.Thread(target=writer, daemon=True).start()
    r = run("schedule", POD, "--cluster", fifo, "--request-timeout", "10s")
    assert r.code == 0, r.err


def test_a_pipe_that_stays_silent_ends_at_the_read_timeout(tmp_path):
    """Standard input whose writer keeps it open and writes nothing more."""
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; sys.stdout.write('apiVersion: v1\\n'); sys.stdout.flush(); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        start = time.monotonic()
        p = subprocess.run(
            [kwhatif_command(), "schedule", "-", "--cluster", CLUSTER, "--request-timeout", "1s"],
            stdin=writer.stdout,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert time.monotonic() - start < 20
    finally:
        writer.kill()
        writer.wait()
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1] == (
        "kwhatif: error: <stdin>: cannot read: nothing more came within 1s (see --request-timeout)"
    )


@pytest.fixture
def api():
    with FakeAPIServer(cluster_objects(), token="t0ken-for-limits") as srv:
        yield srv


def test_a_token_file_of_dev_zero_is_refused_at_its_size(api, run, tmp_path):
    kc = api.kubeconfig(str(tmp_path / "kc"), user={"tokenFile": "/dev/zero"})
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3
    assert (
        one_error_line(r)
        == "kwhatif: error: kubeconfig user 'tester': tokenFile /dev/zero: larger than 1024 KiB, not a token"
    )


def test_a_token_file_that_is_a_fifo_ends_at_the_request_timeout(api, run, tmp_path):
    fifo = _fifo(tmp_path)
    kc = api.kubeconfig(str(tmp_path / "kc"), user={"tokenFile": fifo})
    start = time.monotonic()
    r = run("schedule", "--pending", "--kubeconfig", kc, "--request-timeout", "1s")
    assert time.monotonic() - start < 20
    assert r.code == 3
    assert one_error_line(r) == (
        f"kwhatif: error: kubeconfig user 'tester': tokenFile {fifo}: no writer opened it within 1s (see --request-timeout)"
    )


def test_an_exec_plugin_that_never_stops_writing_is_stopped(api, run, tmp_path):
    plugin = tmp_path / "plugin.py"
    plugin.write_text(f"#!{sys.executable}\nimport sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
    plugin.chmod(0o755)
    user = {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin), "interactiveMode": "Never"}
    }
    kc = api.kubeconfig(str(tmp_path / "kc"), user=user)
    start = time.monotonic()
    r = run("schedule", "--pending", "--kubeconfig", kc, "--request-timeout", "0")
    assert time.monotonic() - start < 30
    assert r.code == 3
    assert one_error_line(r) == (
        f"kwhatif: error: kubeconfig user 'tester': exec plugin {plugin}: it wrote more than 4 MiB on its standard "
        "output, which is no ExecCredential (it was stopped)"
    )


def test_a_kubeconfig_server_port_out_of_range_is_one_line(run, tmp_path):
    kc = tmp_path / "kc"
    kc.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:99999"}}],
                "users": [{"name": "u", "user": {"token": "abcdefgh"}}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    r = run("schedule", POD, "--kubeconfig", str(kc))
    assert r.code == 3
    assert one_error_line(r) == (
        "kwhatif: error: kubeconfig: the cluster's server 'https://127.0.0.1:99999': invalid port (a port is 1 to 65535)"
    )


def test_an_endless_list_is_cut_off_long_before_the_default_size_limit(api, tmp_path):
    """The default --max-input-size is 2 GiB; one page is bounded far below it, so an endless body
    is refused at a few hundred MB (measured: the child's peak resident memory)."""
    api.fault("/api/v1/nodes", "endless")
    kc = api.kubeconfig(str(tmp_path / "kc"))
    code = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.stderr.strip().splitlines()[-1])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, kwhatif_command(), "schedule", POD, "--kubeconfig", kc],
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    rc, peak_kb, last = out.split(" ", 2)
    assert rc == "3", out  # the server misbehaves: a cluster error
    assert "a page of 50 objects is larger than 256 MiB" in last
    assert int(peak_kb) < 700 * 1024, f"peak {int(peak_kb) // 1024} MiB"
