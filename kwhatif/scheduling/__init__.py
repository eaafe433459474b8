"""The scheduling loop as upstream's pkg/scheduler keeps it beside the framework: the queue
(queue.py: PrioritySort and pod groups), scheduleOne with selectHost and preemption orchestration
(scheduler.py), the pod-group cycle (pod_group_cycle.py, as schedule_one_podgroup.go sits beside
schedule_one.go), the incremental engine that reuses work across cycles (incremental.py) and the
hints that explain a rejection (explain.py)."""
