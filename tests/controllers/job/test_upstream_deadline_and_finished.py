"""``TestSyncJobPastDeadline``, ``TestPastDeadlineJobFinished``, ``TestSingleJobFailedCondition`` and
``TestSyncJobComplete``, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go`` (stored copy of the 1.31
era, commit de00a3c8). As in :mod:`.test_upstream_controller_sync_job`, a case written with
JobPodReplacementPolicy/JobManagedBy off is checked against its gate-on outcome (both GA by 1.37):
the terminal ``Failed`` follows the interim ``FailureTarget`` in the same sync only when no pod is
terminating. ``startTime`` is seeded ``startTime`` seconds before the control plane's clock.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job

from .upstream import BACKOFF_MSG, Case, counts, job_manifest

DEADLINE_MSG = "Job was active longer than specified deadline"
FT_DEADLINE = ("FailureTarget", "True", "DeadlineExceeded", DEADLINE_MSG)
FAILED_DEADLINE = ("Failed", "True", "DeadlineExceeded", DEADLINE_MSG)
FT_BACKOFF = ("FailureTarget", "True", "BackoffLimitExceeded", BACKOFF_MSG)
FAILED_BACKOFF = ("Failed", "True", "BackoffLimitExceeded", BACKOFF_MSG)


def _ago(case_cp_now: Any, seconds: int) -> str:
    return (case_cp_now - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _deadline_case(parallelism: int, completions: int, deadline: int, started: int, backoff: int,
                   pods: list[Any], suspend: bool = False) -> Case:
    from kbatch.runtime.controlplane import DEFAULT_START

    manifest = job_manifest(parallelism, completions, backoff, activeDeadlineSeconds=deadline,
                            suspend=suspend)
    return Case(manifest, pods, status={"startTime": _ago(DEFAULT_START, started)})


# name: (parallelism, completions, activeDeadlineSeconds, startTime, backoffLimit, pods, suspend,
#        deletions, succeeded, failed, conditions)
PAST_DEADLINE: dict[str, tuple[Any, ...]] = {
    "activeDeadlineSeconds less than single pod execution": (
        1, 1, 10, 15, 6, counts(active=1), False, 1, 0, 1, [FT_DEADLINE]),
    "activeDeadlineSeconds bigger than single pod execution": (
        1, 2, 10, 15, 6, counts(active=1, succeeded=1), False, 1, 1, 1, [FT_DEADLINE]),
    # gates off: Failed alone; on: FailureTarget, then Failed at once (nothing terminating)
    "activeDeadlineSeconds times-out before any pod starts": (
        1, 1, 10, 10, 6, [], False, 0, 0, 0, [FT_DEADLINE, FAILED_DEADLINE]),
    "activeDeadlineSeconds with backofflimit reach": (
        1, 1, 1, 10, 0, counts(failed=1), False, 0, 0, 1, [FT_BACKOFF, FAILED_BACKOFF]),
    "activeDeadlineSeconds is not triggered when Job is suspended": (
        1, 2, 10, 15, 6, [], True, 0, 0, 0, [("Suspended", "True", "JobSuspended", "Job suspended")]),
    "activeDeadlineSeconds exceeded; JobPodReplacementPolicy enabled": (
        1, 2, 10, 15, 6, counts(active=1, succeeded=1), False, 1, 1, 1, [FT_DEADLINE]),
    "activeDeadlineSeconds exceeded; JobManagedBy enabled": (
        1, 2, 10, 15, 6, counts(active=1, succeeded=1), False, 1, 1, 1, [FT_DEADLINE]),
    "activeDeadlineSeconds exceeded and backofflimit reached; JobManagedBy enabled": (
        1, 1, 1, 10, 0, counts(failed=1), False, 0, 0, 1, [FT_BACKOFF, FAILED_BACKOFF]),
}


@pytest.mark.parametrize("name", list(PAST_DEADLINE))
def test_sync_job_past_deadline(name: str) -> None:
    *setup, suspend, deletions, succeeded, failed, conditions = PAST_DEADLINE[name]
    case = _deadline_case(*setup, suspend=suspend)
    got = case.run()
    assert got.created == []
    assert len(got.deleted) == deletions
    assert (got.status.active or 0, got.status.succeeded or 0, got.status.failed or 0) == (
        0, succeeded, failed)
    assert got.conditions() == conditions
    if not suspend:
        assert got.status.start_time is not None


@pytest.mark.parametrize("set_start_time", [False, True], ids=[
    "New job created without start time being set", "New job created with start time being set"])
def test_past_deadline_job_finished(set_start_time: bool) -> None:
    # TestPastDeadlineJobFinished: Failed/DeadlineExceeded, never before the deadline has passed
    from kbatch.runtime.controlplane import DEFAULT_START

    status = {"startTime": _ago(DEFAULT_START, 0)} if set_start_time else None
    case = Case(job_manifest(1, 1, 6, activeDeadlineSeconds=1), status=status,
                controllers="job,scheduler,kubelet")
    case.cp.run_until_idle()
    assert case.cp.client.get(Job, "foobar", "default").status.start_time is not None
    case.cp.advance(0.5)
    assert not any(c.type == "Failed" for c in case.outcome().status.conditions or ())
    waited = case.cp.wait_for((Job, "foobar", "Failed"), timeout="30s")
    job = case.outcome().job
    failed = next(c for c in job.status.conditions if c.type == "Failed")
    assert failed.reason == "DeadlineExceeded"
    assert (case.cp.now() - job.status.start_time).total_seconds() >= 1 and waited > 0


def test_single_job_failed_condition() -> None:
    # a Failed=False condition written by someone else becomes the one Failed=True condition
    from kbatch.runtime.controlplane import DEFAULT_START

    case = Case(job_manifest(1, 1, 6, activeDeadlineSeconds=10), status={
        "startTime": _ago(DEFAULT_START, 15),
        "conditions": [{"type": "Failed", "status": "False", "reason": "DeadlineExceeded",
                        "message": DEADLINE_MSG}]})
    got = case.run()
    assert got.deleted == []
    failed = [c for c in got.status.conditions if c.type == "Failed"]
    assert [(c.status, c.reason) for c in failed] == [("True", "DeadlineExceeded")]


def test_sync_job_complete() -> None:
    # a Job already Complete: a sync leaves its conditions as they are and creates nothing
    from kbatch.runtime.controlplane import DEFAULT_START

    start = _ago(DEFAULT_START, 60)
    conds = [{"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached",
              "message": "Reached expected number of succeeded pods"},
             {"type": "Complete", "status": "True", "reason": "CompletionsReached",
              "message": "Reached expected number of succeeded pods"}]
    case = Case(job_manifest(1, 1, 6), counts(succeeded=1), status={
        "startTime": start, "completionTime": start, "succeeded": 1, "conditions": conds})
    before = case.cp.client.get(Job, "foobar", "default").status.conditions
    got = case.run()
    assert got.status.conditions == before
    assert got.created == [] and case.writes == []
