"""The report layer's view of the plugins' records: the table's columns and the SARIF help."""

from __future__ import annotations

from kwhatif.report.plugin_info import COLUMNS, sarif_help


def test_columns_are_the_scoring_plugins_headings() -> None:
    assert dict(COLUMNS) == {
        "TaintToleration": "Taint",
        "NodeAffinity": "NodeAff",
        "NodeResourcesFit": "Fit",
        "VolumeBinding": "Volume",
        "PodTopologySpread": "Spread",
        "InterPodAffinity": "PodAff",
        "DynamicResources": "DRA",
        "NodeResourcesBalancedAllocation": "Balanced",
        "ImageLocality": "Image",
    }
    assert len(COLUMNS) == 9
    assert "NodeName" not in COLUMNS and "NoSuchPlugin" not in COLUMNS and 3 not in COLUMNS
    assert COLUMNS.get("NoSuchPlugin", "NoSuchPlugin") == "NoSuchPlugin"


def test_sarif_help_is_the_plugins_own() -> None:
    assert sarif_help("NodeUnschedulable") == (
        "The nodes are cordoned: uncordon them or tolerate node.kubernetes.io/unschedulable."
    )
    assert sarif_help("GangScheduling") is None  # the generic FitError help
    assert sarif_help("NoSuchPlugin") is None
