"""The controllers whose work the scheduler sees: workloads to pods (ReplicaSet, Deployment,
StatefulSet, DaemonSet, Job, CronJob, ...: workloads.py), the PersistentVolume and ephemeral-volume
controllers (pv_controller.py), and the incoming pods of a manifest, admitted (pods.py)."""
