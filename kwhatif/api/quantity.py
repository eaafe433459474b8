"""Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), exactly.

A quantity is kept as an exact Fraction. ``value`` and ``milli_value`` round away from zero, as
Quantity.Value() and Quantity.MilliValue() do, so ``0.5`` cpu is 500m and ``1.5`` bytes is 2.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

# Go's strings.TrimSpace: what UnmarshalJSON strips around a quantity (unicode.IsSpace)
_GO_SPACE = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

# parseQuantityString's scan: a sign, leading zeros, the integer digits, an optional point and
# fraction digits, then the suffix: letters from eEinumkKMGTP, an optional sign and digits. Every
# part may be empty ("+", ".", "m" and "Gi" all scan, as zero).
_SCAN = re.compile(r"([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
_EXPONENT_SUFFIX = re.compile(r"[eE]([+-]?)0*([0-9]+)")

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

# Kubernetes keeps quantities within int64 scaled by at most 10^18 either way. A decimal quantity
# of 10^42 or more (an exponent of 1e1000, a thousand-digit number) the API server stores, but
# the scheduler's int64 arithmetic wraps on it; kwhatif refuses it rather than answer differently.
_MAX_DIGITS = 42
_LIMIT = 10**_MAX_DIGITS
_BEYOND = f"10^{_MAX_DIGITS} or more is beyond what kwhatif computes"
# fraction digits kept before a sticky digit stands for the rest: every boundary the nano rounding
# can meet (m / (10^9 * 10^e) or m / (10^9 * 2^b)) has fewer decimal places, so keeping 80 and
# marking that more follow rounds exactly as the whole fraction would
_FRACTION_DIGITS = 80
_NANO = 10**9
_MAX_INT64 = (1 << 63) - 1
_MIN_INT64 = -(1 << 63)


class QuantityError(ValueError):
    pass


# resource.ErrFormatWrong: what the API server answers a string that is no quantity at all
ERR_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
# resource.ErrSuffix: a number followed by suffix characters that make no suffix ("1kk")
ERR_SUFFIX = "unable to parse quantity's suffix"
# resource.ErrNumeric: a number inf.Dec cannot read, which only the slow path meets ("Pi", "e-10")
ERR_NUMERIC = "unable to parse numeric part of quantity"


class QuantityFormatError(QuantityError):
    """A string the API server cannot decode as a quantity; ``detail`` is its answer
    (ErrFormatWrong, ErrSuffix for a suffix it does not know, ErrNumeric)."""

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message)
        self.detail = detail


def shown(text: str, limit: int = 64) -> str:
    """``text`` quoted for a message, cut short when it is long."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[: limit // 2]!r}... ({len(text)} characters)"


def _suffix(text: str, suffix: str) -> tuple[int, int]:
    """quantitySuffixer.interpret: (binary shift, decimal exponent) of a suffix, or ErrSuffix."""
    if suffix in _DECIMAL:
        return 0, _DECIMAL[suffix]
    if suffix in _BINARY:
        return _BINARY[suffix], 0
    m = _EXPONENT_SUFFIX.fullmatch(suffix)
    # strconv.ParseInt(suffix[1:], 10, 64), then int32(parsed): wraps as Go's conversion does
    if m is not None and len(m.group(2)) <= 19:
        parsed = -int(m.group(2)) if m.group(1) == "-" else int(m.group(2))
        if _MIN_INT64 <= parsed <= _MAX_INT64:
            return 0, ((parsed + (1 << 31)) % (1 << 32)) - (1 << 31)
    raise QuantityFormatError(f"invalid quantity {shown(text)}", ERR_SUFFIX)


@functools.lru_cache(maxsize=8192)
def _scan(text: str) -> tuple[bool, str, int, int, str]:
    """parseQuantityString and the suffix: (negative, the digits without leading zeros, binary
    shift, decimal exponent, format). The amount is ``int(digits) * 10^exponent * 2^shift``: the
    exponent counts the fraction's digits off."""
    if not text:
        raise QuantityFormatError("invalid quantity ''", ERR_FORMAT_WRONG)
    m = _SCAN.fullmatch(text)
    if m is None:
        raise QuantityFormatError(f"invalid quantity {shown(text)}", ERR_FORMAT_WRONG)
    sign, zeros, whole, fraction, suffix = m.groups()
    fraction = fraction or ""
    shift, exponent = _suffix(text, suffix)
    # Without a digit inf.Dec cannot read the number, which the fast path never asks it to: only
    # a binary suffix of 2^50 or more, or an exponent below -9, takes the slow path.
    if not (zeros or whole or fraction) and (shift >= 50 or exponent < -9):
        raise QuantityFormatError(f"invalid quantity {shown(text)}", ERR_NUMERIC)
    fmt = BINARY_SI if shift else DECIMAL_SI if suffix in _DECIMAL else DECIMAL_EXPONENT
    return sign == "-", (whole + fraction).lstrip("0"), shift, exponent - len(fraction), fmt


