"""Counter-based quota for partitionable devices (``KueueDRAIntegrationPartitionableDevices``, beta,
on): a template request of a DeviceClass whose mapping has counter sources charges the mapping's
resource with a counter the matched devices consume, instead of counting devices.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/dra/counters.go`` (``GetCounterResourcesForWorkload``,
``processCounterCharge``, ``computeCounterCharges``) and ``pkg/controller/core/workload_controller.go``
(the counter pass, after the templates' and the extended resources'; skipped when the ResourceSlice
API is not served, which kbatch always serves).

For each ``exactly`` request of a class with counter sources, and each source: the devices of the
source's driver that the source's, the class's and the request's selectors all accept
(:func:`~.dra_sources.source_devices`); fewer than the request's ``count`` is an internal error (the
Workload is retried with back-off until slices provide them). The charge is the largest value of
the source's counter among the matched devices' ``consumesCounters`` (any counter set) — a request
whose selector matches several profiles is charged the largest — times ``count``: a driver's negative
value charges 0, values saturate at int64. Matched devices consuming no such counter are an internal
error too. Per pod set, per resource, the charges add up (per pod; the pod count multiplies them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.kueue_config_dra import DeviceSource
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.api.resource_v1.device import Device
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
)

__all__ = ["counter_charge", "counter_requests"]


def counter_charge(counter: str, matched: Sequence[Device], count: int) -> int | None:
    """``computeCounterCharges``: the largest ``counter`` any matched device consumes, times
    ``count``; ``None`` when none consumes it."""
    largest: Quantity | None = None
    for dev in matched:
        for consumption in dev.consumes_counters or ():
            c = (consumption.counters or {}).get(counter)
            if c is not None and (largest is None or c.value.cmp(largest) > 0):
                largest = c.value
    return None if largest is None else charge_value(largest, count)


def _charge(
    source: DeviceSource, req: SourcedRequest, selectors: Selectors, slices: SliceLookup
) -> tuple[int, list[FieldError]]:
    """``processCounterCharge`` for one source."""
    matched, errs = enough_devices(source, req, selectors, slices, "counter")
    if errs:
        return 0, errs
    charge = counter_charge(source.name, matched, req.count)
    if charge is None:
        detail = f'matched devices have no consumesCounters entry for counter "{source.name}"'
        return 0, [FieldError(FieldErrorType.INTERNAL, req.path, detail)]
    return charge, []


def counter_requests(
    wl: Workload, templates: TemplateLookup, configs: SourceConfigs, classes: ClassLookup, slices: SliceLookup
) -> PodSetCharges:
    """``GetCounterResourcesForWorkload``: per pod set, the counter charges of its templates, each
    to its source's mapping's resource."""

    def charge(req: SourcedRequest, selectors: Selectors) -> Iterator[tuple[str, int, list[FieldError]]]:
        for resource, source in configs.counters[req.exactly.device_class_name]:
            yield (resource, *_charge(source, req, selectors, slices))

    return pod_set_charges(wl, templates, classes, lambda dc: bool(configs.counters.get(dc)), charge)
