"""Hypothesis property of claim nomination (KEP-5690, ``DRAPreemption``) on a control plane: one node
whose GPUs are all held by low-priority pods, a higher-priority pod that preempts one of them while
the resourceclaim controller is held back for a random while, and competitors of the preemptor's
priority or lower created at random moments, before and after the victim's claim is deallocated.

* while the preemptor is nominated and not bound, no competitor is allocated a device its
  preemption freed (a competitor as important as the preemptor may preempt another low pod for
  a device of its own);
* no device is ever allocated to two claims;
* the preemptor binds in the end.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.resource_v1 import ResourceClaim

from .test_claim_nomination import Stall, deallocate
from .test_preemption import cluster, gpu_pod, pods, shared_claim
from .test_preemption_properties import allocations

# (as important as the preemptor?, created how many steps after the deallocation: -1, 0 or 1)
COMPETITORS = st.lists(st.tuples(st.booleans(), st.integers(-1, 1)), min_size=1, max_size=2)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gpus=st.integers(1, 3), stalled=st.integers(1, 4), competitors=COMPETITORS, seed=st.integers(0, 3))
def test_freed_devices_go_only_to_the_nominated_preemptor(
        gpus: int, stalled: int, competitors: list[tuple[bool, int]], seed: int) -> None:
    cp = cluster(gpus=gpus, seed=seed)
    lows = [f"low-{i}" for i in range(gpus)]
    for name in lows:
        cp.client.create(gpu_pod(name))
    for i in range(len(competitors)):
        shared_claim(cp, f"spare-{i}")
    cp.advance(1)
    stall = Stall(cp)
    cp.client.create(gpu_pod("high", high=True))
    cp.advance(0.5)
    gone = [n for n in lows if n not in pods(cp) or pods(cp)[n].metadata.deletion_timestamp]
    assert len(gone) == 1, gone
    claims = {c.metadata.name: c for c in cp.client.list(ResourceClaim, "default").items}
    freed = {device for device, owner, _ in allocations(cp) if owner.startswith(f"{gone[0]}-")}
    assert freed and all(c.status is not None for c in claims.values() if c.metadata.name.startswith(gone[0]))
    for step in range(12):
        if step == stalled:  # the controller's deallocation, at a chosen moment (t3)
            stall.release()
            deallocate(cp, gone[0])
        for i, (same, offset) in enumerate(competitors):
            if stalled + offset == step:
                cp.client.create(gpu_pod(f"rival-{i}", high=same, claim=f"spare-{i}"))
        cp.advance(0.5)
        now = pods(cp)
        held = allocations(cp)
        devices = [d for d, _, share in held if not share]
        assert len(devices) == len(set(devices)), held
        if now["high"].spec.node_name is None:
            assert now["high"].status.nominated_node_name == "node-0"
            takers = {owner for device, owner, _ in held if device in freed}
            assert all(o.startswith((f"{gone[0]}-", "high-")) for o in takers), (takers, step)
    assert pods(cp)["high"].status.phase == "Running"
