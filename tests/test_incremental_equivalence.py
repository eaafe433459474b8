"""The incremental engine against from-scratch evaluation: randomized clusters and pod sequences
(mixed templates, topology spreading, pod (anti-)affinity, host ports, preemption, nominated
pods, deletions by drain) are scheduled twice, with Options(incremental=True) and with
Options(incremental=False), and every attempt must be reported identically: every filter of
every node, every raw and normalized score, the best set, messages, preemption, counts.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from kwhatif.api import parse
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.config.options import Options
from kwhatif.release.versions import get
from kwhatif.report.schedule import report_dict, schedule_report
from kwhatif.scheduling.scheduler import Attempt, Scheduler
from kwhatif.whatif.drain import DrainOptions, drain

from builders import make_cluster

ZONES = ("z1", "z2", "z3")
APPS = ("web", "api", "db", "cache")
NAMESPACES = {"ns-a": {"team": "a", "env": "prod"}, "ns-b": {"team": "b", "env": "prod"}, "ns-c": {"env": "dev"}}


def _meta(name: str, ns: str | None = None, **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"name": name, "uid": f"uid-{ns or ''}-{name}"}
    if ns:
        m["namespace"] = ns
    m.update(extra)
    return m


def _term(rng: random.Random, key: str | None = None, ns_selector: bool = False) -> dict[str, Any]:
    t: dict[str, Any] = {
        "topologyKey": key or rng.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]),
        "labelSelector": {"matchLabels": {"app": rng.choice(APPS)}},
    }
    if ns_selector:
        t["namespaceSelector"] = rng.choice(
            [
                {},
                {"matchLabels": {"env": "prod"}},
                {"matchLabels": {"team": "b"}},
                # ns-x has no Namespace object: it exists while pods run in it
                {
                    "matchExpressions": [
                        {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["ns-x", "ns-c"]}
                    ]
                },
            ]
        )
    return t


def _affinity(rng: random.Random) -> dict[str, Any] | None:
    kind = rng.random()
    if kind < 0.55:
        return None
    aff: dict[str, Any] = {}
    if rng.random() < 0.5:
        aff["podAntiAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng, ns_selector=rng.random() < 0.3)}
            ]
        }
    if rng.random() < 0.35:
        aff.setdefault("podAntiAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [_term(rng)]
    if rng.random() < 0.35:
        aff["podAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng)}
            ]
        }
    if rng.random() < 0.2:
        aff.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
            _term(rng, "topology.kubernetes.io/zone")
        ]
    return aff or None


def random_cluster(rng: random.Random) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    for ns, labels in NAMESPACES.items():
        objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": dict(labels)}})
    for app in APPS:
        objs.append(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": _meta(f"{app}-rs", "ns-a"),
                "spec": {"selector": {"matchLabels": {"app": app}}, "template": {"metadata": {"labels": {"app": app}}}},
            }
        )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta("web", "ns-a"),
            "spec": {"selector": {"app": "web"}},
        }
    )
    nodes = []
    for i in range(rng.randint(6, 14)):
        name = f"n{i:02d}"
        labels = {"kubernetes.io/hostname": name, "disk": rng.choice(["ssd", "hdd"])}
        if rng.random() < 0.9:
            labels["topology.kubernetes.io/zone"] = rng.choice(ZONES)
        node: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": {},
            "status": {
                "allocatable": {
                    "cpu": str(rng.choice([2, 4, 8])),
                    "memory": f"{rng.choice([4, 8, 16])}Gi",
                    "pods": str(rng.randint(6, 14)),
                },
                "images": [{"names": [f"registry/{rng.choice(APPS)}:v1"], "sizeBytes": rng.randint(50, 900) * 2**20}],
            },
        }
        r = rng.random()
        if r < 0.1:
            node["spec"]["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
        elif r < 0.2:
            node["spec"]["taints"] = [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]
        elif r < 0.25:
            node["spec"]["unschedulable"] = True
        objs.append(node)
        nodes.append(name)
    k = 0
    for name in nodes:
        for _ in range(rng.randint(0, 4)):
            app = rng.choice(APPS)
            ns = rng.choice(list(NAMESPACES) + ["ns-x"])
            pod: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": _meta(f"{app}-{k}", ns, labels={"app": app, "tier": rng.choice(["fe", "be"])}),
                "spec": {
                    "nodeName": name,
                    "priority": rng.choice([0, 0, 10, 100]),
                    "containers": [
                        {
                            "name": "c",
                            "image": f"registry/{app}:v1",
                            "resources": {"requests": {"cpu": rng.choice(["100m", "250m", "500m", "1"])}},
                        }
                    ],
                },
            }
            if ns == "ns-a" and rng.random() < 0.5:
                pod["metadata"]["ownerReferences"] = [
                    {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "name": f"{app}-rs",
                        "uid": f"uid-{app}-rs",
                        "controller": True,
                    }
                ]
            aff = _affinity(rng)
            if aff:
                pod["spec"]["affinity"] = aff
            if rng.random() < 0.05:
                pod["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
            if rng.random() < 0.08:
                pod["spec"]["containers"][0]["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
            objs.append(pod)
            k += 1
    for j in range(rng.randint(0, 2)):
        # a pending pod that an earlier preemption nominated: it holds room on its node
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": _meta(f"nominated-{j}", "ns-b", labels={"app": rng.choice(APPS)}),
                "spec": {
                    "priority": rng.choice([0, 500]),
                    "containers": [{"name": "c", "image": "registry/web:v1", "resources": {"requests": {"cpu": "1"}}}],
                },
                "status": {"phase": "Pending", "nominatedNodeName": rng.choice(nodes)},
            }
        )
    return objs


def random_template(rng: random.Random, i: int) -> dict[str, Any]:
    app = rng.choice(APPS)
    ns = rng.choice(["ns-a", "ns-a", "ns-b", "ns-x"])
    labels = {"app": app, "tier": rng.choice(["fe", "be"])}
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "c",
                "image": f"registry/{app}:v1",
                "resources": {"requests": {"cpu": rng.choice(["100m", "200m", "500m", "1500m"]), "memory": "256Mi"}},
            }
        ],
        "priority": rng.choice([0, 0, 0, 50, 1000]),
    }
    meta: dict[str, Any] = {"name": f"t{i}", "namespace": ns, "labels": labels}
    if ns == "ns-a" and rng.random() < 0.5:
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": f"{app}-rs",
                "uid": f"uid-{app}-rs",
                "controller": True,
            }
        ]
    if rng.random() < 0.5:
        constraints = []
        for key in rng.sample(["topology.kubernetes.io/zone", "kubernetes.io/hostname"], rng.randint(1, 2)):
            c: dict[str, Any] = {
                "maxSkew": rng.randint(1, 2),
                "topologyKey": key,
                "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                "labelSelector": {"matchLabels": {"app": app}},
            }
            if rng.random() < 0.2:
                c["minDomains"] = rng.randint(1, 4)
                c["whenUnsatisfiable"] = "DoNotSchedule"
            if rng.random() < 0.2:
                c["nodeTaintsPolicy"] = "Honor"
            if rng.random() < 0.2:
                c["nodeAffinityPolicy"] = "Ignore"
            if rng.random() < 0.2:
                c["matchLabelKeys"] = ["tier"]
            constraints.append(c)
        spec["topologySpreadConstraints"] = constraints
    aff = _affinity(rng)
    if aff:
        spec["affinity"] = aff
    r = rng.random()
    if r < 0.25:
        # a group that must share a zone and that no running pod belongs to yet: its first pod
        # may go anywhere, the next ones follow it
        labels["group"] = f"g{i}"
        spec.setdefault("affinity", {}).setdefault("podAffinity", {})[
            "requiredDuringSchedulingIgnoredDuringExecution"
        ] = [{"topologyKey": "topology.kubernetes.io/zone", "labelSelector": {"matchLabels": {"group": f"g{i}"}}}]
    elif r < 0.45:
        # one per node
        labels["group"] = f"g{i}"
        spec.setdefault("affinity", {}).setdefault("podAntiAffinity", {})[
            "requiredDuringSchedulingIgnoredDuringExecution"
        ] = [{"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"group": f"g{i}"}}}]
    if rng.random() < 0.15:
        spec["nodeSelector"] = {"disk": "ssd"}
    if rng.random() < 0.1:
        spec["containers"][0]["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
    if rng.random() < 0.15:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    if rng.random() < 0.1:
        # a PreFilterResult: only these nodes are worth filtering
        spec.setdefault("affinity", {})["nodeAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}
                    for name in ("n00", "n01", "n03")
                ]
            }
        }
    if rng.random() < 0.1:
        spec["volumes"] = [{"name": "scratch", "emptyDir": {}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def strict_template(rng: random.Random, i: int) -> dict[str, Any]:
    """A Deployment-like pod of the strict shapes: zone spreading DoNotSchedule (maxSkew 1 or 2,
    sometimes minDomains, node inclusion policies Honor) and required anti-affinity to its own
    group per hostname or per zone, alone or together, over the same labelSelector."""
    t = random_template(rng, i)
    meta, spec = t["metadata"], t["spec"]
    group = f"s{i}"
    meta["labels"]["group"] = group
    selector = {"matchLabels": {"group": group}}
    spec.pop("topologySpreadConstraints", None)
    spec.pop("affinity", None)
    shape = rng.choice(["spread", "anti", "both", "both", "both"])
    if shape != "anti":
        c: dict[str, Any] = {
            "maxSkew": rng.choice([1, 1, 2]),
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": selector,
        }
        if rng.random() < 0.3:
            c["minDomains"] = rng.randint(1, 4)
        if rng.random() < 0.3:
            c["nodeAffinityPolicy"] = "Honor"
        if rng.random() < 0.3:
            c["nodeTaintsPolicy"] = "Honor"
        constraints = [c]
        if rng.random() < 0.2:
            constraints.append(
                {
                    "maxSkew": 1,
                    "topologyKey": "kubernetes.io/hostname",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": selector,
                }
            )
        spec["topologySpreadConstraints"] = constraints
    if shape != "spread":
        keys = rng.choice(
            [["kubernetes.io/hostname"], ["kubernetes.io/hostname"], ["topology.kubernetes.io/zone"]]
            + [["kubernetes.io/hostname", "topology.kubernetes.io/zone"]]
        )
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": key, "labelSelector": selector} for key in keys
                ]
            }
        }
    return t


def replicas(state: ClusterState, template: dict[str, Any], count: int, start: int) -> list[Any]:
    out = []
    for j in range(count):
        d = copy.deepcopy(template)
        d["metadata"]["name"] = f"{template['metadata']['name']}-{start + j}"
        d["metadata"]["uid"] = f"uid-{d['metadata']['name']}"
        out.append(state.admission.admit(parse.pod(d), strict=True))
    return out


def attempt_view(att: Attempt) -> dict[str, Any]:
    prio = att.prioritized
    return {
        "evaluated": att.evaluated_nodes,
        "feasibleNodes": att.feasible_nodes,
        "best": list(prio.best) if prio is not None else [],
        "bestScore": prio.best_score if prio is not None else None,
        "reasonCounts": dict(sorted(att.reason_counts.items())),
        "skippedScore": sorted(att.skipped_score_plugins),
        "upstreamScored": prio is not None and prio.upstream_scored,
        "nominated": att.nominated_node,
        "victims": [v.key for v in att.victims],
        "excluded": sorted(att.fit.excluded) if att.fit is not None else [],
    }


CUSTOM = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - {name: ImageLocality, weight: 4}
    filter:
      disabled:
      - {name: NodePorts}
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
      - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 7}
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: MostAllocated}
  - name: NodeAffinity
    args:
      addedAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 20
          preference:
            matchExpressions: [{key: disk, operator: In, values: [ssd]}]
"""


