"""kubeconfig credentials: exec plugins run as kubectl runs them (with a timeout, their stderr
shown), legacy auth-providers refused with what to use instead, and no token, client key or
plugin output in any output, --debug tracebacks included."""

from __future__ import annotations

import base64
import json
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.fake_apiserver import FakeAPIServer
from tests.e2e.test_live import cluster_objects

SECRET = "s3cr3t-token-7d1f0c2b9e"


@pytest.fixture
def api(tmp_path):
    with FakeAPIServer(cluster_objects(), token=SECRET) as srv:
        yield srv


def plugin(tmp_path: Path, body: str) -> str:
    """An exec credential plugin: a Python script (``info`` is its KUBERNETES_EXEC_INFO)."""
    path = tmp_path / "plugin.py"
    path.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys, time\n"
        "info = json.loads(os.environ['KUBERNETES_EXEC_INFO'])\n" + body
    )
    path.chmod(0o755)
    return str(path)


def credential(token: str = SECRET, api_version: str = "client.authentication.k8s.io/v1") -> str:
    return json.dumps({"apiVersion": api_version, "kind": "ExecCredential", "status": {"token": token}})


def exec_user(command: str, **extra) -> dict:
    return {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": command,
            "interactiveMode": "Never",
            **extra,
        }
    }


def no_secret(r, *secrets: str) -> None:
    for s in (SECRET, *secrets):
        assert s not in r.out and s not in r.err


def test_an_exec_plugin_gives_the_token_as_kubectl_runs_it(api, run, tmp_path):
    seen = tmp_path / "seen.json"
    cmd = plugin(
        tmp_path,
        f"json.dump({{'info': info, 'argv': sys.argv[1:], 'env': os.environ.get('PLUGIN_ENV')}}, open({str(seen)!r}, 'w'))\n"
        "print('plugin: logging in', file=sys.stderr)\n"
        f"print({credential()!r})\n",
    )
    user = exec_user(
        cmd, args=["--cluster", "fake"], env=[{"name": "PLUGIN_ENV", "value": "set"}], provideClusterInfo=True
    )
    kc = api.kubeconfig(str(tmp_path / "kc"), user=user)
    r = run("schedule", "--pending", "--kubeconfig", kc, "-o", "json", "--debug")
    assert r.code == 0, r.err
    assert "plugin: logging in" in r.err  # its standard error is shown
    no_secret(r)
    got = json.loads(seen.read_text())
    assert got["argv"] == ["--cluster", "fake"] and got["env"] == "set"
    assert got["info"]["apiVersion"] == "client.authentication.k8s.io/v1"
    assert got["info"]["kind"] == "ExecCredential"
    assert got["info"]["spec"]["interactive"] is False
    assert got["info"]["spec"]["cluster"]["server"] == api.url


def test_a_v1beta1_plugin_and_a_relative_command(api, run, tmp_path):
    (tmp_path / "bin").mkdir()
    cmd = plugin(tmp_path / "bin", f"print({credential(api_version='client.authentication.k8s.io/v1beta1')!r})\n")
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "./bin/" + Path(cmd).name}}
    kc = api.kubeconfig(str(tmp_path / "kc"), user=user)
    r = run("snapshot", str(tmp_path / "s.json"), "--kubeconfig", kc, cwd=Path("/"))
    assert r.code == 0, r.err
    no_secret(r)


def test_a_plugin_that_hangs_is_stopped_at_the_timeout(api, run, tmp_path):
    cmd = plugin(tmp_path, "time.sleep(300)\n")
    kc = api.kubeconfig(str(tmp_path / "kc"), user=exec_user(cmd))
    start = time.monotonic()
    r = run("schedule", "--pending", "--kubeconfig", kc, "--request-timeout", "1s")
    assert time.monotonic() - start < 60
    assert r.code == 3 and r.out == ""
    assert r.err == (
        f"kwhatif: error: kubeconfig user 'tester': exec plugin {cmd}: no credential within 1s (see --request-timeout)\n"
    )
    assert api.requests == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            f"print('not json {SECRET}')\n",
            "its standard output is not an ExecCredential (not JSON)",
        ),
        (
            "print('bad login for user x', file=sys.stderr); sys.exit(4)\n",
            "exited with status 4",
        ),
        (
            f"print({credential(api_version='client.authentication.k8s.io/v1beta1')!r})\n",
            "it answered an ExecCredential of another apiVersion than client.authentication.k8s.io/v1",
        ),
        (
            "print(json.dumps({'apiVersion': info['apiVersion'], 'kind': 'ExecCredential', "
            f"'status': {{'clientCertificateData': '{SECRET}'}}}}))\n",
            "its ExecCredential gives clientCertificateData and clientKeyData only together",
        ),
    ],
    ids=["garbage", "failure", "apiVersion", "half-a-certificate"],
)
def test_a_failing_plugin_is_one_line_that_never_repeats_its_output(api, run, tmp_path, body, message):
    cmd = plugin(tmp_path, body)
    kc = api.kubeconfig(str(tmp_path / "kc"), user=exec_user(cmd))
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3 and r.out == ""
    last = r.err.splitlines()[-1]
    assert last == f"kwhatif: error: kubeconfig user 'tester': exec plugin {cmd}: {message}"
    if "status 4" in message:
        assert "bad login for user x" in r.err  # the plugin's own words, shown as it wrote them
    else:
        assert len(r.err.splitlines()) == 1
    no_secret(r)
    r = run("schedule", "--pending", "--kubeconfig", kc, "--debug")
    no_secret(r)


