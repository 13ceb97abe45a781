"""``resource.Quantity``: exact fixed-point amounts with Kubernetes suffixes.

Semantics follow k8s.io/apimachinery ``pkg/api/resource`` (``quantity.go``, ``suffix.go``,
``quantity_test.go``); the code is our own. A quantity is ``<sign><digits>[.<digits>]<suffix>`` where
the suffix is a decimal SI one (``n u m "" k M G T P E``), a binary one (``Ki Mi Gi Ti Pi Ei``) or a
decimal exponent (``e3``, ``E-6``). The suffix kind sets the *format* used when printing.

Values are held exactly as ``mantissa * 10**exponent`` (Python ints, never floats):

- parsing rounds a non-zero value *away from zero* to the nearest nano (``0.1n`` -> ``1n``);
- binary values are capped at ``2**63 - 1``; a binary value below 1 switches to decimal SI;
- printing uses the canonical form: no fractional digits, the largest suffix that keeps the value
  exact, the exponent a multiple of 3 (``1000m`` -> ``1``, ``0.5`` -> ``500m``, ``1.5Gi`` -> ``1536Mi``,
  ``2e3`` -> ``2e3``); binary values between -1024 and 1024, or not whole, print as decimal SI;
  values past the largest suffix (``E``, ``Ei``) fall back to exponent notation.

Round trip: like upstream, a parsed string that its fast-path check deems canonical is kept
verbatim and printed back unchanged; that check does not notice a leading ``+``, leading zeros or
trailing fractional zeros, so ``+1``, ``01`` and ``1.500`` print back as written (upstream does the
same). Everything else prints in canonical form; arithmetic always yields canonical form.

Deliberate difference: a value of ``1e1024`` or more is rejected (upstream accepts exponents up to
2**31-1); such numbers serve no resource and would make exact arithmetic unboundedly slow.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum
from fractions import Fraction
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

__all__ = ["Format", "Quantity", "QuantityError", "parse_quantity"]


class Format(StrEnum):
    """How a quantity prints (upstream ``resource.Format``)."""

    DECIMAL_EXPONENT = "DecimalExponent"  # 12e6
    BINARY_SI = "BinarySI"  # 12Mi
    DECIMAL_SI = "DecimalSI"  # 12M


class QuantityError(ValueError):
    """A string that is not a quantity; messages are upstream's ``ErrFormatWrong`` etc."""


ERR_FORMAT = ("quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"
ERR_TOO_LARGE = "quantity is too large (kbatch accepts values below 1e1024)"

_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DEC_BY_EXP = {v: k for k, v in _DEC_SUFFIXES.items()}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_BIN_BY_POWER = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_EXPONENT = re.compile(r"[+-]?[0-9]+")
_MAX_INT32 = 2**31 - 1
_MAX_INT64 = 2**63 - 1
_MAX_EXPONENT = 1024
_NANO = -9


def _split(text: str) -> tuple[bool, str, str, str, bool]:
    """Split into (positive, numerator, denominator, suffix, had_digits) as ``parseQuantityString``.

    The numerator has its leading zeros removed ("0" when nothing is left).
    """
    end = len(text)
    pos = 0
    positive = True
    if end and text[0] in "+-":
        positive = text[0] == "+"
        pos = 1
    first_digit = pos
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", "", pos > first_digit
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    had_digits = pos > first_digit
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        had_digits = had_digits or bool(denom)
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT)
    return positive, num, denom, text[suffix_start:], had_digits


def _interpret(suffix: str) -> tuple[int, int, Format]:
    """(base, exponent, format) for a suffix, as upstream ``suffixHandler.interpret``."""
    if suffix in _DEC_SUFFIXES:
        return 10, _DEC_SUFFIXES[suffix], Format.DECIMAL_SI
    if suffix in _BIN_SUFFIXES:
        return 2, _BIN_SUFFIXES[suffix], Format.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE" and _EXPONENT.fullmatch(suffix[1:]):
        exponent = int(suffix[1:])
        if -_MAX_INT32 <= exponent <= _MAX_INT32:
            return 10, exponent, Format.DECIMAL_EXPONENT
    raise QuantityError(ERR_SUFFIX)


def _fast_path_canonical(fmt: Format, exponent: int, num: str, denom: str) -> bool:
    """Whether upstream's int64 fast path would keep the input string as the printed form."""
    digits = num + denom
    if fmt is Format.BINARY_SI:
        if denom or 15 - len(num) - int(exponent * 3 / 10) - 1 < 0:
            return False
        value = int(num)
        return value << exponent <= _MAX_INT64 and value & 7 != 0
    if 18 - len(digits) < 0:
        return False
    scale = exponent - len(denom)
    return scale >= _NANO and scale % 3 == 0 and not digits.endswith("000") and digits[0] != "0"


