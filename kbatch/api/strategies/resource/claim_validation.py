"""Validation of ResourceClaim, ResourceClaimTemplate and DeviceClass (upstream
``pkg/apis/resource/validation/validation.go``: ``ValidateResourceClaim``, ``validateDeviceClaim``,
``validateDeviceRequest``, ``validateDeviceConstraint``, ``validateResourceClaimStatusUpdate``,
``ValidateDeviceClass``, ``ValidateResourceClaimTemplate``; Kubernetes 1.37)."""

from __future__ import annotations

from kbatch.api.errors import FieldError
from kbatch.api.resource_v1 import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_MODES,
    ALLOCATION_RESULTS_MAX_SIZE,
    CONFIG_SOURCE_CLAIM,
    CONFIG_SOURCE_CLASS,
    DEVICE_CONFIG_MAX_SIZE,
    DEVICE_CONSTRAINTS_MAX_SIZE,
    DEVICE_REQUESTS_MAX_SIZE,
    FIRST_AVAILABLE_MAX_SIZE,
    RESERVED_FOR_MAX_SIZE,
    DeviceAllocationConfiguration,
    DeviceClaim,
    DeviceClaimConfiguration,
    DeviceClassSpec,
    DeviceConstraint,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSubRequest,
    ExactDeviceRequest,
    ResourceClaimConsumerReference,
    ResourceClaimStatus,
)
from kbatch.api.strategies.resource.common import (
    validate_dns_label,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_opaque,
    validate_pool_name,
    validate_selectors,
    validate_set,
    validate_slice,
    validate_toleration,
)
from kbatch.api.strategies.resource.device_status import validate_device_status_fields
from kbatch.api.validation import child, index, is_dns1123_subdomain, is_extended_resource_name

__all__ = [
    "RequestNames",
    "request_names",
    "validate_claim_spec",
    "validate_claim_status_update",
    "validate_device_class_spec",
]

_REF_MSG = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)
_BOTH = "exactly one of `exactly` or `firstAvailable` is required"

RequestNames = dict[str, frozenset[str] | None]


def request_names(claim: DeviceClaim) -> RequestNames:
    """Request name -> its subrequest names (None for an ``exactly`` request)."""
    return {
        r.name: frozenset(s.name for s in r.first_available) if r.first_available else None
        for r in claim.requests or ()
    }


def _has(names: RequestNames, ref: str) -> bool:
    segments = ref.split("/")
    if len(segments) > 2 or segments[0] not in names:
        return False
    subs = names[segments[0]]
    return len(segments) == 1 or (subs is not None and segments[1] in subs)


def _validate_request_ref(ref: str, path: str, names: RequestNames) -> list[FieldError]:
    segments = ref.split("/")
    if len(segments) > 2:
        return [FieldError.invalid(path, ref, _REF_MSG)]
    errs: list[FieldError] = []
    for segment in segments:
        errs += validate_dns_label(segment, path)
    if not _has(names, ref):
        errs.append(FieldError.invalid(path, ref, _REF_MSG))
    return errs


def _validate_class_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [FieldError.required(path)]
    return [FieldError.invalid(path, name, m) for m in is_dns1123_subdomain(name)]


def _validate_mode(mode: str | None, count: int | None, path: str) -> list[FieldError]:
    count = count or 0
    if mode == ALLOCATION_MODE_ALL:
        if count != 0:
            return [
                FieldError.invalid(
                    child(path, "count"), count, f"must not be specified when allocationMode is '{mode}'"
                )
            ]
    elif mode == ALLOCATION_MODE_EXACT_COUNT:
        if count <= 0:
            return [FieldError.invalid(child(path, "count"), count, "must be greater than zero")]
    else:
        return [FieldError.not_supported(child(path, "allocationMode"), mode or "", ALLOCATION_MODES)]
    return []


def _validate_selection(r: ExactDeviceRequest | DeviceSubRequest, path: str) -> list[FieldError]:
    errs = _validate_class_name(r.device_class_name, child(path, "deviceClassName"))
    errs += validate_selectors(r.selectors, child(path, "selectors"))
    errs += _validate_mode(r.allocation_mode, r.count, path)
    for i, toleration in enumerate(r.tolerations or ()):
        errs += validate_toleration(toleration, index(child(path, "tolerations"), i))
    return errs


