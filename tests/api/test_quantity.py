"""Quantities parse and round exactly as k8s.io/apimachinery resource.Quantity does."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kwhatif.api.quantity import QuantityError, milli_value, parse_quantity, value


@pytest.mark.parametrize(
    "raw,milli,val",
    [
        pytest.param("1", 1000, 1, id="1"),
        pytest.param("100m", 100, 1, id="100m"),  # Value() rounds up
        pytest.param("0.5", 500, 1, id="0.5"),
        pytest.param("1.5", 1500, 2, id="1.5"),
        pytest.param("1Ki", 1024000, 1024, id="1Ki"),
        pytest.param("1Mi", 1048576000, 1048576, id="1Mi"),
        pytest.param("1Gi", 1073741824000, 1073741824, id="1Gi"),
        pytest.param("1k", 1000000, 1000, id="1k"),
        pytest.param("1M", 10**9, 10**6, id="1M"),
        pytest.param("1G", 10**12, 10**9, id="1G"),
        pytest.param("1e3", 10**6, 1000, id="1e3"),
        pytest.param("1E3", 10**6, 1000, id="1E3"),
        pytest.param("1e-3", 1, 1, id="1e-3"),
        pytest.param("1n", 1, 1, id="1n"),  # 0.000001m rounds up to 1m
        pytest.param("1u", 1, 1, id="1u"),
        pytest.param("0.1m", 1, 1, id="0.1m"),
        pytest.param("2.5Gi", 2684354560000, 2684354560, id="2.5Gi"),
        pytest.param(2, 2000, 2, id="int-2"),
        pytest.param(0.25, 250, 1, id="float-0.25"),
        pytest.param("+3", 3000, 3, id="+3"),
        pytest.param("-1", -1000, -1, id="-1"),
        pytest.param("-0.5", -500, -1, id="-0.5"),  # away from zero
        pytest.param("0", 0, 0, id="0"),
        pytest.param(".5", 500, 1, id=".5"),
        pytest.param("5.", 5000, 5, id="5."),
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


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("1x", id="unknown-suffix"),
        pytest.param("abc", id="no-number"),
        pytest.param("", id="empty"),
        pytest.param("1.5.5", id="two-points"),
        pytest.param("1KB", id="suffix-with-trailing-letter"),
        pytest.param("1 Gi", id="space-before-suffix"),
        pytest.param("Gi", id="suffix-only"),
        pytest.param("1K", id="upper-case-kilo"),
        pytest.param("1e", id="exponent-without-digits"),
        pytest.param("1e1000", id="exponent-too-large"),
        pytest.param(True, id="bool"),
        pytest.param(None, id="null"),
        pytest.param([1], id="list"),
    ],
)
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


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(" 1", id="leading-space"),
        pytest.param("1 ", id="trailing-space"),
        pytest.param("\u0661", id="arabic-indic-digit"),
        pytest.param("1\n", id="trailing-newline"),
    ],
)
def test_no_space_or_unicode_digits(raw):
    with pytest.raises(QuantityError):
        parse_quantity(raw)


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("abc", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1x", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1.2.3", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1kk", "unable to parse quantity's suffix"),
        ("5Ki3", "unable to parse quantity's suffix"),
    ],
    ids=["letters", "unknown-character", "two-points", "unknown-suffix", "suffix-and-exponent"],
)
def test_field_error_of_a_string_that_is_no_quantity(text, detail):
    from kwhatif.api import fields
    from kwhatif.errors import FieldError

    with pytest.raises(FieldError) as ei:
        fields.quantity(text, "spec.containers[0].resources.requests[cpu]")
    assert str(ei.value) == f'spec.containers[0].resources.requests[cpu]: Invalid value: "{text}": {detail}'
