"""The interim SuccessCriteriaMet condition (KEP-4368) as upstream's
``trackJobStatusAndRemoveFinalizers`` writes it: added even when the sync stopped at the uncounted
cap (only Complete waits), and, when new, flushed in a status write of its own before Complete."""

from __future__ import annotations

from dataclasses import replace

from kbatch.controllers.job import SyncConfig, complete_sync, sync_job

from .builders import make_job
from .world import World


def _all_succeeded(completions: int, **kw) -> World:  # type: ignore[no-untyped-def]
    w = World(make_job(parallelism=completions, completions=completions, **kw))
    w.sync()
    for pod in w.active():
        w.succeed(w.run_pod(pod))
    return w


def test_capped_sync_adds_success_criteria_met_but_not_complete() -> None:
    w = _all_succeeded(4, indexed=True)
    plan = sync_job(w.job, list(w.pods.values()), w.now, None, SyncConfig(max_uncounted_pods=2))
    assert plan.cap_reached and len(plan.finalizers_to_remove) == 2
    assert plan.status is not None and plan.status.is_true("SuccessCriteriaMet")
    assert plan.flush_first
    final, _ = complete_sync(plan, {p.uid for p in plan.finalizers_to_remove}, w.now, w.job)
    assert final.is_true("SuccessCriteriaMet") and final.condition("Complete") is None


def test_new_interim_condition_is_flushed_before_complete_even_with_nothing_to_release() -> None:
    w = _all_succeeded(2, indexed=True)
    for pod in list(w.pods.values()):  # counted and released already, condition not yet added
        w.pods[pod.uid] = replace(pod, has_finalizer=False)
    w.job = replace(w.job, status=replace(w.job.status, completed_indexes="0-1", succeeded=2))
    plan = sync_job(w.job, list(w.pods.values()), w.now)
    assert not plan.finalizers_to_remove
    assert plan.flush_first, "SuccessCriteriaMet gets a write of its own"
    assert plan.status is not None and plan.status.is_true("SuccessCriteriaMet")
    assert plan.status.condition("Complete") is None
    final, _ = complete_sync(plan, set(), w.now, w.job)
    assert final.is_true("Complete")


def test_no_flush_when_nothing_new() -> None:
    w = _all_succeeded(2)
    w.sync()  # counted, released, SuccessCriteriaMet and Complete written
    assert w.job.status.is_true("Complete")
    w.job = replace(w.job, status=replace(w.job.status, conditions=tuple(
        c for c in w.job.status.conditions if c.type != "Complete")))
    plan = sync_job(w.job, list(w.pods.values()), w.now)
    assert not plan.flush_first  # the interim is already there: only the terminal write remains
