"""Simulated DRA drivers: the ResourceSlices a node's driver publishes, from a device template.

``NodeTemplate(devices=DeviceTemplate("gpu.example.com", count=8))`` makes :func:`kbatch.sim.nodes.
create_nodes` publish, after each node, what a DRA kubelet plugin publishes (upstream
``k8s.io/dynamic-resource-allocation/resourceslice`` controller): one pool named after the node,
generation 1, owned by the Node (so the slices go with it), ``nodeName`` set:

* ``count`` devices ``gpu-0`` … with attributes ``model`` (string), ``index`` (int),
  ``driverVersion`` (version) and the capacity ``memory``;
* with ``partitions`` > 0, each GPU also offers that many partitions ``gpu-<i>-part-<j>`` with
  ``memory / partitions`` each, and every device (whole GPU or partition) consumes counters of the
  GPU's counter set ``gpu-<i>-counters`` (``memory``), published in a second slice of the pool
  (a slice holds either devices or shared counters): taking the whole GPU uses every partition's
  share, taking partitions leaves the rest (KEP-4815, partitionable devices).

With ``device_status`` the node's driver also reports each device it prepared in the claim's
``status.devices`` (KEP-4817; :mod:`kbatch.controllers.dra.driver`); with ``network`` its devices are
network interfaces ``nic-<i>`` whose entries carry ``networkData``. The slices say so with the
annotations :data:`DEVICE_STATUS_ANNOTATION` and :data:`NETWORK_ANNOTATION` (``"true"``), which is
how the simulated driver finds its configuration again after a restart.

With ``binding_conditions`` (KEP-5007, device binding conditions) every device publishes them, with
``binding_failure_conditions`` (default ``attach-failed``; upstream validation requires both or
neither) and, with ``binds_to_node``, ``bindsToNode: true``: a fabric device the driver attaches to
the node after the scheduler allocated it. The driver's attachment controller
(:mod:`kbatch.controllers.dra.driver.attach`) sets every binding condition ``True`` in the claim's
``status.devices`` ``attach_delay`` virtual seconds after the allocation, or the first failure
condition for an attachment that fails: every one with ``attach_fails``, every one of the devices named
in ``attach_fail_devices``, and each attempt (one allocation of one device) with probability
``attach_fail_rate``. The slices record this in :data:`ATTACH_DELAY_ANNOTATION`,
:data:`ATTACH_RESULT_ANNOTATION`, :data:`ATTACH_FAIL_DEVICES_ANNOTATION` and
:data:`ATTACH_FAIL_RATE_ANNOTATION` (the last two only when set).

Default nodes publish nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kbatch.api.quantity import Quantity

__all__ = [
    "ATTACH_DELAY_ANNOTATION",
    "ATTACH_FAIL_DEVICES_ANNOTATION",
    "ATTACH_FAIL_RATE_ANNOTATION",
    "ATTACH_RESULT_ANNOTATION",
    "DEFAULT_FAILURE_CONDITION",
    "DEVICE_STATUS_ANNOTATION",
    "NETWORK_ANNOTATION",
    "DeviceTemplate",
    "slice_manifests",
]

DRIVER_VERSION = "1.0.0"
DEVICE_STATUS_ANNOTATION = "dra.kbatch.io/device-status"
NETWORK_ANNOTATION = "dra.kbatch.io/network-devices"
ATTACH_DELAY_ANNOTATION = "dra.kbatch.io/attach-delay-seconds"
ATTACH_RESULT_ANNOTATION = "dra.kbatch.io/attach-result"  # "Attached" or "Failed" (every attachment)
ATTACH_FAIL_DEVICES_ANNOTATION = "dra.kbatch.io/attach-fail-devices"  # "gpu-1,gpu-3": these always fail
ATTACH_FAIL_RATE_ANNOTATION = "dra.kbatch.io/attach-fail-rate"  # "0.25": each attempt fails so often
DEFAULT_FAILURE_CONDITION = "attach-failed"


@dataclass(frozen=True)
class DeviceTemplate:
    driver: str = "gpu.example.com"
    count: int = 8
    model: str = "A100"
    memory: str = "80Gi"
    partitions: int = 0
    prefix: str = ""  # "gpu", or "nic" for network devices
    device_status: bool = False  # the driver writes status.devices of the claims it prepares
    network: bool = False  # network interfaces: their status entries carry networkData
    binding_conditions: tuple[str, ...] = ()  # KEP-5007: the devices wait for these before binding
    binding_failure_conditions: tuple[str, ...] = ()  # default (DEFAULT_FAILURE_CONDITION,)
    binds_to_node: bool = False
    attach_delay: float = 10.0  # virtual seconds from the allocation to the attachment's outcome
    attach_fails: bool = False  # every attachment fails: the first failure condition is set True
    attach_fail_devices: tuple[str, ...] = ()  # the attachments of these devices (by name) fail
    attach_fail_rate: float = 0.0  # each attempt (an allocation of a device) fails with this probability

    def failure_conditions(self) -> tuple[str, ...]:
        """The devices' ``bindingFailureConditions`` (none without binding conditions)."""
        if not self.binding_conditions:
            return ()
        return self.binding_failure_conditions or (DEFAULT_FAILURE_CONDITION,)

    def device_name(self, index: int) -> str:
        return f"{self.prefix or ('nic' if self.network else 'gpu')}-{index}"

    def device_names(self) -> list[str]:
        """Every device the slices publish: the whole devices, then each one's partitions."""
        out = []
        for i in range(self.count):
            out.append(self.device_name(i))
            out.extend(f"{self.device_name(i)}-part-{j}" for j in range(self.partitions))
        return out

    def annotations(self) -> dict[str, str] | None:
        """What the driver's slices record of its status reporting (None: it writes none)."""
        out = {}
        if self.device_status:
            out[DEVICE_STATUS_ANNOTATION] = "true"
            if self.network:
                out[NETWORK_ANNOTATION] = "true"
        if self.binding_conditions:
            out[ATTACH_DELAY_ANNOTATION] = f"{self.attach_delay:g}"
            out[ATTACH_RESULT_ANNOTATION] = "Failed" if self.attach_fails else "Attached"
            if self.attach_fail_devices:
                out[ATTACH_FAIL_DEVICES_ANNOTATION] = ",".join(self.attach_fail_devices)
            if self.attach_fail_rate:
                out[ATTACH_FAIL_RATE_ANNOTATION] = f"{self.attach_fail_rate:g}"
        return out or None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")


