"""Consumable capacity (KEP-5075, DRAConsumableCapacity, beta in 1.37): how much of a device's
capacity a request consumes and whether it still fits.

Upstream: ``structured/internal/incubating/consumable_capacity.go``.

* A request names amounts per capacity (``capacity.requests``); a capacity the device does not have
  makes the device unsuitable. A capacity the request leaves out consumes the policy's ``default``,
  else the whole capacity.
* With a ``requestPolicy``, an amount is rounded up: to ``validRange.min``, then to the next
  ``min + k·step``; or to the smallest of ``validValues`` that is at least as large. A rounded amount
  that still violates the policy (above ``max``, off the step grid, not a valid value — unless it is
  the default) does not fit.
* The amount plus what allocated claims and the allocation in progress consume must not exceed the
  capacity's value.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from kbatch.api.quantity import Format, Quantity

__all__ = ["consumed_from_request", "fits"]


def _round_up(requested: Quantity, capacity: Any) -> Quantity:
    policy = capacity.request_policy
    if policy is None:
        return requested
    rng = policy.valid_range
    if rng is not None and rng.min is not None:
        if requested.cmp(rng.min) < 0:
            return rng.min
        if rng.step is None:
            return requested
        low, step = rng.min.value(), rng.step.value()
        added = requested.value() - low
        steps = added // step + (1 if added % step else 0)
        return Quantity.scaled(low + step * steps, 0, Format.BINARY_SI)
    if policy.valid_values:
        for option in policy.valid_values:
            if requested.cmp(option) <= 0:
                return option
    return requested


def _consumed(requested: Quantity | None, capacity: Any) -> Quantity:
    if requested is None:
        policy = capacity.request_policy
        if policy is not None and policy.default is not None:
            return policy.default
        return capacity.value
    return _round_up(requested, capacity)


def _violates(amount: Quantity, policy: Any) -> bool:
    if policy is None or (policy.default is not None and amount == policy.default):
        return False
    rng = policy.valid_range
    if rng is not None:
        if rng.max is not None and amount.cmp(rng.max) > 0:
            return True
        if rng.step is not None and rng.min is not None:
            return (amount.value() - rng.min.value()) % rng.step.value() != 0
        return False
    if policy.valid_values:
        return not any(amount.cmp(v) == 0 for v in policy.valid_values)
    return False


def consumed_from_request(
    requests: Mapping[str, Quantity] | None, capacities: Mapping[str, Any]
) -> dict[str, Quantity]:
    """Upstream ``GetConsumedCapacityFromRequest``: what one allocation consumes, per capacity."""
    requests = requests or {}
    return {name: _consumed(requests.get(name), capacities[name]) for name in sorted(capacities)}


def fits(
    requests: Mapping[str, Quantity] | None,
    capacities: Mapping[str, Any] | None,
    allocated: Mapping[str, Fraction] | None,
    allocating: Mapping[str, Fraction] | None,
) -> bool:
    """Upstream ``CmpRequestOverCapacity``: whether one more allocation fits the device."""
    requests, capacities = requests or {}, capacities or {}
    if not requests and not allocated and not allocating and all(
        c.request_policy is None for c in capacities.values()
    ):
        return True  # each capacity is consumed whole, and nothing else consumes it: fits
    if any(name not in capacities for name in requests):
        return False
    for name in sorted(capacities):
        capacity = capacities[name]
        amount = _consumed(requests.get(name), capacity)
        if _violates(amount, capacity.request_policy):
            return False
        total = (
            amount.as_fraction()
            + (allocated or {}).get(name, Fraction(0))
            + (allocating or {}).get(name, Fraction(0))
        )
        if total > capacity.value.as_fraction():
            return False
    return True
