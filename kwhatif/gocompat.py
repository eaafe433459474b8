"""Go compatibility: the few places where Go's arithmetic, sorting, hashing or text differ from
Python's and kube-scheduler's answers depend on it.

math.Round, integer division and remainder (truncating toward zero), int64 overflow wrapping and
float-to-int64 conversion, time.ParseDuration and Duration.String, strconv.Quote, FNV-32a and
sort.Slice (pattern-defeating quicksort, whose order of equal elements is part of the answer).
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
MIN_INT64 = -(1 << 63)
MAX_INT64 = (1 << 63) - 1


# --- arithmetic -----------------------------------------------------------------------------------


def go_div(a: int, b: int) -> int:
    """Go's integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_mod(a: int, b: int) -> int:
    """Go's %: the remainder of go_div, with the sign of the dividend."""
    return a - b * go_div(a, b)


def wrap_int64(v: int) -> int:
    """Go int64 arithmetic overflows silently: two's complement wrap-around."""
    return ((v - MIN_INT64) & _MASK64) + MIN_INT64


_SHIFT, _BIAS, _EXP_MASK = 52, 1023, 0x7FF
_SIGN_MASK = 1 << 63
_FRAC_MASK = (1 << _SHIFT) - 1
_UVONE = 0x3FF0000000000000  # the bits of 1.0


def math_round(x: float) -> float:
    """math.Round: the nearest integer, half away from zero, on the float's bits as Go does it.

    floor(x + 0.5) is not the same: it gives 1 for 0.49999999999999994 (the addition rounds up to
    1.0) and adds one to odd integers above 2**52 (x + 0.5 rounds to even)."""
    bits: int = struct.unpack("<Q", struct.pack("<d", x))[0]
    e = (bits >> _SHIFT) & _EXP_MASK
    if e < _BIAS:
        # |x| < 1: ±0, or ±1 when |x| >= 0.5
        bits &= _SIGN_MASK
        if e == _BIAS - 1:
            bits |= _UVONE
    elif e < _BIAS + _SHIFT:
        # |x| >= 1 with a fractional part: add a half at the units' bit, then clear the fraction
        e -= _BIAS
        bits += (1 << (_SHIFT - 1)) >> e
        bits &= ~(_FRAC_MASK >> e) & _MASK64
    # else: an integer already, or Inf, or NaN
    result: float = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return result


def float_to_int64(x: float) -> int:
    """int64(x): truncates toward zero. NaN, infinities and values out of int64's range give
    math.MinInt64, as the conversion does on amd64 (where kube-scheduler's images run)."""
    if math.isnan(x) or not -9.223372036854775808e18 <= x < 9.223372036854775808e18:
        return MIN_INT64
    return int(x)


def go_round(x: float) -> int:
    """int64(math.Round(x))."""
    return float_to_int64(math_round(x))


# --- text ------------------------------------------------------------------------------------------


