"""resource.k8s.io/v1: Dynamic Resource Allocation with structured parameters (KEP-4381; GA in
Kubernetes 1.34). Every public name of the submodules is re-exported here.

Kinds: DeviceClass, ResourceSlice, DeviceTaintRule (cluster-scoped), ResourceClaim and
ResourceClaimTemplate (namespaced). Upstream: ``staging/src/k8s.io/api/resource/v1/types.go``.
"""

from __future__ import annotations

from kbatch.api.resource_v1.claim import (
    AllocatedDeviceStatus,
    AllocationResult,
    CapacityRequirements,
    CELDeviceSelector,
    DeviceAllocationConfiguration,
    DeviceAllocationResult,
    DeviceClaim,
    DeviceClaimConfiguration,
    DeviceConfiguration,
    DeviceConstraint,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceSubRequest,
    DeviceToleration,
    ExactDeviceRequest,
    NetworkDeviceData,
    OpaqueDeviceConfiguration,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimSpec,
    ResourceClaimStatus,
    ResourceClaimTemplate,
    ResourceClaimTemplateSpec,
)
from kbatch.api.resource_v1.constants import *  # noqa: F403
from kbatch.api.resource_v1.constants import __all__ as _constants
from kbatch.api.resource_v1.device import (
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    Counter,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceCapacity,
    DeviceCounterConsumption,
    DeviceTaint,
    NodeAllocatableMapping,
    NodeAllocatableOverhead,
    NodeAllocatableResource,
)
from kbatch.api.resource_v1.deviceclass import DeviceClass, DeviceClassConfiguration, DeviceClassSpec
from kbatch.api.resource_v1.slice import ResourcePool, ResourceSlice, ResourceSliceSpec
from kbatch.api.resource_v1.taintrule import (
    DeviceTaintRule,
    DeviceTaintRuleSpec,
    DeviceTaintRuleStatus,
    DeviceTaintSelector,
)

__all__ = [
    *_constants,
    "AllocatedDeviceStatus",
    "AllocationResult",
    "CELDeviceSelector",
    "CapacityRequestPolicy",
    "CapacityRequestPolicyRange",
    "CapacityRequirements",
    "Counter",
    "CounterSet",
    "Device",
    "DeviceAllocationConfiguration",
    "DeviceAllocationResult",
    "DeviceAttribute",
    "DeviceCapacity",
    "DeviceClaim",
    "DeviceClaimConfiguration",
    "DeviceClass",
    "DeviceClassConfiguration",
    "DeviceClassSpec",
    "DeviceConfiguration",
    "DeviceConstraint",
    "DeviceCounterConsumption",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceSelector",
    "DeviceSubRequest",
    "DeviceTaint",
    "DeviceTaintRule",
    "DeviceTaintRuleSpec",
    "DeviceTaintRuleStatus",
    "DeviceTaintSelector",
    "DeviceToleration",
    "ExactDeviceRequest",
    "NetworkDeviceData",
    "NodeAllocatableMapping",
    "NodeAllocatableOverhead",
    "NodeAllocatableResource",
    "OpaqueDeviceConfiguration",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimSpec",
    "ResourceClaimStatus",
    "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec",
    "ResourcePool",
    "ResourceSlice",
    "ResourceSliceSpec",
]
