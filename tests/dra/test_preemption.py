"""DRA preemption (KEP-5690, gate ``DRAPreemption``) on a control plane: a higher-priority pod whose
only obstacle is an allocated device evicts the pod holding it, then binds once the victim's claim is
deallocated; a claim shared with a pod that stays frees nothing; without the gate (1.37) nothing is
preempted."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceClaimTemplate
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

GATE = {"DRAPreemption": True}


def cluster(nodes: int = 1, gpus: int = 1, gates: dict[str, bool] | None = GATE,
            seed: int = 0) -> ControlPlane:
    cp = ControlPlane(seed=seed, feature_gates=gates)
    create_nodes(cp, nodes, NodeTemplate(devices=DeviceTemplate(count=gpus)))
    cp.client.create(DeviceClass.model_validate({
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    }))
    cp.client.create(ResourceClaimTemplate.model_validate({
        "metadata": {"name": "one-gpu", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}},
    }))
    cp.client.create(PriorityClass.model_validate({"metadata": {"name": "high"}, "value": 1000}))
    cp.run_until_idle()
    return cp


def shared_claim(cp: ControlPlane, name: str) -> None:
    cp.client.create(ResourceClaim.model_validate({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
    }))


def gpu_pod(name: str, high: bool = False, claim: str = "", grace: int = 0) -> Pod:
    source: dict[str, Any] = (
        {"resourceClaimName": claim} if claim else {"resourceClaimTemplateName": "one-gpu"}
    )
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": grace,
        "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "10000"],
                        "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", **source}],
    }
    if high:
        spec["priorityClassName"] = "high"
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def pods(cp: ControlPlane) -> dict[str, Pod]:
    return {p.metadata.name: p for p in cp.client.list(Pod, "default").items}


def devices(cp: ControlPlane) -> list[tuple[str, str]]:
    """(claim, device) of every allocated claim."""
    found = []
    for claim in cp.client.list(ResourceClaim, "default").items:
        allocation = claim.status.allocation if claim.status is not None else None
        for result in (allocation.devices.results if allocation is not None else None) or ():
            found.append((claim.metadata.name, f"{result.pool}/{result.device}"))
    return sorted(found)


def test_a_high_priority_pod_preempts_the_holder_of_the_only_device_and_binds() -> None:
    cp = cluster()
    cp.client.create(gpu_pod("low", grace=5))
    cp.advance(1)
    assert pods(cp)["low"].status.phase == "Running"
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(0.5)
    high = pods(cp)["high"]
    assert high.status.nominated_node_name == "node-0"
    assert pods(cp)["low"].metadata.deletion_timestamp is not None
    cp.wait_for(lambda: "low" not in pods(cp) and pods(cp)["high"].status.phase == "Running", timeout=60)
    high = pods(cp)["high"]
    [(claim, device)] = devices(cp)
    assert claim == high.status.resource_claim_statuses[0].resource_claim_name
    assert device == "node-0/gpu-0"


def test_without_the_gate_the_device_is_not_freed_by_preemption() -> None:
    cp = cluster(gates=None)
    cp.client.create(gpu_pod("low"))
    cp.advance(1)
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(5)
    high = pods(cp)["high"]
    assert high.spec.node_name is None and high.status.nominated_node_name is None
    condition = high.status.condition("PodScheduled")
    assert "1 cannot allocate all claims" in condition.message
    assert "Preemption is not helpful for scheduling" in condition.message
    assert pods(cp)["low"].metadata.deletion_timestamp is None


def test_a_claim_shared_with_a_pod_that_stays_frees_nothing() -> None:
    cp = cluster()
    shared_claim(cp, "shared")
    cp.client.create(gpu_pod("low-a", claim="shared"))
    cp.client.create(gpu_pod("low-b", claim="shared"))
    cp.advance(1)
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(5)
    # both consumers are lower and on the node: only evicting both frees the device (upstream row
    # full-preemption-shared-claim-succeeds), so both are victims
    assert pods(cp)["high"].status.nominated_node_name == "node-0"
    cp.wait_for(lambda: pods(cp)["high"].status.phase == "Running", timeout=60)
    assert {"low-a", "low-b"}.isdisjoint(pods(cp))


def test_a_claim_reserved_also_for_a_more_important_pod_is_not_freed() -> None:
    cp = cluster()
    shared_claim(cp, "shared")
    cp.client.create(gpu_pod("low", claim="shared"))
    keeper = gpu_pod("keeper", claim="shared")
    keeper.spec.priority_class_name = "high"
    cp.client.create(keeper)
    cp.advance(1)
    assert {p.status.phase for p in pods(cp).values()} == {"Running"}
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(5)
    high = pods(cp)["high"]
    assert high.spec.node_name is None and high.status.nominated_node_name is None
    # the what-if removed "low" and still could not allocate: the node's status is Filter's
    assert high.status.condition("PodScheduled").message == (
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
        "preemption: 0/1 nodes are available: 1 cannot allocate all claims."
    )
    assert pods(cp)["low"].metadata.deletion_timestamp is None
