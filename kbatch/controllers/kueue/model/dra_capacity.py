"""Capacity-based quota for devices shared by several claims (``KueueDRAIntegrationConsumableCapacity``,
alpha, off; KEP-5075 consumable capacity): a template request of a DeviceClass whose mapping has
capacity sources charges the class's mapped resource with the capacity it asks of a device.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/dra/capacity.go`` (``DetermineCapacityResourcesForWorkload``,
``processCapacityCharge``, ``computeCapacityCharge``, ``chargeForDevice``, ``roundToPolicy``,
``roundToValidValues``, ``roundToValidRange``) and ``pkg/controller/core/workload_controller.go``
(``handleDRAConsumableCapacity``, the last pass).

For each ``exactly`` request of such a class, and each capacity source: the matched devices as for
counters (fewer than ``count``: an internal error, retried). Per matched device that has the
source's capacity dimension, the base is the request's ``capacity.requests[<dimension>]``, else the
device's ``requestPolicy.default``, else the device's whole capacity; it is rounded by the device's
policy — up to the smallest of ``validValues`` not below it, else raised to ``validRange.min``,
aligned up to ``min + n*step`` and refused above ``max`` — and a device whose policy refuses it is
skipped. The charge is the largest rounded base, times ``count`` (saturating at int64). No matched
device with the dimension is an internal error; every such device refusing is ``Invalid`` (not
retried: the request cannot fit any device).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.kueue_config_dra import DeviceSource
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.api.resource_v1.device import (
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    Device,
    DeviceCapacity,
)
from kbatch.controllers.kueue.model.dra import TemplateLookup
from kbatch.controllers.kueue.model.dra_sources import (
    ClassLookup,
    PodSetCharges,
    Selectors,
    SliceLookup,
    SourceConfigs,
    SourcedRequest,
    charge_value,
    enough_devices,
    pod_set_charges,
    safe_value,
)

__all__ = ["capacity_charge", "capacity_requests", "round_to_valid_range", "round_to_valid_values"]


def round_to_valid_values(base: Quantity, valid: Sequence[Quantity]) -> Quantity | None:
    """``roundToValidValues``: the first (smallest: the API keeps them sorted) value not below
    ``base``; ``None`` when ``base`` exceeds them all."""
    return next((v for v in valid if v.cmp(base) >= 0), None)


def round_to_valid_range(base: Quantity, r: CapacityRequestPolicyRange) -> Quantity | None:
    """``roundToValidRange``: raised to ``min``, aligned up to ``min + n*step`` (only with a
    ``min``), ``None`` above ``max``."""
    value = safe_value(base)
    if r.min is not None:
        low = safe_value(r.min)
        value = max(value, low)
        step = safe_value(r.step) if r.step is not None else 0
        if step > 0 and (value - low) % step:
            value = low + ((value - low) // step + 1) * step
    if r.max is not None and value > safe_value(r.max):
        return None
    return Quantity.scaled(value, 0, base.format)


def _round(base: Quantity, policy: CapacityRequestPolicy | None) -> Quantity | None:
    if policy is None:
        return base
    if policy.valid_values:
        return round_to_valid_values(base, policy.valid_values)
    if policy.valid_range is not None:
        return round_to_valid_range(base, policy.valid_range)
    return base


def _device_charge(cap: DeviceCapacity, explicit: Quantity | None) -> Quantity | None:
    """``chargeForDevice``: the base charge rounded by the device's policy, or ``None``."""
    policy = cap.request_policy
    if explicit is not None:
        base = explicit
    elif policy is not None and policy.default is not None:
        base = policy.default
    else:
        base = cap.value
    return _round(base, policy)


def capacity_charge(
    dimension: str, matched: Sequence[Device], count: int, explicit: Quantity | None, path: str
) -> tuple[int, list[FieldError]]:
    """``computeCapacityCharge``: the largest rounded charge over the devices with ``dimension``."""
    largest: Quantity | None = None
    has_dimension = False
    for dev in matched:
        cap = (dev.capacity or {}).get(dimension)
        if cap is None:
            continue
        has_dimension = True
        rounded = _device_charge(cap, explicit)
        if rounded is not None and (largest is None or rounded.cmp(largest) > 0):
            largest = rounded
    if not has_dimension:
        detail = f'matched devices have no capacity dimension "{dimension}"'
        return 0, [FieldError(FieldErrorType.INTERNAL, path, detail)]
    if largest is None:
        detail = (
            "capacity request cannot be satisfied by any matched device's RequestPolicy "
            f'for dimension "{dimension}"'
        )
        return 0, [FieldError.invalid(path, None, detail)]
    return charge_value(largest, count), []


def _charge(
    source: DeviceSource, req: SourcedRequest, selectors: Selectors, slices: SliceLookup
) -> tuple[int, list[FieldError]]:
    """``processCapacityCharge`` for one source."""
    matched, errs = enough_devices(source, req, selectors, slices, "capacity")
    if errs:
        return 0, errs
    wanted = req.exactly.capacity.requests if req.exactly.capacity is not None else None
    explicit = (wanted or {}).get(source.name)
    return capacity_charge(source.name, matched, req.count, explicit, req.path)


def capacity_requests(
    wl: Workload,
    templates: TemplateLookup,
    configs: SourceConfigs,
    mapping: dict[str, str],
    classes: ClassLookup,
    slices: SliceLookup,
) -> PodSetCharges:
    """``DetermineCapacityResourcesForWorkload``: per pod set, the capacity charges of its
    templates, to the DeviceClass's mapped resource (``mapping``, the first mapping naming it)."""

    def charge(req: SourcedRequest, selectors: Selectors) -> Iterator[tuple[str, int, list[FieldError]]]:
        dc = req.exactly.device_class_name
        for source in configs.capacity[dc]:
            yield (mapping[dc], *_charge(source, req, selectors, slices))

    return pod_set_charges(
        wl, templates, classes, lambda dc: bool(configs.capacity.get(dc)) and dc in mapping, charge
    )
