"""What reaches the device-taint-eviction controller, as upstream's handlers decide
(``pkg/controller/devicetainteviction/device_taint_eviction.go``: ``handlePodChange`` skips pod updates
that change neither ``spec.nodeName`` nor ``status.resourceClaimStatuses``; ``handleClaimChange``
skips a claim unallocated before and after; ``handleSliceChange`` acts only on changed ``NoExecute``
device taints, for the claims using the pool's devices)."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim, ResourceSlice
from kbatch.controllers.dra.devicetainteviction.handlers import (
    CLAIM_ALLOCATED,
    POD_CLAIMS_CHANGED,
    SLICE_TAINTS_CHANGED,
)
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.reconcile import Request

from .test_lifecycle import cluster, gpu_pod, pods

DTE = "device-taint-eviction"


def _reconciles(cp: ControlPlane) -> int:
    cp.run_until_idle()
    return cp.manager.get(DTE).reconciles


def _running(cp: ControlPlane, *names: str) -> None:
    for name in names:
        cp.client.create(gpu_pod(name, seconds=1000))
    cp.advance(2)
    assert all(pods(cp)[n].status.phase == "Running" for n in names)


def _slice_of(cp: ControlPlane, node: str) -> ResourceSlice:
    return next(s for s in cp.client.list(ResourceSlice).items if s.spec.node_name == node)


def test_a_pod_status_update_is_not_reconciled() -> None:
    cp = cluster(nodes=1, gpus=1)
    _running(cp, "p0")
    before = _reconciles(cp)
    cp.client.patch(Pod, "p0", {"metadata": {"labels": {"touch": "1"}}}, "default")
    cp.client.patch_status(Pod, "p0", {"status": {"conditions": [
        {"type": "example.com/probe", "status": "True"}]}}, "default", patch_type="strategic")
    assert _reconciles(cp) == before


def test_a_slice_update_without_taint_changes_is_not_reconciled() -> None:
    cp = cluster(nodes=1, gpus=1)
    _running(cp, "p0")
    before = _reconciles(cp)
    name = _slice_of(cp, pods(cp)["p0"].spec.node_name).metadata.name
    cp.client.patch(ResourceSlice, name, {"metadata": {"labels": {"touch": "1"}}})
    assert _reconciles(cp) == before


def test_a_slice_queues_only_the_pods_of_claims_from_its_pool() -> None:
    cp = cluster(nodes=2, gpus=1)
    _running(cp, "p0", "p1")
    node = pods(cp)["p0"].spec.node_name
    controller = cp.manager.get(DTE).reconciler  # type: ignore[attr-defined]
    assert controller.pool_pods(_slice_of(cp, node)) == [Request("default", "p0")]


def test_the_predicates_pass_what_upstream_handles() -> None:
    cp = cluster(nodes=1, gpus=1)
    _running(cp, "p0")
    pod = pods(cp)["p0"]
    moved = pod.model_copy(update={"spec": pod.spec.model_copy(update={"node_name": "elsewhere"})})
    assert not POD_CLAIMS_CHANGED.update(pod, pod)
    assert POD_CLAIMS_CHANGED.update(pod, moved) and POD_CLAIMS_CHANGED.delete(pod)
    claim = cp.client.list(ResourceClaim, "default").items[0]
    bare = claim.model_copy(update={"status": None})
    assert CLAIM_ALLOCATED.update(claim, claim) and not CLAIM_ALLOCATED.update(bare, bare)
    assert not CLAIM_ALLOCATED.create(bare) and CLAIM_ALLOCATED.create(claim)
    slice_ = _slice_of(cp, pod.spec.node_name)
    assert not SLICE_TAINTS_CHANGED.update(slice_, slice_)
    data = slice_.model_dump(by_alias=True, exclude_none=True)
    data["spec"]["devices"][0]["taints"] = [{"key": "broken", "effect": "NoExecute"}]
    tainted = ResourceSlice.model_validate(data)
    assert SLICE_TAINTS_CHANGED.update(slice_, tainted)
    data["spec"]["devices"][0]["taints"] = [{"key": "broken", "effect": "NoSchedule"}]
    assert not SLICE_TAINTS_CHANGED.update(slice_, ResourceSlice.model_validate(data))