def _validate_subrequest(sub: DeviceSubRequest, path: str) -> list[FieldError]:
    return validate_dns_label(sub.name, child(path, "name")) + _validate_selection(sub, path)


def _validate_request(request: DeviceRequest, path: str) -> list[FieldError]:
    errs = validate_dns_label(request.name, child(path, "name"))
    has_first, has_exactly = bool(request.first_available), request.exactly is not None
    if not has_first and not has_exactly:
        errs.append(FieldError.required(path, _BOTH))
    elif has_first and has_exactly:
        errs.append(FieldError.invalid(path, None, _BOTH + ", but multiple fields are set"))
    elif has_first:
        errs += validate_set(
            request.first_available,
            FIRST_AVAILABLE_MAX_SIZE,
            _validate_subrequest,
            lambda s: s.name,
            child(path, "firstAvailable"),
        )
    else:
        assert request.exactly is not None
        errs += _validate_selection(request.exactly, child(path, "exactly"))
    return errs


def _validate_constraint(constraint: DeviceConstraint, path: str, names: RequestNames) -> list[FieldError]:
    errs = validate_set(
        constraint.requests,
        DEVICE_REQUESTS_MAX_SIZE,
        lambda ref, at: _validate_request_ref(ref, at, names),
        lambda ref: ref,
        child(path, "requests"),
    )
    if constraint.match_attribute is not None:
        errs += validate_fully_qualified_name(constraint.match_attribute, child(path, "matchAttribute"))
    elif constraint.distinct_attribute is not None:
        errs += validate_fully_qualified_name(constraint.distinct_attribute, child(path, "distinctAttribute"))
    else:  # DRAConsumableCapacity is on in 1.37: upstream's message for that case
        errs.append(
            FieldError.required(
                path,
                'exactly one of "matchAttribute" or "distinctAttribute" is '
                "required, but multiple fields are set",
            )
        )
    return errs


def validate_claim_spec(claim: DeviceClaim, path: str = "spec.devices") -> list[FieldError]:
    """``validateDeviceClaim``: requests (a set by name), constraints, config."""
    names = request_names(claim)
    errs = validate_set(
        claim.requests, DEVICE_REQUESTS_MAX_SIZE, _validate_request, lambda r: r.name, child(path, "requests")
    )
    errs += validate_slice(
        claim.constraints,
        DEVICE_CONSTRAINTS_MAX_SIZE,
        lambda c, at: _validate_constraint(c, at, names),
        child(path, "constraints"),
    )

    def config(item: DeviceClaimConfiguration, at: str) -> list[FieldError]:
        errs = validate_set(
            item.requests,
            DEVICE_REQUESTS_MAX_SIZE,
            lambda ref, a: _validate_request_ref(ref, a, names),
            lambda ref: ref,
            child(at, "requests"),
        )
        return errs + validate_opaque(item.opaque, at)

    errs += validate_slice(claim.config, DEVICE_CONFIG_MAX_SIZE, config, child(path, "config"))
    return errs


def validate_device_class_spec(spec: DeviceClassSpec, path: str = "spec") -> list[FieldError]:
    errs = validate_selectors(spec.selectors, child(path, "selectors"))
    errs += validate_slice(
        spec.config,
        DEVICE_CONFIG_MAX_SIZE,
        lambda c, at: validate_opaque(c.opaque, at),
        child(path, "config"),
    )
    name = spec.extended_resource_name
    if name is not None and not is_extended_resource_name(name):
        errs.append(
            FieldError.invalid(
                child(path, "extendedResourceName"), name, "must be a valid extended resource name"
            )
        )
    return errs


