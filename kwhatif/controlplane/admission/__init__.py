"""The API server's admission of a new object: NamespaceLifecycle, LimitRanger, Priority and
RuntimeClass with the release's field drops and validation (pod.py), ResourceQuota and
DefaultStorageClass, run as one chain (chain.py). Reads api/ objects only, so the cluster model
(cache/) can hold the admission inputs."""
