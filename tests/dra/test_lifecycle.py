"""DRA end to end on a control plane: nodes with simulated drivers, claims from templates, scheduling
with the DynamicResources plugin, the kubelet waiting for prepared claims, deallocation when pods finish,
device taint eviction, determinism."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import (
    FINALIZER,
    POD_CLAIM_NAME_ANNOTATION,
    DeviceClass,
    DeviceTaint,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

SELECT_A100 = 'device.attributes["gpu.example.com"].model == "A100"'


def cluster(nodes: int = 2, gpus: int = 2, seed: int = 0, partitions: int = 0) -> ControlPlane:
    cp = ControlPlane(seed=seed)
    create_nodes(cp, nodes, NodeTemplate(devices=DeviceTemplate(count=gpus, partitions=partitions)))
    cp.client.create(
        DeviceClass.model_validate(
            {
                "metadata": {"name": "gpu"},
                "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
            }
        )
    )
    cp.client.create(
        ResourceClaimTemplate.model_validate(
            {
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {
                    "spec": {
                        "devices": {
                            "requests": [
                                {
                                    "name": "gpu",
                                    "exactly": {
                                        "deviceClassName": "gpu",
                                        "selectors": [{"cel": {"expression": SELECT_A100}}],
                                    },
                                }
                            ]
                        }
                    }
                },
            }
        )
    )
    cp.run_until_idle()
    return cp


def gpu_pod(name: str, seconds: int = 10, **claim: Any) -> Pod:
    source = claim or {"resourceClaimTemplateName": "one-gpu"}
    return Pod.model_validate(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "c",
                        "image": "busybox",
                        "command": ["sleep", str(seconds)],
                        "resources": {"claims": [{"name": "gpu"}]},
                    }
                ],
                "resourceClaims": [{"name": "gpu", **source}],
            },
        }
    )


def pods(cp: ControlPlane) -> dict[str, Pod]:
    return {p.metadata.name: p for p in cp.client.list(Pod, "default").items}


def claims(cp: ControlPlane) -> dict[str, ResourceClaim]:
    return {c.metadata.name: c for c in cp.client.list(ResourceClaim, "default").items}


def test_generated_claims_are_allocated_reserved_and_the_pods_run() -> None:
    cp = cluster()
    cp.client.create(gpu_pod("p0"))
    cp.advance(1)
    pod = pods(cp)["p0"]
    [status] = pod.status.resource_claim_statuses
    assert status.name == "gpu" and status.resource_claim_name.startswith("p0-gpu-")
    assert len(status.resource_claim_name) == len("p0-gpu-") + 5
    claim = claims(cp)[status.resource_claim_name]
    assert claim.metadata.annotations[POD_CLAIM_NAME_ANNOTATION] == "gpu"
    owner = claim.metadata.owner_references[0]
    assert (owner.kind, owner.name, owner.controller, owner.block_owner_deletion) == ("Pod", "p0", True, True)
    assert FINALIZER in claim.metadata.finalizers
    result = claim.status.allocation.devices.results[0]
    assert (result.driver, result.pool, result.device) == ("gpu.example.com", pod.spec.node_name, "gpu-0")
    assert [(r.resource, r.name, r.uid) for r in claim.status.reserved_for] == [
        ("pods", "p0", pod.metadata.uid)
    ]
    assert pod.status.phase == "Running"


def test_unallocatable_pods_wait_and_run_when_devices_are_freed() -> None:
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(gpu_pod("first", seconds=10))
    cp.advance(1)
    cp.client.create(gpu_pod("second", seconds=10))
    cp.advance(1)
    second = pods(cp)["second"]
    scheduled = second.status.condition("PodScheduled")
    assert (scheduled.status, scheduled.reason) == ("False", "Unschedulable")
    assert "1 cannot allocate all claims" in scheduled.message
    cp.wait_for(lambda: pods(cp)["second"].status.phase == "Running", timeout=120)
    # the finished pod's generated claim was deallocated, lost its finalizer and was deleted
    assert pods(cp)["first"].status.resource_claim_statuses[0].resource_claim_name not in claims(cp)


def test_claims_of_deleted_pods_go_with_them() -> None:
    cp = cluster()
    cp.client.create(gpu_pod("p0", seconds=1000))
    cp.advance(1)
    name = pods(cp)["p0"].status.resource_claim_statuses[0].resource_claim_name
    cp.client.delete(Pod, "p0", "default")
    cp.wait_for(lambda: name not in claims(cp) and "p0" not in pods(cp), timeout=120)


def test_a_shared_claim_is_reserved_for_every_pod_using_it() -> None:
    cp = cluster()
    cp.client.create(
        ResourceClaim.model_validate(
            {
                "metadata": {"name": "shared", "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
            }
        )
    )
    for name in ("a", "b"):
        cp.client.create(gpu_pod(name, seconds=100, resourceClaimName="shared"))
    cp.advance(1)
    shared = claims(cp)["shared"]
    assert sorted(r.name for r in shared.status.reserved_for) == ["a", "b"]
    nodes = {p.spec.node_name for p in pods(cp).values()}
    assert len(nodes) == 1  # the allocation pins the node


def test_the_kubelet_waits_for_prepared_claims() -> None:
    cp = ControlPlane(controllers=["kubelet", "resourceclaim"])
    create_nodes(cp, 1)
    pod = gpu_pod("p")
    pod.spec.node_name = "node-0"
    cp.client.create(pod)
    cp.advance(2)
    assert pods(cp)["p"].status.phase in (None, "Pending")


def test_no_execute_taint_rules_evict_pods_using_the_device() -> None:
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(gpu_pod("p0", seconds=1000))
    cp.advance(1)
    assert pods(cp)["p0"].status.phase == "Running"
    cp.client.create(
        DeviceTaintRule.model_validate(
            {
                "metadata": {"name": "broken"},
                "spec": {
                    "deviceSelector": {"device": "gpu-0"},
                    "taint": {"key": "broken", "effect": "NoExecute"},
                },
            }
        )
    )
    cp.advance(1)
    gone = pods(cp).get("p0")
    assert gone is None or gone.metadata.deletion_timestamp is not None


def test_a_no_execute_taint_evicts_only_the_pods_of_the_tainted_pool() -> None:
    """Each node publishes its own pool with a device of the same name: the rule selecting one pool's
    ``gpu-0`` evicts the pod using that device, and leaves the pods on the other pools running."""
    cp = cluster(nodes=3, gpus=1)
    for name in ("p0", "p1", "p2"):
        cp.client.create(gpu_pod(name, seconds=1000))
    cp.advance(1)
    placed = {}
    for claim in claims(cp).values():
        [result] = claim.status.allocation.devices.results
        placed[claim.status.reserved_for[0].name] = result.pool
    assert sorted(placed) == ["p0", "p1", "p2"] and len(set(placed.values())) == 3
    cp.client.create(
        DeviceTaintRule.model_validate(
            {
                "metadata": {"name": "broken"},
                "spec": {
                    "deviceSelector": {"pool": placed["p1"], "device": "gpu-0"},
                    "taint": {"key": "broken", "effect": "NoExecute"},
                },
            }
        )
    )
    cp.advance(1)
    now = pods(cp)
    assert now.get("p1") is None or now["p1"].metadata.deletion_timestamp is not None
    assert [now[n].status.phase for n in ("p0", "p2")] == ["Running", "Running"]
    assert all(now[n].metadata.deletion_timestamp is None for n in ("p0", "p2"))
    # a taint on the device itself, in p2's pool's slice
    [slice_] = [s for s in cp.client.list(ResourceSlice).items if s.spec.pool.name == placed["p2"]]
    slice_ = edit(slice_)
    slice_.spec.devices[0].taints = [DeviceTaint(key="hot", effect="NoExecute")]
    cp.client.update(slice_)
    cp.advance(1)
    now = pods(cp)
    assert now.get("p2") is None or now["p2"].metadata.deletion_timestamp is not None
    assert now["p0"].status.phase == "Running" and now["p0"].metadata.deletion_timestamp is None


def test_partitioned_gpus_share_counters() -> None:
    cp = cluster(nodes=1, gpus=1, partitions=2)
    for name in ("a", "b", "c"):
        cp.client.create(gpu_pod(name, seconds=100))
        cp.advance(1)
    running = sorted(n for n, p in pods(cp).items() if p.status.phase == "Running")
    # the whole GPU first; then its partitions' counters are used up
    assert running == ["a"]
    devices = [
        c.status.allocation.devices.results[0].device
        for c in claims(cp).values()
        if c.status is not None and c.status.allocation is not None
    ]
    assert devices == ["gpu-0"]


def _trace(seed: int) -> list[tuple[str, str, str]]:
    cp = cluster(nodes=3, gpus=2, seed=seed)
    for i in range(7):
        cp.client.create(gpu_pod(f"p{i}", seconds=5 + i))
    cp.advance(30)
    out = []
    for pod in sorted(pods(cp).values(), key=lambda p: p.metadata.name):
        out.append((pod.metadata.name, pod.spec.node_name or "", pod.status.phase or ""))
    return out


def test_scheduling_with_claims_is_deterministic() -> None:
    assert _trace(7) == _trace(7)


def test_a_deleted_pod_keeps_its_devices_until_its_containers_stop() -> None:
    # Upstream's resourceclaim controller (pkg/controller/resourceclaim/controller.go, syncClaim and
    # isPodDone) keeps a reservation for a pod being deleted while it is scheduled: its containers may
    # run through the grace period, so the device is not free for another pod until the pod is gone.
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(gpu_pod("first", seconds=1000))
    cp.advance(1)
    name = pods(cp)["first"].status.resource_claim_statuses[0].resource_claim_name
    cp.client.delete(Pod, "first", "default")  # 30 s grace period; the simulated process ignores SIGTERM
    cp.client.create(gpu_pod("second", seconds=10))
    cp.advance(5)
    assert pods(cp)["first"].status.phase == "Running"
    assert claims(cp)[name].status.allocation is not None
    assert [r.name for r in claims(cp)[name].status.reserved_for] == ["first"]
    assert pods(cp)["second"].spec.node_name is None
    cp.wait_for(lambda: "first" not in pods(cp) and pods(cp)["second"].status.phase == "Running",
                timeout=120)
    assert name not in claims(cp)


def test_a_deleted_unscheduled_pods_generated_claim_is_deleted() -> None:
    # isPodDone: deleted and not scheduled counts as done, so the generated claim goes while the pod
    # itself is still there (held here by a finalizer).
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(gpu_pod("first", seconds=1000))
    cp.advance(1)
    waiting = gpu_pod("waiting", seconds=10)
    waiting.metadata.finalizers = ["example.com/hold"]
    cp.client.create(waiting)
    cp.advance(1)
    name = pods(cp)["waiting"].status.resource_claim_statuses[0].resource_claim_name
    assert pods(cp)["waiting"].spec.node_name is None
    cp.client.delete(Pod, "waiting", "default")
    cp.advance(1)
    assert pods(cp)["waiting"].metadata.deletion_timestamp is not None
    assert name not in claims(cp)