def _validate_consumer(ref: ResourceClaimConsumerReference, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for name in ("resource", "name", "uid"):
        if not getattr(ref, name):
            errs.append(FieldError.required(child(path, name)))
    return errs


def _validate_result(result: DeviceRequestAllocationResult, path: str, names: RequestNames
                     ) -> list[FieldError]:
    r = result
    errs = _validate_request_ref(r.request, child(path, "request"), names)
    errs += validate_driver_name(r.driver, child(path, "driver"))
    errs += validate_pool_name(r.pool, child(path, "pool"))
    errs += validate_dns_label(r.device, child(path, "device"))
    return errs


def _validate_allocation_config(config: DeviceAllocationConfiguration, path: str, names: RequestNames
                                ) -> list[FieldError]:
    source = config.source
    errs: list[FieldError] = []
    if not source:
        errs.append(FieldError.required(child(path, "source")))
    elif source not in (CONFIG_SOURCE_CLAIM, CONFIG_SOURCE_CLASS):
        errs.append(
            FieldError.not_supported(
                child(path, "source"), source, [CONFIG_SOURCE_CLAIM, CONFIG_SOURCE_CLASS]
            )
        )
    errs += validate_set(
        config.requests,
        DEVICE_REQUESTS_MAX_SIZE,
        lambda ref, at: _validate_request_ref(ref, at, names),
        lambda ref: ref,
        child(path, "requests"),
    )
    return errs + validate_opaque(config.opaque, path, stored=True)


def validate_claim_status_update(
    status: ResourceClaimStatus,
    old: ResourceClaimStatus,
    deleting: bool,
    names: RequestNames,
    path: str = "status",
) -> list[FieldError]:
    """``validateResourceClaimStatusUpdate``: reservedFor a set by uid, only with an allocation, no
    new consumers while deleting; an allocation, once set, is immutable."""
    errs = validate_set(
        status.reserved_for,
        RESERVED_FOR_MAX_SIZE,
        _validate_consumer,
        lambda r: r.uid,
        child(path, "reservedFor"),
    )
    if status.reserved_for:
        if status.allocation is None:
            errs.append(
                FieldError.forbidden(
                    child(path, "reservedFor"), "may not be specified when `allocated` is not set"
                )
            )
        elif deleting:
            before = {r.uid for r in old.reserved_for or ()}
            if any(r.uid not in before for r in status.reserved_for):
                errs.append(
                    FieldError.forbidden(
                        child(path, "reservedFor"),
                        "new entries may not be added while `deallocationRequested` "
                        "or `deletionTimestamp` are set",
                    )
                )
    if old.allocation is not None and status.allocation is not None:
        if status.allocation != old.allocation:
            errs.append(
                FieldError.invalid(
                    child(path, "allocation"), status.allocation.to_dict(), "field is immutable"
                )
            )
    elif status.allocation is not None:
        at = child(path, "allocation")
        devices = status.allocation.devices
        if devices is not None:
            errs += validate_slice(
                devices.results,
                ALLOCATION_RESULTS_MAX_SIZE,
                lambda r, a: _validate_result(r, a, names),
                child(child(at, "devices"), "results"),
            )
            errs += validate_slice(
                devices.config,
                2 * DEVICE_CONFIG_MAX_SIZE,
                lambda c, a: _validate_allocation_config(c, a, names),
                child(child(at, "devices"), "config"),
            )
    errs += _validate_device_statuses(status, child(path, "devices"))
    return errs


def _validate_device_statuses(status: ResourceClaimStatus, path: str) -> list[FieldError]:
    allocated = set()
    if status.allocation is not None and status.allocation.devices is not None:
        allocated = {
            (r.driver, r.pool, r.device, r.share_id or "") for r in status.allocation.devices.results or ()
        }
    errs: list[FieldError] = []
    seen: set[tuple[str, str, str, str]] = set()
    for i, device in enumerate(status.devices or ()):
        at = index(path, i)
        errs += validate_driver_name(device.driver, child(at, "driver"))
        errs += validate_pool_name(device.pool, child(at, "pool"))
        errs += validate_dns_label(device.device, child(at, "device"))
        ident = (device.driver, device.pool, device.device, device.share_id or "")
        if ident not in allocated:
            shown = "/".join(ident[:3]) + (f"/{ident[3]}" if ident[3] else "")
            errs.append(FieldError.invalid(at, shown, "must be an allocated device in the claim"))
        if ident in seen:
            errs.append(FieldError.duplicate(at, "/".join(ident[:3])))
        seen.add(ident)
        errs += validate_device_status_fields(device, at)
    return errs
