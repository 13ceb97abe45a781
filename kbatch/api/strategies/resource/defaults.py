"""Scheme defaulting and dropped fields of resource.k8s.io/v1 (upstream
``pkg/apis/resource/v1/defaults.go`` and the strategies' ``dropDisabledFields``).

* an exact request or subrequest without ``allocationMode`` is ``ExactCount``, and an ``ExactCount``
  one without ``count`` asks for 1 device;
* a toleration without ``operator`` is ``Equal``;
* alpha fields whose gates kbatch does not implement (DRAListTypeAttributes' list attributes,
  DRANodeAllocatableResources, DRADeviceCompatibilityGroups' ``partitionTypeAttribute``,
  DRAOptionalNodeOperations' ``skipNodeOperations``) are dropped on create, as upstream drops the
  fields of a disabled gate; those gates are off by default in 1.37.
"""

from __future__ import annotations

from kbatch.api.resource_v1 import (
    ALLOCATION_MODE_EXACT_COUNT,
    DeviceClaim,
    DeviceSubRequest,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceSliceSpec,
)

__all__ = ["default_claim", "drop_alpha_slice_fields"]


def _default_tolerations(tolerations: list[DeviceToleration] | None) -> None:
    for toleration in tolerations or ():
        if not toleration.operator:
            toleration.operator = "Equal"


def _default_selection(request: ExactDeviceRequest | DeviceSubRequest) -> None:
    if not request.allocation_mode:
        request.allocation_mode = ALLOCATION_MODE_EXACT_COUNT
    if request.allocation_mode == ALLOCATION_MODE_EXACT_COUNT and not request.count:
        request.count = 1
    _default_tolerations(request.tolerations)


def default_claim(claim: DeviceClaim) -> None:
    for request in claim.requests or ():
        if request.exactly is not None:
            _default_selection(request.exactly)
        for sub in request.first_available or ():
            _default_selection(sub)


def drop_alpha_slice_fields(spec: ResourceSliceSpec) -> None:
    spec.partition_type_attribute = None
    spec.skip_node_operations = None
    for device in spec.devices or ():
        device.node_allocatable_resources = None
        for attribute in (device.attributes or {}).values():
            attribute.ints = attribute.bools = attribute.strings = attribute.versions = None
