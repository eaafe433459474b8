"""Edge cases of `kwhatif autoscale` and `kwhatif diff` from the installed command: what each output
format says when a report is capped, escaped or at a limit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.e2e.conftest import SAMPLES

CLUSTER = str(SAMPLES / "cluster.yaml")
PODS = str(SAMPLES / "pods")


@pytest.mark.parametrize("output", ["junit", "github", "sarif"])
def test_diff_capped_node_list_reads_as_one_sentence(run, output: str) -> None:
    # 1.30 -> 1.38 changes the reasons of more than ten nodes for data/nightly-export: the text
    # lists ten and says how many more; that line has no two sides, so no "->" after it
    r = run("diff", "-f", PODS, "--cluster", CLUSTER, "--scheduler-version", "1.30",
            "--to-scheduler-version", "1.38", "-o", output)  # fmt: skip
    assert r.code == 0, r.err
    if output == "junit":
        text = "".join(e.text or "" for e in ET.fromstring(r.out).iter("system-out"))
    elif output == "sarif":
        text = "\n".join(x["message"]["text"] for x in json.loads(r.out)["runs"][0]["results"])
    else:
        text = r.out
    assert "... and 1 more nodes differ (-o json lists them)" in text
    assert "more nodes differ (-o json lists them) ->" not in text
    assert "...: and" not in text
