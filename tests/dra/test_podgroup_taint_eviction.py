"""Device taint eviction of pods using a claim reserved for their PodGroup (KEP-5729, gate
``DRAWorkloadResourceClaims``; "Finding Pods Using a ResourceClaim": the controller looks up the pods
of a PodGroup in ``reservedFor``, and a pod may use such a claim when the reference names its
``spec.schedulingGroup.podGroupName``; upstream's e2e "DeviceTaintRule evicts pod with PodGroup
claim", ``test/e2e/dra/dra.go``)."""

from __future__ import annotations

from typing import Any

from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import DeviceTaint, DeviceTaintRule, ResourceSlice

from .test_podgroup_claims import ON, claims, pod_group, pods
from .test_preemption import cluster, gpu_pod, shared_claim


def member(name: str, group: str = "g", claim: str = "", grace: int = 30) -> Pod:
    body = gpu_pod(name, claim=claim, grace=grace).to_dict()
    body["spec"]["schedulingGroup"] = {"podGroupName": group}
    return Pod.model_validate(body)


def taint_rule(device: str = "gpu-0") -> DeviceTaintRule:
    taint: dict[str, Any] = {"key": "broken", "effect": "NoExecute"}
    return DeviceTaintRule.model_validate({"metadata": {"name": "broken"}, "spec": {
        "deviceSelector": {"device": device}, "taint": taint}})


def evicted(pod: Pod) -> bool:
    condition = pod.status.condition("DisruptionTarget")
    return condition is not None and condition.reason == "DeletionByDeviceTaintManager"


def test_a_noexecute_taint_on_the_groups_device_evicts_every_member() -> None:
    cp = cluster(gpus=2, gates=ON)
    cp.client.create(pod_group())
    for name in ("a", "b"):
        cp.client.create(member(name))
    cp.advance(3)
    [claim] = claims(cp).values()
    assert claim.status.reserved_for[0].resource == "podgroups"
    assert {p.status.phase for p in pods(cp).values()} == {"Running"}
    cp.client.create(taint_rule())
    cp.advance(1)
    now = pods(cp)
    assert all(evicted(p) and p.metadata.deletion_timestamp is not None for p in now.values())


def test_a_named_group_claim_evicts_its_members_and_not_a_pod_outside_the_group() -> None:
    cp = cluster(gpus=2, gates=ON)
    shared_claim(cp, "shared")
    cp.client.create(pod_group(claims=[{"name": "gpu", "resourceClaimName": "shared"}]))
    for name in ("a", "b"):
        cp.client.create(member(name, claim="shared"))
    cp.client.create(gpu_pod("own"))  # its own claim, on gpu-1
    cp.advance(3)
    assert {p.status.phase for p in pods(cp).values()} == {"Running"}
    cp.client.create(taint_rule(device="gpu-0"))
    cp.advance(1)
    now = pods(cp)
    assert evicted(now["a"]) and evicted(now["b"])
    assert not evicted(now["own"]) and now["own"].metadata.deletion_timestamp is None


def test_a_member_of_another_group_is_not_evicted_through_a_claim_it_does_not_hold() -> None:
    cp = cluster(gpus=2, gates=ON)
    cp.client.create(pod_group())
    cp.client.create(pod_group(name="h"))
    for name, group in (("a", "g"), ("b", "g"), ("c", "h"), ("d", "h")):
        cp.client.create(member(name, group=group))
    cp.advance(3)
    by_group = {c.status.reserved_for[0].name: c for c in claims(cp).values()}
    device = by_group["g"].status.allocation.devices.results[0].device
    cp.client.create(taint_rule(device=device))
    cp.advance(1)
    now = pods(cp)
    assert evicted(now["a"]) and evicted(now["b"])
    assert not evicted(now["c"]) and not evicted(now["d"])


def test_a_taint_the_driver_publishes_on_the_groups_device_evicts_every_member() -> None:
    """The slice's own taint: the slice event queues the pods of the claims from its pool, the
    group's members among them (looked up by their PodGroup)."""
    cp = cluster(gpus=2, gates=ON)
    cp.client.create(pod_group())
    for name in ("a", "b"):
        cp.client.create(member(name))
    cp.advance(3)
    [slice_] = [s for s in cp.client.list(ResourceSlice).items if s.spec.devices]
    slice_ = edit(slice_)
    device = next(d for d in slice_.spec.devices if d.name == "gpu-0")
    device.taints = [DeviceTaint(key="broken", effect="NoExecute")]
    cp.client.update(slice_)
    cp.advance(1)
    assert all(evicted(p) for p in pods(cp).values())