# Two profiles: the second scores RequestedToCapacityRatio, ignores existing pods' preferred
# terms when the pod has none, and turns the symmetric required-affinity weight off.
TWO_PROFILES = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: second
  pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 0, ignorePreferredTermsOfExistingPods: true}
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
"""


def configuration(custom: str, version: str) -> Any:
    if not custom:
        return default_configuration(get(version))
    from kwhatif.config.load import parse_configuration

    return parse_configuration(CUSTOM if custom == "custom" else TWO_PROFILES, "sched.yaml", get(version))


# The oldest release and the default one (DynamicResources in the profile, scoring with weight 2).
DEFAULT_VERSION = "1.35"
VERSIONS = [pytest.param("1.30.6", id="1.30"), pytest.param(DEFAULT_VERSION, id="1.35")]


def run(
    seed: int, options: Options, custom: str = "", version: str = DEFAULT_VERSION, strict: bool = False
) -> tuple[str, Scheduler]:
    rng = random.Random(seed)
    objs = random_cluster(rng)
    templates = [random_template(rng, i) for i in range(rng.randint(2, 4))]
    if strict:
        # most pods of the strict shapes, in bigger groups
        templates = [strict_template(rng, i) if i else t for i, t in enumerate(templates)]
        templates += [strict_template(rng, len(templates) + i) for i in range(2)]
    if custom == "two-profiles":
        for t in templates[::2]:
            t["spec"]["schedulerName"] = "second"
    most = 12 if strict else 6
    plan = [(rng.randrange(len(templates)), rng.randint(1, most)) for _ in range(rng.randint(3, 7))]
    drained = rng.sample(sorted(o["metadata"]["name"] for o in objs if o["kind"] == "Node"), 2)
    state = make_cluster(copy.deepcopy(objs), get(version))
    sched = Scheduler(state, configuration(custom, version), options=options)
    out: list[Any] = []
    counts = [0] * len(templates)
    half = len(plan) // 2
    for step, (t, n) in enumerate(plan):
        if step == half:
            # the middle of the sequence: drain two nodes (cordon, evictions, replacements)
            res = drain(
                sched, state, drained, DrainOptions(ignore_daemonsets=True, delete_emptydir_data=True, force=True)
            )
            out.append(("drain", [attempt_view(a) for a in res.attempts]))
            out.append(report_dict(schedule_report(res.attempts, sched.snapshot.num_nodes, "default-scheduler")))
        pods = replicas(state, templates[t], n, counts[t])
        counts[t] += n
        attempts = sched.run(pods, rounds=2)
        out.append([attempt_view(a) for a in attempts])
        out.append(report_dict(schedule_report(attempts, sched.snapshot.num_nodes, "default-scheduler")))
    return json.dumps(out, indent=1, sort_keys=True, default=str), sched


SEEDS = list(range(40))
MODES = [
    pytest.param(Options(), id="explain"),
    pytest.param(Options(filter_excluded=False, compact=True), id="compact"),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("seed", SEEDS)
def test_incremental_matches_from_scratch(seed: int, options: Options, version: str) -> None:
    _compare(seed, options, "", version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("seed", SEEDS[:20])
def test_incremental_matches_from_scratch_custom_profile(seed: int, version: str) -> None:
    """List-defaulted spreading (DoNotSchedule by zone), hardPodAffinityWeight, MostAllocated,
    addedAffinity, changed weights and a disabled filter."""
    _compare(seed, Options(), "custom", version)


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_incremental_matches_from_scratch_two_profiles(seed: int) -> None:
    """Pods of two profiles in one run (RequestedToCapacityRatio, ignorePreferredTermsOfExistingPods,
    hardPodAffinityWeight 0 in the second)."""
    _compare(seed, Options(), "two-profiles")


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_incremental_matches_from_scratch_with_domain_arrays(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys with many domains (hostname on big clusters) find their critical paths in arrays:
    force that path on these small clusters."""
    from kwhatif.plugins.pod_topology_spread import incremental as spread

    monkeypatch.setattr(spread, "_ARRAY_DOMAINS", 1)
    _compare(seed, Options(), "custom")


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("seed", SEEDS)
def test_incremental_matches_from_scratch_strict_spreading(seed: int, options: Options) -> None:
    """Zone spreading DoNotSchedule (maxSkew 1 and 2, minDomains, Honor policies) and required
    anti-affinity per hostname and per zone, alone and together, with drains and preemption in
    between: zones whose spreading flips as the minimum moves."""
    _compare(seed, options, "", DEFAULT_VERSION, strict=True)


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_incremental_matches_from_scratch_strict_spreading_custom_profile(seed: int) -> None:
    _compare(seed, Options(), "custom", DEFAULT_VERSION, strict=True)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("seed", SEEDS)
