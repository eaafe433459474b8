"""kwhatif: a dry-run of the Kubernetes scheduling framework over a cluster snapshot.

The public Python API (docs/api.md lists what is stable)::

    import kwhatif

    cluster = kwhatif.load_cluster("samples/cluster.yaml")
    report = cluster.schedule("samples/pods/web-canary.yaml")
    report.to_dict()          # the document `kwhatif schedule -o json` prints
    kwhatif.render(report)    # the table the command prints

The names are imported when first used, so that the command line starts fast.
"""

from __future__ import annotations

import importlib
import os as _os
from typing import TYPE_CHECKING, Any

from kwhatif.version import __version__

# numpy's OpenBLAS starts a pool of worker threads when it is imported, and they spin for tens of
# milliseconds of CPU (60 to 100 ms measured on 2 cores) though kwhatif never calls a BLAS routine:
# its numpy work is element-wise. One thread, unless the environment says otherwise.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    from kwhatif.api_public import Cluster, Source, Sources, load_cluster, render
    from kwhatif.errors import ClusterError, ConfigError, ExitCode, FieldError, InputError, KwhatifError
    from kwhatif.report.autoscale import AutoscaleReport
    from kwhatif.report.capacity import CapacityReport
    from kwhatif.report.check import CheckReport
    from kwhatif.report.diff import DiffReport
    from kwhatif.report.drain import DrainReport
    from kwhatif.report.schedule import ScheduleReport

# public name -> the module that defines it
_PUBLIC = {
    "load_cluster": "kwhatif.api_public",
    "Cluster": "kwhatif.api_public",
    "render": "kwhatif.api_public",
    "Source": "kwhatif.api_public",
    "Sources": "kwhatif.api_public",
    "ScheduleReport": "kwhatif.report.schedule",
    "CheckReport": "kwhatif.report.check",
    "CapacityReport": "kwhatif.report.capacity",
    "DrainReport": "kwhatif.report.drain",
    "AutoscaleReport": "kwhatif.report.autoscale",
    "DiffReport": "kwhatif.report.diff",
    "KwhatifError": "kwhatif.errors",
    "InputError": "kwhatif.errors",
    "FieldError": "kwhatif.errors",
    "ConfigError": "kwhatif.errors",
    "ClusterError": "kwhatif.errors",
    "ExitCode": "kwhatif.errors",
}

__all__ = [
    "__version__",
    "load_cluster",
    "Cluster",
    "render",
    "Source",
    "Sources",
    "ScheduleReport",
    "CheckReport",
    "CapacityReport",
    "DrainReport",
    "AutoscaleReport",
    "DiffReport",
    "KwhatifError",
    "InputError",
    "FieldError",
    "ConfigError",
    "ClusterError",
    "ExitCode",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'kwhatif' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
