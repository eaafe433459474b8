"""Typed, slotted views of the Kubernetes objects the scheduler reads, built once from dicts."""
