"""The controllers whose work the scheduler sees: workloads to pods (ReplicaSet, Deployment,
StatefulSet, DaemonSet, Job, CronJob, ...: workloads.py), what an update does to the running pods
(rollout.py), the PersistentVolume and ephemeral-volume controllers (pv_controller.py), `kubectl
apply` of the objects that come with the workloads (apply.py), and the incoming pods of a manifest,
admitted (pods.py)."""
