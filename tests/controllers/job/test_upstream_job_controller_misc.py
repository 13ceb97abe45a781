"""Smaller tables of ``job_controller_test.go``: ``TestEnsureJobConditions``, ``TestGetNewFinshedPods``,
``TestFinalizerCleanup``, ``TestUpdateJobRequeue``, ``TestSyncJobUpdateRequeue`` and the observable
part of ``TestFinalizersRemovedExpectations``.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go`` (stored copy of the 1.31
era, commit de00a3c8). ``ensureJobConditionStatus`` is ``conditions.ensure_condition``;
``getNewFinishedPods`` is part of kbatch's snapshot (``context.build_context``: the newly finished
pods plus the uncounted ones); the last two run through the control plane. Upstream's finalizer
expectations have no kbatch counterpart (docs/job.md, "No expectations"): what they protect — each
finished pod counted once across a failed and a successful finalizer removal — is checked instead.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Conflict, Forbidden
from kbatch.controllers.job.conditions import ensure_condition, new_condition
from kbatch.controllers.job.context import SyncConfig, build_context
from kbatch.controllers.job.views import JobStatusInfo, PodInfo

from .builders import make_job
from .upstream import Case, counts, job_manifest

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def _cond(status: str, reason: str) -> Any:
    return new_condition("Suspended", status, reason, "", NOW)


# -- TestEnsureJobConditions ----------------------------------------------------------------------
# name: (have, want status, want reason, expected list as (status, reason), expect update)
ENSURE: dict[str, tuple[Any, ...]] = {
    "append true condition": ((), "True", "foo", [("True", "foo")], True),
    "append false condition": ((), "False", "foo", [], False),
    "update true condition reason": ((_cond("True", "foo"),), "True", "bar", [("True", "bar")], True),
    "update true condition status": ((_cond("True", "foo"),), "False", "foo", [("False", "foo")], True),
    "update false condition status": ((_cond("False", "foo"),), "True", "foo", [("True", "foo")], True),
    "condition already exists": ((_cond("True", "foo"),), "True", "foo", [("True", "foo")], False),
}


@pytest.mark.parametrize("name", list(ENSURE))
def test_ensure_job_conditions(name: str) -> None:
    have, status, reason, want, updated = ENSURE[name]
    got, changed = ensure_condition(have, "Suspended", status, reason, "", NOW)
    assert changed is updated
    assert [(c.type, c.status, c.reason, c.message) for c in got] == [
        ("Suspended", s, r, "") for s, r in want]


# -- TestGetNewFinshedPods ------------------------------------------------------------------------
def _pod(uid: str, phase: str, finalizer: bool = False, deleted: bool = False) -> PodInfo:
    return PodInfo(name=uid, uid=uid, phase=phase, has_finalizer=finalizer,
                   deletion_timestamp=NOW if deleted else None)


# name: (status succeeded, failed, uncounted succeeded, uncounted failed, pods, want succeeded, failed)
NEW_FINISHED: dict[str, tuple[Any, ...]] = {
    "some counted": (2, 1, (), (), [
        _pod("a", "Succeeded"), _pod("b", "Succeeded", True), _pod("c", "Succeeded", True),
        _pod("d", "Failed"), _pod("e", "Failed", True), _pod("f", "Running")], 4, 2),
    "some uncounted": (1, 1, ("a", "c"), ("e", "f"), [
        _pod("a", "Succeeded"), _pod("b", "Succeeded"), _pod("c", "Succeeded", True),
        _pod("d", "Succeeded", True), _pod("e", "Failed"), _pod("f", "Failed", True),
        _pod("g", "Failed", True)], 4, 4),
    "deleted pods": (1, 1, (), (), [
        _pod("a", "Succeeded", True, True), _pod("b", "Failed", True, True),
        _pod("c", "Running", True, True), _pod("d", "Pending", True, True),
        _pod("e", "Running", False, True), _pod("f", "Pending", False, True)], 2, 4),
}


@pytest.mark.parametrize("name", list(NEW_FINISHED))
def test_get_new_finished_pods(name: str) -> None:
    succeeded, failed, unc_s, unc_f, pods, want_s, want_f = NEW_FINISHED[name]
    status = JobStatusInfo(succeeded=succeeded, failed=failed, uncounted_succeeded=unc_s,
                           uncounted_failed=unc_f, has_uncounted=True)
    job = make_job(parallelism=1, completions=100, backoff_limit=100, status=status)
    ctx = build_context(job, pods, NOW, None, SyncConfig())
    assert (ctx.succeeded, ctx.failed) == (want_s, want_f)


# -- TestFinalizerCleanup -------------------------------------------------------------------------
def test_finalizer_cleanup() -> None:
    # A Job marked finished by someone else: its pod loses the tracking finalizer
    case = Case(job_manifest(1, 1, 1), controllers="job")
    case.run()
    pods = case.cp.client.list(Pod, "default").items
    assert len(pods) == 1 and JOB_TRACKING_FINALIZER in pods[0].metadata.finalizers
    now = case.cp.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    done = "Reached expected number of succeeded pods"
    case.cp.client.patch_status(Job, "foobar", {"status": {"active": 0, "completionTime": now, "conditions": [
        {"type": t, "status": "True", "reason": "CompletionsReached", "message": done}
        for t in ("SuccessCriteriaMet", "Complete")]}}, "default")
    case.cp.advance(2)
    pod = case.cp.client.get(Pod, pods[0].metadata.name, "default")
    assert JOB_TRACKING_FINALIZER not in (pod.metadata.finalizers or ())


# -- TestFinalizersRemovedExpectations (observable part) ------------------------------------------
def test_finished_pods_counted_once_across_failed_finalizer_removal() -> None:
    # 2 succeeded + 2 failed pods; the first sync's finalizer patches fail, the next ones pass
    case = Case(job_manifest(2, 2, 6), counts(succeeded=2, failed=2))
    real = case.cp.controller_client("job").patch

    def refuse(kind: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(kind, "__name__", "") == "Pod":
            raise Forbidden("fake pod controller error")
        return real(kind, *args, **kwargs)

    case.cp.controller_client("job").patch = refuse  # type: ignore[method-assign]
    got = case.run()
    assert got.released == []
    assert (got.status.succeeded or 0, got.status.failed or 0) == (0, 0)
    case.cp.controller_client("job").patch = real  # type: ignore[method-assign]
    case.cp.advance(30)
    got = case.outcome()
    assert len(got.released) == 4
    assert (got.status.succeeded, got.status.failed) == (2, 2)
    assert [c.type for c in got.status.conditions] == ["SuccessCriteriaMet", "Complete"]


# -- TestUpdateJobRequeue / TestSyncJobUpdateRequeue ----------------------------------------------
def _syncs(case: Case) -> int:
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in case.cp.metrics.render().splitlines()
               if line.startswith("job_controller_job_syncs_total{"))


def test_update_job_requeue_spec_update_syncs_immediately() -> None:
    # "spec update": a change of the spec (generation bump) syncs the Job at once
    case = Case(job_manifest(1, 1, 1, suspend=True, completionMode="Indexed"))
    case.run()
    before = _syncs(case)
    case.cp.client.patch(Job, "foobar", {"spec": {"suspend": False}}, "default")
    case.cp.run_until_idle()  # no time passes
    assert _syncs(case) == before + 1 and len(case.outcome().created) == 1


def test_update_job_requeue_status_update_is_batched() -> None:
    # "status update": a status-only change syncs after syncJobBatchPeriod (1 s), not at once
    case = Case(job_manifest(1, 1, 1, completionMode="Indexed"))
    case.run()
    before = _syncs(case)
    case.cp.client.patch_status(Job, "foobar", {"status": {"conditions": [
        {"type": "FailureTarget", "status": "False", "reason": "ByHand", "message": "m"}]}}, "default")
    case.cp.run_until_idle()
    assert _syncs(case) == before
    case.cp.advance(1)
    assert _syncs(case) > before


@pytest.mark.parametrize("error", [None, Forbidden("update error"), Conflict("the object has been modified")],
                         ids=["no error", "generic error", "conflict error"])
def test_sync_job_update_requeue(error: Exception | None) -> None:
    # a failed status write is retried (rate-limited requeue); none is needed when it passes
    case = Case(job_manifest(2, 2, 6))
    real, calls = case.cp.controller_client("job").update_status, [0]

    def flaky(obj: Any, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if error is not None and calls[0] == 1:
            raise error
        return real(obj, *args, **kwargs)

    case.cp.controller_client("job").update_status = flaky  # type: ignore[method-assign]
    case.cp.run_until_idle()
    assert 'result="error"' in case.cp.metrics.render() if error else calls[0] == 1
    case.cp.advance(1)
    assert case.outcome().status.active == 2
