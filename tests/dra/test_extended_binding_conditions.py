"""Binding conditions (KEP-5007, ``DRADeviceBindingConditions``, beta and on in 1.37) on the devices
of the special claim for extended resources backed by DRA (KEP-5004): upstream's PreBind waits for
every claim in its state, and the special claim PreBind created is one of them
(``isPodReadyForBinding`` over ``state.claims``); a failure unreserves the pod, and Unreserve deletes
that claim (a real name: ``deleteClaim``), so the retry starts from a new one.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`` (``PreBind``,
``Unreserve``) and ``extendeddynamicresources.go``."""

from __future__ import annotations

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceSlice
from kbatch.sim.nodes import create_nodes

DRIVER = "fabric.example.com"
GPU = "example.com/gpu"


def cluster() -> ControlPlane:
    cp = ControlPlane(seed=0)
    create_nodes(cp, 1)
    cp.client.create(DeviceClass.model_validate({
        "metadata": {"name": "fabric"},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}],
                 "extendedResourceName": GPU},
    }))
    device = {"name": "gpu-0", "bindingConditions": ["Attached"],
              "bindingFailureConditions": ["AttachFailed"]}
    cp.client.create(ResourceSlice.model_validate({
        "metadata": {"name": "node-0-fabric"},
        "spec": {"driver": DRIVER, "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1},
                 "nodeName": "node-0", "devices": [device]},
    }))
    cp.client.create(Pod.model_validate({
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"restartPolicy": "Never", "containers": [{
            "name": "c", "image": "busybox", "command": ["sleep", "10"],
            "resources": {"limits": {GPU: "1"}}}]},
    }))
    cp.advance(1)
    return cp


def special(cp: ControlPlane) -> list[ResourceClaim]:
    return list(cp.client.list(ResourceClaim, "default").items)


def set_condition(cp: ControlPlane, name: str, type_: str) -> None:
    condition = {"type": type_, "status": "True", "reason": "Done", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}
    cp.client.patch_status(ResourceClaim, name, {"status": {"devices": [
        {"driver": DRIVER, "pool": "node-0", "device": "gpu-0", "conditions": [condition]}]}},
        "default", patch_type="merge")


def events(cp: ControlPlane) -> list[tuple[str, str]]:
    return [(e.reason, e.message) for e in cp.client.list(Event, "default").items
            if e.involved_object.kind == "Pod"]


def pod(cp: ControlPlane) -> Pod:
    return cp.client.get(Pod, "p", "default")


def test_prebind_waits_for_the_special_claims_binding_conditions() -> None:
    cp = cluster()
    [claim] = special(cp)
    assert [r.binding_conditions for r in claim.status.allocation.devices.results] == [["Attached"]]
    assert [r.name for r in claim.status.reserved_for] == ["p"]
    pending = ("BindingConditionsPending", "waiting for binding conditions for device on node node-0")
    assert pending in events(cp)
    cp.advance(60)
    assert pod(cp).spec.node_name is None  # still waiting
    set_condition(cp, claim.metadata.name, "Attached")
    cp.advance(5)
    got = pod(cp)
    assert got.spec.node_name == "node-0"
    assert got.status.extended_resource_claim_status.resource_claim_name == claim.metadata.name


def test_a_failed_binding_deletes_the_special_claim_and_the_retry_makes_a_new_one() -> None:
    cp = cluster()
    [first] = special(cp)
    set_condition(cp, first.metadata.name, "AttachFailed")
    cp.advance(5)
    assert pod(cp).spec.node_name is None
    failed = f'claim {first.metadata.name} binding failed: reason=Done, message=""'
    assert ("FailedScheduling", failed) in events(cp)
    names = [c.metadata.name for c in special(cp)]
    assert first.metadata.name not in names  # Unreserve deleted it (finalizer first)
    cp.advance(30)  # back-off, then a new attempt: a new special claim, waiting again
    [second] = special(cp)
    assert second.metadata.name != first.metadata.name
    assert [r.name for r in second.status.reserved_for] == ["p"]
    set_condition(cp, second.metadata.name, "Attached")
    cp.advance(5)
    assert pod(cp).spec.node_name == "node-0"


def test_binding_timeout_of_the_special_claim() -> None:
    cp = cluster()
    cp.advance(605)
    assert ("FailedScheduling", "device binding timeout") in events(cp)
    assert pod(cp).spec.node_name is None
