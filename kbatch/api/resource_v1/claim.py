"""ResourceClaim and ResourceClaimTemplate (``types.go``): a namespaced request for devices, its
allocation and its consumers. The spec is immutable; the scheduler writes ``status.allocation`` and
``status.reservedFor``, drivers write ``status.devices``.

A request asks for ``exactly`` one kind of device or for the ``firstAvailable`` of a prioritized
list of subrequests (referred to as ``<request>/<subrequest>``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1 import NodeSelector
from kbatch.api.gotypes import GoType
from kbatch.api.meta import Condition, ObjectMeta, Resource
from kbatch.api.quantity import Quantity
from kbatch.api.resource_v1.constants import GROUP

__all__ = [
    "AllocatedDeviceStatus",
    "AllocationResult",
    "CELDeviceSelector",
    "CapacityRequirements",
    "DeviceAllocationConfiguration",
    "DeviceAllocationResult",
    "DeviceClaim",
    "DeviceClaimConfiguration",
    "DeviceConfiguration",
    "DeviceConstraint",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceSelector",
    "DeviceSubRequest",
    "DeviceToleration",
    "ExactDeviceRequest",
    "NetworkDeviceData",
    "OpaqueDeviceConfiguration",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimSpec",
    "ResourceClaimStatus",
    "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec",
]


class CELDeviceSelector(KubeModel):
    go_type: ClassVar[GoType] = GoType("CELDeviceSelector", "v1")

    expression: str = ""


class DeviceSelector(KubeModel):
    go_type: ClassVar[GoType] = GoType("DeviceSelector", "v1")

    cel: CELDeviceSelector | None = None


class DeviceToleration(KubeModel):
    key: str | None = None
    operator: str | None = None  # Equal (default) | Exists
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class CapacityRequirements(KubeModel):
    requests: dict[str, Quantity] | None = None


class ExactDeviceRequest(KubeModel):
    device_class_name: str = ""
    selectors: list[DeviceSelector] | None = None
    allocation_mode: str | None = None  # ExactCount (default) | All
    count: int | None = None  # default 1 with ExactCount
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] | None = None
    capacity: CapacityRequirements | None = None


class DeviceSubRequest(KubeModel):
    name: str = ""
    device_class_name: str = ""
    selectors: list[DeviceSelector] | None = None
    allocation_mode: str | None = None
    count: int | None = None
    tolerations: list[DeviceToleration] | None = None
    capacity: CapacityRequirements | None = None


class DeviceRequest(KubeModel):
    name: str = ""
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] | None = None


class DeviceConstraint(KubeModel):
    requests: list[str] | None = None
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class OpaqueDeviceConfiguration(KubeModel):
    driver: str = ""
    parameters: Any = None  # runtime.RawExtension: validated to be a JSON object


class DeviceConfiguration(KubeModel):
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClaimConfiguration(KubeModel):
    requests: list[str] | None = None
    opaque: OpaqueDeviceConfiguration | None = None  # inlined DeviceConfiguration


class DeviceClaim(KubeModel):
    requests: list[DeviceRequest] | None = None
    constraints: list[DeviceConstraint] | None = None
    config: list[DeviceClaimConfiguration] | None = None


class ResourceClaimSpec(KubeModel):
    devices: DeviceClaim = Field(default_factory=DeviceClaim)


class DeviceRequestAllocationResult(KubeModel):
    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] | None = None
    binding_conditions: list[str] | None = None
    binding_failure_conditions: list[str] | None = None
    share_id: str | None = Field(default=None, alias="shareID")
    consumed_capacity: dict[str, Quantity] | None = None
    skip_node_operations: list[str] | None = None


class DeviceAllocationConfiguration(KubeModel):
    source: str = ""
    requests: list[str] | None = None
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceAllocationResult(KubeModel):
    results: list[DeviceRequestAllocationResult] | None = None
    config: list[DeviceAllocationConfiguration] | None = None


class AllocationResult(KubeModel):
    devices: DeviceAllocationResult | None = None
    node_selector: NodeSelector | None = None
    allocation_timestamp: Time | None = None


class ResourceClaimConsumerReference(KubeModel):
    api_group: str | None = None
    resource: str = ""
    name: str = ""
    uid: str = ""


class NetworkDeviceData(KubeModel):
    interface_name: str | None = None
    ips: list[str] | None = None
    hardware_address: str | None = None


class AllocatedDeviceStatus(KubeModel):
    driver: str = ""
    pool: str = ""
    device: str = ""
    share_id: str | None = Field(default=None, alias="shareID")
    conditions: list[Condition] | None = None
    data: Any = None
    network_data: NetworkDeviceData | None = None


class ResourceClaimStatus(KubeModel):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] | None = None
    devices: list[AllocatedDeviceStatus] | None = None


class ResourceClaim(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP,
        version="v1",
        kind="ResourceClaim",
        plural="resourceclaims",
        namespaced=True,
        singular="resourceclaim",
    )

    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus | None = None


class ResourceClaimTemplateSpec(KubeModel):
    metadata: ObjectMeta | None = None
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP,
        version="v1",
        kind="ResourceClaimTemplate",
        plural="resourceclaimtemplates",
        namespaced=True,
        singular="resourceclaimtemplate",
        subresources=(),
    )

    spec: ResourceClaimTemplateSpec = Field(default_factory=ResourceClaimTemplateSpec)
