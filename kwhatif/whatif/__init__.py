"""The what-if engines over the scheduler: schedule (which pods, and the claims that come with
them), check (workloads of manifests), capacity (copies of a pod) and drain (nodes emptied)."""
