"""What `check` concludes about each workload: the verdicts the reports group and count."""

from __future__ import annotations

import enum


class Verdict(enum.StrEnum):
    FITS = "fits"
    DOES_NOT_FIT = "DOES NOT FIT"
    REFUSED_BY_QUOTA = "refused by quota"
    REFUSED_BY_LIMIT_RANGE = "refused by LimitRange"
    REFUSED_BY_NAMESPACE_LIFECYCLE = "refused by NamespaceLifecycle"  # the namespace does not exist
    REFUSED_BY_PRIORITY = "refused by Priority"  # the PriorityClass does not exist
    REFUSED_BY_API = "refused by the API server"  # a group/version the release does not serve
    # warnings: exit 0, unless --strict
    FITS_AFTER_SCALE_UP = "fits after scale-up"  # check --autoscale: new nodes of a group take the rest
    NO_ELIGIBLE_NODES = "no eligible nodes"
    NOT_CHECKED = "not checked"
    # the cluster state lacks what the answer needs (a live cluster would have it)
    UNKNOWN = "unknown"


# what the API server or an admission plugin refused: the object is never created
REFUSALS = frozenset(
    {
        Verdict.REFUSED_BY_QUOTA,
        Verdict.REFUSED_BY_LIMIT_RANGE,
        Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE,
        Verdict.REFUSED_BY_PRIORITY,
        Verdict.REFUSED_BY_API,
    }
)
FAILURES = REFUSALS | {Verdict.DOES_NOT_FIT}
WARNINGS = frozenset({Verdict.FITS_AFTER_SCALE_UP, Verdict.NO_ELIGIBLE_NODES, Verdict.NOT_CHECKED, Verdict.UNKNOWN})
# no pods were placed to reach these: the counts of placed pods do not apply
UNEVALUATED = frozenset({Verdict.NOT_CHECKED, Verdict.UNKNOWN})
