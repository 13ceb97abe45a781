"""Value types of the structured allocator: device identity, allocated state, features.

Upstream: ``k8s.io/dynamic-resource-allocation/structured/schedulerapi/types.go`` (``DeviceID``,
``SharedDeviceID``, ``AllocatedState``, ``ConsumedCapacity``) and ``internal/types.go``
(``Features``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

__all__ = ["AllocatedState", "DeviceID", "Features", "claim_devices"]


class DeviceID(NamedTuple):
    """``<driver>/<pool>/<device>``: a device's identity across the cluster."""

    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(frozen=True, slots=True)
class Features:
    """The allocator's optional behaviours (upstream ``structured.Features``), from feature gates.
    Admin access, prioritized lists and device taints are GA in 1.37 and always on."""

    partitionable_devices: bool = True
    consumable_capacity: bool = True
    binding_conditions: bool = True


@dataclass(slots=True)
class AllocatedState:
    """What allocated claims hold (upstream ``AllocatedState``): devices allocated exclusively, and
    for devices that allow multiple allocations, each share (``shareID``) and the capacity consumed
    in total. Counts, not sets, so that removing one claim's devices is exact even when two
    claims' results overlap (admin access)."""

    devices: dict[DeviceID, int] = field(default_factory=dict)
    shares: dict[tuple[DeviceID, str], int] = field(default_factory=dict)
    capacity: dict[DeviceID, dict[str, Fraction]] = field(default_factory=dict)

    def is_allocated(self, device: DeviceID) -> bool:
        """Upstream ``IsDeviceAllocated``: exclusively, or consumed in part."""
        return device in self.devices or device in self.capacity

    def add(self, results: Iterable[Any], sign: int = 1) -> None:
        """Account (``sign`` 1) or release (-1) the results of one claim's allocation.
        Admin-access results hold nothing (upstream ``GatherAllocatedState`` skips them)."""
        for result in results:
            if result.admin_access:
                continue
            device = DeviceID(result.driver, result.pool, result.device)
            if result.share_id is None:
                _bump(self.devices, device, sign)
                continue
            _bump(self.shares, (device, result.share_id), sign)
            consumed = self.capacity.setdefault(device, {})
            for name, quantity in (result.consumed_capacity or {}).items():
                consumed[name] = consumed.get(name, Fraction(0)) + sign * quantity.as_fraction()
            if not any(key[0] == device for key in self.shares):
                self.capacity.pop(device, None)

    def copy(self) -> AllocatedState:
        return AllocatedState(
            dict(self.devices), dict(self.shares), {k: dict(v) for k, v in self.capacity.items()}
        )


def _bump(counts: dict[Any, int], key: Any, sign: int) -> None:
    value = counts.get(key, 0) + sign
    if value > 0:
        counts[key] = value
    else:
        counts.pop(key, None)


def claim_devices(claim: Any) -> list[Any]:
    """The allocation results of ``claim`` (empty when it is not allocated)."""
    status = claim.status
    if status is None or status.allocation is None or status.allocation.devices is None:
        return []
    return list(status.allocation.devices.results or ())
