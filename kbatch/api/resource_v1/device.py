"""A device as a ResourceSlice publishes it: attributes, capacity, counters, taints, binding
conditions, and the counter sets slices share (``types.go`` ``Device``, ``CounterSet``).

Attribute and capacity names are qualified names: ``<domain>/<id>`` or a bare ``<id>``, which belongs
to the slice's driver (``device.attributes["<driver>"].<id>`` in CEL).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from kbatch.api.base import KubeModel, Time
from kbatch.api.core_v1 import NodeSelector
from kbatch.api.quantity import Quantity

__all__ = [
    "CapacityRequestPolicy",
    "CapacityRequestPolicyRange",
    "Counter",
    "CounterSet",
    "Device",
    "DeviceAttribute",
    "DeviceCapacity",
    "DeviceCounterConsumption",
    "DeviceTaint",
    "NodeAllocatableMapping",
    "NodeAllocatableOverhead",
    "NodeAllocatableResource",
]


class DeviceAttribute(KubeModel):
    """Exactly one value. The list forms (``ints``/``bools``/``strings``/``versions``) are the alpha
    DRAListTypeAttributes feature: dropped on create while its gate is off."""

    int_: int | None = Field(default=None, alias="int")
    bool_: bool | None = Field(default=None, alias="bool")
    string: str | None = None
    version: str | None = None
    ints: list[int] | None = None
    bools: list[bool] | None = None
    strings: list[str] | None = None
    versions: list[str] | None = None

    def value(self) -> Any:
        """The one value set (None when none is)."""
        for value in (self.int_, self.bool_, self.string, self.version):
            if value is not None:
                return value
        return None

    def kind(self) -> str:
        """``int``, ``bool``, ``string``, ``version`` or ``""``: the type of the value."""
        for name, value in (
            ("int", self.int_),
            ("bool", self.bool_),
            ("string", self.string),
            ("version", self.version),
        ):
            if value is not None:
                return name
        return ""


class CapacityRequestPolicyRange(KubeModel):
    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None


class CapacityRequestPolicy(KubeModel):
    default: Quantity | None = None
    valid_values: list[Quantity] | None = None
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(KubeModel):
    value: Quantity = Field(default_factory=Quantity)
    request_policy: CapacityRequestPolicy | None = None


class Counter(KubeModel):
    value: Quantity = Field(default_factory=Quantity)


class CounterSet(KubeModel):
    name: str = ""
    counters: dict[str, Counter] | None = None


class DeviceCounterConsumption(KubeModel):
    counter_set: str = ""
    counters: dict[str, Counter] | None = None


class DeviceTaint(KubeModel):
    key: str = ""
    value: str | None = None
    effect: str = ""
    time_added: Time | None = None


class NodeAllocatableMapping(KubeModel):
    capacity_key: str | None = None
    capacity_multiplier: Quantity | None = None
    device_multiplier: Quantity | None = None


class NodeAllocatableOverhead(KubeModel):
    per_pod: Quantity | None = None
    per_container: Quantity | None = None


class NodeAllocatableResource(KubeModel):
    """Alpha DRANodeAllocatableResources: dropped on create while the gate is off."""

    mapping: NodeAllocatableMapping | None = None
    overhead: NodeAllocatableOverhead | None = None


class Device(KubeModel):
    name: str = ""
    attributes: dict[str, DeviceAttribute] | None = None
    capacity: dict[str, DeviceCapacity] | None = None
    consumes_counters: list[DeviceCounterConsumption] | None = None
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[DeviceTaint] | None = None
    binds_to_node: bool | None = None
    binding_conditions: list[str] | None = None
    binding_failure_conditions: list[str] | None = None
    allow_multiple_allocations: bool | None = None
    node_allocatable_resources: dict[str, NodeAllocatableResource] | None = None
