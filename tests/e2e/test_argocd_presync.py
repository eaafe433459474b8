"""The kubeconfig the PreSync Job of docs/argocd-presync.md writes from its ServiceAccount (the
token and CA files mounted in the pod) reads a cluster: kwhatif check runs against it."""

from __future__ import annotations

from tests.e2e.fake_apiserver import FakeAPIServer
from tests.e2e.test_live import cluster_objects
from tests.test_ci_docs import yaml_blocks

TOKEN = "presync-token-3b9a"


def test_the_jobs_kubeconfig_reads_the_cluster(run, tmp_path):
    _, objects = yaml_blocks("argocd-presync.md")
    job = next(o for o in objects if o["kind"] == "Job")
    script = job["spec"]["template"]["spec"]["containers"][0]["args"][0]
    kubeconfig = script.split("<<EOF\n", 1)[1].split("\nEOF\n", 1)[0]
    sa = tmp_path / "serviceaccount"
    sa.mkdir()
    (sa / "token").write_text(TOKEN + "\n")
    with FakeAPIServer(cluster_objects(), token=TOKEN) as api:
        (sa / "ca.crt").write_bytes(api.ca_pem)
        path = tmp_path / "kubeconfig"
        path.write_text(kubeconfig.replace("$sa", str(sa)).replace("https://kubernetes.default.svc", api.url))
        r = run("check", "samples/workloads/release.yaml", "--kubeconfig", str(path), "-o", "json")
    assert r.code in (0, 1), r.err
    assert "error" not in r.err


def test_a_token_file_that_cannot_be_read_is_one_line(run, tmp_path):
    with FakeAPIServer(cluster_objects(), token=TOKEN) as api:
        path = api.kubeconfig(str(tmp_path / "kubeconfig"), user={"tokenFile": str(tmp_path / "missing")})
        r = run("check", "samples/workloads/release.yaml", "--kubeconfig", path)
    assert r.code == 3
    assert r.err.splitlines() == [
        f"kwhatif: error: kubeconfig user 'tester': tokenFile {tmp_path / 'missing'}: No such file or directory"
    ]
