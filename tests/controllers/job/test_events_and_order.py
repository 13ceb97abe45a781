"""Job events in upstream's words and order, and the ActivePods deletion order
(job_controller.go ``syncJob``, ``recordJobFinished``; controller_utils.go ``ActivePods.Less``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.job import PodConditionInfo, PodInfo, sync_job
from kbatch.controllers.job.classification import active_removal_key

from .builders import make_job
from .world import T0, World


def test_unknown_completion_mode_event_message():
    # syncJob: Warning UnknownCompletionMode "Skipped Job sync because completion mode is unknown".
    plan = sync_job(make_job(completion_mode="Weird", parallelism=1, completions=1), [], T0)
    assert [(e.type, e.reason, e.message) for e in plan.events] == [
        ("Warning", "UnknownCompletionMode", "Skipped Job sync because completion mode is unknown")]
    assert plan.creates == ()


def test_too_many_succeeded_pods_warning_comes_before_completed():
    # recordJobFinished: TooManySucceededPods (succeeded > completions) is recorded, then Completed.
    w = World(make_job(parallelism=2, completions=2))
    w.sync()
    w._put(PodInfo(name="pi-extra", uid="u-extra", creation_timestamp=T0))  # e.g. an adopted pod
    for pod in list(w.pods.values()):
        w.succeed(w.run_pod(pod))
    w.run()
    tail = [e.reason for e in w.events if e.reason in ("TooManySucceededPods", "Completed")]
    assert tail == ["TooManySucceededPods", "Completed"]
    assert w.job.status.succeeded == 3


def _pod(i: int, phase: str = "Pending", node: str | None = None, ready_at=None, created=None) -> PodInfo:
    conds = (PodConditionInfo("Ready", "True", ready_at),) if ready_at is not None else ()
    return PodInfo(name=f"p{i}", uid=f"u{i}", phase=phase, node_name=node, conditions=conds,
                   creation_timestamp=created)


def test_active_pods_order_unset_phase_ranks_as_pending():
    # podPhaseToOrdinal is a Go map: a phase it lacks (a pod whose phase is not yet set) reads 0,
    # the same rank as Pending, so it goes before an Unknown or Running pod on the same node.
    unset = _pod(1, phase="", node="n")
    running = _pod(2, phase="Running", node="n")
    unknown = _pod(3, phase="Unknown", node="n")
    order = sorted([running, unknown, unset], key=active_removal_key)
    assert [p.name for p in order] == ["p1", "p3", "p2"]


_phases = st.sampled_from(["Pending", "Unknown", "Running", ""])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_phases, st.booleans(), st.one_of(st.none(), st.integers(0, 5)),
                          st.one_of(st.none(), st.integers(0, 5))), min_size=2, max_size=8))
def test_active_pods_order_is_the_upstream_comparison(specs):
    """Property: sorting by the key never puts a pod after one that ActivePods.Less says goes first."""
    pods = [_pod(i, phase, "n" if scheduled else None,
                 T0 + timedelta(seconds=r) if r is not None else None,
                 T0 + timedelta(seconds=c) if c is not None else None)
            for i, (phase, scheduled, r, c) in enumerate(specs)]
    order = sorted(pods, key=active_removal_key)
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            assert not _less(b, a), (b.name, a.name)


def _less(a: PodInfo, b: PodInfo) -> bool:
    """controller_utils.go ActivePods.Less, written out rule by rule for the property."""
    rank = {"Pending": 0, "Unknown": 1, "Running": 2}
    if bool(a.node_name) != bool(b.node_name):
        return not a.node_name
    if rank.get(a.phase, 0) != rank.get(b.phase, 0):
        return rank.get(a.phase, 0) < rank.get(b.phase, 0)
    if a.ready != b.ready:
        return not a.ready
    if a.ready and b.ready:
        ta, tb = a.condition("Ready").last_transition_time, b.condition("Ready").last_transition_time
        if ta != tb:
            return ta is None if (ta is None or tb is None) else ta > tb
    ca, cb = a.creation_timestamp, b.creation_timestamp
    if ca != cb:
        return ca is None if (ca is None or cb is None) else ca > cb
    return False


def test_scale_down_deletes_unscheduled_then_not_ready_then_newest_ready():
    # manageJob + activePodsForRemoval: parallelism 4 -> 1 removes three pods in ActivePods order.
    w = World(make_job(parallelism=4, completions=None))
    w.sync()
    pods = sorted(w.pods.values(), key=lambda p: p.name)
    w.run_pod(pods[0], ready=True)
    w.advance(5)
    w.run_pod(pods[1], ready=True)  # ready later: deleted before pods[0]
    w.run_pod(pods[2], ready=False)
    # pods[3] stays unscheduled: deleted first
    w.job = replace(w.job, parallelism=1)
    w.sync()
    deleted = [e.message for e in w.events if e.reason == "SuccessfulDelete"]
    assert deleted == [f"Deleted pod: {pods[3].name}", f"Deleted pod: {pods[2].name}",
                       f"Deleted pod: {pods[1].name}"]
