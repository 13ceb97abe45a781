"""DRA extended resources (KEP-5004, ``DRAExtendedResource`` GA in 1.37) end to end on a control plane:
a pod requesting ``example.com/gpu`` on nodes whose ResourceSlices publish devices of a class with
``extendedResourceName: example.com/gpu`` gets the scheduler's special claim and
``status.extendedResourceClaimStatus``; a node advertising the resource uses the device-plugin path."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import FINALIZER, DeviceClass, ResourceClaim
from kbatch.api.resource_v1.constants import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

GPU = "example.com/gpu"


def cluster(nodes: int = 2, gpus: int = 2, mapped: str = GPU) -> ControlPlane:
    cp = ControlPlane(seed=0)
    create_nodes(cp, nodes, NodeTemplate(devices=DeviceTemplate(count=gpus)))
    cp.client.create(DeviceClass.model_validate({
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                 "extendedResourceName": mapped},
    }))
    cp.run_until_idle()
    return cp


def pod(name: str, count: int = 2, resource: str = GPU, **extra: Any) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"restartPolicy": "Never", "containers": [{
            "name": "c", "image": "busybox", "command": ["sleep", "10"],
            "resources": {"limits": {resource: str(count)}}}], **extra},
    })


def claims(cp: ControlPlane) -> list[ResourceClaim]:
    return list(cp.client.list(ResourceClaim, "default").items)


def test_pod_requesting_mapped_extended_resource_runs_with_special_claim() -> None:
    cp = cluster()
    created = cp.client.create(pod("p"))
    cp.run_until_idle()
    got = cp.client.get(Pod, "p", "default")
    assert got.spec.node_name, got.status
    [claim] = claims(cp)
    meta = claim.metadata
    assert meta.name.startswith("p-extended-resources-")
    assert meta.generate_name == "p-extended-resources-"
    assert meta.annotations == {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"}
    [owner] = meta.owner_references
    assert (owner.kind, owner.name, owner.uid, owner.controller) == ("Pod", "p", created.metadata.uid, True)
    assert FINALIZER in (meta.finalizers or [])
    [request] = claim.spec.devices.requests
    assert request.name == "container-0-request-0"
    assert (request.exactly.device_class_name, request.exactly.count) == ("gpu", 2)
    results = claim.status.allocation.devices.results
    assert len(results) == 2 and {r.request for r in results} == {"container-0-request-0"}
    assert [r.uid for r in claim.status.reserved_for] == [created.metadata.uid]
    ext = got.status.extended_resource_claim_status
    assert ext.resource_claim_name == meta.name
    assert [(m.container_name, m.resource_name, m.request_name) for m in ext.request_mappings] == [
        ("c", GPU, "container-0-request-0")]
    cp.advance(30)
    cp.run_until_idle()
    assert cp.client.get(Pod, "p", "default").status.phase == "Succeeded"


def test_node_advertising_the_resource_uses_the_device_plugin_path() -> None:
    """Upstream fitsRequest / filterExtendedResources: a node with allocatable of the resource is
    checked by NodeResourcesFit; DynamicResources creates no claim there."""
    cp = ControlPlane(seed=0)
    create_nodes(cp, 1, NodeTemplate(extended={GPU: "4"}), prefix="plugin-")
    cp.client.create(DeviceClass.model_validate({"metadata": {"name": "gpu"},
                                                 "spec": {"extendedResourceName": GPU}}))
    cp.client.create(pod("p", count=3))
    cp.client.create(pod("q", count=3))
    cp.run_until_idle()
    assert cp.client.get(Pod, "p", "default").spec.node_name == "plugin-0"
    assert claims(cp) == []
    assert cp.client.get(Pod, "p", "default").status.extended_resource_claim_status is None
    q = cp.client.get(Pod, "q", "default")
    assert not q.spec.node_name
    [cond] = [c for c in q.status.conditions if c.type == "PodScheduled"]
    assert cond.message == "0/1 nodes are available: 1 Insufficient example.com/gpu. " \
        "still not schedulable, " \
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."


def test_not_enough_devices_leaves_the_pod_pending_with_upstreams_message() -> None:
    cp = cluster(nodes=2, gpus=2)
    cp.client.create(pod("p", count=3))
    cp.run_until_idle()
    got = cp.client.get(Pod, "p", "default")
    assert not got.spec.node_name
    [cond] = [c for c in got.status.conditions if c.type == "PodScheduled"]
    assert (cond.reason, cond.message) == (
        "Unschedulable",
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    )
    assert claims(cp) == []


def test_unmapped_resource_without_allocatable_is_insufficient() -> None:
    """Without a DeviceClass naming it, the resource is NodeResourcesFit's: Insufficient."""
    cp = cluster(mapped="example.com/other")
    cp.client.create(pod("p", count=1))
    cp.run_until_idle()
    got = cp.client.get(Pod, "p", "default")
    assert not got.spec.node_name
    [cond] = [c for c in got.status.conditions if c.type == "PodScheduled"]
    assert "Insufficient example.com/gpu" in cond.message


