"""Go compatibility helpers: math.Round, integer division, int64 wrapping, durations, quoting,
FNV-32a and sort.Slice, each against what Go gives."""

from __future__ import annotations

import math

import pytest

from kwhatif.gocompat import (
    MAX_INT64,
    MIN_INT64,
    XORSHIFT_64,
    XORSHIFT_GO122,
    fnv32a,
    format_go_duration,
    go_div,
    go_mod,
    go_quote,
    go_round,
    go_sort_slice,
    math_round,
    parse_go_duration,
    wrap_int64,
    xorshift_next,
)

JUST_BELOW_HALF = 0.49999999999999994  # math.Nextafter(0.5, 0)
TWO_52 = 1 << 52


# --- math.Round -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x,want",
    [
        pytest.param(0.5, 1, id="half"),
        pytest.param(1.5, 2, id="one-and-a-half"),
        pytest.param(2.5, 3, id="two-and-a-half-not-to-even"),
        pytest.param(2.4999, 2, id="below-half"),
        pytest.param(-0.5, -1, id="negative-half"),
        pytest.param(-2.5, -3, id="negative-away-from-zero"),
        pytest.param(0.0, 0, id="zero"),
        pytest.param(JUST_BELOW_HALF, 0, id="largest-below-half"),
        pytest.param(-JUST_BELOW_HALF, 0, id="negative-largest-below-half"),
        pytest.param(float(TWO_52 + 1), TWO_52 + 1, id="odd-integer-above-2^52"),
        pytest.param(float(TWO_52 + 3), TWO_52 + 3, id="another-odd-integer-above-2^52"),
        pytest.param(float(TWO_52) - 0.5, TWO_52, id="half-just-below-2^52"),
        pytest.param(float(1 << 60), 1 << 60, id="large-integer"),
        pytest.param(66.66666666666667, 67, id="score-two-thirds"),
        pytest.param(float("nan"), MIN_INT64, id="nan-as-amd64-converts"),
        pytest.param(float("inf"), MIN_INT64, id="inf-as-amd64-converts"),
        pytest.param(1e19, MIN_INT64, id="beyond-int64-as-amd64-converts"),
    ],
)
def test_go_round(x: float, want: int) -> None:
    assert go_round(x) == want


def test_floor_plus_half_is_not_math_round() -> None:
    """The two edge cases the bit-level port exists for."""
    assert math.floor(JUST_BELOW_HALF + 0.5) == 1 and math_round(JUST_BELOW_HALF) == 0.0
    assert math.floor((TWO_52 + 1) + 0.5) == TWO_52 + 2 and math_round(float(TWO_52 + 1)) == TWO_52 + 1


@pytest.mark.parametrize(
    "x,want",
    [
        pytest.param(-0.4, -0.0, id="negative-zero-keeps-sign"),
        pytest.param(float("inf"), float("inf"), id="inf"),
        pytest.param(float("-inf"), float("-inf"), id="minus-inf"),
        pytest.param(5e-324, 0.0, id="denormal"),
    ],
)
def test_math_round_special_values(x: float, want: float) -> None:
    got = math_round(x)
    assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def test_math_round_nan() -> None:
    assert math.isnan(math_round(float("nan")))


# --- integer arithmetic -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a,b,quotient,remainder",
    [
        pytest.param(7, 2, 3, 1, id="positive"),
        pytest.param(-7, 2, -3, -1, id="negative-dividend"),
        pytest.param(7, -2, -3, 1, id="negative-divisor"),
        pytest.param(-7, -2, 3, -1, id="both-negative"),
        pytest.param(0, 5, 0, 0, id="zero"),
        pytest.param(-100 * 3, 7, -42, -6, id="score-arithmetic"),
    ],
)
def test_go_div_and_mod_truncate_toward_zero(a: int, b: int, quotient: int, remainder: int) -> None:
    assert go_div(a, b) == quotient
    assert go_mod(a, b) == remainder


@pytest.mark.parametrize(
    "v,want",
    [
        pytest.param(42, 42, id="in-range"),
        pytest.param(MAX_INT64, MAX_INT64, id="max"),
        pytest.param(MAX_INT64 + 1, MIN_INT64, id="max-plus-one"),
        pytest.param(MIN_INT64 - 1, MAX_INT64, id="min-minus-one"),
        pytest.param((1 << 64) + 5, 5, id="whole-turn"),
        pytest.param(-5, -5, id="negative"),
    ],
)
def test_wrap_int64(v: int, want: int) -> None:
    assert wrap_int64(v) == want


# --- time.Duration ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,ns",
    [
        pytest.param("0", 0, id="zero"),
        pytest.param("15s", 15_000_000_000, id="seconds"),
        pytest.param("1h2m3.5s", 3_723_500_000_000, id="mixed"),
        pytest.param("-1.5s", -1_500_000_000, id="negative"),
        pytest.param("300ms", 300_000_000, id="millis"),
        pytest.param("2\u00b5s", 2_000, id="micro"),
        pytest.param("+5m", 300_000_000_000, id="plus"),
        pytest.param(".5s", 500_000_000, id="leading-dot"),
        pytest.param("1.s", 1_000_000_000, id="trailing-dot"),
        pytest.param("-9223372036854775808ns", MIN_INT64, id="min-int64"),
        pytest.param("0.123456789123456789123456789s", 123_456_789, id="fraction-digits-past-int64-dropped"),
        # the fraction is added in float64: float64(f) * (float64(unit) / scale), truncated
        pytest.param("0.774020403694166652h", 2_786_473_453_299, id="fraction-in-float64"),
    ],
)
def test_parse_go_duration(text: str, ns: int) -> None:
    assert parse_go_duration(text) == ns


