"""The devices a counter or capacity source of ``deviceClassMappings`` charges for: per DeviceClass
the sources' configs, the source driver's complete pools, and the devices of them that a template
request would get.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/dra/mapper.go`` (``deviceClassCounterConfig``,
``deviceClassCapacityConfig``, ``PopulateFromConfiguration``: every mapping naming a DeviceClass adds
its sources to the class — a counter charges its own mapping's resource, a capacity the class's
first mapping's — ``CounterBasedResourceNames``, ``CapacityBasedResourceNames``), ``pkg/dra/counters.go``
(``prepareDeviceSelectors``, ``matchDevicesForSource``, ``matchDevicesWithSelectors``,
``groupSlicesByPool``, ``poolInfo.isComplete``, ``safeChargeValue``) and ``pkg/util/math``
(``SafeValue``, ``SaturatingMul``).

A source's devices are those of its driver's pools whose every slice of the newest generation is
present (``resourceSliceCount``); an incomplete pool is skipped. A device is matched when the
source's ``deviceSelector``, then the request's DeviceClass's selectors, then the request's own
selectors all accept it (as upstream's ``dracel.Device``: driver, attributes, capacity); a selector
that fails at run time is an internal error naming the device. Pools go in name order (upstream
walks a map), a pool's devices in its slices' order. Pure: the caller passes the slices.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from kbatch.api.cel import (
    CompileError,
    DeviceInput,
    PreparedDevice,
    SelectorRuntimeError,
    compile_selector,
    prepare_device,
)
from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.kueue_config_dra import DeviceClassMapping, DeviceSource
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.api.resource_v1.claim import DeviceSelector, ExactDeviceRequest
from kbatch.api.resource_v1.device import Device
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.controllers.kueue.model.dra import TemplateLookup

__all__ = [
    "MAX_INT64",
    "Charger",
    "ClassLookup",
    "PodSetCharges",
    "Pool",
    "Selectors",
    "SliceLookup",
    "SourceConfigs",
    "SourcedRequest",
    "charge_value",
    "enough_devices",
    "group_slices_by_pool",
    "match_devices",
    "pod_set_charges",
    "request_selectors",
    "safe_value",
    "source_devices",
    "sourced_requests",
]

MAX_INT64 = 2**63 - 1
MIN_INT64 = -(2**63)

SliceLookup = Callable[[str], Sequence[ResourceSlice]]
"""A driver → its ResourceSlices (``ResourceSliceCache.ListByDriver``)."""

ClassLookup = Callable[[str], "Sequence[str] | None"]
"""A DeviceClass name → its CEL selector expressions, or ``None`` when there is no such class."""


@dataclass(frozen=True, slots=True)
class SourceConfigs:
    """``ResourceMapper``'s counter and capacity configs: per DeviceClass, ``(quota resource,
    source)`` for every counter source of every mapping naming it, and the capacity sources."""

    counters: dict[str, tuple[tuple[str, DeviceSource], ...]] = field(default_factory=dict)
    capacity: dict[str, tuple[DeviceSource, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, mappings: Iterable[DeviceClassMapping]) -> SourceConfigs:
        counters: dict[str, tuple[tuple[str, DeviceSource], ...]] = {}
        capacity: dict[str, tuple[DeviceSource, ...]] = {}
        for m in mappings:
            for dc in m.device_class_names:
                if m.counters:
                    counters[dc] = counters.get(dc, ()) + tuple((m.name, s) for s in m.counters)
                if m.capacity:
                    capacity[dc] = capacity.get(dc, ()) + m.capacity
        return cls(counters, capacity)

    def binary_resources(self, mapping: dict[str, str]) -> frozenset[str]:
        """``CounterBasedResourceNames`` and ``CapacityBasedResourceNames``: quantities of bytes."""
        names = {res for configs in self.counters.values() for res, _ in configs}
        return frozenset(names | {mapping[dc] for dc in self.capacity if dc in mapping})


@dataclass(slots=True)
class Pool:
    """``poolInfo``: the slices of a pool's newest generation seen so far."""

    name: str
    generation: int
    slice_count: int
    slices: list[ResourceSlice]

    @property
    def complete(self) -> bool:
        return len(self.slices) == self.slice_count

    def devices(self) -> Iterator[Device]:
        for s in self.slices:
            yield from s.spec.devices or ()


