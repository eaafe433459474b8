"""A small AutoscaleReport for the report-wide tests (every kind of report, every format)."""

from __future__ import annotations

from kwhatif.report.autoscale import (
    AutoscaleReport,
    ChosenLine,
    GroupLine,
    OptionLine,
    PodLine,
    RemovableLine,
    ScaleDownSection,
    ScaleUpSection,
)


def autoscale_report() -> AutoscaleReport:
    return AutoscaleReport(
        autoscaler="cluster-autoscaler",
        expander="least-waste",
        groups=(
            GroupLine(
                "ng-1",
                1,
                5,
                2,
                3,
                "eks.amazonaws.com/nodegroup",
                "template-node-for-ng-1",
                "node n1",
                ("kube-system/aws-node-x",),
                {"cpu": 3920, "memory": 16 * 2**30, "pods": 58},
            ),
            GroupLine("gpu", 0, None, 0, 0, "file", None, None, (), {}),
        ),
        pods=(
            PodLine("shop", "web-1", "existing", "n1", "ng-1", None, 0),
            PodLine("shop", "web-2", "scale-up", "ng-1-new-0", "ng-1", None, 1),
            PodLine("shop", "big", "none", None, None, "no group can host it", 1),
        ),
        scale_ups=(
            ScaleUpSection(
                1,
                "least-waste",
                (OptionLine("ng-1", 1, ("shop/web-2",), (), "waste=1.2500"),),
                {"gpu": "not ready for scale-up"},
                (ChosenLine("ng-1", 1, 2, 3, 5, ("ng-1-new-0",)),),
                (("shop/big", {"gpu": "skipped: not ready for scale-up", "ng-1": "Insufficient memory"}),),
                (("least-waste", ("ng-1",)),),
                (),
                {"ng-1": {"shop/web-2": "", "shop/big": "Insufficient memory"}},
                (),
            ),
        ),
        scale_down=ScaleDownSection(
            0.5,
            (RemovableLine("n2", "ng-1", 0.1, {"shop/a": "n1"}),),
            (("n1", "NotUnderutilized: cpu utilization 0.80 is above 0.5"),),
        ),
        notes=("a note",),
    )