@functools.lru_cache(maxsize=8192)
def _parse_str(text: str) -> Fraction:
    negative, digits, shift, exponent, _ = _scan(text)
    if not digits:
        return Fraction(0)
    kept = digits.rstrip("0")
    exponent += len(digits) - len(kept)
    digits = kept
    magnitude = len(digits) + exponent  # 10^(magnitude-1) <= amount < 10^magnitude
    if shift:
        if magnitude > 20:
            # ParseQuantity caps binary-suffixed amounts at MaxInt64
            value = Fraction(_MAX_INT64)
            return -value if negative else value
        tiny = magnitude <= -30
    else:
        if magnitude > _MAX_DIGITS:
            raise QuantityError(f"invalid quantity {shown(text)}: {_BEYOND}")
        tiny = magnitude <= -9
    if tiny:
        # less than a nano: rounded up to one
        value = Fraction(1, _NANO)
        return -value if negative else value
    if len(digits) > _FRACTION_DIGITS + _MAX_DIGITS:
        cut = _FRACTION_DIGITS + _MAX_DIGITS
        exponent += len(digits) - cut - 1
        digits = digits[:cut] + "1"
    value = Fraction(int(digits)) * Fraction(10) ** exponent
    if shift:
        value = min(value * (1 << shift), Fraction(_MAX_INT64))
    # ParseQuantity keeps nano precision, rounding any finer amount up (away from zero): a
    # request for a sliver of a resource gets a nano of it, and sums are taken at that precision.
    nanos = value * _NANO
    if nanos.denominator != 1:
        value = Fraction(math.ceil(nanos), _NANO)
    return -value if negative else value


def parse_quantity(raw: object) -> Fraction:
    """Parse a quantity as it appears in a manifest: a string, or a bare YAML/JSON number."""
    if isinstance(raw, bool):
        raise QuantityError(f"invalid quantity {'true' if raw else 'false'}: expected a string or a number")
    if isinstance(raw, int):
        if abs(raw) >= _LIMIT:
            raise QuantityError(f"invalid quantity of {raw.bit_length()} bits: {_BEYOND}")
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(f"invalid quantity {raw!r}")
        # A YAML/JSON float is written in decimal: take its shortest decimal form, not its binary value.
        return _parse_str(repr(raw))
    if isinstance(raw, str):
        # Quantity.UnmarshalJSON trims the space around the text before parsing it
        return _parse_str(raw.strip(_GO_SPACE))
    if raw is None:
        # UnmarshalJSON of null: the zero quantity
        return Fraction(0)
    kind = "an object" if isinstance(raw, dict) else "an array" if isinstance(raw, list) else repr(raw)
    raise QuantityError(f"invalid quantity {kind}: expected a string or a number")


def _away_from_zero(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else math.floor(value)


def round_up_milli(q: Fraction) -> Fraction:
    """Quantity.RoundUp(Milli), away from zero: what SetDefaults_ResourceList does to every
    amount of a core/v1 ResourceList when the API server decodes the object."""
    if 1000 % q.denominator == 0:
        return q
    return Fraction(_away_from_zero(q * 1000), 1000)


def value(q: Fraction) -> int:
    """Quantity.Value(): the integer value, rounded away from zero."""
    return _away_from_zero(q)


def milli_value(q: Fraction) -> int:
    """Quantity.MilliValue(): the value in thousandths, rounded away from zero."""
    return _away_from_zero(q * 1000)


def format_milli_cpu(milli: int) -> str:
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"


def format_bytes(n: int) -> str:
    """A short binary-SI rendering for messages (exact where it divides evenly)."""
    for suffix, shift in (("Ei", 60), ("Pi", 50), ("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)):
        if n and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


# --- canonical text (Quantity.String()) -----------------------------------------------------------

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"

_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIX = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def format_of(raw: object) -> str:
    """The format ParseQuantity records: a binary suffix gives BinarySI, an exponent
    DecimalExponent, anything else (a decimal suffix, a bare number) DecimalSI."""
    if isinstance(raw, str):
        try:
            return _scan(raw.strip(_GO_SPACE))[4]
        except QuantityError:
            return DECIMAL_SI
    return DECIMAL_SI


def canonical(value: Fraction, fmt: str = DECIMAL_SI) -> str:
    """Quantity.String() of ``value`` in format ``fmt`` (CanonicalizeBytes): BinarySI uses the
    largest power of 1024 that divides the value, unless the value is below 1024 or fractional;
    the decimal formats use the largest power of 1000 that leaves an integer mantissa."""
    if value == 0:
        return "0"
    if fmt == BINARY_SI and (-1024 < value < 1024 or value.denominator != 1):
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        n, e = int(value), 0
        while n % 1024 == 0 and e < len(_BINARY_SUFFIX) - 1:
            n //= 1024
            e += 1
        return f"{n}{_BINARY_SUFFIX[e]}"
    sign = "-" if value < 0 else ""
    v = abs(value)
    exp = 0
    while v.denominator != 1:
        v *= 10
        exp -= 1
    mantissa = int(v)
    while mantissa % 10 == 0:
        mantissa //= 10
        exp += 1
    shift = exp % 3
    mantissa *= 10**shift
    exp -= shift
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{mantissa}" + (f"e{exp}" if exp else "")
    if exp > 18:
        mantissa *= 10 ** (exp - 18)
        exp = 18
    return f"{sign}{mantissa}{_DECIMAL_SUFFIX[exp]}"


def canonical_text(raw: object) -> str:
    """Quantity.String() of a quantity as written in a manifest."""
    return canonical(parse_quantity(raw), format_of(raw))
