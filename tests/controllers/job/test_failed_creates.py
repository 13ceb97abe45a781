"""Failing pod creations (job_controller.go ``manageJob``: slow-start batches; every failed create
and every create skipped after a failing batch is taken off ``status.active``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.errors import AlreadyExists, Forbidden
from kbatch.runtime.controlplane import ControlPlane

JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "q"},
       "spec": {"parallelism": 4, "completions": 4, "template": {"spec": {
           "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}


def _quota(cp: ControlPlane, allowed: int) -> list[int]:
    """Let only the first ``allowed`` pod creations through (a pod quota, as upstream's tests fake
    with a failing pod control); returns the attempt counter."""
    attempts = [0]
    create = cp.controller_client("job").create

    def limited(obj, *args, **kwargs):
        if getattr(obj, "kind", None) == "Pod" or type(obj).__name__ == "Pod":
            attempts[0] += 1
            if attempts[0] > allowed:
                raise Forbidden('pods "q-x" is forbidden: exceeded quota: pods')
        return create(obj, *args, **kwargs)

    cp.controller_client("job").create = limited  # type: ignore[method-assign]
    return attempts


def _refuse_pod_deletes(cp: ControlPlane) -> Callable[..., Any]:
    """Make every pod DELETE fail (Forbidden); returns the client's own delete, to restore it."""
    delete = cp.controller_client("job").delete

    def refuse(kind, *args, **kwargs):
        if getattr(kind, "__name__", "") == "Pod":
            raise Forbidden('pods "x" is forbidden: deletion refused')
        return delete(kind, *args, **kwargs)

    cp.controller_client("job").delete = refuse  # type: ignore[method-assign]
    return delete


def test_two_failures_in_one_batch_and_a_skipped_batch_leave_active_at_the_created_count():
    # 4 creates in batches 1, 2, 1: the first passes, both of the second fail, the third is skipped.
    cp = ControlPlane(seed=0, controllers="job")
    attempts = _quota(cp, 1)
    cp.apply(JOB, namespace="default")
    status = cp.client.get(Job, "q", "default").status
    assert status.active == 1
    assert attempts[0] >= 3  # 1 + 2 in the first sync: the skipped batch was never attempted
    failed = [e for e in cp.client.list(Event, "default").items if e.reason == "FailedCreate"]
    assert failed and failed[0].message.startswith("Error creating: ")


def test_a_failed_delete_keeps_the_pod_counted_active():
    # manageJob: active -= removed (successful deletes only); terminating += removed.
    cp = ControlPlane(seed=0, controllers="job")
    cp.apply({**JOB, "spec": {**JOB["spec"], "parallelism": 2}}, namespace="default")
    assert cp.client.get(Job, "q", "default").status.active == 2
    _refuse_pod_deletes(cp)
    cp.client.patch(Job, "q", {"spec": {"parallelism": 1}}, "default")
    cp.run_until_idle()
    status = cp.client.get(Job, "q", "default").status
    assert (status.active, status.terminating) == (2, 0)
    assert any(e.reason == "FailedDelete" and e.message.startswith("Error deleting: ")
               for e in cp.client.list(Event, "default").items)


def test_a_failed_delete_of_a_finishing_job_writes_no_condition_in_that_sync():
    # syncJob: when deleteActivePods removes fewer pods than are active, finishedCondition is dropped
    # for that sync ("Can't declare the Job as finished yet"): no interim FailureTarget, the pod is
    # not counted failed, and the delete error requeues (manageJobErr). Once deletes pass, the Job
    # fails with DeadlineExceeded.
    cp = ControlPlane(seed=0, controllers="job")
    cp.apply({**JOB, "spec": {**JOB["spec"], "parallelism": 1, "completions": 1,
                              "activeDeadlineSeconds": 10}}, namespace="default")
    delete = _refuse_pod_deletes(cp)
    cp.advance(11)
    status = cp.client.get(Job, "q", "default").status
    assert (status.active, status.failed or 0) == (1, 0)
    assert not status.conditions
    assert 'result="error"' in cp.metrics.render()  # the failed delete was returned: rate-limited retries
    cp.controller_client("job").delete = delete  # type: ignore[method-assign]
    cp.advance(30)
    status = cp.client.get(Job, "q", "default").status
    assert [(c.type, c.reason) for c in status.conditions] == [
        ("FailureTarget", "DeadlineExceeded"), ("Failed", "DeadlineExceeded")]


def test_a_create_answered_already_exists_fails_the_batch_and_requeues():
    # manageJob / RealPodControl.createPods: every create error but NamespaceTerminating — AlreadyExists
    # included — records FailedCreate, takes the pod off active, stops the slow-start batches and is
    # returned from syncJob (rate-limited requeue).
    cp = ControlPlane(seed=0, controllers="job")
    create, attempts = cp.controller_client("job").create, [0]

    def collide(obj, *args, **kwargs):
        if type(obj).__name__ == "Pod":
            attempts[0] += 1
            if attempts[0] == 1:
                raise AlreadyExists('pods "q-abcde" already exists')
        return create(obj, *args, **kwargs)

    cp.controller_client("job").create = collide  # type: ignore[method-assign]
    cp.apply(JOB, namespace="default")
    failed = [e.message for e in cp.client.list(Event, "default").items if e.reason == "FailedCreate"]
    assert failed and "already exists" in failed[0]
    assert 'result="error"' in cp.metrics.render()
    cp.advance(5)
    assert cp.client.get(Job, "q", "default").status.active == 4


def test_a_failed_surplus_delete_writes_no_success_criteria_met_in_that_sync():
    # syncJob, manageJob's path: ``active`` counts only the successful deletes (``active -= removed``)
    # and ``complete`` needs ``active == 0``, so while the duplicate of a succeeded index cannot be
    # deleted, neither SuccessCriteriaMet nor Complete is written; once the delete passes, both are.
    cp = ControlPlane(seed=0, controllers="job")
    cp.apply({**JOB, "spec": {**JOB["spec"], "parallelism": 1, "completions": 1,
                              "completionMode": "Indexed"}}, namespace="default")
    delete = _refuse_pod_deletes(cp)
    (first,) = cp.client.list(Pod, "default").items
    twin = first.model_copy(deep=True)
    twin.metadata.name, twin.metadata.uid, twin.metadata.resource_version = "q-0-twin", None, None
    cp.client.create(twin)  # a second pod of index 0, already owned by the Job
    cp.advance(2)  # pod events are batched (syncJobBatchPeriod)
    # the duplicate manageJob tried to delete lost its finalizer first (deleteJobPods); the other
    # one succeeds
    (keeper,) = [p for p in cp.client.list(Pod, "default").items if p.metadata.finalizers]
    cp.client.update_status(keeper.model_copy(update={"status": keeper.status.model_copy(
        update={"phase": "Succeeded"})}))
    cp.advance(2)
    status = cp.client.get(Job, "q", "default").status
    assert (status.succeeded, status.active) == (1, 1)
    assert not status.conditions, "a pod of index 0 is still active: CompletionsReached is not met"
    cp.controller_client("job").delete = delete  # type: ignore[method-assign]
    cp.advance(30)
    status = cp.client.get(Job, "q", "default").status
    assert [(c.type, c.reason) for c in status.conditions] == [
        ("SuccessCriteriaMet", "CompletionsReached"), ("Complete", "CompletionsReached")]
