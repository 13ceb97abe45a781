"""Claim nomination (KEP-5690 "Claim nomination", gate ``DRAPreemption``) on a control plane.

The devices a preemption frees become allocatable only when the resourceclaim controller deallocates
the victims' claims. These tests hold that controller back (its claim status writes fail) to open
the window between the victims' deletion and the deallocation, then check what the KEP's integration
tests list: the freed devices are not allocated to a pod of equal or lower priority before the
preemptor binds; the preemptor does not preempt a second set of victims meanwhile; the held devices
are released when the preemptor is deleted (a synthetic claim event wakes the pods they kept out);
and only claims whose devices come from slices with a ``nodeName`` are released at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import InternalError
from kbatch.api.resource_v1 import ResourceClaim, ResourceSlice
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.controllers.dra.dynamicresources.plugin import NOT_ELIGIBLE
from kbatch.sim.nodes import NodeTemplate, create_nodes

from .test_preemption import cluster, devices, gpu_pod, pods, shared_claim


class Stall:
    """The resourceclaim controller's claim status writes fail while stalled (it retries)."""

    def __init__(self, cp: ControlPlane) -> None:
        self.client = cp.controller_client("resourceclaim")
        self.real: Callable[..., Any] = self.client.update_status
        self.client.update_status = self._refuse  # type: ignore[method-assign]

    def _refuse(self, obj: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(obj, ResourceClaim):
            raise InternalError("stalled by the test")
        return self.real(obj, *args, **kwargs)

    def release(self) -> None:
        self.client.update_status = self.real  # type: ignore[method-assign]


def deallocate(cp: ControlPlane, owner: str) -> None:
    """What the stalled controller would write: the claim of ``owner`` deallocated."""
    for claim in cp.client.list(ResourceClaim, "default").items:
        if claim.metadata.name.startswith(f"{owner}-") and claim.status and claim.status.allocation:
            claim = edit(claim)
            claim.status.reserved_for = None
            claim.status.allocation = None
            cp.client.update_status(claim)


def label(cp: ControlPlane, node_name: str) -> None:
    node = edit(cp.client.get(Node, node_name))
    node.metadata.labels = {**(node.metadata.labels or {}), "touched": "yes"}
    cp.client.update(node)


def preempted(cp: ControlPlane, cpu: str = "") -> Stall:
    """One GPU held by ``low``; ``high`` (requesting ``cpu``) preempts it while the controller is
    stalled."""
    cp.client.create(gpu_pod("low"))
    cp.advance(1)
    stall = Stall(cp)
    high = gpu_pod("high", high=True)
    if cpu:
        high.spec.containers[0].resources.requests = {"cpu": cpu}
    cp.client.create(high)
    cp.advance(0.5)
    assert "low" not in pods(cp)
    assert pods(cp)["high"].status.nominated_node_name == "node-0"
    assert devices(cp)[0][0].startswith("low-")  # t1..t3: the victim's claim is still allocated
    return stall


def test_a_pod_created_when_the_devices_are_freed_does_not_take_them() -> None:
    cp = cluster()
    shared_claim(cp, "spare")  # ready at once: the pod is tried before the preemptor, in back-off
    stall = preempted(cp)
    stall.release()
    deallocate(cp, "low")  # t3: the device is free; "other" is active, "high" backing off
    cp.client.create(gpu_pod("other", claim="spare"))
    cp.advance(5)
    now = pods(cp)
    assert now["high"].status.phase == "Running"
    assert [d for _, d in devices(cp)] == ["node-0/gpu-0"]
    assert devices(cp)[0][0].startswith("high-")
    other = now["other"]  # never bound, so never preempted again
    assert other.spec.node_name is None and other.metadata.deletion_timestamp is None
    assert "1 cannot allocate all claims" in other.status.condition("PodScheduled").message


def test_a_pod_fitting_beside_the_held_device_keeps_the_allocation_of_the_first_pass() -> None:
    """Two GPUs free at t3, the first (gpu-0) held for the preemptor. The pod tried then is filtered
    with the preemptor (it gets gpu-1) and without it, where a new search would pick gpu-0: the
    second pass checks the first pass's allocation instead (KEP-5690: one allocation valid in
    both), so the pod gets gpu-1 and the preemptor gpu-0, and nobody is preempted again."""
    cp = cluster(gpus=2)
    cp.client.create(PriorityClass.model_validate({"metadata": {"name": "medium"}, "value": 500}))
    shared_claim(cp, "spare")
    cp.client.create(gpu_pod("low-a"))  # gpu-0
    cp.advance(0.5)
    keeper = gpu_pod("low-b")  # gpu-1; more important than low-a, so low-a is the victim
    keeper.spec.priority_class_name = "medium"
    cp.client.create(keeper)
    cp.advance(0.5)
    stall = Stall(cp)
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(0.5)
    assert "low-a" not in pods(cp)
    cp.client.delete(Pod, "low-b", "default")
    cp.advance(0.5)
    stall.release()
    deallocate(cp, "low-a")
    deallocate(cp, "low-b")
    cp.client.create(gpu_pod("other", claim="spare"))  # tried first: "high" is backing off
    cp.advance(5)
    now = pods(cp)
    assert now["other"].status.phase == "Running" and now["other"].metadata.deletion_timestamp is None
    assert now["high"].status.phase == "Running"
    mine = now["high"].status.resource_claim_statuses[0].resource_claim_name
    assert devices(cp) == [(mine, "node-0/gpu-0"), ("spare", "node-0/gpu-1")]


def test_the_preemptor_does_not_preempt_again_while_the_victim_claim_is_allocated() -> None:
    cp = cluster(gpus=2)
    for name in ("low-a", "low-b"):
        cp.client.create(gpu_pod(name))
    cp.advance(1)
    stall = Stall(cp)
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(1)  # the victim is gone, its claim still allocated
    label(cp, "node-0")  # an event DynamicResources registers: "high" is tried again meanwhile
    cp.advance(2)
    now = pods(cp)
    [kept] = [n for n in now if n.startswith("low-")]  # the victim is gone (the later started)
    assert now[kept].metadata.deletion_timestamp is None  # no second victim
    assert now["high"].status.nominated_node_name == "node-0"
    assert now["high"].status.condition("PodScheduled").message.endswith(NOT_ELIGIBLE)
    stall.release()
    cp.advance(30)
    now = pods(cp)
    assert now["high"].status.phase == "Running" and now[kept].status.phase == "Running"


def test_deleting_the_preemptor_wakes_the_pods_the_held_device_kept_out() -> None:
    """The victim claim is deallocated (t3) while the preemptor, no longer fitting for cpu, still
    holds the device: a pod tried then is rejected. Deleting the preemptor changes no claim; the
    synthetic claim event of ``RemoveNominatedPod`` wakes the rejected pod."""
    cp = cluster()
    shared_claim(cp, "spare")
    stall = preempted(cp, cpu="1")
    hog = plain("hog", cpu="8")  # as important as "high", bound by hand: "high" no longer fits
    hog.spec.node_name, hog.spec.priority_class_name = "node-0", "high"
    cp.client.create(hog)
    cp.advance(0.2)
    label(cp, "node-0")  # "high" is tried again: Insufficient cpu, and not eligible to preempt
    cp.advance(0.2)
    assert pods(cp)["high"].status.nominated_node_name == "node-0"
    stall.release()
    deallocate(cp, "low")
    cp.client.create(gpu_pod("other", claim="spare"))
    cp.advance(2)
    assert pods(cp)["other"].spec.node_name is None  # the free device is held for "high"
    cp.client.delete(Pod, "high", "default")
    cp.advance(3)
    now = pods(cp)
    assert "high" not in now
    assert now["other"].status.phase == "Running"


def plain(name: str, cpu: str) -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "10000"],
                        "resources": {"requests": {"cpu": cpu}}}]}})