def _round_up_to_nano(m: int, e: int) -> tuple[int, int]:
    """Round ``m * 10**e`` away from zero to a multiple of 10**-9."""
    if m == 0 or e >= _NANO:
        return m, e
    shift = _NANO - e
    magnitude = abs(m)
    if shift > len(str(magnitude)):
        q, r = 0, 1
    else:
        q, r = divmod(magnitude, 10**shift)
    q += 1 if r else 0
    return (q if m > 0 else -q), _NANO


def _normalize(m: int, e: int) -> tuple[int, int]:
    if m == 0:
        return 0, 0
    while m % 10 == 0:
        m //= 10
        e += 1
    return m, e


@functools.lru_cache(maxsize=4096)
def parse_quantity(text: str) -> Quantity:
    """Parse like upstream ``ParseQuantity`` (no surrounding whitespace allowed).

    Results are memoised (a bounded, process-wide cache of immutable values: manifests repeat the
    same few quantities, and parsing is on the hot path of every pod decode).
    """
    if not text:
        raise QuantityError(ERR_FORMAT)
    if text == "0":
        return Quantity._make(0, 0, Format.DECIMAL_SI, "0")
    positive, num, denom, suffix, had_digits = _split(text)
    base, exponent, fmt = _interpret(suffix)
    keep = text if _fast_path_canonical(fmt, exponent, num, denom) else None
    mantissa = int(num + denom)
    if base == 10:
        m, e = mantissa, exponent - len(denom)
        if e < _NANO and not had_digits:
            raise QuantityError(ERR_NUMERIC)
    else:
        m, e = mantissa << exponent, -len(denom)
    m, e = _round_up_to_nano(m, e)
    m, e = _normalize(m, e)
    if m and len(str(m)) + e > _MAX_EXPONENT:
        raise QuantityError(ERR_TOO_LARGE)
    if fmt is Format.BINARY_SI:
        if (m * 10**e if e >= 0 else m // 10**-e) >= _MAX_INT64 and m * 10**e != _MAX_INT64:
            m, e = _normalize(_MAX_INT64, 0)  # upstream caps binary values at maxAllowed
        if m and e < 0 and abs(m) < 10**-e:
            fmt = Format.DECIMAL_SI  # 0 < |value| < 1: binary would only confuse
    return Quantity._make(m if positive else -m, e, fmt, keep)


def _canonical(m: int, e: int, fmt: Format) -> str:
    """Upstream ``CanonicalizeBytes``: exact, no fraction digits, largest suffix."""
    if m == 0:
        return "0"
    sign = "-" if m < 0 else ""
    magnitude = abs(m)
    if fmt is Format.BINARY_SI:
        if e < 4 and (magnitude * 10**e < 1024 if e >= 0 else magnitude < 1024 * 10**-e):
            fmt = Format.DECIMAL_SI
        elif e < 0:
            fmt = Format.DECIMAL_SI  # not whole: binary would round
        else:
            value = magnitude * 10**e
            power = 0
            while value % 1024 == 0:
                value //= 1024
                power += 1
            if power < len(_BIN_BY_POWER):
                return f"{sign}{value}{_BIN_BY_POWER[power]}"
            fmt = Format.DECIMAL_EXPONENT  # past Ei: no binary suffix
    while e % 3:
        magnitude *= 10
        e -= 1
    exponent_suffix = f"e{e}" if e else ""
    suffix = _DEC_BY_EXP[e] if fmt is Format.DECIMAL_SI and e in _DEC_BY_EXP else exponent_suffix
    return f"{sign}{magnitude}{suffix}"


def _align(a: Quantity, b: Quantity) -> tuple[int, int, int]:
    e = min(a._e, b._e)
    return a._m * 10 ** (a._e - e), b._m * 10 ** (b._e - e), e


def _scaled(m: int, e: int, scale: int) -> int:
    """``ceil`` away from zero of ``m * 10**e / 10**scale`` (upstream ``ScaledValue``)."""
    shift = e - scale
    if shift >= 0:
        return m * 10**shift
    q, r = divmod(abs(m), 10**-shift)
    q += 1 if r else 0
    return q if m >= 0 else -q


@functools.total_ordering
class Quantity:
    """An immutable exact quantity; ``==``, ordering and ``hash`` use the value, not the format."""

    __slots__ = ("_e", "_fmt", "_m", "_s")

    _m: int
    _e: int
    _fmt: Format
    _s: str | None

    def __init__(self, value: str | int | Quantity = 0) -> None:
        q = value if isinstance(value, Quantity) else Quantity.parse(value)
        self._m, self._e, self._fmt, self._s = q._m, q._e, q._fmt, q._s

    @classmethod
    def _make(cls, m: int, e: int, fmt: Format, s: str | None = None) -> Quantity:
        q = object.__new__(cls)
        q._m, q._e, q._fmt, q._s = m, e, fmt, s
        return q

    # construction ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, value: str | int) -> Quantity:
        """Parse a string (``"500m"``) or an int (``2`` -> ``"2"``)."""
        if isinstance(value, bool):
            raise QuantityError(ERR_FORMAT)
        if isinstance(value, int):
            return parse_quantity(str(value))
        if isinstance(value, str):
            return parse_quantity(value)
        raise QuantityError(f"expected a quantity string or integer, got {type(value).__name__}")

    @classmethod
    def scaled(cls, value: int, scale: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """``value * 10**scale`` (upstream ``NewScaledQuantity``; ``NewQuantity`` is scale 0)."""
        m, e = _normalize(value, scale)
        return cls._make(m, e, fmt)

    @classmethod
    def milli(cls, value: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """``value / 1000`` (upstream ``NewMilliQuantity``)."""
        return cls.scaled(value, -3, fmt)

    # inspection -----------------------------------------------------------------------------
    @property
    def format(self) -> Format:
        return self._fmt

    def is_zero(self) -> bool:
        return self._m == 0

    def sign(self) -> int:
        return (self._m > 0) - (self._m < 0)

    def value(self) -> int:
        """Whole units, rounded away from zero (upstream ``Value()``)."""
        return _scaled(self._m, self._e, 0)

    def milli_value(self) -> int:
        """Thousandths, rounded away from zero (upstream ``MilliValue()``)."""
        return _scaled(self._m, self._e, -3)

    def scaled_value(self, scale: int) -> int:
        """``ceil(q / 10**scale)`` away from zero (upstream ``ScaledValue``)."""
        return _scaled(self._m, self._e, scale)

    def as_fraction(self) -> Fraction:
        return Fraction(self._m) * Fraction(10) ** self._e

    # arithmetic (new values; the format is the left operand's unless it is zero) -------------
    def add(self, other: Quantity) -> Quantity:
        a, b, e = _align(self, other)
        m, e = _normalize(a + b, e)
        return Quantity._make(m, e, other._fmt if self._m == 0 else self._fmt)

    def sub(self, other: Quantity) -> Quantity:
        return self.add(other.neg())

    def neg(self) -> Quantity:
        return Quantity._make(-self._m, self._e, self._fmt)

    def mul(self, factor: int) -> Quantity:
        m, e = _normalize(self._m * factor, self._e)
        return Quantity._make(m, e, self._fmt)

    def cmp(self, other: Quantity) -> int:
        """-1, 0 or 1, as upstream ``Cmp``."""
        if self._e == other._e:
            a, b = self._m, other._m
            return (a > b) - (a < b)
        sa, sb = self.sign(), other.sign()
        if sa != sb or sa == 0:
            return (sa > sb) - (sa < sb)
        mag_a = len(str(abs(self._m))) + self._e
        mag_b = len(str(abs(other._m))) + other._e
        if mag_a != mag_b:
            return sa if mag_a > mag_b else -sa
        a, b, _ = _align(self, other)
        return (a > b) - (a < b)

    __add__ = add
    __sub__ = sub
    __neg__ = neg

    def __mul__(self, factor: int) -> Quantity:
        return self.mul(factor)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._m == other._m and self._e == other._e
        if isinstance(other, (str, int)) and not isinstance(other, bool):
            try:
                return self == Quantity.parse(other)
            except QuantityError:
                return False
        return NotImplemented

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) < 0

    def __hash__(self) -> int:
        return hash((self._m, self._e))

    def __bool__(self) -> bool:
        return self._m != 0

    # printing -------------------------------------------------------------------------------
    def canonical(self) -> str:
        """The canonical form, even when the parsed string was kept verbatim."""
        return _canonical(self._m, self._e, self._fmt)

    def __str__(self) -> str:
        if self._s is None:
            self._s = _canonical(self._m, self._e, self._fmt)
        return self._s

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __copy__(self) -> Quantity:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Quantity:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Quantity.parse, (str(self),))

    # pydantic -------------------------------------------------------------------------------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return core_schema.no_info_plain_validator_function(
            _validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                str, return_schema=core_schema.str_schema()),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}


def _validate(value: Any) -> Quantity:
    """Decode as upstream ``UnmarshalJSON``: strings (surrounding space trimmed) or JSON numbers."""
    if isinstance(value, Quantity):
        return value
    if isinstance(value, str):
        return parse_quantity(value.strip())
    if isinstance(value, float) and not isinstance(value, bool):
        if value != value or value in (float("inf"), float("-inf")):
            raise QuantityError(ERR_FORMAT)
        return parse_quantity(repr(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return parse_quantity(str(value))
    raise QuantityError(f"expected a quantity string or number, got {type(value).__name__}")
