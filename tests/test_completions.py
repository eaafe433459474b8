"""completions/ holds the scripts `kwhatif completion SHELL` prints; stale files fail here."""

from __future__ import annotations

from pathlib import Path

import pytest

from kwhatif.cli import cli
from kwhatif.cli.completion import completion_script

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_file_is_current(shell):
    path = ROOT / "completions" / f"kwhatif.{shell}"
    assert path.read_text() == completion_script(shell, cli), (
        f"{path} is stale: regenerate with `kwhatif completion {shell} > {path.relative_to(ROOT)}`"
    )


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_command(run_cli, shell):
    code, out = run_cli("completion", shell)
    assert code == 0
    assert "_KWHATIF_COMPLETE" in out


@pytest.mark.parametrize(
    "words, expected",
    [
        pytest.param("kwhatif schedule --pe", ["--pending"], id="pending"),
        pytest.param("kwhatif schedule --sch", ["--scheduler-name", "--scheduler-version"], id="scheduler-name"),
        pytest.param("kwhatif schedule --na", ["--namespace"], id="namespace"),
        pytest.param("kwhatif sn", ["snapshot"], id="snapshot-command"),
        pytest.param("kwhatif check -o s", ["sarif"], id="check-sarif"),
        pytest.param("kwhatif schedule -o s", ["sarif"], id="schedule-sarif"),
    ],
)
def test_bash_completion_offers_the_options(run_cli, monkeypatch, words, expected):
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(len(words.split()) - 1))
    monkeypatch.setenv("_KWHATIF_COMPLETE", "bash_complete")
    code, out = run_cli()
    assert code == 0
    assert [line.split(",", 1)[1] for line in out.splitlines()] == expected


def complete(run_cli, monkeypatch, words: str) -> list[str]:
    """What bash completion offers for the last word of ``words`` (a trailing space: a new word)."""
    monkeypatch.setenv("COMP_WORDS", words)
    parts = words.split()
    monkeypatch.setenv("COMP_CWORD", str(len(parts) if words.endswith(" ") else len(parts) - 1))
    monkeypatch.setenv("_KWHATIF_COMPLETE", "bash_complete")
    code, out = run_cli()
    assert code == 0
    return [line.split(",", 1)[1] for line in out.splitlines() if line]


SAMPLE = str(ROOT / "samples" / "cluster.yaml")


@pytest.fixture
def kubeconfigs(tmp_path, monkeypatch):
    import json
    import os

    def kc(name: str, contexts: list[str], current: str) -> str:
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "contexts": [{"name": c, "context": {"cluster": "x", "user": "u"}} for c in contexts],
            "current-context": current,
        }
        (tmp_path / name).write_text(json.dumps(doc))
        return str(tmp_path / name)

    a = kc("a", ["prod", "staging"], "prod")
    b = kc("b", ["prod", "dev"], "dev")
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([a, str(tmp_path / "missing"), b]))
    return a, b


@pytest.mark.parametrize(
    "words, expected",
    [
        pytest.param("kwhatif schedule --context ", ["dev", "prod", "staging"], id="merged-contexts"),
        pytest.param("kwhatif snapshot --context st", ["staging"], id="snapshot-context"),
        pytest.param("kwhatif drain --context d", ["dev"], id="drain-context"),
    ],
)
def test_contexts_complete_from_the_kubeconfig_merge(run_cli, monkeypatch, kubeconfigs, words, expected):
    assert complete(run_cli, monkeypatch, words) == expected


def test_context_completion_of_one_kubeconfig(run_cli, monkeypatch, kubeconfigs):
    assert complete(run_cli, monkeypatch, f"kwhatif check --kubeconfig {kubeconfigs[1]} --context ") == ["dev", "prod"]


@pytest.mark.parametrize(
    "words, expected",
    [
        pytest.param(
            f"kwhatif drain --cluster {SAMPLE} general-a",
            ["general-a-1", "general-a-2", "general-a-3"],
            id="drain-nodes",
        ),
        pytest.param(f"kwhatif schedule --cluster {SAMPLE} --node gpu", ["gpu-b-1", "gpu-c-1"], id="node-option"),
        pytest.param(f"kwhatif capacity --cluster {SAMPLE} --without-node mem", ["memory-c-1"], id="without-node"),
        pytest.param(f"kwhatif schedule --cluster {SAMPLE} -n s", ["shop"], id="namespaces"),
        pytest.param("kwhatif drain general-a", [], id="no-cluster-files-nothing"),
        pytest.param("kwhatif schedule -n ", [], id="no-cluster-files-no-namespaces"),
    ],
)
def test_nodes_and_namespaces_complete_from_the_cluster_files(run_cli, monkeypatch, words, expected):
    assert complete(run_cli, monkeypatch, words) == expected


def test_releases_complete(run_cli, monkeypatch):
    assert complete(run_cli, monkeypatch, "kwhatif schedule --scheduler-version 1.3") == [
        f"1.{m}" for m in range(30, 39)
    ]
    assert complete(run_cli, monkeypatch, "kwhatif schedule --scheduler-version 1.37") == [
        "1.37",
        "1.37.0",
        "1.37.1",
        "1.37.2",
    ]
    assert complete(run_cli, monkeypatch, "kwhatif check --scheduler-version 1.36.") == [
        "1.36.0",
        "1.36.1",
        "1.36.2",
        "1.36.3",
    ]


def test_feature_gates_complete_for_the_selected_release(run_cli, monkeypatch):
    from kwhatif.release import featuregates

    got = complete(run_cli, monkeypatch, "kwhatif schedule --scheduler-version 1.30 --feature-gates ")
    assert got == [f"{n}=" for n in sorted(featuregates.known(30))]
    newer = set(featuregates.known(37)) - set(featuregates.known(30))
    assert newer and not newer & {g.rstrip("=") for g in got}
    assert complete(run_cli, monkeypatch, "kwhatif schedule --feature-gates AllAlpha=true,AllBe") == [
        "AllAlpha=true,AllBeta="
    ]
    assert complete(run_cli, monkeypatch, "kwhatif schedule --feature-gates AllBeta=t") == ["AllBeta=true"]
