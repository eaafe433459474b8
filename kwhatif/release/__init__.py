"""Everything that differs between kube-scheduler releases, and nothing else decides it: version
parsing and the chosen release (versions.py), the recorded upstream changes and the Behaviour switches
they set, the default profiles' data, and each minor's feature gates (featuregates.py,
workload_gates.py). Outside this package no code compares release numbers."""
