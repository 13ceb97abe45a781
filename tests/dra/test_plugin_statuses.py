"""The DynamicResources plugin's statuses as the pod's PodScheduled condition shows them (after
upstream ``pkg/scheduler/framework/plugins/dynamicresources``: ``statusUnschedulable`` is
UnschedulableAndUnresolvable, so preemption is "not helpful" for such nodes; a missing DeviceClass
stops the pod in PreFilter; an invalid pool fails only the node it is on)."""

from __future__ import annotations

from typing import Any

from kbatch.api.resource_v1 import (
    RESERVED_FOR_MAX_SIZE,
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kbatch.controllers.dra.dynamicresources import DynamicResources
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.profiles import Handle
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import PodInfo

from .builders import DRIVER, exactly, make_claim
from .test_lifecycle import cluster, gpu_pod, pods


def _scheduled(cp: Any, name: str) -> tuple[str, str]:
    condition = pods(cp)[name].status.condition("PodScheduled")
    return condition.reason, condition.message


def test_cannot_allocate_all_claims_is_unresolvable() -> None:
    # upstream dynamicresources_test.go "no-resources": Filter is UnschedulableAndUnresolvable
    # `cannot allocate all claims`, so DefaultPreemption finds preemption not helpful on the node
    cp = cluster(nodes=2, gpus=1)
    for name in ("first", "other"):
        cp.client.create(gpu_pod(name, seconds=100))
    cp.advance(1)
    cp.client.create(gpu_pod("second"))
    cp.advance(1)
    assert _scheduled(cp, "second") == (
        "Unschedulable",
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    )


def _template(name: str, device_class: str) -> ResourceClaimTemplate:
    request = {"name": "gpu", "exactly": {"deviceClassName": device_class}}
    return ResourceClaimTemplate.model_validate(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [request]}}},
        }
    )


def test_a_missing_device_class_keeps_the_pod_unschedulable_until_it_is_created() -> None:
    # upstream dynamicresources.go PreFilter validateDeviceClass: a class that does not exist is
    # UnschedulableAndUnresolvable "request <name>: device class <class> does not exist" (the pod
    # waits for a DeviceClass event), not an error of the allocator in Filter
    cp = cluster(nodes=2, gpus=1)
    cp.client.create(_template("later", "later"))
    cp.client.create(gpu_pod("p", resourceClaimTemplateName="later"))
    cp.advance(2)
    reason, message = _scheduled(cp, "p")
    assert reason == "Unschedulable"
    assert message.startswith("0/2 nodes are available: request gpu: device class later does not exist.")
    cp.client.create(DeviceClass.model_validate({"metadata": {"name": "later"}}))
    cp.advance(2)
    assert pods(cp)["p"].status.phase == "Running"


def _slice(name: str, node: str, devices: list[str]) -> ResourceSlice:
    return ResourceSlice.model_validate(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": node,
                "pool": {"name": f"{node}-broken", "generation": 1, "resourceSliceCount": 2},
                "devices": [{"name": d} for d in devices],
            },
        }
    )


