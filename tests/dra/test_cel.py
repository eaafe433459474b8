"""The CEL environment for device selectors: upstream's variables, libraries and error texts
(k8s.io/dynamic-resource-allocation/cel compile.go and compile_test.go)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kwhatif.dra import cel
from kwhatif.dra.types import DeviceAttribute as A
from kwhatif.dra.types import DeviceCapacity as C

DRIVER = "dra.example.com"


def gpu() -> cel.DeviceInput:
    return cel.device_input(
        DRIVER,
        {
            "model": A(string_value="a100"),
            "driverVersion": A(version_value="1.2.3"),
            "numa": A(int_value=1),
            "mig": A(bool_value=True),
            "other.example.com/slot": A(int_value=3),
        },
        {"memory": C(Fraction(80 * 2**30)), "cores": C(Fraction(1, 2))},
    )


@pytest.mark.parametrize(
    "expr, want",
    [
        pytest.param(f'device.driver == "{DRIVER}"', True, id="driver"),
        pytest.param(f'device.attributes["{DRIVER}"].model == "a100"', True, id="string-attribute"),
        pytest.param(
            f'device.attributes["{DRIVER}"].numa == 1 && device.attributes["{DRIVER}"].mig', True, id="int-and-bool"
        ),
        pytest.param('device.attributes["other.example.com"].slot == 3', True, id="other-domain"),
        pytest.param(
            f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) > 0', True, id="quantity-compare"
        ),
        pytest.param(f'device.capacity["{DRIVER}"].memory.isLessThan(quantity("40Gi"))', False, id="quantity-less"),
        pytest.param(
            f'device.capacity["{DRIVER}"].memory == quantity("81920Mi")', True, id="quantity-equal-other-unit"
        ),
        pytest.param(f'device.capacity["{DRIVER}"].cores == quantity("500m")', True, id="quantity-milli"),
        pytest.param(f'device.capacity["{DRIVER}"].cores.isInteger()', False, id="quantity-is-integer"),
        pytest.param(
            f'device.capacity["{DRIVER}"].memory.add(quantity("1Gi")).asInteger() == 81 * 1024 * 1024 * 1024',
            True,
            id="quantity-add",
        ),
        pytest.param(f'device.capacity["{DRIVER}"].memory.sub(1).sign() == 1', True, id="quantity-sub-sign"),
        pytest.param('isQuantity("1Gi") && !isQuantity("1Gx")', True, id="is-quantity"),
        pytest.param(
            f'device.attributes["{DRIVER}"].driverVersion.isGreaterThan(semver("1.2.0"))', True, id="semver-greater"
        ),
        pytest.param(
            f'device.attributes["{DRIVER}"].driverVersion.compareTo(semver("1.10.0")) < 0',
            True,
            id="semver-numeric-order",
        ),
        pytest.param(f'device.attributes["{DRIVER}"].driverVersion == semver("1.2.3")', True, id="semver-equal"),
        pytest.param(
            f'device.attributes["{DRIVER}"].driverVersion.major() == 1 && device.attributes["{DRIVER}"].driverVersion.patch() == 3',
            True,
            id="semver-parts",
        ),
        pytest.param('semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', True, id="semver-prerelease"),
        pytest.param('isSemver("v1.2", true) && !isSemver("v1.2")', True, id="semver-normalize"),
        pytest.param('"unknown.example.com" in device.attributes', False, id="in-missing-domain"),
        pytest.param('size(device.attributes["unknown.example.com"]) == 0', True, id="missing-domain-is-empty"),
        pytest.param(
            f'cel.bind(dra, device.attributes["{DRIVER}"], dra.model.startsWith("a1") && dra.numa == 1)',
            True,
            id="cel-bind",
        ),
        pytest.param(f'device.attributes["{DRIVER}"].model.upperAscii() == "A100"', True, id="strings-ext"),
        pytest.param(f'device.attributes["{DRIVER}"].model.matches("^a[0-9]+$")', True, id="matches"),
        pytest.param("[1, 2, 3].isSorted() && [1, 2].sum() == 3 && [3, 1].min() == 1", True, id="lists"),
        pytest.param(f'device.attributes["{DRIVER}"].model.find("[0-9]+") == "100"', True, id="regex-find"),
        pytest.param(
            '"a1b22".findAll("[0-9]+") == ["1", "22"] && "a1b22".findAll("[0-9]+", 1) == ["1"]',
            True,
            id="regex-find-all",
        ),
        pytest.param(f'device.attributes["{DRIVER}"].exists(k, k == "mig")', True, id="macro"),
    ],
)
def test_selector_matches(expr, want):
    c = cel.compiler()
    prog = c.compile(expr)
    assert prog.error is None, prog.error
    assert c.matches(prog, DRIVER, gpu()) is want


@pytest.mark.parametrize(
    "expr, error",
    [
        pytest.param(
            "device.driver ==",
            "compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>'",
            id="syntax",
        ),
        pytest.param(
            "noSuchVar", "compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar'", id="undeclared"
        ),
        pytest.param(
            "device.foo == 1",
            "compilation failed: ERROR: <input>:1:7: undefined field 'foo'\n | device.foo == 1\n | ......^",
            id="undefined-field",
        ),
        pytest.param(
            '1 == "a"',
            "compilation failed: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'",
            id="type-check",
        ),
        pytest.param("1 + 2", "must evaluate to bool or the unknown type, not int", id="not-bool"),
        pytest.param(
            "device.allowMultipleAllocations",
            "undefined field 'allowMultipleAllocations'",
            id="consumable-capacity-field-gated",
        ),
        pytest.param(
            "[1].indexOf(1) == 0",
            "(kwhatif's CEL environment lacks the Kubernetes library function 'indexOf')",
            id="unsupported-library-function",
        ),
    ],
)
def test_compile_errors(expr, error):
    prog = cel.compiler().compile(expr)
    assert prog.error is not None and prog.error.startswith(error) or error in (prog.error or ""), prog.error


def test_consumable_capacity_field():
    c = cel.compiler(consumable_capacity=True)
    inp = cel.device_input(DRIVER, {}, {}, allow_multiple_allocations=True, consumable_capacity=True)
    assert c.matches(c.compile("device.allowMultipleAllocations"), DRIVER, inp) is True


@pytest.mark.parametrize(
    "expr, error",
    [
        pytest.param(f'device.attributes["{DRIVER}"].nosuch == 1', "no such key: nosuch", id="missing-attribute"),
        pytest.param(
            'device.attributes["unknown.example.com"].x == 1', "no such key: x", id="missing-domain-attribute"
        ),
        pytest.param(
            f'device.attributes["{DRIVER}"].model',
            "CEL result of type string could not be converted to bool",
            id="dyn-not-bool",
        ),
        pytest.param('quantity("1Gx").sign() == 1', "quantities must match the regular expression", id="bad-quantity"),
        pytest.param(f'1 / (device.attributes["{DRIVER}"].numa - 1) == 1', "division by zero", id="division"),
    ],
)
def test_runtime_errors(expr, error):
    c = cel.compiler()
    prog = c.compile(expr)
    assert prog.error is None, prog.error
    with pytest.raises(cel.CelError) as err:
        c.matches(prog, DRIVER, gpu())
    assert error in str(err.value)


def test_invalid_version_attribute_is_an_error():
    with pytest.raises(cel.CelError, match="attribute v: parse semantic version"):
        cel.device_input(DRIVER, {"v": A(version_value="1.2")}, {})
