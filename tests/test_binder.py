"""ApiBinder (--apply) against scripted API answers: what is posted, when it is not, and how each
answer is reported. The HTTPS end-to-end tests are in tests/e2e/test_live.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kwhatif.api import parse
from kwhatif.binder import ApiBinder, Binding, Outcome, RecordingBinder
from kwhatif.framework.interface import Code
from kwhatif.load.live import Unreachable

from builders import make_pod

POD_PATH = "/api/v1/namespaces/default/pods/web"
LIVE_POD = {
    "metadata": {"name": "web", "namespace": "default", "uid": "u-web"},
    "spec": {},
    "status": {"phase": "Pending"},
}


def pod(name: str = "web") -> Any:
    return parse.pod(make_pod().name(name).req(cpu="1").dict())


class Script:
    """Answers requests in order; records them."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, str, Any]] = []

    def __call__(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, bytes]:
        self.calls.append((method, path, body))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        code, doc = answer
        return code, json.dumps(doc).encode()


def st(code: int, reason: str, message: str) -> tuple[int, dict[str, Any]]:
    return code, {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "code": code,
        "reason": reason,
        "message": message,
    }


CREATED = (201, {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201})
TIMEOUT = Unreachable("no answer from the API server at https://k8s:6443 within 60s: read timed out", timed_out=True)
REFUSED = Unreachable("cannot reach the API server at https://k8s:6443: connection refused")


def test_the_binding_is_defaultbinders():
    assert Binding("default", "web", "u-web", "n1").to_manifest() == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"namespace": "default", "name": "web", "uid": "u-web"},
        "target": {"kind": "Node", "name": "n1"},
    }


def test_recording_binder_posts_nothing():
    b = RecordingBinder()
    assert b.bind(pod(), "n1").is_success()
    rec = b.binding_for(pod())
    assert rec is not None and rec.outcome is Outcome.RECORDED and not rec.applied and not b.settled(pod())


def test_a_pod_of_the_cluster_is_reread_then_bound_once():
    call = Script((200, LIVE_POD), CREATED)
    b = ApiBinder(call, {"default/web": "u-web"}, {})
    assert b.bind(pod(), "n1").is_success()
    assert [(m, p) for m, p, _ in call.calls] == [("GET", POD_PATH), ("POST", POD_PATH + "/binding")]
    assert call.calls[1][2]["metadata"]["uid"] == "u-web"
    rec = b.binding_for(pod())
    assert (rec.outcome, rec.code, rec.reason, rec.applied) == (Outcome.BOUND, 201, "Created", True)
    # asked again (a later round), nothing more is posted
    assert b.bind(pod(), "n2").is_success() and len(call.calls) == 2 and b.settled(pod())


@pytest.mark.parametrize(
    "answers, outcome, code, reason, text, posts",
    [
        pytest.param(
            [
                st(
                    409,
                    "Conflict",
                    'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n2"',
                )
            ],
            Outcome.FAILED,
            409,
            "Conflict",
            'binding to n1 failed: 409 Conflict: Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n2"',
            1,
            id="409-conflict",
        ),
        pytest.param(
            [st(500, "InternalError", "Internal error occurred: etcdserver: leader changed")],
            Outcome.FAILED,
            500,
            "InternalError",
            "binding to n1 failed: 500 InternalError: Internal error occurred: etcdserver: leader changed",
            1,
            id="500",
        ),
        pytest.param(
            [(502, {})],
            Outcome.FAILED,
            502,
            "Bad Gateway",
            "binding to n1 failed: 502 Bad Gateway: {}",
            1,
            id="502-not-a-status",
        ),
        pytest.param(
            [TIMEOUT, (200, {**LIVE_POD, "spec": {"nodeName": "n1"}})],
            Outcome.BOUND,
            0,
            "",
            "bound to n1 (accepted); the request timed out; re-reading the pod shows it on that node",
            1,
            id="timeout-but-bound",
        ),
        pytest.param(
            [TIMEOUT, (200, LIVE_POD)],
            Outcome.FAILED,
            0,
            "Timeout",
            "binding to n1 failed: Timeout: posting the Binding: no answer from the API server at https://k8s:6443 within 60s: "
            "read timed out (it may have been carried out all the same)",
            1,
            id="timeout-not-bound",
        ),
        pytest.param(
            [REFUSED],
            Outcome.FAILED,
            0,
            "",
            "binding to n1 failed: posting the Binding: cannot reach the API server at https://k8s:6443: connection refused",
            1,
            id="connection-refused",
        ),
    ],
)
def test_answers_to_the_binding(answers, outcome, code, reason, text, posts):
    call = Script((200, LIVE_POD), *answers)
    b = ApiBinder(call, {"default/web": "u-web"}, {})
    status = b.bind(pod(), "n1")
    rec = b.binding_for(pod())
    assert (rec.outcome, rec.code, rec.reason, rec.describe()) == (outcome, code, reason, text)
    assert status.is_success() is (outcome is Outcome.BOUND)
    if not status.is_success():
        assert status.code is Code.ERROR and status.message() == text
    assert sum(1 for m, _, _ in call.calls if m == "POST") == posts


def test_a_reread_that_fails_still_lets_the_api_server_decide():
    call = Script(st(403, "Forbidden", 'pods "web" is forbidden'), CREATED)
    b = ApiBinder(call, {"default/web": "u-web"}, {})
    assert b.bind(pod(), "n1").is_success()
    assert b.binding_for(pod()).outcome is Outcome.BOUND


def test_a_reread_without_answer_posts_nothing():
    call = Script(REFUSED)
    b = ApiBinder(call, {"default/web": "u-web"}, {})
    assert not b.bind(pod(), "n1").is_success()
    assert [m for m, _, _ in call.calls] == ["GET"]
    assert "re-reading the pod before binding: cannot reach the API server" in b.binding_for(pod()).message


def test_unbound_claims_are_not_bound():
    call = Script()
    b = ApiBinder(call, {"default/web": "u-web"}, {}, unbound_claims=lambda p: ["data"])
    assert not b.bind(pod(), "n1").is_success()
    assert call.calls == []
    assert b.binding_for(pod()).describe() == (
        "binding to n1 failed: PersistentVolumeClaim(s) data are not bound yet: kube-scheduler's VolumeBinding PreBind "
        "would bind them first, which --apply does not do (the pod would wait for its volumes)"
    )


def test_a_new_pod_is_created_bound_from_its_manifest():
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "fresh", "uid": "x", "resourceVersion": "9"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": "Pending"},
    }
    call = Script((201, {"metadata": {"name": "fresh", "uid": "u-fresh"}}))
    b = ApiBinder(call, {}, {"default/fresh": manifest})
    assert b.bind(pod("fresh"), "n1").is_success()
    ((method, path, body),) = call.calls
    assert (method, path) == ("POST", "/api/v1/namespaces/default/pods")
    assert body == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "fresh", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], "nodeName": "n1"},
    }
    assert manifest["metadata"]["uid"] == "x"  # the manifest itself is left alone
    rec = b.binding_for(pod("fresh"))
    assert (rec.outcome, rec.uid, rec.describe()) == (
        Outcome.CREATED,
        "u-fresh",
        "created, already bound to n1 (spec.nodeName; 201 Created)",
    )
    assert "--apply: 0 bound, 1 created, 0 skipped, 0 failed" == b.summary()
