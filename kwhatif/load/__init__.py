"""Loading cluster state and workloads from files or a live cluster."""
