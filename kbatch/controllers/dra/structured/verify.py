"""Whether allocation results already chosen still fit a node's devices (KEP-5690, "Holding capacity
for the preemptor"): when a node is filtered with the pods nominated to it and then without them,
upstream's DynamicResources checks that the allocation found in the first pass is valid in the
second too, rather than searching again (a second search could pick the very devices held for the
nominated preemptor).

:func:`results_fit` re-checks what the allocator checked when it picked the devices and what
another allocation may have taken since: a device allocated exclusively is free; a device that
allows multiple allocations is not held exclusively and has the capacity left for the shares;
the counters the newly used devices consume are left in their pools' counter sets (partitionable
devices). Selectors, taints and constraints do not depend on the other allocations and are not
checked again. :func:`counters_left` is the counter accounting the allocator shares.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from kbatch.controllers.dra.structured.pools import Pool
from kbatch.controllers.dra.structured.state import AllocatedState, DeviceID

__all__ = ["counters_left", "results_fit"]


def counters_left(pool: Pool, allocated: AllocatedState) -> dict[str, dict[str, Fraction]]:
    """The pool's counter sets minus what its allocated devices consume."""
    have = {name: dict(counters) for name, counters in pool.counter_sets.items()}
    for slice_ in (*pool.slices, *pool.other_slices):
        for device in slice_.spec.devices or ():
            if allocated.is_allocated(DeviceID(pool.driver, pool.name, device.name)):
                _consume(have, device, 1)
    return have


def _consume(have: dict[str, dict[str, Fraction]], device: Any, sign: int) -> None:
    for consumption in device.consumes_counters or ():
        counters = have.get(consumption.counter_set, {})
        for name, counter in (consumption.counters or {}).items():
            if name in counters:
                counters[name] -= sign * counter.value.as_fraction()


def _devices(pools: Sequence[Pool]) -> dict[DeviceID, tuple[Pool, Any]]:
    found: dict[DeviceID, tuple[Pool, Any]] = {}
    for pool in pools:
        for slice_ in pool.slices:
            for device in slice_.spec.devices or ():
                found.setdefault(DeviceID(pool.driver, pool.name, device.name), (pool, device))
    return found


def results_fit(results: Iterable[Any], pools: Sequence[Pool], allocated: AllocatedState) -> bool:
    """Whether the device results (of one or more claims' allocations) can be allocated on top of
    ``allocated`` from ``pools`` (the node's)."""
    devices = _devices(pools)
    exclusive: set[DeviceID] = set()
    shared: dict[DeviceID, dict[str, Fraction]] = {}
    counted: list[tuple[Pool, Any]] = []
    for result in results:
        if result.admin_access:
            continue  # holds nothing (upstream GatherAllocatedState skips admin access)
        device_id = DeviceID(result.driver, result.pool, result.device)
        found = devices.get(device_id)
        if found is None or device_id in exclusive or device_id in allocated.devices:
            return False
        if result.share_id is None:
            if allocated.is_allocated(device_id) or device_id in shared:
                return False
            exclusive.add(device_id)
            counted.append(found)
            continue
        if device_id not in shared and device_id not in allocated.capacity:
            counted.append(found)  # the first share of a device takes its counters
        consumed = shared.setdefault(device_id, {})
        for name, quantity in (result.consumed_capacity or {}).items():
            consumed[name] = consumed.get(name, Fraction(0)) + quantity.as_fraction()
    return _capacity_left(shared, devices, allocated) and _counters_left(counted, allocated)


def _capacity_left(shared: dict[DeviceID, dict[str, Fraction]], devices: dict[DeviceID, tuple[Pool, Any]],
                   allocated: AllocatedState) -> bool:
    for device_id, consumed in shared.items():
        capacity = devices[device_id][1].capacity or {}
        used = allocated.capacity.get(device_id, {})
        for name, quantity in consumed.items():
            have = capacity.get(name)
            if have is None or quantity + used.get(name, Fraction(0)) > have.value.as_fraction():
                return False
    return True


def _counters_left(counted: list[tuple[Pool, Any]], allocated: AllocatedState) -> bool:
    left: dict[str, dict[str, dict[str, Fraction]]] = {}
    for pool, device in counted:
        if not device.consumes_counters:
            continue
        have = left.get(pool.id)
        if have is None:
            have = left[pool.id] = counters_left(pool, allocated)
        _consume(have, device, 1)
    return all(value >= 0 for have in left.values() for counters in have.values()
               for value in counters.values())
