"""Suspend/resume, successPolicy, elastic Indexed Jobs (KEP-2232, KEP-3998, KEP-3715)."""

from __future__ import annotations

from dataclasses import replace

from kbatch.controllers.job import SuccessPolicyRule, SyncConfig

from .builders import make_job
from .world import T0, World


def _by_index(w: World):
    return {int(p.annotations["batch.kubernetes.io/job-completion-index"]): p for p in w.active()}


def test_created_suspended_has_no_pods_no_start_time_and_suspended_condition():
    w = World(make_job(parallelism=2, completions=2, suspend=True))
    w.sync()
    assert not w.pods and w.job.status.start_time is None
    cond = w.cond("Suspended")
    assert (cond.status, cond.reason, cond.message) == ("True", "JobSuspended", "Job suspended")
    assert w.reasons() == ["Suspended"]


def test_suspend_deletes_pods_uncounted_and_resume_resets_start_time():
    w = World(make_job(parallelism=2, completions=2, active_deadline_seconds=100))
    w.sync()
    for p in w.active():
        w.run_pod(p)
    w.advance(50)
    w.job = replace(w.job, suspend=True)
    w.sync()
    assert w.job.status.active == 0 and w.job.status.failed == 0
    assert w.job.status.terminating == 2
    w.advance(500)
    w.sync()
    assert w.cond("FailureTarget") is None  # the deadline does not run while suspended
    w.job = replace(w.job, suspend=False)
    w.sync()
    cond = w.cond("Suspended")
    assert (cond.status, cond.reason, cond.message) == ("False", "JobResumed", "Job resumed")
    assert w.job.status.start_time == w.now and "Resumed" in w.reasons()
    assert w.job.status.active == 2


def test_suspending_a_started_job_clears_its_start_time():
    """KEP-5440 (``MutableSchedulingDirectivesForSuspendedJobs``, beta, on since 1.36): the Job
    controller clears ``status.startTime`` in the sync that marks the Job suspended, so the API server
    lets the suspended Job's template change and the deadline clock starts again on resume."""
    w = World(make_job(parallelism=2, completions=2))
    w.sync()
    assert w.job.status.start_time == T0
    w.advance(30)
    w.job = replace(w.job, suspend=True)
    w.sync()
    assert w.cond("Suspended").status == "True" and w.job.status.start_time is None
    w.advance(30)
    w.job = replace(w.job, suspend=False)
    w.sync()
    assert w.job.status.start_time == w.now


def test_with_the_gate_off_a_suspended_job_keeps_its_start_time():
    w = World(make_job(parallelism=2, completions=2), SyncConfig(clear_start_time_when_suspended=False))
    w.sync()
    w.advance(30)
    w.job = replace(w.job, suspend=True)
    w.sync()
    assert w.cond("Suspended").status == "True" and w.job.status.start_time == T0


def test_never_suspended_job_has_no_suspended_condition():
    w = World(make_job())
    w.sync()
    assert w.cond("Suspended") is None


def test_success_policy_succeeded_indexes():
    policy = (SuccessPolicyRule(succeeded_indexes="0"),)
    w = World(make_job(parallelism=3, completions=3, indexed=True, success_policy=policy))
    w.sync()
    w.run_pod(_by_index(w)[1])
    w.succeed(_by_index(w)[0])
    w.sync()
    scm = w.cond("SuccessCriteriaMet")
    assert (scm.reason, scm.message) == ("SuccessPolicy", "Matched rules at index 0")
    assert w.cond("Complete") is None  # pods still terminating
    w.finish_terminating()
    w.sync()
    assert w.cond("Complete").reason == "SuccessPolicy"
    assert w.job.status.failed == 0 and w.job.status.succeeded == 1


def test_success_policy_succeeded_count_with_indexes():
    policy = (SuccessPolicyRule(succeeded_indexes="2-4", succeeded_count=2),)
    w = World(make_job(parallelism=5, completions=5, indexed=True, success_policy=policy))
    w.sync()
    pods = _by_index(w)
    w.succeed(pods[0])
    w.succeed(pods[2])
    w.sync()
    assert w.cond("SuccessCriteriaMet") is None
    w.succeed(pods[4])
    w.sync()
    assert w.cond("SuccessCriteriaMet").message == "Matched rules at index 0"


def test_elastic_scale_down_truncates_completed_indexes_and_succeeded():
    w = World(make_job(parallelism=4, completions=4, indexed=True))
    w.sync()
    pods = _by_index(w)
    w.succeed(pods[0])
    w.succeed(pods[3])
    w.sync()
    assert w.job.status.completed_indexes == "0,3" and w.job.status.succeeded == 2
    w.job = replace(w.job, parallelism=2, completions=2)
    w.sync()
    assert w.job.status.completed_indexes == "0" and w.job.status.succeeded == 1
    assert sorted(_by_index(w)) == [1]


def test_elastic_scale_to_zero_completes():
    w = World(make_job(parallelism=2, completions=2, indexed=True))
    w.sync()
    w.job = replace(w.job, parallelism=0, completions=0)
    w.sync()
    w.sync()
    assert w.cond("Complete") is not None


def test_suspended_job_with_enough_successes_still_completes():
    w = World(make_job(parallelism=1, completions=1))
    w.sync()
    w.succeed(w.active()[0])
    w.job = replace(w.job, suspend=True)
    w.sync()
    assert w.cond("Complete") is not None and w.cond("Suspended") is None


def test_start_time_is_set_once():
    w = World(make_job(parallelism=1, completions=2))
    w.sync()
    w.advance(5)
    w.sync()
    assert w.job.status.start_time == T0
