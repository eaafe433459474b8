"""The check, capacity and drain reports of small fixed clusters in every output format they are
written in (snapshots: pytest --snapshot-update refreshes them), and the exit code of every
report, --apply's policy included, as the Report protocol gives it."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from kwhatif.binder import ApiBinder
from kwhatif.config.defaults import default_configuration
from kwhatif.config.options import Options
from kwhatif.errors import ExitCode
from kwhatif.load.files import Document
from kwhatif.release.versions import ChosenVersion, VersionSource
from kwhatif.report.base import OutputFormat, ReportKind
from kwhatif.report.capacity import CapacityReport, capacity_report
from kwhatif.report.check import CheckReport, check_report
from kwhatif.report.diff import DiffReport
from kwhatif.report.diff import render as render_diff
from kwhatif.report.drain import DrainReport, drain_report
from kwhatif.report.formats.formatter import AnyReport
from kwhatif.report.formats.output import get_formatter
from kwhatif.report.schedule import ScheduleReport, schedule_report
from kwhatif.scheduling.scheduler import Scheduler
from kwhatif.whatif.capacity import measure
from kwhatif.whatif.check import check
from kwhatif.whatif.drain import DrainOptions, drain
from tests.report import SNAPSHOTS, snapshot_file

from builders import PINNED, make_cluster, make_node, make_pod

CHOSEN = ChosenVersion(PINNED, VersionSource.FLAG)


def nodes() -> list[dict[str, Any]]:
    """Two 2-cpu workers and a tainted GPU node."""
    return [
        make_node().name("worker-1").capacity(cpu="2", memory="4Gi", pods="110").dict(),
        make_node().name("worker-2").capacity(cpu="2", memory="4Gi", pods="110").dict(),
        make_node()
        .name("gpu-1")
        .capacity(cpu="8", memory="16Gi", pods="110")
        .taint("nvidia.com/gpu", "present")
        .dict(),
    ]


def template(cpu: str, **labels: str) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels},
        "spec": {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]},
    }


def deployment(name: str, replicas: int, cpu: str, namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": template(cpu, app=name)},
    }


def scheduler(state: Any, **options: Any) -> Scheduler:
    return Scheduler(state, default_configuration(PINNED), options=Options(filter_excluded=False, **options))


def render(report: AnyReport | DiffReport, fmt: OutputFormat) -> str:
    if isinstance(report, DiffReport):  # written by its own module, kwhatif.report.diff
        return render_diff(report, fmt)
    return get_formatter(fmt).format(report)


def diff_of() -> DiffReport:
    """A DiffReport of one pod whose node changes (a recorded change as the cause)."""
    from kwhatif.report.diff_aspects import Aspect
    from kwhatif.whatif.diff import Cause, PodDiff, PodValues

    def values(node: str) -> PodValues:
        return PodValues("Scheduled", node, (), None, {"a": None, "b": None}, ("a", "b"), {}, {}, None, ())

    cause = Cause(
        "release", "a change", release="1.36.0", plugins=("NodeResourcesBalancedAllocation",), prs=(1,), side="to"
    )
    pod = PodDiff("ns/p", (Aspect.NODE,), values("a"), values("b"), ("NodeResourcesBalancedAllocation",), (cause,))
    side = {"schedulerVersion": "1.35.7", "schedulerVersionSource": "flag", "featureGates": {}, "config": None}
    return DiffReport(side, {**side, "schedulerVersion": "1.36.2"}, (pod,), (), (cause,))


# --- check ---------------------------------------------------------------------------------------

# A deployment that fits, one too big for any node, one refused by its namespace's quota, a
# DaemonSet no node is eligible for, a custom resource kwhatif cannot expand and a bare Pod.
CHECK_MANIFESTS: list[tuple[int, dict[str, Any]]] = [
    (1, deployment("web", 2, "500m")),
    (20, deployment("batch", 2, "3")),
    (39, deployment("api", 2, "100m", namespace="team")),
    (
        58,
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "default"},
            "spec": {
                "selector": {"matchLabels": {"app": "agent"}},
                "template": {
                    **template("50m", app="agent"),
                    "spec": {**template("50m")["spec"], "nodeSelector": {"role": "edge"}},
                },
            },
        },
    ),
    (
        77,
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "Prometheus",
            "metadata": {"name": "main", "namespace": "default"},
            "spec": {"replicas": 2},
        },
    ),
    (84, make_pod().name("debug").req(cpu="100m").dict()),
    (
        90,
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {
                "replicas": 2,
                "serviceName": "db",
                "selector": {"matchLabels": {"app": "db"}},
                "template": {
                    "metadata": {"labels": {"app": "db"}},
                    "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]},
                },
                "volumeClaimTemplates": [
                    {"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}
                ],
            },
        },
    ),
]
NAMESPACES = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in ("default", "team")]
QUOTA = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {"name": "pods", "namespace": "team"},
    "spec": {"hard": {"pods": "1"}},
}


def check_of(manifests: list[tuple[int, dict[str, Any]]], *, strict: bool = False) -> CheckReport:
    # the state lists its Namespaces but holds no StorageClass: the StatefulSet's claims make it unknown
    state = make_cluster(nodes() + [QUOTA, *NAMESPACES])
    docs = [Document(copy.deepcopy(b), f"release.yaml:{line}", b["kind"], b["apiVersion"]) for line, b in manifests]
    result, sched = check(state, docs, lambda st: scheduler(st, compact=True))
    sched_report = schedule_report(
        result.attempts,
        sched.snapshot.num_nodes,
        "default-scheduler",
        scheduler_version=CHOSEN,
        nodes=[ni.node for ni in sched.snapshot.node_infos],
    )
    return check_report(result, sched_report, strict=strict)


@pytest.mark.parametrize("fmt", ReportKind.CHECK.formats)
def test_check_snapshot(snapshot, fmt):
    snapshot.snapshot_dir = SNAPSHOTS
    snapshot.assert_match(render(check_of(CHECK_MANIFESTS), fmt), snapshot_file("check", fmt))


def test_check_verdicts():
    rep = check_of(CHECK_MANIFESTS)
    assert [(w.kind, w.name, str(w.verdict), w.placed, w.not_placed) for w in rep.workloads] == [
        ("Deployment", "web", "fits", 2, 0),
        ("Deployment", "batch", "DOES NOT FIT", 0, 2),
        ("Deployment", "api", "refused by quota", 1, 1),
        ("DaemonSet", "agent", "no eligible nodes", 0, 0),
        ("StatefulSet", "db", "unknown", 0, 0),
        ("Pod", "debug", "fits", 1, 0),
        ("Prometheus", "main", "not checked", 0, 0),
    ]


def _manifests(*names: str) -> list[tuple[int, dict[str, Any]]]:
    return [(line, b) for line, b in CHECK_MANIFESTS if b["metadata"]["name"] in names]


@pytest.mark.parametrize(
    "names, strict, code",
    [
        pytest.param(("web", "debug"), False, ExitCode.OK, id="all-fit"),
        pytest.param(("web", "agent", "main"), False, ExitCode.OK, id="warnings"),
        pytest.param(("web", "agent"), True, ExitCode.UNSCHEDULABLE, id="warnings-strict"),
        pytest.param(("web", "main"), True, ExitCode.UNSCHEDULABLE, id="not-checked-strict"),
        pytest.param(("web", "db"), False, ExitCode.OK, id="unknown"),
        pytest.param(("web", "db"), True, ExitCode.UNSCHEDULABLE, id="unknown-strict"),
        pytest.param(("web", "batch"), False, ExitCode.UNSCHEDULABLE, id="does-not-fit"),
        pytest.param(("web", "api"), False, ExitCode.UNSCHEDULABLE, id="refused-by-quota"),
    ],
)
def test_check_exit_code(names, strict, code):
    assert check_of(_manifests(*names), strict=strict).exit_code is code


# --- capacity ------------------------------------------------------------------------------------


def capacity_of(minimum: int | None, max_copies: int = 100) -> CapacityReport:
    state = make_cluster(nodes())
    sched = scheduler(state)
    pod = make_pod().name("web").req(cpu="600m").obj(version=PINNED)
    res = measure(sched, pod, max_copies)
    return capacity_report(res, "default-scheduler", sched.snapshot.num_nodes, minimum, CHOSEN)


@pytest.mark.parametrize("minimum, name", [pytest.param(6, "meets", id="meets"), pytest.param(7, "short", id="short")])
@pytest.mark.parametrize("fmt", ReportKind.CAPACITY.formats)
def test_capacity_snapshot(snapshot, fmt, minimum, name):
    snapshot.snapshot_dir = SNAPSHOTS
    snapshot.assert_match(render(capacity_of(minimum), fmt), snapshot_file(f"capacity-{name}", fmt))


@pytest.mark.parametrize(
    "minimum, max_copies, code",
    [
        pytest.param(None, 100, ExitCode.OK, id="no-minimum"),
        pytest.param(6, 100, ExitCode.OK, id="meets"),
        pytest.param(7, 100, ExitCode.UNSCHEDULABLE, id="short"),
        pytest.param(0, 100, ExitCode.OK, id="zero"),
        pytest.param(6, 3, ExitCode.UNSCHEDULABLE, id="max-below-minimum"),
    ],
)
def test_capacity_exit_code(minimum, max_copies, code):
    rep = capacity_of(minimum, max_copies)
    assert rep.fits == min(6, max_copies)
    assert rep.exit_code is code


# --- drain ---------------------------------------------------------------------------------------


def drain_cluster(big_cpu: str) -> list[dict[str, Any]]:
    """worker-1's pods: a ReplicaSet's (lands on worker-2), a bigger one (``big_cpu``), one a
    PodDisruptionBudget protects, a DaemonSet's, a static pod and a bare pod with emptyDir data."""

    def on_worker_1(name: str, cpu: str) -> Any:
        return make_pod().name(name).req(cpu=cpu).node("worker-1").phase("Running")

    return nodes() + [
        on_worker_1("web-1", "500m").owner("ReplicaSet", "web").dict(),
        on_worker_1("big-1", big_cpu).owner("ReplicaSet", "big").dict(),
        on_worker_1("db-0", "100m").owner("StatefulSet", "db").label("app", "db").dict(),
        on_worker_1("agent-1", "50m").owner("DaemonSet", "agent", api_version="apps/v1").dict(),
        on_worker_1("kube-proxy", "50m").set("metadata.annotations", {"kubernetes.io/config.mirror": "x"}).dict(),
        on_worker_1("scratch", "100m").volume({"name": "tmp", "emptyDir": {}}).dict(),
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
            "status": {"disruptionsAllowed": 0},
        },
    ]


