"""The expanders: cases of upstream's tests (expander/{waste,mostpods,leastnodes,priority,price,
random}/*_test.go and expander/factory/chain_test.go, cluster-autoscaler-release-1.36)."""

from __future__ import annotations

import pytest

from kwhatif.autoscaler import expanders
from kwhatif.autoscaler.expanders import ExpanderName, Option
from kwhatif.errors import InputError
from tests.autoscaler.ca_helpers import ca_node, ca_pod, copies

MIB = 2**20


def opt(group: str, node_count: int = 1, pods: int = 0, node=None, **kw) -> Option:
    name = group.lower()
    pod_list = copies(ca_pod(f"p-{name}", 500, 1000 * MIB), pods) if pods else []
    return Option(group, node_count, pod_list, node or ca_node(name, 1000, 1000), **kw)


def groups(options: list[Option]) -> list[str]:
    return [o.group for o in options]


def test_least_waste():
    """TestLeastWaste: without pods, the one option; a pod prefers the node that wastes least."""
    cpu, mem = 500, 1000  # per pod: millicores, MiB
    balanced = opt("balanced", 1, 0, ca_node("balanced", 16 * cpu, 16 * mem))
    assert groups(expanders.least_waste([balanced])) == ["balanced"]
    balanced = opt("balanced", 1, 1, ca_node("balanced", 16 * cpu, 16 * mem))
    assert groups(expanders.least_waste([balanced])) == ["balanced"]
    highmem = opt("highmem", 1, 1, ca_node("highmem", 16 * cpu, 32 * mem))
    assert groups(expanders.least_waste([balanced, highmem])) == ["balanced"]
    lowcpu = opt("lowcpu", 1, 1, ca_node("lowcpu", 8 * cpu, 16 * mem))
    assert groups(expanders.least_waste([balanced, highmem, lowcpu])) == ["lowcpu"]


def test_most_pods():
    """TestMostPods."""
    eo0 = opt("EO0")
    assert groups(expanders.most_pods([eo0])) == ["EO0"]
    eo1 = opt("EO1", pods=1)
    assert groups(expanders.most_pods([eo0, eo1])) == ["EO1"]
    eo1b = opt("EO1b", pods=1)
    assert groups(expanders.most_pods([eo0, eo1, eo1b])) == ["EO1", "EO1b"]


@pytest.mark.parametrize(
    ("counts", "want"),
    [
        ([], []),  # no options
        ([0], []),  # no valid options
        ([2], ["EO0"]),  # 1 valid option
        ([2, 1], ["EO1"]),  # 2 valid options, not equal
        ([6, 2, 2], ["EO1", "EO2"]),  # 3 valid options, 2 equal
        ([8, 8, 8], ["EO0", "EO1", "EO2"]),  # 3 valid options, all equal
        ([23, 0, 5, 8, 5, 5, 22], ["EO2", "EO4", "EO5"]),  # 6 valid options, 1 invalid option, 3 equal
    ],
    ids=[
        "no options",
        "no valid options",
        "1 valid option",
        "2 valid options, not equal",
        "3 valid options, 2 equal",
        "3 valid options, all equal",
        "6 valid options, 1 invalid option, 3 equal",
    ],
)
def test_least_nodes(counts, want):
    """TestLeastNodes."""
    assert groups(expanders.least_nodes([opt(f"EO{i}", n) for i, n in enumerate(counts)])) == want


CONFIG = {5: (r".*t2\.micro.*",), 10: (r".*t2\.large.*", r".*t3\.large.*"), 50: (r".*m4\.4xlarge.*",)}
WILDCARD = {5: (".*",), 10: (r".t2\.large.*",)}
T2_MICRO, T2_LARGE, T3_LARGE, M4 = "my-asg.t2.micro", "my-asg.t2.large", "my-asg.t3.large", "my-asg.m4.4xlarge"


@pytest.mark.parametrize(
    ("config", "options", "want"),
    [
        (CONFIG, [T2_LARGE], [T2_LARGE]),  # TestPriorityExpanderCorrecltyFiltersSingleMatchingOptionOutOfOne
        (CONFIG, [T2_LARGE, M4], [M4]),  # ...FiltersSingleMatchingOptionOutOfMany
        (WILDCARD, [T2_LARGE, T2_MICRO], [T2_LARGE]),  # TestPriorityExpanderFiltersToHigherPriorityMatch
        (CONFIG, [T2_LARGE, T3_LARGE, T2_MICRO], [T2_LARGE, T3_LARGE]),  # ...FiltersTwoMatchingOptionsOutOfMany
        (CONFIG, [T2_LARGE, T3_LARGE], [T2_LARGE, T3_LARGE]),  # ...FallsBackToAllWhenNoMatches
        (
            {5: (r".*t\.micro.*",), 10: (r".*t\.large.*",)},
            [T2_LARGE, T2_MICRO],
            [T2_LARGE, T2_MICRO],
        ),  # notMatchingConfig
    ],
)
def test_priority(config, options, want):
    assert groups(expanders.priority([opt(g) for g in options], config)) == want


