"""Admission fair sharing's arithmetic, as Kueue's Go computes it: decimal amounts, float usage.

Upstream: kubernetes-sigs/kueue ``pkg/util/admissionfairsharing/admission_fair_sharing.go``
(``calculateAlphaRate``, ``CalculateEntryPenalty``, ``CalculateUsage``, ``CalculateDecayedConsumed``)
and ``pkg/util/resource/resource.go`` (``MulByFloat``, ``MergeResourceListKeepSum``), v0.19.2.

Amounts are :class:`~decimal.Decimal` values that keep their exponent, as ``inf.Dec`` keeps its
scale: a sum has the finer of the two scales, ``MulByFloat`` multiplies exactly by the shortest
decimal spelling of the float (Go's ``FormatFloat(f, 'f', -1, 64)``; Python's ``repr`` is the same
shortest round-trip digits) and rounds *toward zero* to 9 decimal places, so a value scaled again
and again by a factor below 1 decays to zero rather than sticking. An amount read from the cache is
a quantity as Kueue's resource formatter makes it (cpu in milli-units, scale 3; the rest whole).

Usage is a float as ``Quantity.AsApproximateFloat64`` gives it: the unscaled integer as a float,
times ``math.Pow10(exponent)`` (Go's table-driven ``Pow10``, reproduced in :func:`pow10`), weighted
and summed in resource-name order, divided by the LocalQueue's weight (``+Inf`` for a weight ≤ 0).

The one place kbatch's floats may differ from Go's: the decay factor ``1 - 0.5**(elapsed /
halfLife)``. Go's ``math.Pow`` is not correctly rounded for a fractional exponent; Python's ``**``
(the C library's ``pow``) is. Integral and half exponents agree exactly; otherwise the factor may
differ in its last bit, which changes a decayed amount by at most one nano-unit (docs/kueue.md).
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Mapping
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

from kbatch.api.quantity import Quantity

__all__ = [
    "Amounts",
    "alpha_rate",
    "approximate_float",
    "cache_amounts",
    "decayed_consumed",
    "duration_seconds",
    "entry_penalty",
    "from_quantity",
    "merge_sum",
    "mul_by_float",
    "pow10",
    "to_quantity",
    "usage",
]

Amounts = dict[str, Decimal]
"""A ``corev1.ResourceList`` as admission fair sharing computes with it."""

_SCALE = Decimal(1).scaleb(-9)  # mulByFloatScale: nano-units
# exact products: amounts have at most ~30 digits, the factor at most 17 significant ones
_EXACT = decimal.Context(prec=200, rounding=decimal.ROUND_DOWN, Emin=-999999, Emax=999999)

# Go's math.Pow10 tables (src/math/pow10.go): each entry the float nearest the decimal constant
_POW10 = [float(f"1e{i}") for i in range(32)]
_POW10_POS32 = [float(f"1e{32 * i}") for i in range(10)]
_POW10_NEG32 = [float(f"1e-{32 * i}") for i in range(11)]


def pow10(n: int) -> float:
    """Go's ``math.Pow10``: two table entries multiplied (or divided, for ``n < 0``)."""
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10[n % 32]
    if -323 <= n <= 0:
        return _POW10_NEG32[-n // 32] / _POW10[-n % 32]
    return float("inf") if n > 0 else 0.0


def approximate_float(amount: Decimal) -> float:
    """``Quantity.AsApproximateFloat64`` of an amount with this exponent."""
    sign, digits, exponent = amount.as_tuple()
    assert isinstance(exponent, int)
    mantissa = int("".join(map(str, digits)) or "0")
    base = float(-mantissa if sign else mantissa)
    return base if exponent == 0 else base * pow10(exponent)


def alpha_rate(sampling: float, half_life: float) -> float:
    """``calculateAlphaRate``: the weight of a new sample after ``sampling`` seconds; 0 without
    a half-life."""
    if half_life == 0:
        return 0.0
    return 1.0 - 0.5 ** (sampling / half_life)


def mul_by_float(amounts: Mapping[str, Decimal], factor: float) -> Amounts:
    """``MulByFloat``: exact decimal product, rounded toward zero to nano-units."""
    f = Decimal(repr(factor))
    if not f.is_finite():
        raise ValueError(f"MulByFloat called with a non-finite factor: {factor}")
    return {k: _EXACT.multiply(v, f).quantize(_SCALE, rounding=decimal.ROUND_DOWN, context=_EXACT)
            for k, v in amounts.items()}


def merge_sum(a: Mapping[str, Decimal], b: Mapping[str, Decimal]) -> Amounts:
    """``MergeResourceListKeepSum``: every resource of either, summed where both have it."""
    out = dict(a)
    for k, v in b.items():
        out[k] = _EXACT.add(out[k], v) if k in out else v
    return out


def decayed_consumed(old: Mapping[str, Decimal], new: Mapping[str, Decimal], elapsed: float,
                     half_life: float) -> Amounts:
    """``CalculateDecayedConsumed``: ``old*(1-alpha) + new*alpha``, ``alpha`` the
    :func:`alpha_rate` of ``elapsed``."""
    alpha = alpha_rate(elapsed, half_life)
    return merge_sum(mul_by_float(old, 1 - alpha), mul_by_float(new, alpha))


def entry_penalty(total_requests: Mapping[str, Decimal], sampling: float, half_life: float) -> Amounts:
    """``CalculateEntryPenalty``: what one sampling interval of the admitted requests adds."""
    return mul_by_float(total_requests, alpha_rate(sampling, half_life))


def usage(consumed: Mapping[str, Decimal], penalty: Mapping[str, Decimal], lq_weight: float,
          resource_weights: Mapping[str, float]) -> float:
    """``CalculateUsage``: the weighted consumed resources plus pending penalties, over the
    LocalQueue's weight (``+Inf`` when it is not positive, so the queue sorts last, never NaN)."""
    everything = merge_sum(consumed, penalty)
    total = 0.0
    for name in sorted(everything):
        total += resource_weights.get(name, 1.0) * approximate_float(everything[name])
    if lq_weight <= 0:
        return float("inf")
    return total / lq_weight


def duration_seconds(delta: timedelta) -> float:
    """Go's ``Duration.Seconds`` of a (nanosecond) duration: whole seconds plus the rest / 1e9."""
    ns = (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    sec, rest = int(ns / 10**9), ns - int(ns / 10**9) * 10**9  # Go's division truncates
    return float(sec) + float(rest) / 1e9


def cache_amounts(totals: Iterable[tuple[str, int]]) -> Amounts:
    """Kueue counts (``resources.Amount``: cpu in milli-units, the rest whole) as the quantities
    its ``ResourceFormatter`` makes: ``NewMilliQuantity`` for cpu, ``NewQuantity`` otherwise."""
    out: Amounts = {}
    for name, value in totals:
        out[name] = Decimal(value).scaleb(-3) if name == "cpu" else Decimal(value)
    return out


def from_quantity(q: Quantity) -> Decimal:
    """A parsed quantity (from a LocalQueue's status) as an amount."""
    f: Fraction = q.as_fraction()
    places = len(str(f.denominator)) - 1
    if 10**places != f.denominator:  # not a decimal fraction: cannot come from a parsed quantity
        return _EXACT.divide(Decimal(f.numerator), Decimal(f.denominator)).quantize(_SCALE)
    return Decimal(f.numerator * 10**places // f.denominator).scaleb(-places)


def to_quantity(amount: Decimal) -> Quantity:
    """The amount as ``resource.NewDecimalQuantity`` (DecimalSI) writes it."""
    sign, digits, exponent = amount.as_tuple()
    assert isinstance(exponent, int)
    mantissa = int("".join(map(str, digits)) or "0")
    return Quantity.scaled(-mantissa if sign else mantissa, exponent)
