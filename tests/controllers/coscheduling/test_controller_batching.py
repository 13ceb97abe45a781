"""The PodGroup controller's triggers reach its queue once per group at the end of the virtual instant
(``InstantBatch``, docs/gang.md): pod updates that happen together are one reconcile and one status
write, as upstream's de-duplicating single-worker queue would take them, and the status is current
whenever the control plane is idle."""

from __future__ import annotations

from gang.builders import gpu_cluster, gpu_pod, x_group
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.scheduling_x_v1alpha1 import PodGroup


def _status_writes(events: list) -> list[tuple]:
    """(phase, running, succeeded) of each PodGroup write that changed its status."""
    out, last = [], None
    for event in events:
        s = event.object.status
        now = (s.phase, s.running or 0, s.succeeded or 0) if s is not None else None
        if now is not None and now != last:
            out.append(now)
        last = now
    return out


def test_a_gang_that_ends_together_is_one_status_write_not_one_per_pod() -> None:
    cp = gpu_cluster(1, controllers="scheduler,kubelet,coscheduling")
    watch = cp.client.watch(PodGroup, "default")
    cp.apply(x_group("g", 8))
    cp.apply([gpu_pod(f"g-{i}", xgroup="g", gpus=1, command="sleep 30") for i in range(8)])
    cp.advance(40)
    # upstream's machine steps once per reconcile (Pending, Scheduling, Running, Finished), and the
    # eight pods that start and end at the same instants are counted together
    assert _status_writes(watch.poll()) == [("Pending", 0, 0), ("Scheduling", 0, 0), ("Running", 8, 0),
                                            ("Finished", 0, 8)]
    assert cp.manager.get("coscheduling").reconciles <= 8  # each write's own event: one more, no-op


@settings(max_examples=15)
@given(st.lists(st.integers(1, 6), min_size=2, max_size=6))
def test_the_status_is_current_after_every_instant_and_written_once_per_instant(seconds: list[int]) -> None:
    cp = gpu_cluster(1, controllers="scheduler,kubelet,coscheduling")
    watch = cp.client.watch(PodGroup, "default")
    cp.apply(x_group("g", len(seconds)))
    cp.apply([gpu_pod(f"g-{i}", xgroup="g", gpus=1, command=f"sleep {s}") for i, s in enumerate(seconds)])
    for _ in range(max(seconds) + 3):
        cp.advance(1)
        pods = [p.status.phase for p in cp.client.list(Pod, "default").items]
        status = cp.client.get(PodGroup, "g", "default").status
        if status.phase == "Finished":
            break
        counts = (status.running or 0, status.succeeded or 0)
        assert counts == (pods.count("Running"), pods.count("Succeeded"))
    assert cp.client.get(PodGroup, "g", "default").status.phase == "Finished"
    writes = _status_writes(watch.poll())
    # Pending, Scheduling, Running (all start together), then one write per distinct end instant
    assert len(writes) == 3 + len(set(seconds))