def test_implicit_device_class_name() -> None:
    """``deviceclass.resource.kubernetes.io/<class>`` maps to the class of that name."""
    cp = cluster(mapped="example.com/other")
    cp.client.create(pod("p", count=1, resource="deviceclass.resource.kubernetes.io/gpu"))
    cp.run_until_idle()
    assert cp.client.get(Pod, "p", "default").spec.node_name
    [claim] = claims(cp)
    assert claim.spec.devices.requests[0].exactly.device_class_name == "gpu"


def test_devices_are_not_shared_and_the_claim_goes_with_the_pod() -> None:
    cp = cluster(nodes=1, gpus=4)
    for name in ("a", "b", "c"):
        cp.client.create(pod(name, count=2))
    cp.run_until_idle()
    bound = {n for n in "abc" if cp.client.get(Pod, n, "default").spec.node_name}
    assert len(bound) == 2  # 4 devices, 2 each
    devices = [r.device for c in claims(cp) for r in c.status.allocation.devices.results]
    assert len(devices) == 4 == len(set(devices))
    first = sorted(bound)[0]
    cp.client.delete(Pod, first, "default")
    cp.advance(60)
    cp.run_until_idle()
    owners = {c.metadata.owner_references[0].name for c in claims(cp)}
    assert first not in owners
    assert all(cp.client.get(Pod, n, "default").spec.node_name for n in "abc" if n != first)


def test_kubelet_waits_for_the_special_claim() -> None:
    """The kubelet prepares the special claim as any claim: a claim not reserved for the pod keeps
    its containers from starting (upstream's FailedPrepareDynamicResources)."""
    from kbatch.controllers.dra.kubelet import unprepared_reason

    cp = cluster()
    cp.client.create(pod("p"))
    cp.run_until_idle()
    got = cp.client.get(Pod, "p", "default")
    assert unprepared_reason(cp.client, got) == ""
    [claim] = claims(cp)
    claim = edit(claim)
    claim.status.reserved_for = None
    cp.client.update_status(claim)
    name = claim.metadata.name
    assert unprepared_reason(cp.client, got) == f"claim default/{name} is not reserved for pod default/p"


def test_a_device_class_created_later_queues_the_pod_fit_rejected() -> None:
    """Without a class mapping it, the resource is Insufficient (NodeResourcesFit); the class's
    creation queues the pod again, and it runs with the special claim."""
    cp = ControlPlane(seed=0)
    create_nodes(cp, 1, NodeTemplate(devices=DeviceTemplate(count=2)))
    cp.client.create(pod("p", count=1))
    cp.run_until_idle()
    assert not cp.client.get(Pod, "p", "default").spec.node_name
    cp.client.create(DeviceClass.model_validate({
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                 "extendedResourceName": GPU},
    }))
    cp.run_until_idle()
    assert cp.client.get(Pod, "p", "default").spec.node_name
    assert len(claims(cp)) == 1


def test_fit_device_class_hint() -> None:
    """Upstream ``isSchedulableAfterDeviceClassEvent``'s rule: an update keeping the mapped
    name skips; an added class with the implicit name the pod requests queues; a class mapping a
    requested name queues; one mapping another name skips."""
    from kbatch.controllers.scheduler.events import QueueingHint
    from kbatch.controllers.scheduler.plugins.node_resources_fit import after_class_event
    from kbatch.controllers.scheduler.types import PodInfo

    def dc(name: str, mapped: str | None) -> DeviceClass:
        spec = {"extendedResourceName": mapped}
        return DeviceClass.model_validate({"metadata": {"name": name}, "spec": spec})

    wants = PodInfo("default", "p", requests={GPU: 1, "deviceclass.resource.kubernetes.io/gpu": 1})
    assert after_class_event(wants, dc("gpu", GPU), dc("gpu", GPU)) == QueueingHint.QUEUE_SKIP
    assert after_class_event(wants, None, dc("gpu", None)) == QueueingHint.QUEUE
    assert after_class_event(wants, None, dc("other", GPU)) == QueueingHint.QUEUE
    assert after_class_event(wants, dc("other", None), dc("other", GPU)) == QueueingHint.QUEUE
    assert after_class_event(wants, None, dc("other", "example.com/nic")) == QueueingHint.QUEUE_SKIP
    nic = dc("other", "example.com/nic")
    assert after_class_event(wants, dc("other", GPU), nic) == QueueingHint.QUEUE_SKIP


def leftover(cp: ControlPlane, created: Pod, **status: Any) -> None:
    """A special claim of an earlier attempt (with requests), as a failed clean-up leaves it."""
    cp.client.create(ResourceClaim.model_validate({
        "metadata": {"name": "p-extended-resources-old", "namespace": "default",
                     "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
                     "finalizers": [FINALIZER],
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                          "uid": created.metadata.uid, "controller": True}]},
        "spec": {"devices": {"requests": [{"name": "container-0-request-0",
                                           "exactly": {"deviceClassName": "gpu", "count": 2}}]}},
    }))


