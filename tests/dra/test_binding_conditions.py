"""Device binding conditions (KEP-5007, ``DRADeviceBindingConditions``, beta and on by default in 1.37)
end to end on a control plane: the scheduler's DynamicResources PreBind waits, in virtual time, until
every binding condition of the allocated devices is True in the claim's ``status.devices``, fails on a
binding failure condition or after ``bindingTimeout`` (600 s), and the pod is bound only after that.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`` (``PreBind``,
``bindClaim``, ``isPodReadyForBinding``, ``isClaimReadyForBinding``, ``isClaimTimeout``); KEP
kubernetes/enhancements ``keps/sig-scheduling/5007-device-attach-before-pod-scheduled``."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceSlice
from kbatch.sim.nodes import create_nodes

DRIVER = "fabric.example.com"


def cluster(binding_failure: bool = True, nodes: int = 1) -> ControlPlane:
    cp = ControlPlane(seed=0)
    create_nodes(cp, nodes)
    cp.client.create(
        DeviceClass.model_validate(
            {
                "metadata": {"name": "fabric"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
            }
        )
    )
    device: dict[str, Any] = {"name": "gpu-0", "bindingConditions": ["Attached"]}
    if binding_failure:
        device["bindingFailureConditions"] = ["AttachFailed"]
    cp.client.create(
        ResourceSlice.model_validate(
            {
                "metadata": {"name": "node-0-fabric"},
                "spec": {
                    "driver": DRIVER,
                    "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1},
                    "nodeName": "node-0",
                    "devices": [device],
                },
            }
        )
    )
    cp.client.create(
        ResourceClaim.model_validate(
            {
                "metadata": {"name": "c", "namespace": "default"},
                "spec": {
                    "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "fabric"}}]}
                },
            }
        )
    )
    cp.client.create(
        Pod.model_validate(
            {
                "metadata": {"name": "p", "namespace": "default"},
                "spec": {
                    "containers": [
                        {"name": "c", "image": "busybox", "resources": {"claims": [{"name": "gpu"}]}}
                    ],
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}],
                },
            }
        )
    )
    cp.advance(1)
    return cp


def pod(cp: ControlPlane) -> Pod:
    return cp.client.get(Pod, "p", "default")


def claim(cp: ControlPlane) -> ResourceClaim:
    return cp.client.get(ResourceClaim, "c", "default")


def set_condition(cp: ControlPlane, type_: str, status: str = "True", reason: str = "Done",
                  message: str = "") -> None:
    """A driver (here: the test) reports the device's condition in the claim's status."""
    now = "2026-01-01T00:00:00Z"
    condition = {"type": type_, "status": status, "reason": reason, "message": message,
                 "lastTransitionTime": now}
    cp.client.patch_status(
        ResourceClaim, "c",
        {"status": {"devices": [{"driver": DRIVER, "pool": "node-0", "device": "gpu-0",
                                 "conditions": [condition]}]}},
        "default", patch_type="merge",
    )


def events(cp: ControlPlane) -> list[tuple[str, str, str]]:
    return [(e.type, e.reason, e.message) for e in cp.client.list(Event, "default").items
            if e.involved_object.name == "p"]


def test_prebind_waits_for_the_binding_conditions_then_binds() -> None:
    cp = cluster()
    allocated = claim(cp)
    result = allocated.status.allocation.devices.results[0]
    assert result.binding_conditions == ["Attached"]
    assert result.binding_failure_conditions == ["AttachFailed"]
    assert allocated.status.allocation.allocation_timestamp is not None  # upstream bindClaim
    assert [r.name for r in allocated.status.reserved_for] == ["p"]
    assert pod(cp).spec.node_name is None  # PreBind has not finished: not bound
    assert ("Normal", "BindingConditionsPending",
            "waiting for binding conditions for device on node node-0") in events(cp)
    cp.advance(100)
    assert pod(cp).spec.node_name is None
    set_condition(cp, "Attached")
    cp.advance(5)  # the next poll (every 5 s)
    assert pod(cp).spec.node_name == "node-0"
    assert pod(cp).status.condition("PodScheduled").status == "True"


def test_a_false_binding_condition_keeps_the_pod_waiting() -> None:
    cp = cluster()
    set_condition(cp, "Attached", status="False", reason="Attaching")
    cp.advance(50)
    assert pod(cp).spec.node_name is None


def test_a_true_binding_failure_condition_fails_prebind() -> None:
    """PreBind's error: Unreserve, a scheduler error (back-off), reason SchedulerError."""
    cp = cluster()
    set_condition(cp, "AttachFailed", reason="NoFabric", message="fabric is full")
    cp.advance(5)
    message = 'claim c binding failed: reason=NoFabric, message="fabric is full"'
    assert ("Warning", "FailedScheduling", message) in events(cp)
    scheduled = pod(cp).status.condition("PodScheduled")
    assert (scheduled.status, scheduled.reason, scheduled.message) == ("False", "SchedulerError", message)
    assert pod(cp).spec.node_name is None
    # Unreserve took the pod out of reservedFor; the claim stays allocated (upstream PostFilter
    # would deallocate it; kbatch does not model that)
    assert not claim(cp).status.reserved_for
    assert claim(cp).status.allocation is not None