def format_float32_g(x: float) -> str:
    """strconv.FormatFloat(x, 'g', -1, 32): the shortest decimal that reads back as the same
    float32, in %e form when its exponent is below -4 or at least 6 (the decision strconv takes
    for the shortest form), else in %f form ("1.5", "100000", "1e+06", "1e-05", "+Inf", "NaN")."""
    if math.isnan(x):
        return "NaN"
    try:
        x32 = struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        x32 = math.inf if x > 0 else -math.inf
    if math.isinf(x32):
        return "+Inf" if x32 > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, x32) < 0 else ""
    a = abs(x32)
    if a == 0:
        return sign + "0"
    for prec in range(1, 10):
        text = f"{a:.{prec - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == a:
            break
    mantissa, _, exp_text = text.partition("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    exp = int(exp_text)
    if exp < -4 or exp >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    point = exp + 1  # digits before the decimal point
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


_GO_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


# A value quoted in a message: longer ones show their first SHOWN_PREFIX characters and their
# length. The API server takes no request body above 3 MiB (the apiserver's MaxRequestBodyBytes),
# so it never echoes a 5 MB value; a file read here can hold one, and one error line must stay a line.
MAX_SHOWN_VALUE = 256
SHOWN_PREFIX = 64


def bounded_quote(s: str) -> str:
    """go_quote of ``s``, or of its first SHOWN_PREFIX characters followed by "... (N characters)"
    when it is longer than MAX_SHOWN_VALUE."""
    if len(s) <= MAX_SHOWN_VALUE:
        return go_quote(s)
    return f"{go_quote(s[:SHOWN_PREFIX])}... ({len(s)} characters)"


def bounded_text(s: str) -> str:
    """An already rendered value (JSON of a mapping or list), bounded as bounded_quote bounds a string."""
    if len(s) <= MAX_SHOWN_VALUE:
        return s
    return f"{s[:SHOWN_PREFIX]}... ({len(s)} characters)"


def go_quote(s: str) -> str:
    """strconv.Quote (fmt's %q): printable characters as they are (Python's isprintable() is Go's
    unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space), the
    usual escapes, other control characters as \\xNN, other characters as \\uXXXX or \\UXXXXXXXX;
    a lone surrogate (invalid UTF-8 in Go) as U+FFFD."""
    if s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    out = ['"']
    for ch in s:
        esc = _GO_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch.isprintable():
            out.append(ch)
        else:
            c = ord(ch)
            if c < 0x20 or c == 0x7F:
                out.append(f"\\x{c:02x}")
            elif 0xD800 <= c <= 0xDFFF:
                out.append("\ufffd")  # Go's JSON decoder made it U+FFFD, which prints as itself
            elif c < 0x10000:
                out.append(f"\\u{c:04x}")
            else:
                out.append(f"\\U{c:08x}")
    out.append('"')
    return "".join(out)


def go_json_string(s: str) -> str:
    """encoding/json's text of a string: <, > and & escaped as \\u003c, \\u003e and \\u0026, as are
    U+2028 and U+2029; other characters beyond ASCII kept."""
    text = json.dumps(s, ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


# --- time.Duration ---------------------------------------------------------------------------------

_DURATION_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,
    "\u03bcs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_DURATION_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")


def _time_quote(s: str) -> str:
    """time's own quote (time/format.go) for its error messages: ASCII kept, '"' and '\\'
    escaped, control and non-ASCII characters written as the \\x escapes of their UTF-8 bytes."""
    out = ['"']
    for c in s:
        if c < " " or ord(c) >= 0x80:
            out.extend(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + c if c in ('"', "\\") else c)
    out.append('"')
    return "".join(out)


def _leading_fraction(digits: str) -> tuple[int, float]:
    """leadingFraction: the digits after the point and their scale; digits that would overflow
    are read and dropped."""
    x, scale = 0, 1.0
    for c in digits:
        if x > MAX_INT64 // 10:
            break
        y = x * 10 + ord(c) - 48
        if y > 1 << 63:
            break
        x = y
        scale *= 10
    return x, scale


def parse_go_duration(text: str) -> int:
    """time.ParseDuration, in nanoseconds; ValueError with Go's message."""
    quoted = _time_quote(text)
    s = text
    neg = False
    if s[:1] in ("-", "+"):
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError(f"time: invalid duration {quoted}")
    total = 0
    while s:
        m = _DURATION_PART.match(s)
        assert m is not None  # every group may be empty
        whole, frac, unit = m.group(1), m.group(2), m.group(3)
        if not whole and not frac:
            raise ValueError(f"time: invalid duration {quoted}")
        if not unit:
            raise ValueError(f"time: missing unit in duration {quoted}")
        scale = _DURATION_UNITS.get(unit)
        if scale is None:
            raise ValueError(f"time: unknown unit {_time_quote(unit)} in duration {quoted}")
        value = int(whole or "0") * scale
        if value > 1 << 63:
            raise ValueError(f"time: invalid duration {quoted}")
        f, fscale = _leading_fraction(frac or "")
        if f > 0:
            # Go adds the fraction in float64 ("to be nanosecond accurate for fractions of hours")
            value += int(float(f) * (float(scale) / fscale))
        total += value
        if total > 1 << 63:
            raise ValueError(f"time: invalid duration {quoted}")
        s = s[m.end() :]
    if total > MAX_INT64 and not neg:
        raise ValueError(f"time: invalid duration {quoted}")
    return -total if neg else total


def format_go_duration(ns: int) -> str:
    """time.Duration.String()."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)

    def frac(v: int, prec: int) -> str:
        whole, rest = divmod(v, 10**prec)
        digits = f"{rest:0{prec}d}".rstrip("0") if prec else ""
        return f"{whole}.{digits}" if digits else str(whole)

    if u < 1_000_000_000:
        if u < 1_000:
            return f"{sign}{u}ns"
        if u < 1_000_000:
            return f"{sign}{frac(u, 3)}\u00b5s"
        return f"{sign}{frac(u, 6)}ms"
    secs, rest = divmod(u, 1_000_000_000)
    digits = f"{rest:09d}".rstrip("0")
    out = f"{secs % 60}" + (f".{digits}" if digits else "") + "s"
    minutes = secs // 60
    if minutes:
        out = f"{minutes % 60}m{out}"
        if minutes // 60:
            out = f"{minutes // 60}h{out}"
    return sign + out


# --- hashing ---------------------------------------------------------------------------------------


def fnv32a(data: bytes) -> int:
    """hash/fnv's New32a over ``data``."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


# --- sort.Slice ------------------------------------------------------------------------------------

# The shifts of the xorshift that sort's breakPatterns draws its swaps from. Go 1.22, which
# kube-scheduler v1.30 is built with, uses 13, 17, 5 (sort.go; still so in go1.23, see
# golang/go#70144); later Go releases use the 64-bit triple 13, 7, 17. It only matters for a
# node with more than 12 potential victims whose partitions come out unbalanced.
XORSHIFT_GO122 = (13, 17, 5)
XORSHIFT_64 = (13, 7, 17)


def go_sort_slice(
    items: list[T], less: Callable[[T, T], bool], xorshift: tuple[int, int, int] = XORSHIFT_GO122
) -> None:
    """Sort in place exactly as Go's sort.Slice (pattern-defeating quicksort, Go 1.22) does.

    Upstream orders victims with an unstable sort and a comparison that is not a strict weak order
    for pods without a start time, so which of two equal pods comes first is decided by the
    algorithm itself, given the order of the input (a node's pods in cache order). Reproducing it
    step by step keeps kwhatif's victims identical to upstream's."""
    _GoSorter(items, less, xorshift).pdqsort(0, len(items), len(items).bit_length())


_UNKNOWN_HINT, _INCREASING_HINT, _DECREASING_HINT = 0, 1, 2


def xorshift_next(state: int, shifts: tuple[int, int, int] = XORSHIFT_GO122) -> int:
    """sort's xorshift.Next on a uint64: left, right, left."""
    a, b, c = shifts
    state ^= (state << a) & _MASK64
    state ^= state >> b
    state ^= (state << c) & _MASK64
    return state


class _GoSorter(Generic[T]):
    __slots__ = ("data", "_less", "swaps", "_xorshift")

    def __init__(self, data: list[T], less: Callable[[T, T], bool], xorshift: tuple[int, int, int]) -> None:
        self.data = data
        self._less = less
        self.swaps = 0  # choosePivot's swap counter
        self._xorshift = xorshift

    def less(self, i: int, j: int) -> bool:
        return self._less(self.data[i], self.data[j])

    def swap(self, i: int, j: int) -> None:
        d = self.data
        d[i], d[j] = d[j], d[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, hi = a, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(0, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= 12:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING_HINT:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING_HINT
            if was_balanced and was_partitioned and hint == _INCREASING_HINT:
                if self.partial_insertion_sort(a, b):
                    return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left_len, right_len = mid - a, b - mid
            threshold = length // 8
            if left_len < right_len:
                was_balanced = left_len >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right_len >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(5):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < 50:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                # Go's loop runs down to index 1, not to a+1.
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        random = length  # xorshift seeded with the length
        modulus = 1 << length.bit_length()
        start = a + (length // 4) * 2 - 1
        for idx in range(start, start + 3):
            random = xorshift_next(random, self._xorshift)
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        n = b - a
        self.swaps = 0
        i, j, k = a + n // 4, a + n // 4 * 2, a + n // 4 * 3
        if n >= 8:
            if n >= 50:
                i = self.median(i - 1, i, i + 1)
                j = self.median(j - 1, j, j + 1)
                k = self.median(k - 1, k, k + 1)
            j = self.median(i, j, k)
        if self.swaps == 0:
            return j, _INCREASING_HINT
        if self.swaps == 12:
            return j, _DECREASING_HINT
        return j, _UNKNOWN_HINT

    def order2(self, a: int, b: int) -> tuple[int, int]:
        if self.less(b, a):
            self.swaps += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int) -> int:
        a, b = self.order2(a, b)
        b, c = self.order2(b, c)
        a, b = self.order2(a, b)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1


def aggregate(messages: Iterable[str]) -> str:
    """utilerrors.NewAggregate(errs).Error(): duplicates dropped, one message as it is, several
    in brackets."""
    seen: list[str] = []
    for m in messages:
        if m not in seen:
            seen.append(m)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"
