"""The nodes the incremental engine's first cycle does not filter one by one, because a filter
plugin certainly passes them, are nodes where that plugin's Filter answers a bare Success, and
the rejections it tells without a call are the ones that plugin's Filter answers: random nodes
(taints, unschedulable, full, small) and pods (a node name, tolerations, requests, extended
resources), and both of NodeResourcesFit's behaviours for requests above allocatable."""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace

from kwhatif.framework.interface import Code, CycleState, Status
from kwhatif.plugins import node_name, node_resources_fit, node_unschedulable, taint_toleration
from kwhatif.scheduling.incremental import _known_answers

from builders import make_handle, make_node, make_pod, plugin_args

GPU = "example.com/gpu"


def _case(rng: random.Random) -> tuple[object, list[object], object, list[object]]:
    nodes, pods = [], []
    for i in range(rng.randrange(1, 12)):
        b = make_node().name(f"n{i}")
        alloc = {"cpu": rng.choice(["0", "1", "4", "500m"]), "memory": rng.choice(["0", "1Gi", "8Gi"])}
        alloc["pods"] = rng.choice(["0", "1", "2", "110"])
        if rng.random() < 0.3:
            alloc["ephemeral-storage"] = rng.choice(["0", "1Gi", "10Gi"])
        if rng.random() < 0.3:
            alloc[GPU] = rng.choice(["0", "1", "2"])
        b.d["status"]["allocatable"] = alloc
        if rng.random() < 0.3:
            b.taint(rng.choice(["a", "b"]), effect=rng.choice(["NoSchedule", "PreferNoSchedule", "NoExecute"]))
        if rng.random() < 0.2:
            b.unschedulable()
        nodes.append(b)
        for j in range(rng.randrange(0, 3)):
            e = make_pod().name(f"e{i}-{j}").node(f"n{i}")
            if rng.random() < 0.7:
                e.req(cpu=rng.choice(["100m", "1", "2"]), memory=rng.choice(["128Mi", "2Gi"]))
            pods.append(e.obj())
    h = make_handle([n.obj() for n in nodes], pods)
    p = make_pod().name("p")
    if rng.random() < 0.2:
        p.set("spec.nodeName", rng.choice(["n0", "n1", "elsewhere"]))
    if rng.random() < 0.4:
        p.toleration(rng.choice(["a", "b"]), operator="Exists")
    if rng.random() < 0.8:
        req = {"cpu": rng.choice(["0", "100m", "1", "3"]), "memory": rng.choice(["0", "256Mi", "4Gi"])}
        if rng.random() < 0.3:
            req["ephemeral_storage"] = rng.choice(["0", "1Gi", "5Gi"])
        if rng.random() < 0.2:
            req[GPU.replace("/", "__").replace(".", "_")] = "1"
        p.req(**{k: v for k, v in req.items() if v != "0"})
    fit = node_resources_fit.new(plugin_args(node_resources_fit.NAME), h)
    if rng.random() < 0.5:  # the releases whose requests above allocatable are unresolvable
        fit = node_resources_fit.NodeResourcesFit(fit.args, unresolvable_above_allocatable=True)
    plugins = [
        node_unschedulable.new(None, h),
        node_name.new(None, h),
        taint_toleration.new(None, h),
        fit,
    ]
    infos = [h.snapshot.get(n.d["metadata"]["name"]) for n in nodes]
    return h, infos, p.obj(), plugins


