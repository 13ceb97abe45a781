"""Hypothesis properties of binding conditions with kbatch's attaching drivers (KEP-5007): over
random nodes (attach delays; attachments that all fail, fail for one device, or fail per attempt at
random), pods created and deleted and time advanced,

* a pod is never bound to a node before every binding condition of its claim's devices is ``True``
  in the claim's ``status.devices`` (the scheduler's PreBind waits for them);
* an allocation whose device reports a binding failure condition never gets a pod bound, and is
  deallocated (the scheduler's next attempt: Filter finds it unavailable, PostFilter deallocates);
* an attempt (one allocation, by claim uid and ``allocationTimestamp``, of one device) has one
  outcome, and the whole run is the same for the same seed (the random failures are drawn from the
  control plane's seeded stream).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

from .test_attach_driver import cluster
from .test_preemption import gpu_pod

FAILING = {"none": {}, "every": {"attach_fails": True}, "gpu-0": {"attach_fail_devices": ("gpu-0",)},
           "half": {"attach_fail_rate": 0.5}}
NODE = st.tuples(st.sampled_from([0.0, 3.0, 7.0, 12.0]), st.sampled_from(sorted(FAILING)))
STEP = st.tuples(st.sampled_from(["create", "delete", "advance"]), st.integers(0, 3), st.integers(1, 9))
Outcomes = dict[tuple[str, Any, str], str]  # (claim uid, allocationTimestamp, device) -> condition True


def _template(delay: float, failing: str) -> NodeTemplate:
    return NodeTemplate(devices=DeviceTemplate(count=2, binding_conditions=("attached", "cabled"),
                                               attach_delay=delay, **FAILING[failing]))


def _status(claim: ResourceClaim, result: Any) -> dict[str, str]:
    for entry in claim.status.devices or ():
        if (entry.driver, entry.pool, entry.device) == (result.driver, result.pool, result.device):
            return {c.type: c.status for c in entry.conditions or ()}
    return {}


def _check(cp: ControlPlane, failed: set[tuple[str, Any]], outcomes: Outcomes) -> None:
    """The invariants now; records the allocations seen with a failure condition and each attempt's
    outcome (one per attempt)."""
    claims = {c.metadata.name: c for c in cp.client.list(ResourceClaim, "default").items}
    for claim in claims.values():
        allocation = claim.status.allocation if claim.status is not None else None
        for result in (allocation.devices.results or ()) if allocation is not None else ():
            status = _status(claim, result)
            if status.get("attach-failed") == "True":
                failed.add((claim.metadata.uid or "", allocation.allocation_timestamp))
            outcome = ",".join(name for name in ("attached", "cabled", "attach-failed")
                               if status.get(name) == "True")
            if outcome:
                attempt = (claim.metadata.uid or "", allocation.allocation_timestamp, result.device)
                assert outcomes.setdefault(attempt, outcome) == outcome, (attempt, outcomes[attempt], outcome)
    for pod in cp.client.list(Pod, "default").items:
        recorded = {s.name: s.resource_claim_name for s in (pod.status.resource_claim_statuses or ())}
        claim = claims.get(recorded.get("gpu") or "")
        if not pod.spec.node_name or claim is None or claim.status is None or claim.status.allocation is None:
            continue
        if not any(r.uid == pod.metadata.uid for r in claim.status.reserved_for or ()):
            continue
        for result in claim.status.allocation.devices.results or ():
            conditions = _status(claim, result)
            assert all(conditions.get(name) == "True" for name in result.binding_conditions or ()), \
                (pod.metadata.name, conditions)
            assert conditions.get("attach-failed") != "True"


def _run(nodes: list[tuple[float, str]], steps: list[tuple[str, int, int]]) -> tuple[Outcomes, list[str]]:
    """The scenario on a fresh control plane (seed 0), checking the invariants every second; returns
    each attempt's outcome and the pods' nodes at the end."""
    cp = cluster(_template(*nodes[0]))
    for i, node in enumerate(nodes[1:], start=1):
        create_nodes(cp, 1, _template(*node), prefix=f"n{i}-")
    failed: set[tuple[str, Any]] = set()
    outcomes: Outcomes = {}
    for action, i, seconds in steps:
        name = f"p{i}"
        present = name in {p.metadata.name for p in cp.client.list(Pod, "default").items}
        if action == "create" and not present:
            cp.client.create(gpu_pod(name))
        elif action == "delete" and present:
            cp.client.delete(Pod, name, "default")
        for _ in range(seconds):
            cp.advance(1)
            _check(cp, failed, outcomes)
    seen_failed = set(failed)
    for _ in range(40):  # settle: every failed allocation is deallocated by the scheduler's next attempt
        cp.advance(1)
        _check(cp, failed, outcomes)
    now = {(c.metadata.uid, c.status.allocation.allocation_timestamp)
           for c in cp.client.list(ResourceClaim, "default").items
           if c.status is not None and c.status.allocation is not None}
    assert not (seen_failed & now), seen_failed & now
    placed = sorted(f"{p.metadata.name}:{p.spec.node_name}" for p in cp.client.list(Pod, "default").items)
    return outcomes, placed


@settings(max_examples=10, deadline=None)
@given(nodes=st.lists(NODE, min_size=1, max_size=2), steps=st.lists(STEP, min_size=1, max_size=6))
def test_pods_bind_only_after_attachment_and_failures_deallocate(
    nodes: list[tuple[float, str]], steps: list[tuple[str, int, int]]
) -> None:
    first = _run(nodes, steps)
    assert _run(nodes, steps) == first  # the same seed and steps: the same attempts and outcomes