# kubectl drain --ignore-daemonsets --delete-emptydir-data --force: every pod drain may evict is
EVICT_ALL = DrainOptions(ignore_daemonsets=True, delete_emptydir_data=True, force=True)


def drain_of(objs: list[dict[str, Any]], *nodes_: str, opts: DrainOptions = EVICT_ALL) -> DrainReport:
    state = make_cluster(objs)
    sched = scheduler(state, compact=True)
    return drain_report(drain(sched, state, list(nodes_), opts), "default-scheduler", CHOSEN)


@pytest.mark.parametrize("fmt", ReportKind.DRAIN.formats)
def test_drain_snapshot(snapshot, fmt):
    snapshot.snapshot_dir = SNAPSHOTS
    snapshot.assert_match(render(drain_of(drain_cluster("2500m"), "worker-1"), fmt), snapshot_file("drain", fmt))


def test_drain_outcomes():
    rep = drain_of(drain_cluster("2500m"), "worker-1")
    assert [(e.name, e.action, e.node, e.lost) for e in rep.entries] == [
        ("agent-1", "skip-daemonset", None, False),
        ("big-1", "evict", None, False),
        ("db-0", "blocked", None, False),
        ("kube-proxy", "skip-mirror", None, False),
        ("scratch", "evict", None, True),
        ("web-1", "evict", "worker-2", False),
    ]


