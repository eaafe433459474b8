"""Quantities parse and round exactly as k8s.io/apimachinery resource.Quantity does."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kwhatif.api.quantity import QuantityError, milli_value, parse_quantity, value


@pytest.mark.parametrize(
    "raw,milli,val",
    [
        ("1", 1000, 1),
        ("100m", 100, 1),  # Value() rounds up
        ("0.5", 500, 1),
        ("1.5", 1500, 2),
        ("1Ki", 1024000, 1024),
        ("1Mi", 1048576000, 1048576),
        ("1Gi", 1073741824000, 1073741824),
        ("1k", 1000000, 1000),
        ("1M", 10**9, 10**6),
        ("1G", 10**12, 10**9),
        ("1e3", 10**6, 1000),
        ("1E3", 10**6, 1000),
        ("1e-3", 1, 1),
        ("1n", 1, 1),  # 0.000001m rounds up to 1m
        ("1u", 1, 1),
        ("0.1m", 1, 1),
        ("2.5Gi", 2684354560000, 2684354560),
        (2, 2000, 2),
        (0.25, 250, 1),
        ("+3", 3000, 3),
        ("-1", -1000, -1),
        ("-0.5", -500, -1),  # away from zero
        ("0", 0, 0),
        (".5", 500, 1),
        ("5.", 5000, 5),
    ],
)
def test_parse_and_round(raw, milli, val):
    q = parse_quantity(raw)
    assert milli_value(q) == milli
    assert value(q) == val


def test_exact_sum():
    # Quantities are summed exactly and rounded once, as upstream sums a ResourceList.
    total = parse_quantity("0.3") + parse_quantity("0.3") + parse_quantity("0.4")
    assert total == Fraction(1)
    assert milli_value(parse_quantity("1.0005")) == 1001


@pytest.mark.parametrize("raw", ["1x", "abc", "", "1.5.5", "1KB", "1 Gi", "Gi", "1K", "1e", "1e1000", True, None, [1]])
def test_invalid(raw):
    with pytest.raises(QuantityError):
        parse_quantity(raw)


def test_nano_precision_rounds_up():
    # ParseQuantity rounds finer amounts up to the nano: two slivers that sum to 1m exactly
    # without it make 1000001n with it, so MilliValue is 2.
    a = parse_quantity("0.0004999999999")
    b = parse_quantity("0.0005000000001")
    assert a == Fraction(500000, 10**9) and b == Fraction(500001, 10**9)
    assert milli_value(a + b) == 2
    assert parse_quantity("1n") == Fraction(1, 10**9)
    assert parse_quantity("-1.5n") == Fraction(-2, 10**9)
    assert parse_quantity("100Ei") == Fraction((1 << 63) - 1)


@pytest.mark.parametrize("raw", [" 1", "1 ", "\u0661", "1\n"])
def test_no_space_or_unicode_digits(raw):
    with pytest.raises(QuantityError):
        parse_quantity(raw)
