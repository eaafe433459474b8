"""A misbehaving API server never hangs, floods or degrades a run: each fault ends in its exit
status and one line, within a bound time, with nothing written (the snapshot target as it was,
standard output empty)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from tests.e2e.fake_apiserver import FakeAPIServer, make_other_ca
from tests.e2e.test_live import cluster_objects

GOOD = '{"apiVersion": "v1", "kind": "List", "items": [], "note": "the last good snapshot"}\n'
# Generous: the machine is shared and slow; what matters is that nothing waits for ever.
BOUND = 60.0


@pytest.fixture
def api(tmp_path):
    with FakeAPIServer(cluster_objects()) as srv:
        srv.kubeconfig_path = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        yield srv


def timed(run, *args: str):
    start = time.monotonic()
    r = run(*args)
    return r, time.monotonic() - start


def snapshot_fails(run, api, tmp_path: Path, *extra: str):
    """Run `kwhatif snapshot` to a file that holds a good snapshot and to standard output; both
    must fail alike and leave nothing behind. Returns the result of the file run."""
    target = tmp_path / "snap.json"
    target.write_text(GOOD)
    r, took = timed(run, "snapshot", str(target), "--kubeconfig", api.kubeconfig_path, *extra)
    assert took < BOUND, took
    assert target.read_text() == GOOD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kubeconfig", "snap.json"]  # no temporary file left
    assert r.out == ""
    return r


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --- no answer, or an answer that never ends ---------------------------------------------------------


@pytest.mark.parametrize("kind", ["hang", "drip"])
def test_a_server_that_does_not_answer_in_time_fails_at_the_request_timeout(api, run, tmp_path, kind):
    api.fault("/api/v1/pods", kind)
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "--request-timeout", "1s")
    assert took < BOUND, took
    assert r.code == 3 and r.out == ""
    what = "no answer" if kind == "hang" else "the answer did not end"
    assert one_line(r.err) == f"kwhatif: error: GET {api.url}/api/v1/pods: {what} within 1s"
    if kind == "drip":
        assert api.sent["/api/v1/pods"] > 0  # it was answering, a byte a second
    r = snapshot_fails(run, api, tmp_path, "--request-timeout", "1")
    assert r.code == 3
    assert one_line(r.err) == f"kwhatif: error: GET {api.url}/api/v1/pods: {what} within 1s"


def test_a_listener_that_never_speaks_tls_times_out_connecting(run, tmp_path):
    srv = FakeAPIServer([])
    path = srv.kubeconfig(str(tmp_path / "kc"))
    srv.httpd.server_close()
    host, port = srv.httpd.server_address[:2]
    with socket.socket() as sock:  # accepts (the kernel completes the handshake) and never answers
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(8)
        r, took = timed(run, "schedule", "--pending", "--kubeconfig", path, "--request-timeout", "1s")
    assert took < BOUND
    assert r.code == 3 and r.out == ""
    assert one_line(r.err) == (
        f"kwhatif: error: GET {srv.url}/api/v1/nodes: cannot reach the API server at {srv.url}: timed out connecting"
    )


def test_no_timeout_is_not_the_default():
    from kwhatif.load.http import DEFAULT_REQUEST_TIMEOUT
    from kwhatif.load.live import LiveOptions

    assert LiveOptions().request_timeout == DEFAULT_REQUEST_TIMEOUT == 60.0


def test_an_endless_body_is_cut_off_at_the_size_limit(api, run, tmp_path):
    api.fault("/api/v1/nodes", "endless")
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "--max-input-size", "1M")
    assert took < BOUND
    assert r.code == 2 and r.out == ""
    assert one_line(r.err) == (
        f"kwhatif: error: GET {api.url}/api/v1/nodes: the answer is larger than --max-input-size (1 MiB); "
        "give a larger --max-input-size to read it"
    )
    r = snapshot_fails(run, api, tmp_path, "--max-input-size", "1M")
    assert r.code == 2 and "/api/v1/nodes: the answer is larger than --max-input-size (1 MiB)" in r.err


def test_an_endless_body_without_a_size_limit_still_ends_at_the_timeout(api, run):
    api.fault("/api/v1/nodes", "endless")
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "--request-timeout", "2s")
    assert took < BOUND
    assert r.code == 3, r.err  # two seconds come long before 2 GiB
    # whichever bound comes first: the time, or the page size no list of stored objects reaches
    assert one_line(r.err) in (
        f"kwhatif: error: GET {api.url}/api/v1/nodes: the answer did not end within 2s",
        f"kwhatif: error: GET {api.url}/api/v1/nodes: a page of 50 objects is larger than 256 MiB, which no list "
        "of stored objects is (etcd keeps none above 1.5 MiB): the answer never ends",
    )


def test_pages_that_exceed_the_size_limit_together_are_cut_off(run, tmp_path):
    from builders import make_node

    nodes = [make_node().name(f"node-{i:03d}").label("filler", "x" * 60).dict() for i in range(300)]
    with FakeAPIServer(nodes, page_size=10) as srv:
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        r = run("schedule", "--pending", "--kubeconfig", kc, "--max-input-size", "64K")
        assert r.code == 2 and r.out == ""
        assert one_line(r.err).startswith(
            f"kwhatif: error: GET {srv.url}/api/v1/nodes: the answer is larger than --max-input-size (64 KiB)"
        )
        assert 2 < srv.gets("/api/v1/nodes") < 30  # cut off after some pages, each of them small
        r = run("schedule", "--pending", "--kubeconfig", kc, "--max-input-size", "10M")
        assert r.code == 0, r.err


def test_a_reset_mid_body_is_exit_3(api, run, tmp_path):
    api.fault("/api/v1/pods", "reset")
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert took < BOUND
    assert r.code == 3 and r.out == ""
    line = one_line(r.err)
    assert line.startswith(f"kwhatif: error: GET {api.url}/api/v1/pods: ")
    assert "closed" in line  # the connection closed before the whole answer arrived, or was reset
    assert snapshot_fails(run, api, tmp_path).code == 3


# --- errors are errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/api/v1/pods", "/apis/policy/v1/poddisruptionbudgets", "/apis/storage.k8s.io/v1/storageclasses"],
)
def test_a_5xx_on_any_list_ends_the_run(api, run, tmp_path, path):
    api.fault(path, "status", code=500)
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3 and r.out == ""
    assert one_line(r.err) == f"kwhatif: error: GET {api.url}{path}: 500 injected"
    assert api.gets(path) == 1  # no Retry-After: no retry
    r = snapshot_fails(run, api, tmp_path)
    assert r.code == 3 and r.err == f"kwhatif: error: GET {api.url}{path}: 500 injected\n"


def test_garbage_instead_of_a_list_is_exit_3(api, run, tmp_path):
    api.fault("/api/v1/namespaces", "garbage")
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3
    assert one_line(r.err) == (
        f"kwhatif: error: GET {api.url}/api/v1/namespaces: 200 but the API server did not answer with JSON"
    )
    assert snapshot_fails(run, api, tmp_path).code == 3


@pytest.mark.parametrize(
    ("path", "code", "affects"),
    [
        ("/apis/policy/v1/poddisruptionbudgets", 403, "preemption victims"),
        ("/apis/autoscaling/v2/horizontalpodautoscalers", 404, "check --hpa-max"),
    ],
)
def test_an_optional_list_not_served_or_forbidden_is_a_note_naming_what_it_affects(api, run, path, code, affects):
    (api.forbidden if code == 403 else api.not_served).add(path)
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    notes = [line for line in r.err.splitlines() if path in line]
    assert len(notes) == 1
    assert notes[0].startswith(f"kwhatif: note: could not list {path} ({code}: ")
    assert f"continuing without it, which affects {affects}" in notes[0]


@pytest.mark.parametrize("path", ["/apis/scheduling.k8s.io/v1/priorityclasses", "/api/v1/namespaces"])
def test_a_required_list_forbidden_is_exit_3(api, run, path):
    api.forbidden.add(path)
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3
    assert one_line(r.err).startswith(f"kwhatif: error: GET {api.url}{path}: 403 ")


def test_resources_table_is_one_table_with_what_each_affects():
    from kwhatif.load.live import RESOURCES

    assert len({r.path for r in RESOURCES}) == len(RESOURCES)
    assert [r.path for r in RESOURCES][:2] == ["/api/v1/nodes", "/api/v1/pods"]
    assert all(r.affects for r in RESOURCES)
    required = {r.path.rsplit("/", 1)[1] for r in RESOURCES if r.required}
    assert required == {
        "nodes",
        "pods",
        "namespaces",
        "priorityclasses",
        "persistentvolumes",
        "persistentvolumeclaims",
        "storageclasses",
    }
    page = (Path(__file__).resolve().parents[2] / "docs" / "live-reads.md").read_text()
    for r in RESOURCES:
        assert f"`{r.path.rsplit('/', 1)[1]}`" in page, r.path


# --- Retry-After ------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [429, 503])
def test_retry_after_is_honoured_and_the_run_goes_on(api, run, code):
    api.fault("/api/v1/pods", "status", code=code, retry_after="1", times=2)
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    assert api.gets("/api/v1/pods") == 2 + 3  # two refusals, then the three pages
    assert took >= 2.0  # it waited as asked


def test_retries_are_at_most_ten_as_client_go(api, run):
    api.fault("/api/v1/nodes", "status", code=429, retry_after="0")
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3
    assert one_line(r.err) == (
        f"kwhatif: error: GET {api.url}/api/v1/nodes: 429 injected (after 10 retries as Retry-After asked)"
    )
    assert api.gets("/api/v1/nodes") == 11


def test_retries_never_wait_past_the_request_timeout(api, run, tmp_path):
    api.fault("/api/v1/nodes", "status", code=503, retry_after="1")
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "--request-timeout", "3s")
    assert took < BOUND
    assert r.code == 3
    assert one_line(r.err).startswith(f"kwhatif: error: GET {api.url}/api/v1/nodes: 503 injected (after ")
    assert 2 <= api.gets("/api/v1/nodes") <= 4  # retried, within the three seconds
    api.fault("/api/v1/nodes", "status", code=503, retry_after="3600")
    r, took = timed(run, "snapshot", "--kubeconfig", api.kubeconfig_path, "--request-timeout", "2s")
    assert took < BOUND and r.code == 3 and r.out == ""
    assert r.err == f"kwhatif: error: GET {api.url}/api/v1/nodes: 503 injected\n"


# --- pagination ----------------------------------------------------------------------------------------


def test_a_continue_token_that_repeats_is_detected(api, run, tmp_path):
    api.fault("/api/v1/pods", "continue-loop")
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert took < BOUND
    assert r.code == 3
    assert one_line(r.err) == (
        f"kwhatif: error: GET {api.url}/api/v1/pods: the API server gave a continue token it gave before; "
        "the list would never end"
    )
    assert snapshot_fails(run, api, tmp_path).code == 3


def test_empty_pages_with_new_continue_tokens_forever_are_detected(api, run, tmp_path):
    from kwhatif.load.live import MAX_EMPTY_PAGES

    api.fault("/api/v1/pods", "continue-forever")
    r, took = timed(run, "schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert took < BOUND
    assert r.code == 3
    assert one_line(r.err) == (
        f"kwhatif: error: GET {api.url}/api/v1/pods: the API server sent {MAX_EMPTY_PAGES + 1} empty pages in a row, "
        "each with a new continue token; the list would never end"
    )
    assert api.gets("/api/v1/pods") == MAX_EMPTY_PAGES + 1
    assert snapshot_fails(run, api, tmp_path).code == 3


@pytest.mark.parametrize(
    "fault,message",
    [
        ("item-kind", "200 but items[0] of the PodList is a Node, not a Pod"),
        ("list-kind", "200 but the API server answered a NodeList, not a PodList"),
    ],
)
def test_a_list_of_another_kind_is_refused(api, run, tmp_path, fault, message):
    api.fault("/api/v1/pods", fault)
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3
    assert one_line(r.err) == f"kwhatif: error: GET {api.url}/api/v1/pods: {message}"
    assert snapshot_fails(run, api, tmp_path).code == 3


def test_an_object_the_server_could_not_have_accepted_is_exit_3(run, tmp_path):
    from builders import make_node, make_pod

    objs = [make_node().name("n1").dict(), make_pod().name("p").node("n1").req(cpu="lots").dict()]
    with FakeAPIServer(objs) as srv:
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        r = run("schedule", "--pending", "--kubeconfig", kc)
        assert r.code == 3
        assert one_line(r.err) == (
            f"kwhatif: error: {srv.url}/api/v1/pods (items[0]): Pod default/p: "
            'spec.containers[0].resources.requests[cpu]: Invalid value: "lots": '
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        )


def test_a_paged_listing_reads_every_page(run, tmp_path):
    from builders import make_node, make_pod

    objs = [make_node().name(f"n{i:03d}").capacity(cpu="8", memory="16Gi", pods="110").dict() for i in range(120)]
    objs += [make_pod().name(f"p{i:04d}").node(f"n{i % 120:03d}").req(cpu="100m").dict() for i in range(1300)]
    with FakeAPIServer(objs, page_size=500) as srv:
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        snap = tmp_path / "s.json"
        r = run("snapshot", str(snap), "--kubeconfig", kc)
        assert r.code == 0, r.err
        assert "(120 Node, 1300 Pod)" in r.err
        assert srv.gets("/api/v1/pods") == 3


# --- TLS and credentials ----------------------------------------------------------------------------


def test_a_server_certificate_of_another_ca_is_exit_3(api, run, tmp_path):
    kc = api.kubeconfig(str(tmp_path / "kubeconfig"), ca_pem=make_other_ca())
    r = run("schedule", "--pending", "--kubeconfig", kc)
    assert r.code == 3
    line = one_line(r.err)
    assert line.startswith(f"kwhatif: error: GET {api.url}/api/v1/nodes: cannot reach the API server at {api.url}: ")
    assert "TLS certificate verify failed" in line and "certificate-authority" in line
    assert snapshot_fails(run, api, tmp_path).code == 3


def test_an_expired_token_is_exit_3_and_never_shown(api, run, tmp_path):
    secret = "expired-token-0f9e8d7c6b5a"
    api.kubeconfig(str(tmp_path / "kubeconfig"), token=secret)
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3
    assert one_line(r.err) == (
        f"kwhatif: error: GET {api.url}/api/v1/nodes: 401 Unauthorized (the kubeconfig's credentials were refused)"
    )
    r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "--debug")
    assert r.code == 3 and "Traceback" in r.err  # --debug shows it, without the token
    assert r.err.splitlines()[-1].endswith("401 Unauthorized (the kubeconfig's credentials were refused)")
    assert secret not in r.out + r.err
    target = tmp_path / "snap.json"
    target.write_text(GOOD)
    r = run("snapshot", str(target), "--kubeconfig", api.kubeconfig_path, "--debug")
    assert r.code == 3 and r.out == "" and target.read_text() == GOOD
    assert secret not in r.err


def test_request_timeout_is_spelled_as_kubectl_spells_it(api, run):
    for good in ("1m30s", "45", "0"):
        r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "--request-timeout", good)
        assert r.code == 0, (good, r.err)
    for bad in ("-1s", "soon"):
        r = run("schedule", "--pending", "--kubeconfig", api.kubeconfig_path, "--request-timeout", bad)
        assert r.code == 2, bad
        assert "--request-timeout" in r.err and "is not a duration such as 30s" in r.err
        assert "Traceback" not in r.err


def test_parse_duration():
    from kwhatif.load.http import parse_duration

    assert parse_duration("0") == 0.0
    assert parse_duration("12") == 12.0
    assert parse_duration("1h2m3s") == 3723.0
    assert parse_duration("1.5s") == 1.5
    assert parse_duration("250ms") == 0.25
    for bad in ("", "s", "1 s", "1s2", "-3s", "1d"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_the_api_binder_posts_within_the_timeout(api, run):
    api.delay[("POST", "/api/v1/namespaces/default/pods/web/binding")] = 10
    r, took = timed(
        run,
        "schedule",
        "pod/web",
        "--kubeconfig",
        api.kubeconfig_path,
        "--apply",
        "--yes",
        "--request-timeout",
        "1s",
        "-o",
        "json",
    )
    assert took < BOUND
    assert r.code == 3, r.err
    assert "posting the Binding: POST " in r.out and "no answer within 1s" in r.out
    assert "(it may have been carried out all the same)" in r.out