def test_a_missing_plugin_names_its_install_hint(api, run, tmp_path):
    user = exec_user("no-such-auth-plugin", installHint="install it with: brew install no-such-auth-plugin\nmore")
    kc = api.kubeconfig(str(tmp_path / "kc"), user=user)
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3
    assert r.err == (
        "kwhatif: error: kubeconfig user 'tester': exec plugin no-such-auth-plugin: no such command "
        "(install it with: brew install no-such-auth-plugin)\n"
    )


def test_interactive_mode_always_needs_a_terminal(api, run, tmp_path):
    cmd = plugin(tmp_path, f"print({credential()!r})\n")
    kc = api.kubeconfig(str(tmp_path / "kc"), user=exec_user(cmd, interactiveMode="Always"))
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3
    assert "needs an interactive terminal (interactiveMode Always)" in r.err


@pytest.mark.parametrize(
    ("provider", "instead"), [("oidc", "kubelogin"), ("gcp", "gke-gcloud-auth-plugin"), ("azure", "kubelogin")]
)
def test_a_legacy_auth_provider_is_refused_with_what_to_use_instead(api, run, tmp_path, provider, instead):
    user = {"auth-provider": {"name": provider, "config": {"id-token": SECRET, "access-token": SECRET}}}
    kc = api.kubeconfig(str(tmp_path / "kc"), user=user)
    for args in (("schedule", "--pending"), ("snapshot", str(tmp_path / "s.json"))):
        r = run(*args, "--kubeconfig", kc)
        assert r.code == 3, r.err
        assert len(r.err.splitlines()) == 1
        assert r.err.startswith(
            f"kwhatif: error: kubeconfig user 'tester': the {provider} auth-provider is not supported"
        )
        assert instead in r.err
        no_secret(r)
    assert api.requests == []  # nothing was sent without credentials
    assert not (tmp_path / "s.json").exists()


def test_a_client_key_never_appears(api, run, tmp_path):
    import subprocess

    pem = subprocess.run(
        ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    body = pem.splitlines()[1]
    user = {
        "client-certificate-data": base64.b64encode(api.ca_pem).decode(),  # not the key's certificate
        "client-key-data": base64.b64encode(pem.encode()).decode(),
    }
    kc = api.kubeconfig(str(tmp_path / "kc"), user=user)
    for debug in ((), ("--debug",)):
        r = run("schedule", "--pending", "--kubeconfig", kc, *debug)
        assert r.code == 3
        assert "kwhatif: error: kubeconfig: the TLS settings cannot be used:" in r.err
        assert body not in r.out + r.err and "PRIVATE KEY" not in r.out + r.err


def test_a_token_is_never_shown_in_any_failure(api, run, tmp_path):
    kc = api.kubeconfig(str(tmp_path / "kc"))
    api.fault("/api/v1/pods", "status", code=500)
    for args in (("schedule", "--pending"), ("snapshot",), ("snapshot", str(tmp_path / "s.json"))):
        r = run(*args, "--kubeconfig", kc, "--debug")
        assert r.code == 3
        no_secret(r)
        api.fault("/api/v1/pods", "status", code=500)
    api.faults.clear()
    for fmt in ("json", "yaml", "wide"):
        r = run("schedule", "--pending", "--kubeconfig", kc, "--debug", "-o", fmt)
        assert r.code == 0, r.err
        no_secret(r)
