"""Karpenter's provisioning and disruption decisions (kubernetes-sigs/karpenter, v1 API)."""