@pytest.mark.parametrize(
    "text,message",
    [
        pytest.param("", 'time: invalid duration ""', id="empty"),
        pytest.param("5", 'time: missing unit in duration "5"', id="no-unit"),
        pytest.param("5d", 'time: unknown unit "d" in duration "5d"', id="unknown-unit"),
        pytest.param("s", 'time: invalid duration "s"', id="no-number"),
        pytest.param(".s", 'time: invalid duration ".s"', id="only-a-dot"),
        pytest.param("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"', id="above-max-int64"),
        pytest.param("3000000h", 'time: invalid duration "3000000h"', id="overflow"),
        pytest.param("5\u00e9", 'time: unknown unit "\\xc3\\xa9" in duration "5\\xc3\\xa9"', id="non-ascii-as-bytes"),
        pytest.param('5"', 'time: unknown unit "\\"" in duration "5\\""', id="quote-escaped"),
    ],
)
def test_parse_go_duration_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_go_duration(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "ns,text",
    [
        pytest.param(0, "0s", id="zero"),
        pytest.param(15_000_000_000, "15s", id="seconds"),
        pytest.param(3_723_500_000_000, "1h2m3.5s", id="mixed"),
        pytest.param(-1_500_000_000, "-1.5s", id="negative"),
        pytest.param(300_000_000, "300ms", id="millis"),
        pytest.param(1_500, "1.5\u00b5s", id="micro"),
        pytest.param(7, "7ns", id="nanos"),
        pytest.param(3_600_000_000_000, "1h0m0s", id="hour"),
    ],
)
def test_format_go_duration(ns: int, text: str) -> None:
    assert format_go_duration(ns) == text


# --- quoting and hashing ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "s,want",
    [
        pytest.param("zone", '"zone"', id="plain"),
        pytest.param('a"b', '"a\\"b"', id="quote"),
        pytest.param("a\\b", '"a\\\\b"', id="backslash"),
        pytest.param("a\nb", '"a\\nb"', id="newline"),
        # strconv.Quote's own escapes, then \xNN for other control characters and \uXXXX or
        # \UXXXXXXXX for what unicode.IsPrint refuses; printable characters beyond ASCII stay
        pytest.param("\a\b\f\r\t\v", '"\\a\\b\\f\\r\\t\\v"', id="escapes"),
        pytest.param("evil\x1b]0;t", '"evil\\x1b]0;t"', id="escape-character"),
        pytest.param("\x00\x7f", '"\\x00\\x7f"', id="nul-and-delete"),
        pytest.param("caf\u00e9 \u65e5\U0001f600", '"caf\u00e9 \u65e5\U0001f600"', id="printable-unicode"),
        pytest.param("\x9b\u00a0\u2028\u200b", '"\\u009b\\u00a0\\u2028\\u200b"', id="unprintable-unicode"),
        pytest.param("\U000e0001", '"\\U000e0001"', id="astral-format-character"),
    ],
)
def test_go_quote(s: str, want: str) -> None:
    assert go_quote(s) == want


@pytest.mark.parametrize(
    "data,want",
    [
        pytest.param(b"", 0x811C9DC5, id="empty"),
        pytest.param(b"a", 0xE40C292C, id="a"),
        pytest.param(b"foobar", 0xBF9CF968, id="foobar"),
    ],
)
def test_fnv32a(data: bytes, want: int) -> None:
    assert fnv32a(data) == want


# --- sort.Slice -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shifts", [XORSHIFT_GO122, XORSHIFT_64], ids=["go1.22", "64-bit"])
def test_go_sort_slice_sorts(shifts: tuple[int, int, int]) -> None:
    values = [(i * 7919) % 101 for i in range(200)]
    go_sort_slice(values, lambda a, b: a < b, shifts)
    assert values == sorted(values)


@pytest.mark.parametrize(
    "shifts,want",
    [
        # Go 1.22's sort.go (kube-scheduler v1.30): x ^= x<<13; x ^= x>>17; x ^= x<<5
        pytest.param(XORSHIFT_GO122, [5407413, 1375733832791, 371935490374017474], id="go1.22"),
        # the 64-bit triple of later Go releases, wrapping at 64 bits
        pytest.param(XORSHIFT_64, [21645395220, 4613115902966175006, 16111443374207111348], id="64-bit"),
    ],
)
def test_break_patterns_xorshift(shifts: tuple[int, int, int], want: list[int]) -> None:
    # breakPatterns seeds the generator with the length of the range (here 20)
    got, state = [], 20
    for _ in range(3):
        state = xorshift_next(state, shifts)
        got.append(state)
    assert got == want
