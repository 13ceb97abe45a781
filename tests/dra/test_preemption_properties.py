"""Hypothesis properties of DRA preemption (``DRAPreemption``) on a control plane: over random nodes,
devices, pods with their own claims, pods sharing claims and pods without any, one higher-priority
pod needing a device:

* a victim always holds a claim whose every consumer is a victim (its eviction frees a device the
  preemptor can use); a pod without claims is never a victim, the obstacle being devices only;
* no device is ever allocated to two claims, at any step of the sequence;
* the same inputs give the same victims, placements and allocations (determinism).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim

from .test_preemption import cluster, gpu_pod, shared_claim

# a low pod: its own claim ("own"), one of two shared claims, or no claim at all
KINDS = st.sampled_from(["own", "shared-0", "shared-1", "none"])


def plain_pod(name: str) -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "10000"]}]}})


def allocations(cp: Any) -> list[tuple[str, str, str]]:
    found = []
    for claim in cp.client.list(ResourceClaim, "default").items:
        allocation = claim.status.allocation if claim.status is not None else None
        for r in (allocation.devices.results if allocation is not None else None) or ():
            found.append((f"{r.pool}/{r.device}", claim.metadata.name, r.share_id or ""))
    return sorted(found)


def run(nodes: int, gpus: int, kinds: list[str], seed: int) -> dict[str, Any]:
    cp = cluster(nodes=nodes, gpus=gpus, seed=seed)
    for i in range(2):
        shared_claim(cp, f"shared-{i}")
    for i, kind in enumerate(kinds):
        name = f"low-{i}"
        cp.client.create(plain_pod(name) if kind == "none" else
                         gpu_pod(name, claim=kind if kind.startswith("shared") else ""))
    cp.advance(2)
    before = {p.metadata.name: p for p in cp.client.list(Pod, "default").items}
    reserved = {c.metadata.name: {r.name for r in (c.status.reserved_for or ())}
                for c in cp.client.list(ResourceClaim, "default").items if c.status is not None}
    cp.client.create(gpu_pod("high", high=True))
    seen: list[list[tuple[str, str, str]]] = []
    for _ in range(40):
        cp.advance(0.5)
        held = allocations(cp)
        devices = [d for d, _, share in held if not share]
        assert len(devices) == len(set(devices)), held  # never a device in two claims
        seen.append(held)
    after = {p.metadata.name: p for p in cp.client.list(Pod, "default").items}
    victims = sorted(n for n, p in before.items() if before[n].spec.node_name
                     and (n not in after or after[n].metadata.deletion_timestamp is not None))
    names = [f"low-{i}" for i in range(len(kinds))]
    return {"victims": victims, "kinds": dict(zip(names, kinds, strict=True)),
            "reserved": reserved, "before": before, "high": after["high"].spec.node_name, "seen": seen}


def claims_of(pod: Pod) -> list[str]:
    names = {s.name: s.resource_claim_name for s in (pod.status.resource_claim_statuses or ())}
    return [e.resource_claim_name or names.get(e.name) or "" for e in pod.spec.resource_claims or ()]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.integers(1, 2), gpus=st.integers(1, 2), kinds=st.lists(KINDS, min_size=1, max_size=5),
       seed=st.integers(0, 3))
def test_victims_free_devices_no_device_is_allocated_twice_and_runs_repeat(
        nodes: int, gpus: int, kinds: list[str], seed: int) -> None:
    first = run(nodes, gpus, kinds, seed)
    victims = set(first["victims"])
    for name in victims:
        assert first["kinds"][name] != "none", f"{name} holds no claim but was preempted"
        frees = [c for c in claims_of(first["before"][name]) if first["reserved"].get(c, set()) <= victims]
        assert frees, f"{name} was preempted but none of its claims is freed"
    if victims:
        assert first["high"] is not None  # the preemptor binds once the claims are deallocated
    second = run(nodes, gpus, kinds, seed)
    outcome = ("victims", "high", "seen")
    assert [second[k] for k in outcome] == [first[k] for k in outcome]
