"""docs/gitlab-ci.md and docs/argocd-presync.md: every YAML block parses, and the objects they
show are the ones the text describes (a JUnit report artifact; PreSync hooks with a read-only
ServiceAccount)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kwhatif.load.live import RESOURCES

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"^```yaml\n(.*?)^```", re.S | re.M)


def yaml_blocks(name: str) -> list[list[object]]:
    text = (DOCS / name).read_text()
    blocks = [list(yaml.safe_load_all(b)) for b in BLOCK.findall(text)]
    assert blocks, f"{name} has no yaml block"
    return blocks


@pytest.mark.parametrize("name", ["gitlab-ci.md", "argocd-presync.md"])
def test_every_yaml_block_parses(name):
    for docs in yaml_blocks(name):
        assert all(isinstance(d, dict) for d in docs)


def test_gitlab_job_reports_junit():
    jobs = yaml_blocks("gitlab-ci.md")[0][0]
    job = jobs["will-it-fit"]
    assert any(line.startswith("kwhatif check ") and "-o junit > kwhatif.xml" in line for line in job["script"])
    assert job["artifacts"]["reports"]["junit"] == "kwhatif.xml"
    assert job["artifacts"]["when"] == "always"


def test_argocd_presync_hook():
    (kustomization,), objects = yaml_blocks("argocd-presync.md")
    by_kind = {o["kind"]: o for o in objects}
    assert set(by_kind) == {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Job"}
    job = by_kind["Job"]
    annotations = job["metadata"]["annotations"]
    assert annotations["argocd.argoproj.io/hook"] == "PreSync"
    assert "argocd.argoproj.io/hook-delete-policy" in annotations
    pod = job["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == by_kind["ServiceAccount"]["metadata"]["name"]
    script = pod["containers"][0]["args"][0]
    assert "kwhatif check /manifests/*.yaml --kubeconfig /tmp/kubeconfig" in script
    # the kubeconfig the script writes is one
    kubeconfig = yaml.safe_load(script.split("<<EOF\n", 1)[1].split("\nEOF\n", 1)[0])
    assert kubeconfig["users"][0]["user"]["tokenFile"] == "$sa/token"
    # read-only: list (and get /version), nothing else
    verbs = {v for rule in by_kind["ClusterRole"]["rules"] for v in rule["verbs"]}
    assert verbs == {"list", "get"}
    assert [r["nonResourceURLs"] for r in by_kind["ClusterRole"]["rules"] if "get" in r["verbs"]] == [["/version"]]
    # every list kwhatif makes of a live cluster is allowed
    allowed = {
        (group, resource)
        for rule in by_kind["ClusterRole"]["rules"]
        if "list" in rule["verbs"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    for r in RESOURCES:
        parts = r.path.strip("/").split("/")
        group = "" if parts[0] == "api" else parts[1]
        assert (group, parts[-1]) in allowed, r.path
    binding = by_kind["ClusterRoleBinding"]
    assert binding["roleRef"]["name"] == by_kind["ClusterRole"]["metadata"]["name"]
    assert binding["subjects"][0]["name"] == "kwhatif"
    # every hook object is a PreSync hook; the manifests' ConfigMap comes in an earlier wave
    for o in objects:
        assert o["metadata"]["annotations"]["argocd.argoproj.io/hook"] == "PreSync"
    (generator,) = kustomization["configMapGenerator"]
    assert generator["name"] == pod["volumes"][0]["configMap"]["name"]
    assert generator["options"]["annotations"]["argocd.argoproj.io/hook"] == "PreSync"
    assert int(generator["options"]["annotations"]["argocd.argoproj.io/sync-wave"]) < 0
