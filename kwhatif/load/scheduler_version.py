"""Which kube-scheduler release a run answers as, and where that came from.

In this order: ``--scheduler-version``; a live cluster's /version (gitVersion); in a dump, the image
tag of the kube-scheduler static pod in kube-system, else of the kube-apiserver one; else the
minor of the nodes' newest kubelet (the version skew policy lets kubelets be up to three minors
older than the API server, never newer, so the control plane is at least that minor; managed
clusters' dumps have no control-plane pods); else kwhatif's default release (1.35). Nodes whose kubelet is newer than that release, or more than three minors
older, break the version skew policy and get a note.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kwhatif.errors import ConfigError
from kwhatif.release import versions
from kwhatif.release.versions import ChosenVersion, SchedulerVersion, VersionSource

if TYPE_CHECKING:
    from kwhatif.api.core import Pod
    from kwhatif.cache.cluster import ClusterState


def parse_flag(text: str) -> versions.Resolved:
    """--scheduler-version: ``1.34``/``v1.34`` (newest known patch) or ``1.34.2``."""
    try:
        return versions.resolve(text)
    except ValueError as e:
        raise ConfigError(str(e), field="--scheduler-version") from None


_CONTROL_PLANE = ("kube-scheduler", "kube-apiserver")
_TAG = re.compile(r"v?\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.+-]*)?")


def _image_tag(image: str, component: str) -> str | None:
    """The tag of ``registry/.../<component>:<tag>[@digest]`` images."""
    ref = image.split("@", 1)[0]
    slash = ref.rfind("/")
    name_tag = ref[slash + 1 :]
    if ":" not in name_tag:
        return None
    name, tag = name_tag.split(":", 1)
    # kube-scheduler, kube-scheduler-amd64, or a vendor build such as hyperkube images: the name
    # must be the component (optionally with an architecture suffix).
    if name != component and not name.startswith(component + "-"):
        return None
    return tag if _TAG.fullmatch(tag) else None


def _is_static_control_plane_pod(pod: Pod) -> bool:
    return pod.namespace == "kube-system" and (pod.is_mirror or any(ref.kind == "Node" for ref in pod.owner_references))


def versions_in_dump(pods: list[Pod], component: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for pod in pods:
        if not _is_static_control_plane_pod(pod):
            continue
        for c in pod.containers:
            tag = _image_tag(c.image, component)
            if tag is not None:
                found[tag] += 1
    return found


def _from_dump(state: ClusterState) -> tuple[versions.Resolved, str] | None:
    """The release of the dump's control-plane static pods, and their image tag."""
    pods = state.pods + state.pending_pods
    for component in _CONTROL_PLANE:
        found = versions_in_dump(pods, component)
        if not found:
            continue
        notes: list[str] = []
        # Several control-plane nodes mid-upgrade can run different releases: take the most
        # common one (the newer one on a tie).
        ranked = sorted(
            found.items(), key=lambda kv: (kv[1], versions.parse_version(kv[0], lenient=True)), reverse=True
        )
        tag = ranked[0][0]
        if len(found) > 1:
            seen = ", ".join(sorted(found))
            notes.append(f"the dump's {component} static pods run different releases ({seen}); answering as {tag}")
        try:
            resolved = versions.resolve(tag, lenient=True)
        except ValueError:
            continue
        return versions.Resolved(resolved.version, tuple(notes) + resolved.notes), tag
    return None


def _outside(text: str) -> str:
    """``text`` when it names a minor kwhatif does not answer as (it answers as the nearest)."""
    _, minor, _ = versions.parse_version(text, lenient=True)
    return "" if minor in versions.SUPPORTED_MINORS else text.strip()