def _without_pdb(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objs if o["kind"] != "PodDisruptionBudget"]


@pytest.mark.parametrize(
    "objs, code",
    [
        pytest.param(_without_pdb(drain_cluster("1")), ExitCode.OK, id="every-replacement-lands"),
        pytest.param(_without_pdb(drain_cluster("2500m")), ExitCode.UNSCHEDULABLE, id="a-replacement-does-not-fit"),
        pytest.param(drain_cluster("1"), ExitCode.UNSCHEDULABLE, id="pdb-blocks-an-eviction"),
    ],
)
def test_drain_exit_code(objs, code):
    assert drain_of(objs, "worker-1").exit_code is code


def test_draining_a_node_without_pods_exits_0():
    assert drain_of(nodes(), "gpu-1").exit_code is ExitCode.OK


def test_drain_refused_without_flags():
    """Without kubectl drain's flags, worker-1 is refused (its DaemonSet pod, and the bare pod with
    emptyDir data): nothing on it is evicted, and the report names kubectl's errors."""
    rep = drain_of(drain_cluster("1"), "worker-1", opts=DrainOptions())
    assert rep.exit_code is ExitCode.UNSCHEDULABLE
    assert rep.refusals == (
        ("worker-1", "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/agent-1"),
        ("worker-1", "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/scratch"),
    )
    assert [(e.name, e.action) for e in rep.entries] == [
        ("agent-1", "refused"),
        ("big-1", "not-evicted"),
        ("db-0", "not-evicted"),
        ("kube-proxy", "skip-mirror"),
        ("scratch", "refused"),
        ("web-1", "not-evicted"),
    ]
    assert rep.summary()["refused"] == 2 and rep.summary()["evicted"] == 0


