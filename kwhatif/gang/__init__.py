"""Gang scheduling of Workload pod groups: the gates, the pod-group state the queue and the
GangScheduling plugin read, and the pod-group scheduling cycle (schedule_one_podgroup.go)."""
