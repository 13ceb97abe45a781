"""A pod group retries at one virtual instant no more often than one pod does (issue 17's gang
benchmark: the native side cost 1.4-1.8x the ungrouped one because a waiting gang was retried once per
member each time pods finished at one instant, every retry writing each member's condition and Event).

kbatch's queue lets a pod leave the back-off queue early (SchedulerPopFromBackoffQ, KEP-5142) at most
once per virtual instant; upstream's queue holds a pod group as one entity with one back-off
(``pkg/scheduler/backend/queue/active_queue.go`` ``unlockedPop``, ``QueuedPodGroupInfo``), so the rule
holds for the group: the members its cycle takes out of the back-off queue have left it early too."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from gang.builders import NATIVE, gpu_cluster, gpu_pod, native_group
from kbatch.api.core_v1 import Pod
from kbatch.runtime.controlplane import ControlPlane


def _fillers(cp: ControlPlane, count: int, seconds: int) -> None:
    """Eight one-GPU pods fill the node; ``count`` of them finish at one instant (``seconds``),
    freeing a GPU each, one at a time; the others run on."""
    cp.apply([gpu_pod(f"filler-{i}", gpus=1, command=f"sleep {seconds if i < count else 100_000}")
              for i in range(8)])


def _bound_at(cp: ControlPlane, name: str) -> datetime | None:
    p = cp.client.get(Pod, name, "default")
    cond = p.status.condition("PodScheduled") if p.status else None
    return cond.last_transition_time if cond is not None and cond.status == "True" else None


def _gang(members: int, fillers: int, seconds: int) -> ControlPlane:
    cp = gpu_cluster(1, gates=NATIVE)
    _fillers(cp, fillers, seconds)
    cp.apply(native_group("g", members))
    cp.apply([gpu_pod(f"g-{i}", group="g", gpus=1, command="sleep 10") for i in range(members)])
    cp.advance(seconds + 60)
    return cp


def _one_pod(gpus: int, fillers: int, seconds: int) -> ControlPlane:
    cp = gpu_cluster(1, gates=NATIVE)
    _fillers(cp, fillers, seconds)
    cp.apply(gpu_pod("g-0", gpus=gpus, command="sleep 10"))
    cp.advance(seconds + 60)
    return cp


def _group_writes_at(cp: ControlPlane, when: datetime) -> int:
    """The PodGroup's status writes at ``when``: one per failed cycle there, as each reports a new
    "k scheduled, r remaining" message."""
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return Counter(r.t for r in cp.trace.records
                   if r.kind == "PodGroup.scheduling.k8s.io" and r.verb == "update")[stamp]


def test_a_gang_waiting_for_gpus_freed_one_by_one_retries_at_most_twice_at_that_instant() -> None:
    """Eight fillers finish at t = 100 s, one GPU at a time: the gang's back-off is over, so the first
    event activates it (a regular pop, one cycle); the next moves it to back-off, and the idle
    scheduler pops it early (a second cycle); then it waits out its back-off, as an 8-GPU pod does.
    Before, each of its eight members popped it early in turn: eight cycles at t = 100 s."""
    cp = _gang(8, 8, 100)
    finished = cp.clock.to_datetime(100)
    assert _group_writes_at(cp, finished) == 2
    assert _bound_at(cp, "g-0") == _bound_at(_one_pod(8, 8, 100), "g-0") == cp.clock.to_datetime(105)
    assert sorted(p.spec.node_name for p in cp.client.list(Pod, "default").items
                  if p.metadata.name.startswith("g-")) == ["node-0"] * 8


@settings(max_examples=8, deadline=None)
@given(members=st.integers(2, 8), extra=st.integers(0, 6), seconds=st.integers(20, 90))
def test_a_gang_binds_when_one_pod_of_its_total_size_would(members: int, extra: int, seconds: int) -> None:
    """Whatever the group's size and however many GPUs free up at one instant (at least the group's
    need), it retries there no more than a single pod asking for all its GPUs, so both bind at the
    same second; at that instant the group's cycles number at most two (a regular pop, an early one)."""
    fillers = min(8, members + extra)
    gang = _gang(members, fillers, seconds)
    alone = _one_pod(members, fillers, seconds)
    bound = _bound_at(gang, "g-0")
    assert bound is not None and bound == _bound_at(alone, "g-0")
    assert _group_writes_at(gang, gang.clock.to_datetime(seconds)) <= 2