def test_a_higher_priority_pod_may_take_the_held_device() -> None:
    cp = cluster()
    cp.client.create(PriorityClass.model_validate({"metadata": {"name": "top"}, "value": 5000}))
    shared_claim(cp, "spare")
    stall = preempted(cp)
    stall.release()
    deallocate(cp, "low")
    top = gpu_pod("top", claim="spare")
    top.spec.priority_class_name = "top"
    cp.client.create(top)
    cp.advance(5)
    now = pods(cp)
    assert now["top"].status.phase == "Running"
    assert now["high"].spec.node_name is None  # it must preempt again: "top" is more important


def test_a_device_published_for_all_nodes_is_not_freed_by_preemption() -> None:
    cp = cluster(nodes=0)
    create_nodes(cp, 1, NodeTemplate())
    cp.client.create(ResourceSlice.model_validate({
        "metadata": {"name": "network-gpus"},
        "spec": {"driver": "gpu.example.com", "allNodes": True,
                 "pool": {"name": "network", "generation": 1, "resourceSliceCount": 1},
                 "devices": [{"name": "gpu-0"}]},
    }))
    cp.client.create(gpu_pod("low"))
    cp.advance(1)
    assert pods(cp)["low"].status.phase == "Running"
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(3)
    now = pods(cp)
    assert now["low"].metadata.deletion_timestamp is None  # KEP-5690: node-local devices only
    message = now["high"].status.condition("PodScheduled").message
    assert message.endswith("preemption: 0/1 nodes are available: 1 cannot allocate all claims.")
