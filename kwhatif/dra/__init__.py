"""Dynamic Resource Allocation (resource.k8s.io): typed objects, the CEL environment for device
selectors, and the structured allocator the DynamicResources plugin runs
(k8s.io/dynamic-resource-allocation/structured)."""
