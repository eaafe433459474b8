"""The setting of Karpenter's disruption test suite, transcribed (kubernetes-sigs/karpenter
v1.14.1, pkg/controllers/disruption/suite_test.go and consolidation_test.go's BeforeEach): the fake
cloud provider's InstanceTypesAssorted catalog, the "default" NodePool (WhenEmptyOrUnderutilized,
consolidateAfter 0s, a 100% budget), NodeClaims with their nodes whose allocatable is the claim's
status (32 CPUs, and 100 pods where the test sets it), and ReplicaSet pods of test.Pod (no requests
unless the test gives some). SpotToSpotConsolidation is on, as the suite's BeforeEach sets it.

The suite picks its nodes' types by sorting the catalog by price (sort.Slice, not stable): the
cheapest and dearest on-demand and spot types are any of the tied ones; the first in the catalog's
order is taken here, which no test's outcome depends on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from autoscaler.karpenter import fake

from kwhatif.api import parse
from kwhatif.api.core import Node, Pod
from kwhatif.autoscaler.karpenter.consolidation import Command, Consolidation, consolidate
from kwhatif.autoscaler.karpenter.instancetypes import InstanceType
from kwhatif.autoscaler.karpenter.nodepools import NodeClaim, NodePool
from kwhatif.autoscaler.karpenter.provisioner import ProvisionOptions

from builders import PodBuilder, make_node, make_pod

ASSORTED = fake.instance_types_assorted()
MOST_EXPENSIVE = "64-cpu-128-mem-amd64-linux-test-zone-1-on-demand"
MOST_EXPENSIVE_SPOT = "64-cpu-128-mem-amd64-linux-test-zone-1-spot"
LEAST_EXPENSIVE = "1-cpu-1-mem-amd64-linux-test-zone-1-on-demand"
LEAST_EXPENSIVE_SPOT = "1-cpu-1-mem-amd64-linux-test-zone-1-spot"
LABELS = {"app": "test"}

DEFAULT_DISRUPTION: dict[str, Any] = {
    "consolidationPolicy": "WhenEmptyOrUnderutilized",
    "budgets": [{"nodes": "100%"}],
    "consolidateAfter": "0s",
}


def pool(
    name: str = "default",
    *,
    disruption: dict[str, Any] | None = None,
    requirements: list[dict[str, Any]] | None = None,
    budget: str | None = None,
) -> NodePool:
    d = dict(DEFAULT_DISRUPTION if disruption is None else disruption)
    if budget is not None:
        d["budgets"] = [{"nodes": budget}]
    return fake.nodepool(name, requirements=requirements, disruption=d)


@dataclass
class World:
    """The objects of one test: the cluster, its NodePools and the cloud provider's catalog."""

    catalog: list[InstanceType] = field(default_factory=lambda: list(ASSORTED))
    pools: list[NodePool] = field(default_factory=lambda: [pool()])
    nodes: list[Node] = field(default_factory=list)
    claims: list[NodeClaim] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    pending: list[Pod] = field(default_factory=list)
    pdbs: list[tuple[str, str, Any, int]] = field(default_factory=list)
    do_not_disrupt: set[str] = field(default_factory=set)
    spot_to_spot: bool = True
    options: ProvisionOptions = field(default_factory=ProvisionOptions)
    now: float | None = None  # the clock of consolidation; None: the real one
    claims_for_all: bool = True  # all_claims gives every NodePool node its NodeClaim

    def type(self, name: str) -> InstanceType:
        return next(it for it in self.catalog if it.name == name)

    def node(
        self,
        name: str,
        itype: str,
        *,
        nodepool: str = "default",
        cpu: str = "32",
        pods: str | None = "100",
        memory: str | None = None,
        labels: dict[str, str] | None = None,
        initialized: bool = True,
        managed: bool = True,
    ) -> str:
        """test.NodeClaimAndNode: the node carries the claim's labels and its status allocatable."""
        res = {"cpu": cpu} | ({"memory": memory} if memory else {}) | ({"pods": pods} if pods else {})
        b = make_node().name(name).capacity(**res)
        if managed:
            b = b.labels(
                **{"karpenter.sh/nodepool": nodepool, "karpenter.sh/initialized": "true" if initialized else "false"}
            )
        if managed and itype:
            o = self.type(itype).offerings[0]
            b = b.labels(
                **{
                    "node.kubernetes.io/instance-type": itype,
                    "karpenter.sh/capacity-type": o.capacity_type,
                    "topology.kubernetes.io/zone": o.zone,
                }
            )
        for k, v in (labels or {}).items():
            b = b.label(k, v)
        self.nodes.append(b.obj())
        return name

    def pod(
        self,
        name: str,
        on: str,
        *,
        cpu: str | None = None,
        owner: bool = True,
        labels: dict[str, str] | None = None,
        annotations: dict[str, str] | None = None,
        node_selector: dict[str, str] | None = None,
        priority: int | None = None,
        extra: Callable[[PodBuilder], PodBuilder] | None = None,
    ) -> Pod:
        b = make_pod().name(name).uid(name).node(on)
        for k, v in (LABELS if labels is None else labels).items():
            b = b.label(k, v)
        if owner:
            b = b.owner("ReplicaSet", "rs", "rs-uid")
        if cpu is not None:
            b = b.req(cpu=cpu)
        if annotations:
            b.d["metadata"]["annotations"] = dict(annotations)
        if node_selector:
            b = b.node_selector(**node_selector)
        if priority is not None:
            b = b.priority(priority)
        if extra is not None:
            b = extra(b)
        p = b.obj()
        self.pods.append(p)
        return p

    def pdb(self, name: str, allowed: int, match: dict[str, str] | None = None, namespace: str = "default") -> None:
        sel = parse.label_selector({"matchLabels": match or LABELS}, "spec.selector")
        self.pdbs.append((namespace, name, sel, allowed))

    def all_claims(self) -> list[NodeClaim]:
        """The NodeClaims: those the test gave, and one for every other node with a NodePool
        label when it gave some (test.NodeClaimAndNode makes both; a state holding NodeClaims
        manages only the nodes that have one)."""
        if not self.claims or not self.claims_for_all:
            return list(self.claims)
        have = {c.node_name for c in self.claims}
        made = [
            NodeClaim(
                f"nc-{n.name}",
                n.labels["karpenter.sh/nodepool"],
                n.name,
                n.labels.get("node.kubernetes.io/instance-type", ""),
                (),
                (),
                (),
                (),
                (),
                False,
            )
            for n in self.nodes
            if n.name not in have and "karpenter.sh/nodepool" in n.labels
        ]
        return [*self.claims, *made]

    def run(self) -> Consolidation:
        return consolidate(
            nodes=self.nodes,
            pods=self.pods,
            pending=self.pending,
            pdbs=self.pdbs,
            pools=self.pools,
            claims=self.all_claims(),
            catalog=self.catalog,
            daemonsets=[],
            do_not_disrupt=self.do_not_disrupt,
            namespace_labels={},
            options=self.options,
            well_known=fake.FAKE_WELL_KNOWN,
            spot_to_spot=self.spot_to_spot,
            now=self.now,
        )


def shape(cmd: Command) -> tuple[str, str, str, list[str]]:
    """A command as the tests compare it: method, reason, action and the nodes it removes."""
    return cmd.method, cmd.reason, cmd.action, sorted(c.name for c in cmd.candidates)
