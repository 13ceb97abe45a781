"""Upstream's ``TestCalculateResourceAllocatableRequest`` rows (``pkg/scheduler/framework/plugins/
noderesources/resource_allocation_test.go``, 1.37), translated: what NodeResourcesFit and
NodeResourcesBalancedAllocation score an extended resource with on a node, when a device plugin
advertises it (allocatable) and when DRA backs it (DRAExtendedResource: the node's devices of the
class and how many are allocated). Each test names its row; "feature-disabled" is not translated
(the gate is GA and locked in 1.37). Then both plugins' scores on a control plane's scheduler
state, for a pod requesting ``example.com/gpu`` with ``example.com/gpu`` among the scored
resources."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceSlice
from kbatch.controllers.dra.dynamicresources import DynamicResources
from kbatch.controllers.scheduler.plugins.balanced_allocation import BalancedAllocation
from kbatch.controllers.scheduler.plugins.node_resources_fit import (
    MOST_ALLOCATED,
    NodeResourcesFit,
    scalar_allocatable_requested,
)
from kbatch.controllers.scheduler.profiles import Handle
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import NodeShape, PodInfo

from .builders import create_observed

NODE = "resource-node"
DRIVER = "test-driver"
CLASS = "gpu-class"
EXPLICIT = "example.com/gpu"
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS}"


class Case:
    def __init__(self, *objects: Any) -> None:
        self.cp = ControlPlane(controllers=[])
        self.handle = Handle(client=self.cp.client)
        self.plugin = DynamicResources(self.handle)
        for obj in objects:
            create_observed(self.cp.client, self.plugin, obj)

    def totals(self, node: NodeInfo, name: str, pod_request: int = 1) -> tuple[int, int]:
        return scalar_allocatable_requested(node, name, pod_request, self.plugin.extended_totals)


def _node(labels: dict[str, str] | None = None, **allocatable: int) -> NodeInfo:
    return NodeInfo(NodeShape(NODE, labels or {}, allocatable=allocatable))


def _class(mapped: str | None = EXPLICIT, *selectors: str) -> DeviceClass:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": e}} for e in selectors]}
    if mapped:
        spec["extendedResourceName"] = mapped
    return DeviceClass.model_validate({"metadata": {"name": CLASS}, "spec": spec})


def _slice(*devices: str) -> ResourceSlice:
    return ResourceSlice.model_validate({
        "metadata": {"name": f"{NODE}-{DRIVER}"},
        "spec": {"driver": DRIVER, "pool": {"name": NODE, "resourceSliceCount": 1}, "nodeName": NODE,
                 "devices": [{"name": d} for d in devices]},
    })


def _claim(name: str, device: str, pool: str = NODE, share: str | None = None) -> ResourceClaim:
    result: dict[str, Any] = {"request": "req-1", "driver": DRIVER, "pool": pool, "device": device}
    if share:
        result["shareID"] = share
    return ResourceClaim.model_validate({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": CLASS}}]}},
        "status": {"allocation": {"devices": {"results": [result]}}},
    })


def test_device_plugin_resource_feature_enabled() -> None:
    assert Case().totals(_node(**{EXPLICIT: 4}), EXPLICIT) == (4, 1)


def test_dra_backed_resource_explicit() -> None:
    assert Case(_class(), _slice("device-1")).totals(_node(), EXPLICIT) == (1, 1)


def test_dra_backed_resource_implicit() -> None:
    assert Case(_class(None), _slice("device-1")).totals(_node(), IMPLICIT) == (1, 1)


def test_dra_backed_resource_no_slices() -> None:
    assert Case(_class()).totals(_node(), EXPLICIT) == (0, 0)


def test_dra_backed_resource_with_allocated_device() -> None:
    case = Case(_class(), _slice("device-1", "device-2"), _claim("test-claim", "device-1"))
    assert case.totals(_node(), EXPLICIT) == (2, 2)  # 1 allocated + 1 requested


def test_dra_backed_resource_with_shared_device_allocation() -> None:
    case = Case(_class(), _slice("device-1", "device-2"), _claim("test-claim", "device-1", share="share-123"))
    assert case.totals(_node(), EXPLICIT) == (2, 2)  # a share counts the device as allocated


def test_dra_backed_resource_multiple_devices_mixed_allocation() -> None:
    case = Case(_class(), _slice("device-1", "device-2", "device-3"), _claim("test-claim-1", "device-1"),
                _claim("test-claim-2", "device-2", share="share-456"))
    assert case.totals(_node(), EXPLICIT) == (3, 3)


def test_dra_backed_resource_with_per_device_node_selection() -> None:
    expression = (f'device.driver == "{DRIVER}" && device.capacity["{DRIVER}"].memory.compareTo('
                  f'quantity("8Gi")) >= 0 && device.attributes["{DRIVER}"].model.startsWith("SOME-")')

    def device(name: str, model: str, memory: str, **where: Any) -> dict[str, Any]:
        return {"name": name, "attributes": {"model": {"string": model}},
                "capacity": {"memory": {"value": memory}}, **where}

    zone = {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "zone", "operator": "In", "values": ["us-east-1a"]}]}]}
    per_device = ResourceSlice.model_validate({
        "metadata": {"name": "per-device-slice"},
        "spec": {"driver": DRIVER, "pool": {"name": "per-device-pool", "resourceSliceCount": 1},
                 "perDeviceNodeSelection": True,
                 "devices": [device("device-1", "SOME-XYZ", "16Gi", nodeName=NODE),
                             device("device-2", "SOME-ZYX", "12Gi", nodeName="other-node"),
                             device("device-3", "SOME-XZY", "24Gi", nodeSelector=zone)]},
    })
    allocated = _claim("test-claim", "device-1", pool="per-device-pool")
    case = Case(_class(EXPLICIT, expression), per_device, allocated)
    # device-1 is on the node and device-3 matches by its selector; device-1 is allocated
    assert case.totals(_node({"zone": "us-east-1a"}), EXPLICIT) == (2, 2)


def test_a_selector_that_fails_scores_nothing() -> None:
    case = Case(_class(EXPLICIT, 'device.attributes["x"].missing == 1'), _slice("device-1"))
    assert case.totals(_node(), EXPLICIT) == (0, 0)


# --- the plugins' scores ---------------------------------------------------------------------------


def _pod() -> PodInfo:
    return PodInfo("default", "p", uid="u", requests={"cpu": 1000, EXPLICIT: 1},
                   nonzero_requests={"cpu": 1000, "memory": 200 << 20})


def test_fit_and_balanced_allocation_score_dra_backed_devices() -> None:
    """Two nodes alike in cpu; one has 1 of its 4 devices taken, the other none. MostAllocated
    prefers the fuller node, LeastAllocated the emptier; BalancedAllocation the node whose device
    fraction is closer to its cpu fraction."""
    slices = [ResourceSlice.model_validate({
        "metadata": {"name": f"{n}-{DRIVER}"},
        "spec": {"driver": DRIVER, "pool": {"name": n, "resourceSliceCount": 1}, "nodeName": n,
                 "devices": [{"name": f"d{i}"} for i in range(4)]},
    }) for n in ("a", "b")]
    case = Case(_class(), *slices, _claim("taken", "d0", pool="a"))
    nodes = [NodeInfo(NodeShape(n, {}, allocatable={"cpu": 4000, "memory": 8 << 30})) for n in ("a", "b")]
    resources = (("cpu", 1), (EXPLICIT, 1))
    most = NodeResourcesFit(MOST_ALLOCATED, resources, handle=case.handle)
    least = NodeResourcesFit(resources=resources, handle=case.handle)
    # cpu: 1000/4000 = 25 (most) / 75 (least); devices: a 2/4, b 1/4
    assert [most.score({}, _pod(), n) for n in nodes] == [(25 + 50) // 2, (25 + 25) // 2]
    assert [least.score({}, _pod(), n) for n in nodes] == [(75 + 50) // 2, (75 + 75) // 2]
    balanced = BalancedAllocation(("cpu", EXPLICIT), handle=case.handle)
    # a: |0.25 - 0.5| / 2 = 0.125 -> 87; b: 0.25 and 0.25 -> 100
    assert [balanced.score({}, _pod(), n) for n in nodes] == [87, 100]
    # without a DynamicResources plugin (no handle), the resource is not scored on these nodes
    assert [BalancedAllocation(("cpu", EXPLICIT)).score({}, _pod(), n) for n in nodes] == [100, 100]