def test_an_invalid_pool_fails_only_its_node() -> None:
    # upstream allocator_incubating.go Allocate: "invalid resource pools were encountered" wraps
    # ErrFailedAllocationOnNode, which Filter turns into an UnschedulableAndUnresolvable status for
    # that node (allocator_testing.go "invalid-pool-is-error-if-no-other-device-can-be-allocated");
    # the pod still goes to a node that can allocate it
    cp = cluster(nodes=2, gpus=1)
    cp.client.create(gpu_pod("busy", seconds=1000))
    cp.advance(1)
    busy_node = pods(cp)["busy"].spec.node_name
    cp.client.create(_slice("dup-a", busy_node, ["x"]))
    cp.client.create(_slice("dup-b", busy_node, ["x"]))  # the same device name twice: invalid
    cp.client.create(gpu_pod("p", seconds=1000))
    cp.advance(2)
    placed = pods(cp)["p"]
    assert placed.status.phase == "Running" and placed.spec.node_name != busy_node
    cp.client.create(gpu_pod("q", seconds=1000))
    cp.advance(2)
    assert _scheduled(cp, "q") == (
        "Unschedulable",
        "0/2 nodes are available: 1 cannot allocate all claims, 1 invalid resource pools were encountered. "
        "still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    )


def _allocated(claim: ResourceClaim, reserved_for: list[Any] | None = None) -> ResourceClaim:
    result = {"request": "gpu", "driver": DRIVER, "pool": "p", "device": "d"}
    status = {"allocation": {"devices": {"results": [result]}}, "reservedFor": reserved_for}
    body = claim.model_dump(by_alias=True, exclude_none=True)
    return ResourceClaim.model_validate({**body, "status": status})


def _pre_filter(claim: Any, *, in_flight: Any = None) -> Any:
    """PreFilter of a pod using ``claim`` (by name), on a plugin whose world knows the claim and
    assumes ``in_flight`` (an allocation) for it."""
    plugin = DynamicResources(Handle(client=None))
    plugin.world.set_class(DeviceClass.model_validate({"metadata": {"name": "gpu"}}))
    plugin.world.set_claim(claim)
    if in_flight is not None:
        plugin.world.assume(claim, in_flight)
    pod = PodInfo("default", "p", uid="uid-p", resource_claims=(("gpu", claim.metadata.name, ""),))
    return plugin.pre_filter({}, pod, Snapshot())


def test_a_claim_being_allocated_for_another_pod_is_unresolvable() -> None:
    # upstream dynamicresources.go PreFilter: ClaimHasPendingAllocation -> statusUnschedulable
    # (UnschedulableAndUnresolvable) "resource claim <ns>/<name> is in the process of being allocated"
    claim = make_claim("c", exactly("gpu"))
    status = _pre_filter(claim, in_flight=_allocated(claim).status.allocation)
    assert (status.code, status.reasons) == (
        Code.UNRESOLVABLE,
        ("resource claim default/c is in the process of being allocated",),
    )


def test_a_claim_reserved_for_the_maximum_of_consumers_is_in_use() -> None:
    # upstream dynamicresources.go PreFilter (dynamicresources_test.go "in-use-by-other"): an
    # allocated claim that cannot be reserved for one more pod is UnschedulableAndUnresolvable
    # "resourceclaim in use"
    consumers = [{"resource": "pods", "name": f"p{i}", "uid": f"u{i}"} for i in range(RESERVED_FOR_MAX_SIZE)]
    status = _pre_filter(_allocated(make_claim("c", exactly("gpu")), consumers))
    assert (status.code, status.reasons) == (Code.UNRESOLVABLE, ("resourceclaim in use",))


def test_score_prefers_the_node_where_an_earlier_subrequest_fits() -> None:
    # upstream dynamicresources.go Score/computeScore: each firstAvailable request scores
    # FirstAvailableDeviceRequestMaxSize (8) minus the index of the subrequest allocated on the node,
    # normalized with DefaultNormalizeScore; here it outweighs NodeResourcesFit's slight preference
    # for the emptier node
    from kbatch import ControlPlane
    from kbatch.api.core_v1 import Pod
    from kbatch.sim.devices import DeviceTemplate
    from kbatch.sim.nodes import NodeTemplate, create_nodes

    cp = ControlPlane(seed=0)
    create_nodes(cp, 1, NodeTemplate(devices=DeviceTemplate(count=1, model="A100")), prefix="a100-")
    create_nodes(cp, 1, NodeTemplate(devices=DeviceTemplate(count=1, model="H100")), prefix="h100-")
    cp.client.create(DeviceClass.model_validate({"metadata": {"name": "gpu"}}))
    h100 = [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "H100"'}}]
    request = {
        "name": "gpu",
        "firstAvailable": [
            {"name": "h100", "deviceClassName": "gpu", "selectors": h100},
            {"name": "any", "deviceClassName": "gpu"},
        ],
    }
    cp.client.create(
        ResourceClaimTemplate.model_validate(
            {
                "metadata": {"name": "prefer-h100", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [request]}}},
            }
        )
    )
    busy = Pod.model_validate(
        {
            "metadata": {"name": "busy", "namespace": "default"},
            "spec": {
                "nodeName": "h100-0",
                "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}],
            },
        }
    )
    cp.client.create(busy)
    cp.advance(1)
    pod = gpu_pod("p", seconds=100, resourceClaimTemplateName="prefer-h100")
    pod.spec.containers[0].resources.requests = {"cpu": "100m"}
    cp.client.create(pod)
    cp.advance(2)
    placed = pods(cp)["p"]
    assert placed.spec.node_name == "h100-0"


def test_pre_enqueue_waits_for_usable_claims() -> None:
    # upstream dynamicresources_test.go "missing-claim", "deleted-claim", "wrong-claim": PreEnqueue is
    # UnschedulableAndUnresolvable with resourceclaim.Name's / IsForPod's words
    plugin = DynamicResources(Handle(client=None))
    template_pod = PodInfo("default", "my-pod", uid="1234", resource_claims=(("my-resource", "", "tmpl"),))
    status = plugin.pre_enqueue(template_pod)
    assert (status.code, status.reasons) == (
        Code.UNRESOLVABLE,
        ('pod "default/my-pod": ResourceClaim not created yet',),
    )
    generated = make_claim("my-pod-my-resource", exactly("gpu"))
    body = generated.model_dump(by_alias=True, exclude_none=True)
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": "other", "controller": True}
    body["metadata"]["ownerReferences"] = [owner]
    plugin.world.set_claim(ResourceClaim.model_validate(body))
    recorded = PodInfo(
        "default",
        "my-pod",
        uid="1234",
        resource_claims=(("my-resource", "", "tmpl"),),
        claim_statuses=(("my-resource", "my-pod-my-resource"),),
    )
    status = plugin.pre_enqueue(recorded)
    assert status.reasons == (
        "ResourceClaim default/my-pod-my-resource was not created for Pod default/my-pod (Pod is not owner)",
    )
    body["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    body["metadata"]["finalizers"] = ["x"]
    plugin.world.set_claim(ResourceClaim.model_validate(body))
    status = plugin.pre_enqueue(recorded)
    assert status.reasons == ('resourceclaim "my-pod-my-resource" is being deleted',)