def group_slices_by_pool(slices: Iterable[ResourceSlice], driver: str) -> dict[str, Pool]:
    """``groupSlicesByPool``: ``driver``'s slices by pool, a newer generation replacing older ones."""
    pools: dict[str, Pool] = {}
    for s in slices:
        if s.spec.driver != driver:
            continue
        p = s.spec.pool
        known = pools.get(p.name)
        if known is None or p.generation > known.generation:
            pools[p.name] = Pool(p.name, p.generation, p.resource_slice_count, [s])
        elif p.generation == known.generation:
            known.slices.append(s)
    return pools


def safe_value(q: Quantity) -> int:
    """``SafeValue``: whole units rounded up, clamped to int64."""
    return max(MIN_INT64, min(MAX_INT64, q.value()))


def charge_value(q: Quantity, count: int) -> int:
    """``safeChargeValue``: a driver's value as a charge (negative: 0), times ``count`` (saturating)."""
    value = 0 if q.sign() < 0 else safe_value(q)
    return min(MAX_INT64, value * count) if count > 1 else value


def _expressions(selectors: Sequence[DeviceSelector] | None) -> list[str]:
    return [s.cel.expression for s in selectors or () if s.cel is not None and s.cel.expression]


def request_selectors(
    ex: ExactDeviceRequest, classes: ClassLookup, req_path: str
) -> tuple[list[str], list[str], list[FieldError]]:
    """``prepareDeviceSelectors``: the DeviceClass's selectors and the request's, or why not."""
    class_exprs: list[str] = []
    if ex.device_class_name:
        found = classes(ex.device_class_name)
        if found is None:
            detail = (
                f"failed to get DeviceClass {ex.device_class_name}: "
                f'deviceclasses.resource.k8s.io "{ex.device_class_name}" not found'
            )
            return [], [], [FieldError(FieldErrorType.INTERNAL, req_path, detail)]
        class_exprs = list(found)
    errs = []
    for i, sel in enumerate(ex.selectors or ()):
        if sel.cel is None:
            continue
        try:
            compile_selector(sel.cel.expression)
        except CompileError as err:
            path = f"{req_path}.exactly.selectors[{i}].cel.expression"
            errs.append(FieldError.invalid(path, sel.cel.expression, f"CEL compilation failed: {err}"))
    return class_exprs, _expressions(ex.selectors), errs


def match_devices(
    pools: dict[str, Pool], driver: str, stages: Sequence[tuple[str, Sequence[str]]], req_path: str
) -> tuple[list[Device], list[FieldError]]:
    """``matchDevicesWithSelectors``: the complete pools' devices every stage's selectors accept;
    ``stages`` are ``(what an error calls them, expressions)``: the source's ``deviceSelector``,
    the DeviceClass's, the request's."""
    matched: list[Device] = []
    for name in sorted(pools):
        if not pools[name].complete:
            continue
        for dev in pools[name].devices():
            prepared: PreparedDevice | None = None
            for what, exprs in stages:
                try:
                    if prepared is None and exprs:  # upstream converts the device when it evaluates
                        capacity = {n: c.value for n, c in (dev.capacity or {}).items()}
                        prepared = prepare_device(DeviceInput(driver, dev.attributes or {}, capacity, False))
                    ok = all(compile_selector(e).matches(prepared) for e in exprs)  # type: ignore[arg-type]
                except (SelectorRuntimeError, CompileError) as err:
                    detail = f"CEL evaluation error in {what} for device {dev.name}: {err}"
                    return [], [FieldError(FieldErrorType.INTERNAL, req_path, detail)]
                if not ok:
                    break
            else:
                matched.append(dev)
    return matched, []


def source_devices(
    source: DeviceSource,
    class_exprs: Sequence[str],
    request_exprs: Sequence[str],
    slices: SliceLookup,
    req_path: str,
) -> tuple[list[Device], list[FieldError]]:
    """``matchDevicesForSource``: the devices of ``source``'s driver the request would match."""
    pools = group_slices_by_pool(slices(source.driver), source.driver)
    stages = (
        ("deviceSelector", (source.selector,) if source.selector else ()),
        ("DeviceClass selector", class_exprs),
        ("request selector", request_exprs),
    )
    return match_devices(pools, source.driver, stages, req_path)


