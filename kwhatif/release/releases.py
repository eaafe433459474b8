"""Kubernetes release numbers: the minors kwhatif answers as and their newest known patches, version
parsing (a flag's ``1.34.2``, a cluster's ``v1.34.2-eks-1a2b3c``) and the version skew policy."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAJOR = 1
SUPPORTED_MINORS: tuple[int, ...] = (30, 31, 32, 33, 34, 35, 36, 37, 38)
# What kwhatif answers as when nothing says which release a cluster runs: the newest release whose
# answers are checked exactly against the real scheduler's (the fidelity sample's releases/1.36.2).
DEFAULT_MINOR = 36
DEFAULT_PATCH = 2

# The newest patch release of each minor that this table knows (k8s.io/api tags v0.MINOR.PATCH).
# "1.34" means 1.34.10. 1.37.2 is the newest 1.37 patch (no recorded change landed in 1.37.1 or
# 1.37.2: no stored changelog of those patches names a scheduler change); 1.38.0 is due 2026-12-16.
NEWEST_PATCH: Mapping[int, int] = {30: 14, 31: 14, 32: 13, 33: 13, 34: 10, 35: 7, 36: 3, 37: 2, 38: 0}

# Minors answered from upstream's sources and changelogs alone, never checked against the real
# scheduler's answers: a run answering as one says so.
FROM_SOURCES_MINORS: tuple[int, ...] = (38,)

# Version skew policy: a kubelet may be up to three minors older than the control plane, never newer.
KUBELET_MAX_MINORS_OLDER = 3


@dataclass(frozen=True, slots=True, order=True)
class Release:
    minor: int
    patch: int

    def __str__(self) -> str:
        return f"{MAJOR}.{self.minor}.{self.patch}"

    @classmethod
    def parse(cls, text: str) -> Release:
        m = re.fullmatch(r"1\.(\d+)\.(\d+)", text)
        if not m:
            raise ValueError(f"not a release: {text!r}")
        return cls(int(m.group(1)), int(m.group(2)))


_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")
_GIT_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+.].*)?")


def parse_version(text: str, *, lenient: bool = False) -> tuple[int, int, int | None]:
    """``1.34``, ``v1.34``, ``1.34.2`` or ``v1.34.2`` (the flag); with ``lenient``, also what a
    cluster reports: ``v1.34.2-eks-1a2b3c``, ``v1.33.5-gke.1000``, ``v1.35.0+k3s1``."""
    pattern = _GIT_VERSION if lenient else _VERSION
    m = pattern.fullmatch(text.strip())
    if not m:
        raise ValueError(f"{text!r} is not a Kubernetes version such as 1.34 or 1.34.2")
    major, minor = int(m.group(1)), int(m.group(2))
    patch = int(m.group(3)) if m.group(3) is not None else None
    return major, minor, patch


class Skew(enum.StrEnum):
    """Where a kubelet's minor stands against the control plane's under the version skew policy."""

    WITHIN = "within"
    NEWER = "newer"  # a kubelet may never be newer than the API server
    TOO_OLD = "too-old"  # more than KUBELET_MAX_MINORS_OLDER minors older


def kubelet_skew(kubelet_minor: int, control_plane_minor: int) -> Skew:
    if kubelet_minor > control_plane_minor:
        return Skew.NEWER
    if control_plane_minor - kubelet_minor > KUBELET_MAX_MINORS_OLDER:
        return Skew.TOO_OLD
    return Skew.WITHIN


def newest_minor(versions: Iterable[tuple[str, int]]) -> tuple[str, int] | None:
    """The first of some (version text, 1.x minor) pairs with the newest minor (the nodes'
    kubelets: the control plane is at least as new)."""
    return max(versions, key=lambda v: v[1], default=None)


def supported_text() -> str:
    return f"{MAJOR}.{SUPPORTED_MINORS[0]} to {MAJOR}.{SUPPORTED_MINORS[-1]}"
