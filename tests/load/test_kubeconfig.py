"""$KUBECONFIG merged as kubectl merges it (client-go's clientcmd loading rules)."""

from __future__ import annotations

import json
import os

import pytest

from kwhatif.errors import InputError
from kwhatif.load.kubeconfig import context_namespace, contexts, kubeconfig_paths, live_requested, merged_kubeconfig


def write(tmp_path, name: str, *, current: str | None, ctxs: dict[str, str], clusters: dict[str, str]) -> str:
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": n, "cluster": {"server": s}} for n, s in clusters.items()],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u", "namespace": ns}} for n, ns in ctxs.items()],
    }
    if current is not None:
        cfg["current-context"] = current
    path = tmp_path / name
    path.write_text(json.dumps(cfg))
    return str(path)


@pytest.fixture
def two(tmp_path):
    a = write(tmp_path, "a", current="shared", ctxs={"shared": "ns-a"}, clusters={"c": "https://a"})
    b = write(tmp_path, "b", current="b-only", ctxs={"shared": "ns-b", "b-only": "ns-bb"}, clusters={"c": "https://b"})
    nocurrent = write(tmp_path, "n", current=None, ctxs={"n-only": "ns-n"}, clusters={})
    (tmp_path / "empty").write_text("")
    return {"a": a, "b": b, "n": nocurrent, "empty": str(tmp_path / "empty"), "missing": str(tmp_path / "missing")}


def env_of(files: dict[str, str], spec: str) -> str:
    return os.pathsep.join(files[p] if p else "" for p in spec.split(","))


@pytest.mark.parametrize(
    "spec, current, namespace, server, names",
    [
        pytest.param("a,b", "shared", "ns-a", "https://a", ["shared", "b-only"], id="first-file-wins"),
        pytest.param("b,a", "b-only", "ns-bb", "https://b", ["shared", "b-only"], id="other-order"),
        pytest.param(
            "n,b,a", "b-only", "ns-bb", "https://b", ["n-only", "shared", "b-only"], id="current-from-first-setter"
        ),
        pytest.param("missing,a", "shared", "ns-a", "https://a", ["shared"], id="missing-file-skipped"),
        pytest.param(",a,,b,", "shared", "ns-a", "https://a", ["shared", "b-only"], id="empty-entries-ignored"),
        pytest.param("empty,b", "b-only", "ns-bb", "https://b", ["shared", "b-only"], id="empty-file-skipped"),
    ],
)
def test_kubeconfig_merge(monkeypatch, two, spec, current, namespace, server, names):
    monkeypatch.setenv("KUBECONFIG", env_of(two, spec))
    items, cur = contexts(None)
    assert cur == current
    assert [c["name"] for c in items] == names
    assert context_namespace(None, None) == namespace
    cfg = merged_kubeconfig(None)
    assert cfg["clusters"].get_with_name("c")["cluster"]["server"] == server


def test_context_flag_picks_any_merged_context(monkeypatch, two):
    monkeypatch.setenv("KUBECONFIG", env_of(two, "a,b"))
    assert context_namespace(None, "b-only") == "ns-bb"
    assert context_namespace(None, "nope") == "default"


def test_kubeconfig_flag_is_one_file(monkeypatch, two):
    monkeypatch.setenv("KUBECONFIG", env_of(two, "a,b"))
    assert kubeconfig_paths(two["b"]) == [two["b"]]
    assert contexts(two["b"])[1] == "b-only"
    with pytest.raises(FileNotFoundError):
        merged_kubeconfig(two["missing"])


def test_default_and_live(monkeypatch):
    monkeypatch.delenv("KUBECONFIG", raising=False)
    assert kubeconfig_paths(None) == [os.path.expanduser("~/.kube/config")]
    assert not live_requested(None, None)
    assert live_requested(None, "ctx") and live_requested("f", None)
    monkeypatch.setenv("KUBECONFIG", os.pathsep)
    assert not live_requested(None, None)
    monkeypatch.setenv("KUBECONFIG", "x")
    assert live_requested(None, None)


def test_malformed_file_is_named(monkeypatch, tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("contexts: 3\n")
    monkeypatch.setenv("KUBECONFIG", str(bad))
    with pytest.raises(InputError, match="contexts must be a list"):
        merged_kubeconfig(None)
    assert contexts(None) == ([], None)  # completion: nothing, no error
