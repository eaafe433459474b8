"""No credential reaches the terminal, whatever text carries it, and the kubeconfig is read as
client-go and kubectl read it, from the installed command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import SAMPLES
from tests.e2e.fake_apiserver import FakeAPIServer
from tests.e2e.test_live import cluster_objects

TOKEN = "tok3n-9f2c41d0a7b6e5"
PASSWORD = "pa55w0rd-zq81x"
POD = str(SAMPLES / "pods" / "tie.yaml")


@pytest.fixture
def api():
    with FakeAPIServer(cluster_objects(), token=TOKEN) as srv:
        yield srv


def edit_kubeconfig(path: str, change) -> str:
    cfg = json.loads(Path(path).read_text())
    change(cfg)
    Path(path).write_text(json.dumps(cfg))
    return path


def test_a_password_in_the_server_url_is_shown_as_stars(api, run, tmp_path):
    url = api.url.replace("https://", f"https://admin:{PASSWORD}@")
    kc = edit_kubeconfig(api.kubeconfig(str(tmp_path / "kc")), lambda c: c["clusters"][0]["cluster"].update(server=url))
    api.fault("/api/v1/nodes", "status", code=500)
    r = run("schedule", "--pending", "--kubeconfig", kc, "--debug")
    assert r.code == 3
    assert PASSWORD not in r.err and PASSWORD not in r.out
    assert f"GET https://admin:***@{api.url.removeprefix('https://')}/api/v1/nodes: " in r.err


def test_a_password_in_the_server_url_is_sent_as_basic_authentication(api, run, tmp_path):
    """net/http sends a URL's user information as basic auth when no Authorization is set: the
    fake server wants a bearer token, so the basic credentials are refused (401), without showing them."""
    url = api.url.replace("https://", f"https://admin:{PASSWORD}@")
    kc = api.kubeconfig(str(tmp_path / "kc"), user={})
    edit_kubeconfig(kc, lambda c: c["clusters"][0]["cluster"].update(server=url))
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3
    assert "401" in r.err and PASSWORD not in r.err


@pytest.mark.parametrize("debug", [False, True])
def test_a_server_that_echoes_the_request_headers_shows_no_token(api, run, tmp_path, debug):
    kc = api.kubeconfig(str(tmp_path / "kc"))
    api.fault("/api/v1/nodes", "echo-headers", code=500)
    r = run("schedule", "--pending", "--kubeconfig", kc, *(["--debug"] if debug else []))
    assert r.code == 3
    assert TOKEN not in r.err and TOKEN not in r.out
    assert "authorization: REDACTED" in r.err


def test_an_exec_plugin_s_secrets_never_show(api, run, tmp_path):
    """Its env values named for a secret and the token it answers are hidden in its own
    standard error too; a value that names no secret (a region) is left alone."""
    plugin = tmp_path / "plugin.py"
    credential = {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": TOKEN}}
    plugin.write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        "print('secret is', os.environ['CLIENT_SECRET'], 'in', os.environ['REGION'], file=sys.stderr)\n"
        f"print('token is {TOKEN}', file=sys.stderr)\n"
        f"print({json.dumps(credential)!r})\n"
    )
    plugin.chmod(0o755)
    env = [{"name": "CLIENT_SECRET", "value": "cl13nt-s3cret-value"}, {"name": "REGION", "value": "eu-west-1"}]
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": str(plugin),
            "env": env,
            "interactiveMode": "Never",
        }
    }
    kc = api.kubeconfig(str(tmp_path / "kc"), user=user)
    api.fault("/api/v1/nodes", "echo-headers", code=500)
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3
    assert "cl13nt-s3cret-value" not in r.err and TOKEN not in r.err
    assert "secret is REDACTED in eu-west-1" in r.err
    assert "token is REDACTED" in r.err


def test_insecure_skip_tls_verify_with_a_ca_is_refused_as_client_go_refuses_it(api, run, tmp_path):
    kc = api.kubeconfig(str(tmp_path / "kc"))
    edit_kubeconfig(kc, lambda c: c["clusters"][0]["cluster"].update({"insecure-skip-tls-verify": True}))
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3
    assert (
        r.err
        == "kwhatif: error: kubeconfig: specifying a root certificates file with the insecure flag is not allowed\n"
    )
    assert api.requests == []


def test_insecure_skip_tls_verify_alone_is_accepted(api, run, tmp_path):
    kc = api.kubeconfig(str(tmp_path / "kc"))

    def insecure(c: dict) -> None:
        cluster = c["clusters"][0]["cluster"]
        del cluster["certificate-authority-data"]
        cluster["insecure-skip-tls-verify"] = True

    edit_kubeconfig(kc, insecure)
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 0, r.err


def test_a_kubeconfig_path_with_a_colon_is_one_path(api, run, tmp_path):
    """kubectl takes --kubeconfig as one file (clientcmd's ExplicitPath); only $KUBECONFIG is a list."""
    odd = tmp_path / "a:b"
    odd.mkdir()
    kc = api.kubeconfig(str(odd / "config:prod"))
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 0, r.err


def test_a_huge_invalid_value_is_quoted_by_a_bounded_prefix(run, tmp_path):
    value = "a" * 5_000_000 + "!"
    f = tmp_path / "p.yaml"
    f.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "p", "labels": {"a": value}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
            width=10**9,
        )
    )
    r = run("schedule", str(f), "--cluster", str(SAMPLES / "cluster.yaml"))
    assert r.code == 2
    line = r.err.strip().splitlines()[-1]
    assert line == (
        f'kwhatif: error: {f}: Pod default/p: metadata.labels[a]: Invalid value: "{"a" * 64}"... (5000001 characters): '
        "must be no more than 63 characters"
    )