@dataclass(frozen=True, slots=True)
class SourcedRequest:
    """One ``exactly`` request of a pod set's ResourceClaimTemplate."""

    pod_set: str
    path: str  # spec.podSets[i].template.spec.resourceClaims[j].devices.requests[k]
    exactly: ExactDeviceRequest

    @property
    def count(self) -> int:
        return self.exactly.count if self.exactly.count is not None else 1  # the API default


def sourced_requests(
    wl: Workload, templates: TemplateLookup
) -> Iterator[SourcedRequest | FieldError]:
    """The templates' ``exactly`` requests in order, or (last) the error for a missing template
    (``getClaimSpec``; upstream's counter and capacity passes word it without the pod set)."""
    namespace = wl.metadata.namespace or ""
    for i, ps in enumerate((wl.spec.pod_sets if wl.spec else None) or ()):
        spec = ps.template.spec if ps.template else None
        for j, prc in enumerate((spec.resource_claims if spec else None) or ()):
            name = prc.resource_claim_template_name
            if name is None:
                continue
            claim_path = f"spec.podSets[{i}].template.spec.resourceClaims[{j}]"
            claim = templates(namespace, name)
            if claim is None:
                detail = (
                    f"failed to get claim spec for ResourceClaimTemplate {name}: "
                    f'resourceclaimtemplates.resource.k8s.io "{name}" not found'
                )
                yield FieldError(FieldErrorType.INTERNAL, claim_path, detail)
                return
            for k, req in enumerate((claim.devices.requests if claim.devices else None) or ()):
                if req.exactly is not None:
                    path = f"{claim_path}.devices.requests[{k}]"
                    yield SourcedRequest(ps.name or "main", path, req.exactly)


PodSetCharges = tuple[dict[str, dict[str, int]], tuple[FieldError, ...]]
"""Per pod set, per resource, what one pod is charged; or the errors (then no charges)."""

Selectors = tuple[list[str], list[str]]
"""A request's DeviceClass selectors and its own."""

Charger = Callable[[SourcedRequest, Selectors], Iterator[tuple[str, int, list[FieldError]]]]
"""A sourced request → per source, ``(resource, charge, errors)``."""


def pod_set_charges(
    wl: Workload,
    templates: TemplateLookup,
    classes: ClassLookup,
    sourced: Callable[[str], bool],
    charge: Charger,
) -> PodSetCharges:
    """The walk ``GetCounterResourcesForWorkload`` and ``DetermineCapacityResourcesForWorkload``
    share: every template request of a ``sourced`` DeviceClass, its selectors prepared, charged per
    source and summed per pod set; the first error stops it."""
    out: dict[str, dict[str, int]] = {}
    for req in sourced_requests(wl, templates):
        if isinstance(req, FieldError):
            return {}, (req,)
        if not sourced(req.exactly.device_class_name):
            continue
        class_exprs, request_exprs, errs = request_selectors(req.exactly, classes, req.path)
        if errs:
            return {}, tuple(errs)
        for resource, amount, errs in charge(req, (class_exprs, request_exprs)):
            if errs:
                return {}, tuple(errs)
            per_pod = out.setdefault(req.pod_set, {})
            per_pod[resource] = per_pod.get(resource, 0) + amount
    return out, ()


def enough_devices(
    source: DeviceSource, req: SourcedRequest, selectors: Selectors, slices: SliceLookup, kind: str
) -> tuple[list[Device], list[FieldError]]:
    """The source's devices the request matches, or the internal error (retried until slices
    provide them) when fewer than its ``count``; ``kind`` is ``counter`` or ``capacity``."""
    matched, errs = source_devices(source, *selectors, slices, req.path)
    if not errs and len(matched) < req.count:
        detail = (
            f"insufficient matching devices for {kind} driver: {len(matched)} device(s) match "
            f"but {req.count} requested"
        )
        errs = [FieldError(FieldErrorType.INTERNAL, req.path, detail)]
    return matched, errs
