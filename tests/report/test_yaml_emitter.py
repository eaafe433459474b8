"""-o yaml goes through libyaml's emitter when every string is one it writes exactly as PyYAML's
pure-Python emitter does, and through PyYAML's otherwise: the bytes never depend on which."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kwhatif.report.formats import yaml as yaml_format
from kwhatif.report.formats.yaml import YamlFormatter


class _Doc:
    kind = "ScheduleReport"
    exit_code = 0

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        return self.data


def _pure(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=yaml_format._Dumper, sort_keys=False, allow_unicode=True, width=1000)


@pytest.mark.parametrize(
    "data,expected,fast",
    [
        pytest.param(
            {"pod": "shop/web", "node": None, "score": 12, "ok": True, "reason": "Insufficient cpu"},
            "pod: shop/web\nnode: null\nscore: 12\nok: true\nreason: Insufficient cpu\n",
            True,
            id="plain",
        ),
        pytest.param({"v": "yes", "n": "0o12", "e": ""}, "v: 'yes'\nn: 0o12\ne: ''\n", True, id="quoted-scalars"),
        pytest.param({"m": "ünïcode 中 ok"}, "m: ünïcode 中 ok\n", True, id="bmp-letters"),
        pytest.param({"m": "line one\nline two"}, "m: |-\n  line one\n  line two\n", False, id="multi-line-block"),
        pytest.param({"m": "tab\there"}, 'm: "tab\\there"\n', False, id="tab"),
        pytest.param({"m": "emoji 😀"}, "m: emoji 😀\n", False, id="astral"),
        pytest.param({"m": "sep\u2028x"}, "m: 'sep\u2028  x'\n", False, id="line-separator"),
        pytest.param(
            {"m": "x" * 1200 + " " + "y" * 10}, "m: " + "x" * 1200 + "\n  " + "y" * 10 + "\n", True, id="long-folded"
        ),
    ],
)
def test_yaml_bytes_whichever_emitter(monkeypatch, data, expected, fast):
    out = YamlFormatter().format(_Doc(data))
    assert out == expected == _pure(data)
    # which emitter wrote it: the fast one refuses the strings it might write differently
    used: list[str] = []
    real = yaml.dump

    def spy(obj: Any, **kw: Any) -> Any:
        used.append(kw["Dumper"].__name__)
        return real(obj, **kw)

    monkeypatch.setattr(yaml_format.yaml, "dump", spy)
    YamlFormatter().format(_Doc(data))
    assert used == (["_CDumper"] if fast else ["_CDumper", "_Dumper"])