def _device(
    template: DeviceTemplate, index: int, name: str, memory: Quantity, counters: bool
) -> dict[str, Any]:
    device: dict[str, Any] = {
        "name": name,
        "attributes": {
            "model": {"string": template.model},
            "index": {"int": index},
            "driverVersion": {"version": DRIVER_VERSION},
        },
        "capacity": {"memory": {"value": str(memory)}},
    }
    if template.binding_conditions:
        device["bindingConditions"] = list(template.binding_conditions)
        device["bindingFailureConditions"] = list(template.failure_conditions())
    if template.binds_to_node:
        device["bindsToNode"] = True
    if counters:
        device["consumesCounters"] = [
            {
                "counterSet": f"{template.device_name(index)}-counters",
                "counters": {"memory": {"value": str(memory)}},
            }
        ]
    return device


def slice_manifests(node: dict[str, Any], template: DeviceTemplate) -> list[dict[str, Any]]:
    """The ResourceSlices the template's driver publishes for ``node`` (a created Node, wire form)."""
    name, uid = node["metadata"]["name"], node["metadata"].get("uid")
    memory = Quantity(template.memory)
    partitioned = template.partitions > 0
    devices = []
    for i in range(template.count):
        devices.append(_device(template, i, template.device_name(i), memory, partitioned))
        for j in range(template.partitions):
            share = Quantity.milli(memory.milli_value() // template.partitions)
            devices.append(_device(template, i, f"{template.device_name(i)}-part-{j}", share, True))
    pool = {"name": name, "generation": 1, "resourceSliceCount": 2 if partitioned else 1}
    owner = (
        [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": uid, "controller": True}] if uid else None
    )
    base = f"{name}-{_slug(template.driver)}"
    out = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": base, "ownerReferences": owner, "annotations": template.annotations()},
            "spec": {"driver": template.driver, "pool": pool, "nodeName": name, "devices": devices},
        }
    ]
    if partitioned:
        counter_sets = [
            {"name": f"{template.device_name(i)}-counters", "counters": {"memory": {"value": str(memory)}}}
            for i in range(template.count)
        ]
        out.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{base}-counters", "ownerReferences": owner},
                "spec": {
                    "driver": template.driver,
                    "pool": pool,
                    "nodeName": name,
                    "sharedCounters": counter_sets,
                },
            }
        )
    return out