def test_known_answers_are_the_filters_answers():
    rng = random.Random(2)
    known = {node_unschedulable.NAME: 0, node_name.NAME: 0, taint_toleration.NAME: 0, node_resources_fit.NAME: 0}
    rejected: Counter[tuple[Code, tuple[str, ...]]] = Counter()
    for _ in range(1500):
        _, infos, pod, plugins = _case(rng)
        state = CycleState()
        for pl in plugins:
            if hasattr(pl, "pre_filter"):
                pl.pre_filter(state, pod)
        answers = _known_answers(SimpleNamespace(filter_plugins=plugins), state, pod, infos)  # type: ignore[arg-type]
        assert set(answers.rejections) <= {node_resources_fit.NAME} and set(answers.rejections) <= set(answers.passes)
        for pl in plugins:
            marks = answers.passes.get(pl.NAME)
            if marks is None:
                continue
            assert len(marks) == len(infos)
            told = answers.rejections.get(pl.NAME)
            for k, (ni, certain) in enumerate(zip(infos, marks, strict=True)):
                st = pl.filter(state, pod, ni)
                if certain:
                    known[pl.NAME] += 1
                    assert st.code is Code.SUCCESS and not st.details and not st.allocations, (pl.NAME, ni.name)
                    assert told is None or told[k] is None
                elif told is not None:
                    # requests are told exactly: a node left out does not fit, and why is told
                    assert told[k] == st.with_plugin(pl.NAME), ni.name
                    rejected[(st.code, st.reasons)] += 1
    assert min(known.values()) > 500, known
    # every reason, three or more of them on one node, and both codes
    assert {r for _, reasons in rejected for r in reasons} == {
        "Too many pods",
        "Insufficient cpu",
        "Insufficient memory",
        "Insufficient ephemeral-storage",
    }, rejected
    assert {code for code, _ in rejected} == {Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE}
    assert max(len(reasons) for _, reasons in rejected) >= 3 and len(rejected) > 10, rejected


def test_nodes_lacking_the_same_share_one_rejection():
    rng = random.Random(5)
    shared = 0
    for _ in range(300):
        _, infos, pod, plugins = _case(rng)
        state = CycleState()
        plugins[-1].pre_filter(state, pod)
        told = _known_answers(SimpleNamespace(filter_plugins=plugins), state, pod, infos).rejections.get(
            node_resources_fit.NAME
        )
        by_value: dict[Status, Status] = {}
        for st in told or ():
            if st is not None:
                assert by_value.setdefault(st, st) is st
                shared += 1
    assert shared > 200


def test_no_fit_answers_for_extended_requests_or_without_prefilter_state():
    rng = random.Random(4)
    _, infos, _, plugins = _case(rng)
    fit = plugins[-1]
    pod = make_pod().name("p").req(cpu="1", **{"example.com__gpu": "1"}).obj()
    state = CycleState()
    fit.pre_filter(state, pod)
    for st in (state, CycleState()):
        answers = _known_answers(SimpleNamespace(filter_plugins=[fit]), st, pod, infos)  # type: ignore[arg-type]
        assert node_resources_fit.NAME not in answers.passes and node_resources_fit.NAME not in answers.rejections


def test_filtering_with_known_passes_answers_what_each_node_answers():
    """run_filter_nodes with the known passes (the nodes every running plugin passes take the
    plan's statuses without a call) gives each node exactly run_filter's result, with the default
    profile's plugins."""
    from kwhatif.config.defaults import default_profile

    from builders import PINNED, make_framework

    rng = random.Random(7)
    shortcut = told = 0
    for _ in range(300):
        h, infos, pod, _ = _case(rng)
        fw = make_framework(
            [ni.node for ni in infos],
            [pi.pod for ni in infos for pi in ni.pods],
            profile=default_profile(version=PINNED),
        )
        infos = [fw.snapshot.get(ni.name) for ni in infos]
        state = CycleState()
        if not fw.run_pre_filter(state, pod).status.is_success():
            continue
        known = _known_answers(fw, state, pod, infos)
        for all_plugins in (True, False):
            got = fw.run_filter_nodes(
                state, pod, infos, passes=known.passes, rejections=known.rejections, all_plugins=all_plugins
            )
            want = [fw.run_filter(state, pod, ni, all_plugins=all_plugins) for ni in infos]
            for g, w in zip(got, want, strict=True):
                assert (g.node, g.statuses, g.first) == (w.node, w.statuses, w.first)
                shortcut += g.first is None
                told += any(st is not None for st in known.rejections.get(node_resources_fit.NAME, ()))
    assert shortcut > 100 and told > 100
