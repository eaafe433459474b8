"""kwhatif: a dry-run of the Kubernetes scheduling framework over a cluster snapshot."""

__version__ = "0.1.0"
