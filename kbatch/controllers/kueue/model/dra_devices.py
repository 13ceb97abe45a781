"""A ResourceClaimTemplate's CEL selectors checked against the cluster's ResourceSlices.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/dra/claims.go`` (``validateCELSelectorsAgainstDevices``,
``extractCELRequests``, ``resolveAndCompileDeviceClass``, ``countMatchingDevices``,
``buildDeviceListFromSlices``) and ``pkg/dra/resourceslice_cache.go``.

Each ``exactly`` request with a CEL selector needs ``count`` devices, among all devices the slices
publish, that satisfy its DeviceClass's selectors and its own; a device one request matched is not
counted for a later one of the same claim. Too few is an internal error (so the workload controller
retries the Workload with back-off until a ResourceSlice provides them): ``insufficient matching
devices for CEL selector in DeviceClass C: N device(s) match in the cluster but M requested``; a
selector that fails at run time is ``Invalid`` (``CEL evaluation failed for DeviceClass C: ...``); a
DeviceClass that does not exist is an internal error. The slices are all of them, unless every
such request's class has counter or capacity sources: then only their drivers' slices. A device is
seen as upstream's ``dracel.Device``: driver, attributes and capacity (no
``allowMultipleAllocations``). kbatch's selector library is the one its allocator uses
(:mod:`kbatch.api.cel`); upstream's compile check is not repeated (the API server refused a
template or DeviceClass whose selector does not compile).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kbatch.api.cel import CompileError, DeviceInput, PreparedDevice, SelectorRuntimeError, compile_selector
from kbatch.api.cel import prepare_device as _prepare
from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.resource_v1.claim import DeviceSelector, ResourceClaimSpec
from kbatch.api.resource_v1.deviceclass import DeviceClass
from kbatch.api.resource_v1.slice import ResourceSlice

__all__ = ["ClusterDevices", "SliceLookup", "validate_selectors_against_devices"]

SliceLookup = Callable[[str | None], Sequence[ResourceSlice]]
"""``None`` → every ResourceSlice; a driver → that driver's slices (``ResourceSliceCache``)."""


@dataclass(frozen=True, slots=True)
class _CelRequest:
    index: int
    count: int
    device_class_name: str
    selectors: tuple[DeviceSelector, ...]


class ClusterDevices:
    """The devices the selector check sees, and the DeviceClasses it reads (one reconcile's)."""

    __slots__ = ("_prepared", "classes", "devices")

    def __init__(self, slices: Sequence[ResourceSlice], classes: Callable[[str], DeviceClass | None]) -> None:
        self.devices: list[DeviceInput] = []
        for s in slices:
            for dev in s.spec.devices or ():
                capacity = {n: c.value for n, c in (dev.capacity or {}).items()}
                self.devices.append(DeviceInput(s.spec.driver, dev.attributes or {}, capacity, False))
        self._prepared: dict[int, PreparedDevice] = {}
        self.classes = classes

    def prepared(self, index: int) -> PreparedDevice:
        p = self._prepared.get(index)
        if p is None:
            p = self._prepared[index] = _prepare(self.devices[index])
        return p


def _cel_requests(spec: ResourceClaimSpec) -> list[_CelRequest]:
    """``extractCELRequests``: ``exactly`` requests with at least one CEL selector."""
    out = []
    for i, req in enumerate(spec.devices.requests or () if spec.devices else ()):
        ex = req.exactly
        if ex is None or not ex.selectors or not any(s.cel is not None for s in ex.selectors):
            continue
        count = ex.count if ex.count is not None else 1
        out.append(_CelRequest(i, count, ex.device_class_name or "", tuple(ex.selectors)))
    return out


def _expressions(selectors: Sequence[DeviceSelector]) -> list[str]:
    return [s.cel.expression for s in selectors if s.cel is not None and s.cel.expression]


def _all_match(cluster: ClusterDevices, index: int, expressions: Sequence[str]) -> bool:
    return all(compile_selector(expr).matches(cluster.prepared(index)) for expr in expressions)


def _count_matching(
    cluster: ClusterDevices,
    class_exprs: Sequence[str],
    request_exprs: Sequence[str],
    matched: set[int],
    needed: int,
) -> int:
    """``countMatchingDevices``: stops at ``needed``; marks what it counts in ``matched``."""
    n = 0
    for index in range(len(cluster.devices)):
        if index in matched:
            continue
        if _all_match(cluster, index, class_exprs) and _all_match(cluster, index, request_exprs):
            matched.add(index)
            n += 1
            if n >= needed:
                break
    return n


def slices_for(
    requests: Sequence[_CelRequest], sources: Mapping[str, tuple[str, ...]], lookup: SliceLookup
) -> list[ResourceSlice]:
    """All slices, unless every request's class has sources: then their drivers' (first seen order)."""
    if any(not sources.get(r.device_class_name) for r in requests):
        return list(lookup(None))
    out: list[ResourceSlice] = []
    seen: set[str] = set()
    for r in requests:
        for driver in sources[r.device_class_name]:
            if driver not in seen:
                seen.add(driver)
                out += lookup(driver)
    return out


def validate_selectors_against_devices(
    spec: ResourceClaimSpec,
    base: str,
    cluster: Callable[[Sequence[_CelRequest]], ClusterDevices],
) -> list[FieldError]:
    """``validateCELSelectorsAgainstDevices`` for one template's claim spec; ``base`` is the pod
    claim's path, ``cluster`` builds the devices for the CEL requests (see :func:`slices_for`)."""
    requests = _cel_requests(spec)
    if not requests:
        return []
    devices = cluster(requests)
    matched: set[int] = set()
    errs: list[FieldError] = []
    for r in requests:
        rpath = f"{base}.devices.requests[{r.index}]"
        dc = devices.classes(r.device_class_name) if r.device_class_name else None
        if r.device_class_name and dc is None:
            detail = (
                f"failed to get DeviceClass {r.device_class_name}: "
                f'deviceclasses.resource.k8s.io "{r.device_class_name}" not found'
            )
            errs.append(FieldError(FieldErrorType.INTERNAL, rpath, detail))
            continue
        class_exprs = _expressions(dc.spec.selectors or ()) if dc is not None else []
        request_exprs = _expressions(r.selectors)
        if not request_exprs:
            continue
        spath = f"{rpath}.exactly.selectors"
        try:
            n = _count_matching(devices, class_exprs, request_exprs, matched, r.count)
        except (SelectorRuntimeError, CompileError) as err:
            detail = f"CEL evaluation failed for DeviceClass {r.device_class_name}: {err}"
            errs.append(FieldError.invalid(spath, None, detail))
            continue
        if n < r.count:
            detail = (
                f"insufficient matching devices for CEL selector in DeviceClass {r.device_class_name}: "
                f"{n} device(s) match in the cluster but {r.count} requested"
            )
            errs.append(FieldError(FieldErrorType.INTERNAL, spath, detail))
    return errs
