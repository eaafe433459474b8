"""Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), exactly.

A quantity is kept as an exact Fraction. ``value`` and ``milli_value`` round away from zero, as
Quantity.Value() and Quantity.MilliValue() do, so ``0.5`` cpu is 500m and ``1.5`` bytes is 2.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

# <sign><digits>[.<digits>]<suffix>, where suffix is a binary SI suffix, a decimal SI suffix or a
# decimal exponent (quantity.go parseQuantityString).
_QUANTITY_RE = re.compile(r"([+-]?)([0-9]+\.?[0-9]*|\.[0-9]+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?[0-9]+))?")

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

# Kubernetes keeps quantities within int64 scaled by at most 10^18 either way; anything with a
# larger exponent is nonsense for a scheduler and would make exact arithmetic explode.
_MAX_EXPONENT = 40
_NANO = 10**9
_MAX_INT64 = (1 << 63) - 1


class QuantityError(ValueError):
    pass


# resource.ErrFormatWrong: what the API server answers a string that is no quantity at all
ERR_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


# resource.ErrSuffix: a number followed by suffix characters that make no suffix ("1kk")
ERR_SUFFIX = "unable to parse quantity's suffix"
# what parseQuantityString reads as a number and a suffix, before the suffix is interpreted
_QUANTITY_FORM = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eEinumkKMGTP]*[-+]?[0-9]*")


class QuantityFormatError(QuantityError):
    """A string the API server cannot decode as a quantity; ``detail`` is its answer
    (ErrFormatWrong, or ErrSuffix for a suffix it does not know)."""

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message)
        self.detail = detail


@functools.lru_cache(maxsize=8192)
def _parse_str(text: str) -> Fraction:
    m = _QUANTITY_RE.fullmatch(text)
    if m is None:
        detail = ERR_SUFFIX if _QUANTITY_FORM.fullmatch(text) else ERR_FORMAT_WRONG
        raise QuantityFormatError(f"invalid quantity {text!r}", detail)
    sign, number, suffix, exponent = m.groups()
    value = Fraction(number)
    if exponent is not None:
        exp = int(exponent)
        if abs(exp) > _MAX_EXPONENT:
            raise QuantityError(f"invalid quantity {text!r}: exponent out of range")
        value *= Fraction(10) ** exp
    elif suffix in _BINARY:
        value *= 1 << _BINARY[suffix]
        # ParseQuantity caps binary-suffixed amounts at MaxInt64
        value = min(value, Fraction(_MAX_INT64))
    else:
        value *= Fraction(10) ** _DECIMAL[suffix or ""]
    # ParseQuantity keeps nano precision, rounding any finer amount up (away from zero): a
    # request for a sliver of a resource gets a nano of it, and sums are taken at that precision.
    nanos = value * _NANO
    if nanos.denominator != 1:
        value = Fraction(math.ceil(nanos), _NANO)
    return -value if sign == "-" else value


def parse_quantity(raw: object) -> Fraction:
    """Parse a quantity as it appears in a manifest: a string, or a bare YAML/JSON number."""
    if isinstance(raw, bool):
        raise QuantityError(f"invalid quantity {'true' if raw else 'false'}: expected a string or a number")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(f"invalid quantity {raw!r}")
        # A YAML/JSON float is written in decimal: take its shortest decimal form, not its binary value.
        return _parse_str(repr(raw))
    if isinstance(raw, str):
        return _parse_str(raw)
    shown = (
        "null"
        if raw is None
        else "an object"
        if isinstance(raw, dict)
        else "an array"
        if isinstance(raw, list)
        else repr(raw)
    )
    raise QuantityError(f"invalid quantity {shown}: expected a string or a number")


def _away_from_zero(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else math.floor(value)


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
        m = _QUANTITY_RE.fullmatch(raw)
        if m is not None:
            if m.group(3) in _BINARY:
                return BINARY_SI
            if m.group(4) is not None:
                return DECIMAL_EXPONENT
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
