"""Options of the installed command: configuration files, preemption switch, colour, gated pods."""

from __future__ import annotations

import json

import pytest

CLUSTER = "samples/cluster.yaml"


def test_config_profiles_and_errors(run, tmp_path):
    cfg = tmp_path / "sched.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n"
        "- schedulerName: bin-packing\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
        "      scoringStrategy: {type: MostAllocated}\n"
    )
    least = json.loads(
        run("schedule", "samples/pods/tie.yaml", "--cluster", CLUSTER, "--config", str(cfg), "-o", "json").out
    )
    most = json.loads(
        run(
            "schedule",
            "samples/pods/tie.yaml",
            "--cluster",
            CLUSTER,
            "--config",
            str(cfg),
            "--profile",
            "bin-packing",
            "-o",
            "json",
        ).out
    )
    assert least["results"][0]["profile"] == "default-scheduler"
    assert most["results"][0]["profile"] == "bin-packing"
    assert least["results"][0]["node"] != most["results"][0]["node"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 120\n"
    )
    r = run("schedule", "samples/pods/tie.yaml", "--cluster", CLUSTER, "--config", str(bad))
    assert r.code == 2
    assert "percentageOfNodesToScore" in r.err and str(bad) in r.err
    assert "Traceback" not in r.err


def test_no_preemption(run, tmp_path):
    # a high-priority pod that only fits by evicting something
    pod = tmp_path / "vip.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: vip, namespace: data}\nspec:\n  priorityClassName: business-critical\n"
        "  nodeSelector: {kubernetes.io/hostname: memory-c-1}\n  containers:\n  - name: c\n    image: x\n"
        "    resources: {requests: {cpu: '6', memory: 8Gi}}\n"
    )
    with_p = json.loads(run("schedule", str(pod), "--cluster", CLUSTER, "-o", "json").out)["results"][0]
    assert with_p["preemption"]["nominatedNode"] == "memory-c-1"
    assert [v["name"] for v in with_p["preemption"]["victims"]] == ["postgres-0"]
    assert with_p["status"] == "Scheduled" and with_p["node"] == "memory-c-1"
    without = run("schedule", str(pod), "--cluster", CLUSTER, "--no-preemption", "-o", "json")
    res = json.loads(without.out)["results"][0]
    assert without.code == 1
    assert res["preemption"] is None
    assert "preemption:" not in res["message"]


def test_color(run):
    plain = run("schedule", "samples/pods/gpu-inference.yaml", "--cluster", CLUSTER)
    assert "\x1b[" not in plain.out
    forced = run("schedule", "samples/pods/gpu-inference.yaml", "--cluster", CLUSTER, "--color", "always")
    assert "\x1b[31mDOES NOT FIT\x1b[0m" in forced.out
    never = run(
        "schedule", "samples/pods/gpu-inference.yaml", "--cluster", CLUSTER, "--color", "never", env={"NO_COLOR": "1"}
    )
    assert "\x1b[" not in never.out


def test_gated_pod_is_not_placed(run):
    r = run("schedule", "samples/pods/gated.yaml", "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1
    res = json.loads(r.out)["results"][0]
    assert res["status"] == "Gated" and res["node"] is None
    assert res["message"] == "waiting for scheduling gates: [example.com/quota-check]"


def test_debug_shows_tracebacks_only_when_asked(run, tmp_path):
    r = run("schedule", "samples/pods/tie.yaml", "--cluster", str(tmp_path / "missing.yaml"))
    assert r.code == 2 and "Traceback" not in r.err
    r = run("--debug", "schedule", "samples/pods/tie.yaml", "--cluster", str(tmp_path / "missing.yaml"))
    assert "Traceback" in r.err


def test_python_dash_m(tmp_path):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "kwhatif", "schedule", "samples/pods/tie.yaml", "--cluster", CLUSTER, "-o", "json"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"][0]["status"] == "Scheduled"


@pytest.mark.parametrize(
    "command, codes",
    [
        pytest.param("schedule", ["0", "1", "2", "3", "4", "5", "130", "141"], id="schedule"),
        pytest.param("check", ["0", "1", "2", "3", "5", "130", "141"], id="check"),
        pytest.param("capacity", ["0", "1", "2", "3", "5", "130", "141"], id="capacity"),
        pytest.param("drain", ["0", "1", "2", "3", "5", "130", "141"], id="drain"),
        pytest.param("snapshot", ["0", "2", "3", "5", "130", "141"], id="snapshot"),
        pytest.param("completion", ["0", "2"], id="completion"),
    ],
)
def test_help_lists_every_exit_status(run, command, codes):
    r = run(command, "--help")
    assert r.code == 0
    lines = r.out.splitlines()
    start = lines.index("  Exit status:")
    assert [ln.split()[0] for ln in lines[start + 1 :] if ln.strip()] == codes
    if command != "completion":
        assert "    2   bad usage or bad input (file, YAML, object, field, configuration)" in lines


@pytest.mark.parametrize("command", ["schedule", "check", "capacity", "drain", "snapshot"])
def test_every_live_command_takes_kubectl_s_connection_flags(run, command):
    out = run(command, "--help").out
    for flag in ("--kubeconfig FILE", "--context NAME", "--request-timeout DURATION"):
        assert flag in out, flag
