"""cluster-autoscaler's view of a cluster, offline: node groups, template nodes, pod equivalence
groups, the binpacking estimator, expanders, limits, balancing, scale-down; the orchestrator
runs them as one loop of the autoscaler (core/static_autoscaler.go RunOnce) does."""