DEALLOCATED = ("0/1 nodes are available: 1 resourceclaim not available on the node. deallocation of "
               "ResourceClaim completed, preemption: 0/1 nodes are available: 1 Preemption is not helpful "
               "for scheduling.")


def test_prebind_times_out_after_the_binding_timeout() -> None:
    """The poll's timeout fails PreBind; the retry finds the claim timed out and unready ("not
    available on the node"), PostFilter deallocates it (upstream rows ``bound-claim-with-timed-out-
    binding``), and the attempt after that allocates it anew and waits again."""
    cp = cluster()
    cp.advance(594)
    assert pod(cp).spec.node_name is None
    first = claim(cp).status.allocation.allocation_timestamp
    assert claim(cp).status.reserved_for
    assert not [e for e in events(cp) if e[1] == "FailedScheduling"]
    cp.advance(10)
    assert pod(cp).spec.node_name is None
    assert ("Warning", "FailedScheduling", "device binding timeout") in events(cp)
    assert ("Warning", "FailedScheduling", DEALLOCATED) in events(cp)
    again = claim(cp).status
    assert again.allocation.allocation_timestamp > first  # deallocated, then allocated anew
    assert [r.name for r in again.reserved_for] == ["p"]


def test_a_claim_whose_binding_failed_is_deallocated_and_allocated_anew() -> None:
    """Upstream Filter: an allocated claim whose binding failed is "not available on the node";
    PostFilter clears its allocation, reservation and device statuses (row
    ``bound-claim-with-failed-binding``), and the next attempt allocates it again."""
    cp = cluster()
    set_condition(cp, "AttachFailed", reason="NoFabric", message="fabric is full")
    cp.advance(30)
    assert pod(cp).spec.node_name is None
    assert ("Warning", "FailedScheduling", DEALLOCATED) in events(cp)
    status = claim(cp).status
    assert status.devices is None  # the failure condition went with the allocation
    assert status.allocation is not None and [r.name for r in status.reserved_for] == ["p"]
    set_condition(cp, "Attached")
    cp.advance(10)
    assert pod(cp).spec.node_name == "node-0"


def test_devices_without_binding_conditions_bind_at_once() -> None:
    cp = ControlPlane(seed=0)
    create_nodes(cp, 1)
    cp.client.create(DeviceClass.model_validate(
        {"metadata": {"name": "fabric"},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}))
    cp.client.create(ResourceSlice.model_validate(
        {"metadata": {"name": "s"},
         "spec": {"driver": DRIVER, "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1},
                  "nodeName": "node-0", "devices": [{"name": "gpu-0"}]}}))
    cp.client.create(ResourceClaim.model_validate(
        {"metadata": {"name": "c", "namespace": "default"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "fabric"}}]}}}))
    cp.client.create(Pod.model_validate(
        {"metadata": {"name": "p", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "busybox"}],
                  "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]}}))
    start = cp.now()
    cp.advance(1)
    assert pod(cp).spec.node_name == "node-0"
    assert not [e for e in events(cp) if e[1] == "BindingConditionsPending"]
    # bindClaim stamps the allocation it writes whether or not its devices have binding conditions
    allocation = cp.client.get(ResourceClaim, "c", "default").status.allocation
    assert allocation is not None and allocation.allocation_timestamp == start  # scheduled at once


def test_a_pod_deleted_while_prebind_waits_is_not_scheduled_again() -> None:
    """Upstream: the binding goroutine polls on until it fails; handleSchedulingFailure records the
    event, then finds the pod gone from the informer cache and does not queue it again."""
    cp = cluster()
    cp.client.delete(Pod, "p", "default")
    cp.advance(700)
    counted = [(e.reason, e.message, e.count or 1) for e in cp.client.list(Event, "default").items
               if e.involved_object.name == "p"]
    assert counted == [
        ("BindingConditionsPending", "waiting for binding conditions for device on node node-0", 1),
        ("FailedScheduling", "device binding timeout", 1),
    ]  # no second attempt for the deleted pod (its events would be counted into the same ones)
    assert not claim(cp).status.reserved_for