# --- schedule, and --apply -----------------------------------------------------------------------


class Api:
    """The API server's answers, by request; a pod the cluster has is Pending and unbound."""

    def __init__(self, **posts: tuple[int, str, str]) -> None:
        self.posts = posts  # pod name -> (code, reason, message) refusing its Binding or creation

    def __call__(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, bytes]:
        name = path.split("/pods/")[1].split("/")[0] if "/pods/" in path else (body or {})["metadata"]["name"]
        if method == "GET":
            doc = {
                "metadata": {"name": name, "namespace": "default", "uid": f"u-{name}"},
                "spec": {},
                "status": {"phase": "Pending"},
            }
            if name == "moved":
                doc["spec"]["nodeName"] = "worker-9"
            return 200, json.dumps(doc).encode()
        if name in self.posts:
            code, reason, message = self.posts[name]
            return code, json.dumps(
                {"kind": "Status", "status": "Failure", "code": code, "reason": reason, "message": message}
            ).encode()
        return 201, json.dumps({"metadata": {"name": name, "uid": f"u-{name}"}}).encode()


MOVED_NOTE = "note: default/moved: skipped: the pod is already bound to node worker-9 (bound by someone else after kwhatif read the cluster)"
CONFLICT = (
    409,
    "Conflict",
    'Operation cannot be fulfilled on pods/binding "b": pod b is already assigned to node "n9"',
)
FORBIDDEN = (403, "Forbidden", 'User "ci" cannot create pods or their bindings in the namespace "default"')


def applied(api: Api, *pods: tuple[str, str], live: tuple[str, ...] = ()) -> ScheduleReport:
    """``pods`` (name, cpu) scheduled with --apply: those named in ``live`` exist in the cluster
    (bound with a v1 Binding), the others are created bound."""
    state = make_cluster(nodes())
    manifests = {f"default/{n}": make_pod().name(n).req(cpu=cpu).dict() for n, cpu in pods}
    binder = ApiBinder(api, {f"default/{n}": f"u-{n}" for n in live}, manifests)
    sched = Scheduler(state, default_configuration(PINNED), binder=binder, options=Options(preemption=False))
    incoming = [make_pod().name(n).req(cpu=cpu).obj(version=PINNED) for n, cpu in pods]
    attempts = sched.run(incoming, skip_unchanged=True)
    return schedule_report(attempts, sched.snapshot.num_nodes, "default-scheduler", apply=True)


