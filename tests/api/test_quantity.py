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
        pytest.param("1K", id="upper-case-kilo"),
        pytest.param("1e", id="exponent-without-digits"),
        pytest.param("1e1000", id="exponent-too-large"),
        pytest.param("1" * 5000, id="five-thousand-digits"),
        pytest.param(10**50, id="int-of-fifty-digits"),
        # upstream's invalid corpus (quantity_test.go)
        pytest.param("1.1.M", id="1.1.M"),
        pytest.param("1+1.0M", id="1+1.0M"),
        pytest.param("0.1mi", id="0.1mi"),
        pytest.param("0.1am", id="0.1am"),
        pytest.param("aoeu", id="aoeu"),
        pytest.param(".5i", id=".5i"),
        pytest.param("1i", id="1i"),
        pytest.param("-3.01i", id="-3.01i"),
        pytest.param("-3.01e-", id="-3.01e-"),
        # no digit, and a suffix that sends ParseQuantity to inf.Dec, which cannot read it
        pytest.param("Pi", id="Pi-alone"),
        pytest.param("Ei", id="Ei-alone"),
        pytest.param("e-10", id="small-exponent-alone"),
        pytest.param("1e99999999999999999999", id="exponent-beyond-int64"),
        pytest.param(True, id="bool"),
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
    "raw,amount",
    [
        # Quantity.UnmarshalJSON trims the space around the text (strings.TrimSpace)
        pytest.param(" 1", Fraction(1), id="leading-space"),
        pytest.param("1 ", Fraction(1), id="trailing-space"),
        pytest.param("1\n", Fraction(1), id="trailing-newline"),
        pytest.param("\u00a0250m\u3000", Fraction(1, 4), id="unicode-spaces"),
        # UnmarshalJSON of null is the zero quantity
        pytest.param(None, Fraction(0), id="null"),
        # parseQuantityString reads a missing number as 0, and ParseQuantity's fast path takes it
        pytest.param("+", Fraction(0), id="sign-only"),
        pytest.param("-", Fraction(0), id="minus-only"),
        pytest.param(".", Fraction(0), id="point-only"),
        pytest.param("-.", Fraction(0), id="minus-point"),
        pytest.param("m", Fraction(0), id="milli-only"),
        pytest.param("Gi", Fraction(0), id="Gi-only"),
        pytest.param("Ti", Fraction(0), id="Ti-only"),
        pytest.param("e5", Fraction(0), id="exponent-only"),
        pytest.param("0e99999", Fraction(0), id="zero-with-a-huge-exponent"),
        # the exponent is read as int64 and converted to int32: 2^32 wraps to 0
        pytest.param("1e4294967296", Fraction(1), id="exponent-wraps-to-int32"),
        pytest.param("1e-999999", Fraction(1, 10**9), id="tiny-rounds-up-to-a-nano"),
        # long numbers the fast path cannot take: inf.Dec keeps them exactly, rounded up to the nano
        pytest.param("0" * 5000 + "1", Fraction(1), id="five-thousand-leading-zeros"),
        pytest.param("1." + "0" * 5000 + "1", Fraction(10**9 + 1, 10**9), id="five-thousand-fraction-digits"),
        pytest.param("1." + "0" * 5000 + "1Ki", Fraction(1024 * 10**9 + 1, 10**9), id="long-fraction-binary"),
        pytest.param("5" * 5000 + "Ki", Fraction((1 << 63) - 1), id="long-binary-capped"),
        pytest.param("1" + "0" * 40, Fraction(10**40), id="forty-one-digits"),
    ],
)
def test_what_the_api_server_decodes(raw, amount):
    assert parse_quantity(raw) == amount


def test_no_unicode_digits():
    with pytest.raises(QuantityError):
        parse_quantity("\u0661")


def test_long_text_is_cut_short_in_the_message():
    with pytest.raises(QuantityError) as ei:
        parse_quantity("1" * 100000)
    assert len(str(ei.value)) < 200 and "(100000 characters)" in str(ei.value)


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("abc", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1x", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1.2.3", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1kk", "unable to parse quantity's suffix"),
        ("5Ki3", "unable to parse quantity's suffix"),
        ("Pi", "unable to parse numeric part of quantity"),
    ],
    ids=["letters", "unknown-character", "two-points", "unknown-suffix", "suffix-and-exponent", "no-number"],
)
def test_field_error_of_a_string_that_is_no_quantity(text, detail):
    from kwhatif.api import fields
    from kwhatif.errors import FieldError

    with pytest.raises(FieldError) as ei:
        fields.quantity(text, "spec.containers[0].resources.requests[cpu]")
    assert str(ei.value) == f'spec.containers[0].resources.requests[cpu]: Invalid value: "{text}": {detail}'