def test_incremental_matches_from_scratch_strict_spreading_in_bulk(
    seed: int, options: Options, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Zones of big clusters flip in bulk (their nodes' results kept per answer): force that
    path on these small clusters, for the strict shapes and for the mixed ones."""
    from kwhatif.scheduling import incremental as engine

    monkeypatch.setattr(engine, "_BULK_GROUP", 1)
    _compare(seed, options, "", DEFAULT_VERSION, strict=True)
    _compare(seed, options, "custom" if seed % 2 else "", DEFAULT_VERSION)


def _compare(seed: int, options: Options, custom: str, version: str = DEFAULT_VERSION, strict: bool = False) -> None:
    got, sched = run(seed, options, custom, version, strict)
    want, _ = run(seed, dataclasses.replace(options, incremental=False), custom, version, strict)
    assert sched.engine is not None
    if got != want:
        for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines())):
            if a != b:
                context = "\n".join(want.splitlines()[max(0, i - 30) : i + 3])
                pytest.fail(f"first difference at line {i}: incremental {a!r}, from scratch {b!r}\n{context}")
        assert got == want


@pytest.mark.parametrize("version", ["1.30.6", "1.33", "1.34", "1.35", "1.36", "1.37"])
def test_the_engine_reuses_work(version: str) -> None:
    """The sequences above do go through the engine under every release's default profile
    (DynamicResources and NodeDeclaredFeatures skip these pods): most cycles reuse per-node
    results and are scored by the engine."""
    filtered = scored = 0
    for seed in range(10):
        _, sched = run(seed, Options(), "", version)
        assert sched.engine is not None
        filtered += sched.engine.stats["filtered"]
        scored += sched.engine.stats["scored"]
    assert filtered > 100
    assert scored > 50


def _namespace_scenario(options: Options) -> str:
    """Terms that select namespaces by label, while a namespace without a Namespace object gets
    its first pods (it exists from then on) and loses them again."""
    objs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns-a", "labels": {"team": "a"}}}
    ]
    for i in range(6):
        name = f"n{i}"
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"z{i % 2}"},
                },
                "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "20"}},
            }
        )
    term = {
        "topologyKey": "kubernetes.io/hostname",
        "labelSelector": {"matchLabels": {"app": "x"}},
        "namespaceSelector": {
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["ns-x"]}]
        },
    }
    watcher = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "watcher", "namespace": "ns-a", "labels": {"app": "w"}},
        "spec": {
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}],
            "affinity": {
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "podAffinityTerm": term}],
                    "requiredDuringSchedulingIgnoredDuringExecution": [term],
                }
            },
        },
    }
    newcomer = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "x", "namespace": "ns-x", "labels": {"app": "x"}},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}]},
    }
    state = make_cluster(copy.deepcopy(objs))
    sched = Scheduler(state, default_configuration(), options=options)
    out: list[Any] = []
    counts = {"watcher": 0, "x": 0}

    def place(template: dict[str, Any], n: int) -> list[Attempt]:
        key = template["metadata"]["name"]
        pods = replicas(state, template, n, counts[key])
        counts[key] += n
        attempts = sched.run(pods, rounds=1)
        out.append([attempt_view(a) for a in attempts])
        out.append(report_dict(schedule_report(attempts, sched.snapshot.num_nodes, "default-scheduler")))
        return attempts

    place(watcher, 2)
    placed = place(newcomer, 1)
    place(watcher, 2)
    for att in placed:  # ns-x empties again
        if att.result == "Scheduled":
            assert att.node is not None
            sched.snapshot.remove_pod(dataclasses.replace(att.pod, node_name=att.node))
    place(watcher, 2)
    return json.dumps(out, indent=1, sort_keys=True, default=str)


def test_namespaces_that_appear_and_go() -> None:
    got = _namespace_scenario(Options())
    want = _namespace_scenario(Options(incremental=False))
    assert got == want
    assert '"x-0"' in want and "didn't match pod anti-affinity rules" in want


SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _check_sample(options: Options, surge: bool) -> str:
    from kwhatif.load.cluster import load_cluster
    from kwhatif.load.files import read_path
    from kwhatif.report.check import check_report
    from kwhatif.whatif.check import check

    state = load_cluster([str(SAMPLES / "cluster.yaml")])
    docs = [d for f in ("release.yaml", "ml-batch.yaml") for d in read_path(str(SAMPLES / "workloads" / f))]
    result, sched = check(state, docs, lambda st: Scheduler(st, default_configuration(), options=options), surge=surge)
    report = check_report(result, schedule_report(result.attempts, sched.snapshot.num_nodes, "default-scheduler"))
    return json.dumps(report.to_dict(), sort_keys=True)


@pytest.mark.parametrize("surge", [pytest.param(False, id="update"), pytest.param(True, id="surge")])
def test_check_of_the_sample_workloads(surge: bool) -> None:
    """`kwhatif check` as the command runs it (compact records, unchanged retries skipped)."""
    options = Options(filter_excluded=False, compact=True)
    assert _check_sample(options, surge) == _check_sample(dataclasses.replace(options, incremental=False), surge)


def _capacity(options: Options, pod: str) -> str:
    from kwhatif.controlplane.controllers.pods import load_pods
    from kwhatif.load.cluster import load_cluster
    from kwhatif.report.capacity import capacity_report
    from kwhatif.whatif.capacity import measure

    state = load_cluster([str(SAMPLES / "cluster.yaml")])
    template = load_pods([str(SAMPLES / "pods" / pod)], state)[0][0]
    sched = Scheduler(state, default_configuration(), options=options)
    res = measure(sched, template, 400)
    return json.dumps(
        capacity_report(res, template.scheduler_name, sched.snapshot.num_nodes, None).to_dict(), sort_keys=True
    )


@pytest.mark.parametrize("pod", ["web-canary.yaml", "tie.yaml", "analytics-big.yaml"])
def test_capacity_of_the_sample_pods(pod: str) -> None:
    options = Options(filter_excluded=False)
    assert _capacity(options, pod) == _capacity(dataclasses.replace(options, incremental=False), pod)