@pytest.mark.parametrize(
    "api, pods, live, code, messages",
    [
        pytest.param(Api(), [("a", "1"), ("b", "1")], ("a",), ExitCode.OK, [], id="all-bound"),
        pytest.param(
            Api(b=CONFLICT),
            [("a", "1"), ("b", "1")],
            ("a", "b"),
            ExitCode.PARTIAL_APPLY,
            [f"error: default/b: binding to worker-2 failed: 409 Conflict: {CONFLICT[2]}"],
            id="some-failed",
        ),
        pytest.param(
            Api(a=FORBIDDEN, b=FORBIDDEN),
            [("a", "1"), ("b", "1")],
            ("a",),
            ExitCode.CLUSTER,
            [
                f"error: default/a: binding to worker-1 failed: 403 Forbidden: {FORBIDDEN[2]}",
                # a's failed binding freed worker-1 (Unreserve), so b went there
                f"error: default/b: creating the pod bound to worker-1 failed: 403 Forbidden: {FORBIDDEN[2]}",
            ],
            id="api-refused-all",
        ),
        pytest.param(
            Api(),
            [("a", "1"), ("moved", "1")],
            ("a", "moved"),
            ExitCode.OK,
            [MOVED_NOTE],
            id="skipped-is-not-a-failure",
        ),
        pytest.param(
            Api(), [("a", "1"), ("huge", "64")], ("a",), ExitCode.UNSCHEDULABLE, [], id="bound-but-one-does-not-fit"
        ),
        pytest.param(
            Api(b=CONFLICT),
            [("b", "1"), ("huge", "64")],
            ("b",),
            ExitCode.CLUSTER,
            [f"error: default/b: binding to worker-1 failed: 409 Conflict: {CONFLICT[2]}"],
            id="failed-beats-does-not-fit",
        ),
    ],
)
def test_apply_exit_policy(api, pods, live, code, messages):
    rep = applied(api, *pods, live=live)
    assert rep.exit_code is code
    assert rep.apply_messages() == messages


def test_without_apply_the_recorded_bindings_decide_nothing():
    rep = applied(Api(b=CONFLICT), ("a", "1"), ("b", "1"), live=("a", "b"))
    dry = ScheduleReport(rep.profile, rep.results, rep.num_nodes)
    assert (dry.exit_code, dry.apply_messages()) == (ExitCode.UNSCHEDULABLE, [])


# --- the protocol --------------------------------------------------------------------------------


def every_kind() -> list[AnyReport | DiffReport]:
    return [
        applied(Api(), ("a", "1"), live=("a",)),
        check_of(_manifests("web")),
        capacity_of(None),
        drain_of(nodes(), "gpu-1"),
        diff_of(),
    ]


def test_each_kind_has_its_report():
    assert [r.kind for r in every_kind()] == list(ReportKind)


@pytest.mark.parametrize("report", every_kind(), ids=[k.value for k in ReportKind])
def test_dict_form_is_the_json_and_yaml_document(report):
    doc = report.to_dict()
    assert (doc["apiVersion"], doc["kind"]) == ("kwhatif/v1", report.kind.value)
    assert json.loads(render(report, OutputFormat.JSON)) == doc
    assert yaml.safe_load(render(report, OutputFormat.YAML)) == doc


@pytest.mark.parametrize("fmt", list(OutputFormat))
def test_a_format_renders_exactly_the_kinds_that_list_it(fmt):
    for report in every_kind():
        if fmt in report.kind.formats:
            assert render(report, fmt)
        else:
            with pytest.raises(TypeError, match=f"no {fmt} rendering for {report.kind}"):
                render(report, fmt)


def test_formats_of_each_kind():
    assert {k: [str(f) for f in k.formats] for k in ReportKind} == {
        ReportKind.SCHEDULE: ["table", "wide", "json", "yaml", "markdown", "junit", "sarif", "html"],
        ReportKind.CHECK: ["table", "json", "yaml", "markdown", "junit", "github", "sarif", "html"],
        ReportKind.CAPACITY: ["table", "json", "yaml", "markdown", "junit", "html"],
        ReportKind.DRAIN: ["table", "json", "yaml", "markdown", "junit", "html"],
        ReportKind.DIFF: ["table", "json", "yaml", "markdown", "junit", "github", "sarif", "html"],
    }


@pytest.mark.parametrize("fmt", [OutputFormat.TABLE, OutputFormat.MARKDOWN])
def test_drain_refused_snapshot(snapshot, fmt):
    snapshot.snapshot_dir = SNAPSHOTS
    rep = drain_of(drain_cluster("1"), "worker-1", opts=DrainOptions())
    snapshot.assert_match(render(rep, fmt), snapshot_file("drain-refused", fmt))