def schedule_with_leftover(cp: ControlPlane) -> Any:
    """Create pod ``p`` gated, give it a leftover special claim, ungate it: its PodScheduled
    condition once the scheduler is done (the pod is not bound)."""
    created = cp.client.create(pod("p", schedulingGates=[{"name": "hold"}]))
    leftover(cp, created)
    ungated = edit(cp.client.get(Pod, "p", "default"))
    ungated.spec.scheduling_gates = None
    cp.client.update(ungated)
    cp.run_until_idle()
    got = cp.client.get(Pod, "p", "default")
    assert not got.spec.node_name
    return got.status.condition("PodScheduled")


def test_postfilter_deletes_a_leftover_special_claim() -> None:
    """Upstream filterExtendedResources: the pod's special claim from an earlier attempt, with
    requests, is "cannot schedule extended resource claim" on every node; PostFilter then deletes it,
    finalizer first (rows ``extended-resource-name-with-resources-has-claim`` / ``-delete-claim``:
    "deletion of ResourceClaim completed"). No event of the deletion queues the pod (upstream
    registers claim adds and updates, and the claim is not one the pod names): the unschedulable
    pods' periodic flush (5 minutes) retries it, and the retry creates a claim of its own."""
    cp = cluster()
    cond = schedule_with_leftover(cp)
    assert cond.message == (
        "0/2 nodes are available: 2 cannot schedule extended resource claim. deletion of ResourceClaim "
        "completed, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
    assert claims(cp) == []  # the finalizer was removed, then the claim deleted
    cp.advance(301)
    cp.run_until_idle()
    got = cp.client.get(Pod, "p", "default")
    assert got.spec.node_name
    [claim] = claims(cp)
    assert claim.metadata.name == got.status.extended_resource_claim_status.resource_claim_name


def test_postfilter_deletion_failure_keeps_the_claim_and_reports_the_error() -> None:
    """A delete the API refuses leaves the claim, and the pod unschedulable with the error."""
    from kbatch.api.errors import Forbidden

    cp = cluster()
    client = cp.controller_client("scheduler")

    def refuse(*args: Any, **kw: Any) -> Any:
        raise Forbidden("injected")

    client.delete = refuse  # type: ignore[method-assign]
    cond = schedule_with_leftover(cp)
    assert "injected" in cond.message
    [claim] = claims(cp)
    assert claim.metadata.name == "p-extended-resources-old" and not claim.metadata.finalizers


def test_a_failed_status_patch_deletes_the_created_claim_and_the_pod_retries() -> None:
    """Upstream PreBind fails when the pod's status cannot be patched; Unreserve
    (unreserveExtendedResourceClaim) deletes the claim PreBind created, finalizer first; the next
    attempt creates a new one."""
    from kbatch.api.errors import Conflict

    cp = cluster()
    client = cp.controller_client("scheduler")
    real = client.patch_status
    failures = [1]

    def flaky(kind: Any, name: str, body: Any, *args: Any, **kw: Any) -> Any:
        if kind is Pod and "extendedResourceClaimStatus" in body.get("status", {}) and failures:
            failures.pop()
            raise Conflict("injected")
        return real(kind, name, body, *args, **kw)

    client.patch_status = flaky  # type: ignore[method-assign]
    cp.client.create(pod("p"))
    cp.run_until_idle()
    cp.advance(30)
    cp.run_until_idle()
    assert not failures  # the fault fired
    got = cp.client.get(Pod, "p", "default")
    assert got.spec.node_name
    [claim] = claims(cp)  # the first attempt's claim is gone, only the retry's remains
    assert claim.metadata.name == got.status.extended_resource_claim_status.resource_claim_name


def test_a_bigger_node_queues_a_pod_fit_rejected_for_cpu_at_once() -> None:
    """NodeResourcesFit's node hint (upstream ``isSchedulableAfterNodeChange`` with the DRA manager:
    ``isFit`` leaves a DeviceClass-mapped resource to DynamicResources): a pod short of cpu everywhere
    is queued by the addition of a node with room, though that node advertises no ``example.com/gpu``
    itself; it does not wait for the 5-minute flush."""
    cp = cluster(nodes=1, gpus=2)  # nodes of 8 cpus
    cp.client.create(Pod.model_validate({
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"restartPolicy": "Never", "containers": [{
            "name": "c", "image": "busybox", "command": ["sleep", "10"],
            "resources": {"requests": {"cpu": "12"}, "limits": {GPU: "1"}}}]},
    }))
    cp.run_until_idle()
    assert not cp.client.get(Pod, "big", "default").spec.node_name
    create_nodes(cp, 1, NodeTemplate(cpu="16", devices=DeviceTemplate(count=2)), prefix="large-")
    cp.advance(1)
    assert cp.client.get(Pod, "big", "default").spec.node_name == "large-0"
