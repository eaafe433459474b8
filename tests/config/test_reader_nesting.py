"""Documents nested deeper than libyaml's own cap (1,000 levels from libyaml 0.2.6) but within
kwhatif's limit read the same on every PyYAML build; deeper ones are refused by kwhatif's measure."""

from __future__ import annotations

import yaml

from kwhatif.config.reader import MAX_YAML_DEPTH, YAML_LOADER, yaml_nesting_problem


def _nested(depth: int) -> str:
    return "x: " + "[" * depth + "1" + "]" * depth + "\n"


def test_a_document_deeper_than_libyamls_default_cap_is_read():
    value = yaml.load(_nested(2_000), Loader=YAML_LOADER)
    depth = 0
    node = value["x"]
    while isinstance(node, list):
        depth += 1
        node = node[0]
    assert (depth, node) == (2_000, 1)


def test_a_document_deeper_than_kwhatifs_limit_is_measured_before_it_is_loaded():
    # the document's mapping is the first level, so the limit is crossed at the 10,000th bracket
    problem = yaml_nesting_problem(_nested(MAX_YAML_DEPTH + 5))
    assert (
        problem
        == f"invalid YAML at line 1 column {MAX_YAML_DEPTH + 3}: nested too deeply (more than {MAX_YAML_DEPTH} levels)"
    )


def test_a_document_at_kwhatifs_limit_passes_the_measure():
    assert yaml_nesting_problem(_nested(MAX_YAML_DEPTH - 1)) is None