def choose(flag: str | None, state: ClusterState, *, live: bool) -> ChosenVersion:
    """The release to answer as, where it came from, and notes about it."""
    if flag:
        r = parse_flag(flag)
        return ChosenVersion(r.version, VersionSource.FLAG, r.notes)
    if live and state.server_version:
        try:
            r = versions.resolve(state.server_version, lenient=True)
            return ChosenVersion(r.version, VersionSource.LIVE, r.notes, _outside(state.server_version))
        except ValueError:
            pass
    if not live and state.recorded_server_version:
        # the live cluster's /version, recorded by `kwhatif snapshot` when it saved the file
        try:
            r = versions.resolve(state.recorded_server_version, lenient=True)
            return ChosenVersion(r.version, VersionSource.DUMP, r.notes, _outside(state.recorded_server_version))
        except ValueError:
            pass
    if not live:
        found = _from_dump(state)
        if found is not None:
            r, tag = found
            return ChosenVersion(r.version, VersionSource.DUMP, r.notes, _outside(tag))
    found_kubelet = _from_kubelets(state, live)
    if found_kubelet is not None:
        return found_kubelet
    default = versions.default_version()
    note = (
        f"kube-scheduler {default} assumed: "
        + (
            "the cluster's /version could not be read"
            if live
            else "the cluster dump names no kube-scheduler or kube-apiserver image"
        )
        + "; give --scheduler-version to answer as the cluster's release"
    )
    return ChosenVersion(default, VersionSource.DEFAULT, (note,))


def _kubelet_minors(state: ClusterState) -> Iterator[tuple[str, str, int]]:
    """(node, kubelet version, minor) of the nodes whose kubelet reports a 1.x version."""
    for node in state.nodes.values():
        kv = node.kubelet_version
        if not kv:
            continue
        try:
            major, minor, _ = versions.parse_version(kv, lenient=True)
        except ValueError:
            continue
        if major == versions.MAJOR:
            yield node.name, kv, minor


def _from_kubelets(state: ClusterState, live: bool) -> ChosenVersion | None:
    """The minor of the nodes' newest kubelet, as the release of the control plane."""
    newest = versions.newest_minor((kv.strip(), minor) for _, kv, minor in _kubelet_minors(state))
    if newest is None:
        return None
    kv, minor = newest
    try:
        r = versions.resolve(f"{versions.MAJOR}.{minor}", lenient=True)
    except ValueError:
        return None
    why = (
        "the cluster's /version could not be read"
        if live
        else "the state names no kube-scheduler or kube-apiserver image"
    )
    note = (
        f"kube-scheduler {r.version} taken from the nodes' kubelets: {why}, and the control plane is at least as "
        f"new as its newest kubelet ({kv}; kubelets may be up to {versions.KUBELET_MAX_MINORS_OLDER} minors older, "
        "never newer); give --scheduler-version to answer as the cluster's release"
    )
    return ChosenVersion(r.version, VersionSource.KUBELETS, (note, *r.notes), _outside(kv))


def kubelet_skew_notes(state: ClusterState, version: SchedulerVersion) -> list[str]:
    """Nodes outside the version skew policy: a kubelet newer than the control plane, or more
    than three minors older."""
    newer: list[str] = []
    older: list[str] = []
    for name, kv, minor in _kubelet_minors(state):
        skew = versions.kubelet_skew(minor, version.minor)
        if skew is versions.Skew.NEWER:
            newer.append(f"{name} ({kv})")
        elif skew is versions.Skew.TOO_OLD:
            older.append(f"{name} ({kv})")
    notes = []
    if newer:
        notes.append(
            f"{len(newer)} node(s) run a kubelet newer than kube-scheduler {version}, which the version skew "
            f"policy does not allow: {_listed(newer)}"
        )
    if older:
        notes.append(
            f"{len(older)} node(s) run a kubelet more than {versions.KUBELET_MAX_MINORS_OLDER} minor releases older "
            f"than kube-scheduler {version}, outside the version skew policy: {_listed(older)}"
        )
    return notes


def _listed(items: list[str], shown: int = 5) -> str:
    head = ", ".join(items[:shown])
    return head + (f" and {len(items) - shown} more" if len(items) > shown else "")
