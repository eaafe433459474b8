"""The 1.37 and 1.38 records: every scheduler-visible change CHANGELOG-1.38 lists is either a
modelled change (changes.py) or an unmodelled record (unmodelled.py), never both, and
docs/releases.md's provenance tables name each of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kwhatif.release import featuregates as fg
from kwhatif.release import unmodelled
from kwhatif.release.changes import CHANGES
from kwhatif.release.releases import NEWEST_PATCH
from kwhatif.release.versions import get

DOC = (Path(__file__).resolve().parent.parent / "docs" / "releases.md").read_text()

# The scheduler-visible PRs of CHANGELOG-1.38 (v1.38.0-alpha.1 and alpha.2, at 0411cc704533)
# that are neither gate-table rows nor modelled changes.
UNMODELLED_138 = {
    141314,
    141253,
    139472,
    141864,
    141930,
    141023,
    141021,
    140670,
    141648,
    141110,
    141556,
    141307,
    141213,
    141644,
    135486,
    141618,
    141305,
    141349,
    140108,
    141348,
    142171,
    142170,
    139450,
    141577,
    142118,
}
MODELLED_138 = {140798, 141182, 141340, 141785, 141898, 142202}


def _section(title: str) -> str:
    start = DOC.index(f"### {title}\n")
    end = DOC.find("\n### ", start + 1)
    return DOC[start : end if end != -1 else None]


def test_the_1_38_records_are_the_changelogs_scheduler_changes() -> None:
    modelled = {pr for c in CHANGES if c.landed == ("1.38.0",) for pr in c.prs}
    recorded = {pr for u in unmodelled.for_release(38) for pr in u.prs}
    assert modelled == MODELLED_138
    assert recorded == UNMODELLED_138
    assert not modelled & recorded


def test_unmodelled_records_change_nothing() -> None:
    """A record sets no switch: 1.38's behaviour is what its modelled changes make it."""
    assert all(u.why and u.source and u.summary for u in unmodelled.UNMODELLED)
    b37, b38 = get("1.37").behaviour, get("1.38").behaviour
    switched = {k for c in CHANGES if c.landed == ("1.38.0",) for k in c.sets}
    assert {f for f in b38.__slots__ if getattr(b37, f) != getattr(b38, f)} <= switched


def test_the_docs_name_every_1_38_pr() -> None:
    table = _section("1.38")
    named = {int(n) for n in re.findall(r"#(\d{6})", table)}
    assert (MODELLED_138 | UNMODELLED_138) <= named


def test_the_docs_name_what_each_1_38_fact_was_checked_against() -> None:
    checked = _section("What the 1.38 rows were checked against")
    for ref in (
        "CHANGELOG-1.38.md`@0411cc704533",
        "@b0b89d3bd251",
        "@ead35706",
        "@01db4ae9e74a",
        "e87dbddd",
        "10b39a39",
    ):
        assert ref in checked, ref


def test_1_37_2_stays_the_newest_patch_known() -> None:
    """The only stored CHANGELOG-1.37.md (@df0a31e010ea) stops at v1.37.0-alpha.1."""
    assert NEWEST_PATCH[37] == 2
    assert "@df0a31e010ea" in _section("1.37 as released")


def test_1_38_locks_strict_ip_cidr_validation() -> None:
    """#141979 (v1.38.0-alpha.1, Feature): KEP-4858 is GA, its stricter rules always in effect."""
    assert fg.known(37)["StrictIPCIDRValidation"] == fg.FeatureSpec(True, fg.Stage.BETA, False)
    assert fg.known(38)["StrictIPCIDRValidation"] == fg.FeatureSpec(True, fg.Stage.GA, True)
    with pytest.raises(fg.FeatureGateError) as ei:
        fg.parse("StrictIPCIDRValidation=false", 38)
    assert str(ei.value) == (
        "feature-gates: cannot set feature gate StrictIPCIDRValidation to false, feature is locked to true"
    )