def test_price_expander():
    """TestPriceExpander: node and pod prices of a test pricing model, the preferred node given."""
    n1, n2 = ca_node("n1", 1000, 1000), ca_node("n2", 4000, 1000)
    pods = copies(ca_pod("p", 1000, 0), 2)
    pod_prices = {pods[0].key: 20.0, pods[1].key: 10.0}

    def run(node_counts, prices, preferred_cpu, exists=(True, True)):
        options = [
            Option("ng1", node_counts[0], pods, n1, exists=exists[0]),
            Option("ng2", node_counts[1], pods, n2, exists=exists[1]),
        ]
        return groups(
            expanders.price(options, lambda o: prices.get(o.group), lambda p: pod_prices[p.key], 10.0, preferred_cpu)
        )

    # first node group is cheaper
    assert run((2, 1), {"ng1": 20.0, "ng2": 200.0}, 2000) == ["ng1"]
    # first node group is cheaper, however, the second one is preferred
    assert run((2, 1), {"ng1": 50.0, "ng2": 200.0}, 4000) == ["ng2"]
    # first cheaper, second preferred, but lots of nodes to be created
    assert run((80, 40), {"ng1": 20.0, "ng2": 200.0}, 4000) == ["ng1"]
    # second node group is cheaper
    assert run((2, 1), {"ng1": 200.0, "ng2": 100.0}, 2000) == ["ng2"]
    # a group without a price is left out; none priced: no option
    assert run((2, 1), {"ng2": 100.0}, 2000) == ["ng2"]
    assert run((2, 1), {}, 2000) == []


@pytest.mark.parametrize(
    ("nodes", "cpu", "mem_mib"),
    [
        (1, 1, 3750),
        (2, 1, 3750),
        (3, 2, 7500),
        (6, 2, 7500),
        (20, 4, 15000),
        (60, 8, 30000),
        (200, 16, 60000),
        (201, 32, 120000),
    ],
)
def test_preferred_node(nodes, cpu, mem_mib):
    """SimplePreferredNodeProvider (TestPreferred): the node size for a cluster of this many nodes."""
    assert expanders.preferred_node(nodes) == (cpu * 1000, mem_mib * MIB)


def test_random_is_deterministic_and_names_the_tie():
    """TestRandomExpander picks one of the options; kwhatif picks the first by name, and says so."""
    choice = expanders.choose([opt("b", 1), opt("a", 1)], [ExpanderName.RANDOM])
    assert choice.best is not None and choice.best.group == "a"
    assert choice.tie == ("a", "b")
    one = expanders.choose([opt("b", 1)], [ExpanderName.RANDOM])
    assert one.best is not None and one.best.group == "b" and one.tie == ()


@pytest.mark.parametrize(
    ("chain", "options", "want", "steps"),
    [
        # "short circuits": a filter that leaves one option ends the chain
        (
            [ExpanderName.LEAST_NODES, ExpanderName.MOST_PODS],
            [("a", 1, 1), ("b", 2, 5)],
            "a",
            [("least-nodes", ("a",))],
        ),
        # "filters with multiple filters": the next filter breaks the first one's tie
        (
            [ExpanderName.LEAST_NODES, ExpanderName.MOST_PODS],
            [("a", 1, 1), ("b", 1, 3), ("c", 4, 9)],
            "b",
            [("least-nodes", ("a", "b")), ("most-pods", ("b",))],
        ),
        # "selects from multiple after filters": the fallback (random) among what is left
        (
            [ExpanderName.LEAST_NODES],
            [("xc", 2, 1), ("xab", 1, 1), ("xaa", 1, 1)],
            "xaa",
            [("least-nodes", ("xab", "xaa")), ("random", ("xaa",))],
        ),
    ],
    ids=["short circuits", "filters with multiple filters", "selects from multiple after filters"],
)
def test_chain(chain, options, want, steps):
    """TestChainStrategy_BestOption, with real expanders in place of its substring filters."""
    choice = expanders.choose([opt(g, n, p) for g, n, p in options], chain)
    assert choice.best is not None and choice.best.group == want
    assert [(s.expander, s.kept) for s in choice.steps] == steps


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("least-waste,least-waste", "Expander least-waste was specified multiple times"),
        ("random,most-pods", "Expander most-pods came after an expander random"),
        ("grpc", "Expander grpc not supported"),
    ],
)
def test_chain_build_errors(text, error):
    """Factory.Build's refusals (TestExpanderFactory_Build)."""
    with pytest.raises(InputError, match=error):
        expanders.parse_chain(text)


def test_chain_parses():
    assert expanders.parse_chain("priority,least-waste") == [ExpanderName.PRIORITY, ExpanderName.LEAST_WASTE]
