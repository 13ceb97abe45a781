"""``TestControllerSyncJob``'s cases, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go`` ``TestControllerSyncJob``
(the stored copy, commit de00a3c8, is of the 1.31 era: JobSuccessPolicy, JobManagedBy and
JobPodReplacementPolicy are still switchable there). All three are GA by 1.37 and kbatch models them
on, so a case written with a gate off is checked against what the same case gives with the gate on,
as upstream's gate-on siblings in the table show:

- ``status.terminating`` is always written (JobPodReplacementPolicy);
- a finishing Job first gets its interim condition (``SuccessCriteriaMet`` / ``FailureTarget``), and
  the terminal one in the same sync only when no pod is terminating (JobSuccessPolicy, JobManagedBy);
- ``podReplacementPolicy`` defaults to ``TerminatingOrFailed`` (``Failed`` with a podFailurePolicy).

Each case seeds the Job and its pods (:mod:`.upstream`), runs the controller with time frozen and
compares creations, deletions, finalizer removals ("pod patches"), counters and conditions. Upstream's
``newJob`` sets ``backoffLimit`` to the case's value, 0 when the case names none.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import Forbidden
from kbatch.runtime.controlplane import DEFAULT_START

from .upstream import BACKOFF_MSG, Case, P, counts, indexed, job_manifest

SCM = ("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods")
COMPLETE = ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")
FT_BACKOFF = ("FailureTarget", "True", "BackoffLimitExceeded", BACKOFF_MSG)
FAILED_BACKOFF = ("Failed", "True", "BackoffLimitExceeded", BACKOFF_MSG)
SUSPENDED = ("Suspended", "True", "JobSuspended", "Job suspended")
IX = "Indexed"

# name: (parallelism, completions, backoffLimit, spec extras, pods, case options, expectations)
CASES: dict[str, tuple[Any, ...]] = {
    "job start": (2, 5, 6, {}, [], {}, dict(creations=2, active=2)),
    "WQ job start": (2, None, 6, {}, [], {}, dict(creations=2, active=2)),
    "pending pods": (2, 5, 6, {}, counts(pending=2), {}, dict(active=2)),
    "correct # of pods": (3, 5, 6, {}, counts(active=3, ready=2), {}, dict(active=3, ready=2)),
    "WQ job: correct # of pods": (2, None, 6, {}, counts(active=2), {}, dict(active=2)),
    "too few active pods": (2, 5, 6, {}, counts(active=1, succeeded=1), {},
                            dict(creations=1, active=2, succeeded=1, patches=1)),
    "WQ job: recreate pods when failed": (
        1, None, 6, {"podReplacementPolicy": "Failed"}, counts(active=1, failed=1, terminating=1), {},
        dict(patches=1, failed=1, active=1, terminating=1)),
    "WQ job: turn on PodReplacementPolicy but not set PodReplacementPolicy": (
        1, 1, 6, {}, counts(active=1, failed=1, terminating=1), {},
        dict(active=1, patches=2, failed=2, terminating=1)),
    "WQ job: recreate pods when terminating or failed": (
        1, None, 6, {"podReplacementPolicy": "TerminatingOrFailed"},
        counts(active=1, failed=1, terminating=1), {}, dict(active=1, patches=2, failed=2, terminating=1)),
    "more terminating pods than parallelism": (
        1, 1, 6, {"podReplacementPolicy": "Failed"}, counts(active=2, terminating=4), {},
        dict(terminating=5, active=1, deletions=1, patches=1)),
    # upstream (gate off) expects terminating nil; with JobPodReplacementPolicy on it is counted
    "more terminating pods than parallelism; PodFailurePolicy used": (
        1, 1, 6, {"podFailurePolicy": {"rules": []}}, counts(active=2, terminating=4), {},
        dict(terminating=5, active=1, deletions=1, patches=1)),
    "too few active pods with a dynamic job": (2, None, 6, {}, counts(active=1), {},
                                               dict(creations=1, active=2)),
    "too many active pods": (2, 5, 6, {}, counts(active=3), {},
                             dict(deletions=1, active=2, patches=1, terminating=1)),
    "too many active pods; PodReplacementPolicy enabled": (
        2, 5, 6, {}, counts(active=3), {}, dict(deletions=1, active=2, patches=1, terminating=1)),
    "count ready pods when too many active pods": (
        2, 5, 6, {}, counts(active=3, ready=3), {}, dict(deletions=1, active=2, patches=1, ready=2,
                                                         terminating=1)),
    "failed + succeed pods: reset backoff delay": (
        2, 5, 6, {}, counts(active=1, succeeded=1, failed=1), {},
        dict(creations=1, active=2, succeeded=1, failed=1, patches=2)),
    "new failed pod": (2, 5, 6, {}, counts(active=1, failed=1), {},
                       dict(creations=1, active=2, failed=1, patches=1)),
    "no new pod; possible finalizer update of failed pod": (
        1, 1, 6, {}, counts(active=1), {"status": {"active": 1, "failed": 1}}, dict(active=1, failed=1)),
    "job finish": (2, 5, 6, {}, counts(succeeded=5), {},
                   dict(succeeded=5, patches=5, conditions=[SCM, COMPLETE])),
    "WQ job finishing": (2, None, 6, {}, counts(active=1, succeeded=1), {},
                         dict(active=1, succeeded=1, patches=1)),
    "WQ job all finished": (2, None, 6, {}, counts(succeeded=2), {},
                            dict(succeeded=2, patches=2, conditions=[SCM, COMPLETE])),
    "WQ job all finished despite one failure": (
        2, None, 6, {}, counts(succeeded=1, failed=1), {},
        dict(succeeded=1, failed=1, patches=2, conditions=[SCM, COMPLETE])),
    "more active pods than parallelism": (2, 5, 6, {}, counts(active=10), {},
                                          dict(deletions=8, active=2, patches=8, terminating=8)),
    "more active pods than remaining completions": (
        3, 4, 6, {}, counts(active=3, succeeded=2), {},
        dict(deletions=1, active=2, succeeded=2, patches=3, terminating=1)),
    "status change": (2, 5, 6, {}, counts(active=2, succeeded=2), {},
                      dict(active=2, succeeded=2, patches=2)),
    "deleting job": (2, 5, 6, {}, counts(pending=1, active=1, succeeded=1), {"deleting": True},
                     dict(active=2, succeeded=1, patches=3)),
    # upstream (gates off) writes Failed at once; on: FailureTarget, then Failed (nothing terminating)
    "too many job failures": (2, 5, 0, {}, counts(failed=1), {"deleting": True},
                              dict(failed=1, patches=1, conditions=[FT_BACKOFF, FAILED_BACKOFF])),
    "indexed job start": (2, 5, 6, {"completionMode": IX}, [], {},
                          dict(creations=2, active=2, created_indexes={0, 1})),
    "indexed job with some pods deleted, podReplacementPolicy Failed": (
        2, 5, 6, {"completionMode": IX, "podReplacementPolicy": "Failed"}, counts(terminating=1), {},
        dict(creations=1, active=1, created_indexes={0}, terminating=1)),
    "indexed job with some pods deleted, podReplacementPolicy TerminatingOrFailed": (
        2, 5, 6, {"completionMode": IX, "podReplacementPolicy": "TerminatingOrFailed"},
        counts(terminating=1), {}, dict(creations=2, active=2, created_indexes={0, 1}, terminating=1,
                                        patches=1)),
    "indexed job completed": (
        2, 3, 6, {"completionMode": IX},
        indexed(("0", "Succeeded"), ("1", "Failed"), ("1", "Succeeded"), ("2", "Succeeded")), {},
        dict(succeeded=3, failed=1, completed="0-2", patches=4, conditions=[SCM, COMPLETE])),
    # gate off: Failed at once; on: the running pod is terminating, so FailureTarget only
    "indexed job failed": (
        2, 3, 0, {"completionMode": IX}, indexed(("0", "Succeeded"), ("1", "Failed"), ("2", "Running")),
        {}, dict(succeeded=1, failed=2, completed="0", conditions=[FT_BACKOFF], patches=3, deletions=1,
                 terminating=1)),
    "count terminating pods when indexed job fails and PodReplacementPolicy enabled": (
        2, 3, 0, {"completionMode": IX}, indexed(("0", "Succeeded"), ("1", "Failed"), ("2", "Running")),
        {}, dict(succeeded=1, failed=2, completed="0", conditions=[FT_BACKOFF], patches=3, deletions=1,
                 terminating=1)),
    "count ready pods when job fails": (
        2, 3, 0, {}, counts(active=2, ready=2, failed=1), {},
        dict(failed=3, conditions=[FT_BACKOFF], patches=3, deletions=2, terminating=2)),
    "indexed job repeated completed index": (
        2, 3, 6, {"completionMode": IX}, indexed(("0", "Succeeded"), ("1", "Succeeded"), ("1", "Succeeded")),
        {}, dict(creations=1, active=1, succeeded=2, completed="0,1", created_indexes={2}, patches=3)),
    "indexed job some running and completed pods": (
        8, 20, 6, {"completionMode": IX},
        indexed(("0", "Running"), ("2", "Succeeded"), ("3", "Pending"), ("4", "Succeeded"),
                ("5", "Succeeded"), ("7", "Succeeded"), ("8", "Succeeded"), ("9", "Succeeded")), {},
        dict(creations=6, active=8, succeeded=6, completed="2,4,5,7-9",
             created_indexes={1, 6, 10, 11, 12, 13}, patches=6)),
    "indexed job some failed pods": (
        3, 4, 6, {"completionMode": IX}, indexed(("0", "Failed"), ("1", "Pending"), ("2", "Failed")), {},
        dict(creations=2, active=3, failed=2, created_indexes={0, 2}, patches=2)),
    "indexed job some pods without index": (
        2, 5, 6, {"completionMode": IX},
        counts(active=1, succeeded=1, failed=1)
        + indexed(("invalid", "Running"), ("invalid", "Succeeded"), ("invalid", "Failed"),
                  ("invalid", "Pending"), ("0", "Succeeded"), ("1", "Running"), ("2", "Running")), {},
        dict(deletions=3, active=2, succeeded=1, completed="0", patches=8, terminating=3)),
    "indexed job repeated indexes": (
        5, 5, 6, {"completionMode": IX},
        counts(succeeded=1, failed=1)
        + indexed(("invalid", "Running"), ("0", "Succeeded"), ("1", "Running"), ("2", "Running"),
                  ("2", "Pending")), {},
        dict(deletions=2, active=2, succeeded=1, completed="0", patches=5, terminating=2)),
    "indexed job with indexes outside of range": (
        2, 5, 6, {"completionMode": IX},
        indexed(("0", "Succeeded"), ("5", "Running"), ("6", "Succeeded"), ("7", "Pending"), ("8", "Failed")),
        {}, dict(succeeded=1, deletions=2, completed="0", patches=5, terminating=2)),
    "suspending a job with satisfied expectations": (
        2, 4, 6, {"suspend": True}, counts(active=2), {},
        dict(deletions=2, conditions=[SUSPENDED], patches=2, terminating=2)),
    "suspending a job with satisfied expectations; PodReplacementPolicy enabled": (
        2, 4, 6, {"suspend": True}, counts(active=2), {},
        dict(deletions=2, conditions=[SUSPENDED], patches=2, terminating=2)),
    "count ready pods when suspending a job with satisfied expectations": (
        2, 4, 6, {"suspend": True}, counts(active=2, ready=2), {},
        dict(deletions=2, conditions=[SUSPENDED], patches=2, terminating=2)),
    "resuming a suspended job": (
        2, 4, 6, {}, [], {"status": {"conditions": [
            {"type": "Suspended", "status": "True", "reason": "JobSuspended", "message": "Job suspended",
             "lastProbeTime": "2024-12-31T00:00:00Z", "lastTransitionTime": "2024-12-31T00:00:00Z"}]}},
        dict(creations=2, active=2, conditions=[("Suspended", "False", "JobResumed", "Job resumed")])),
    "suspending a deleted job": (2, 4, 6, {"suspend": True}, counts(active=2), {"deleting": True},
                                 dict(active=2, patches=2)),
    "suspending a deleted job; PodReplacementPolicy enabled": (
        2, 4, 6, {"suspend": True}, counts(active=2), {"deleting": True}, dict(active=2, patches=2)),
    "FailureTarget=False condition added manually is ignored": (
        1, 1, 0, {}, counts(active=1, ready=1),
        {"status": {"active": 1, "startTime": "2025-01-01T00:00:00Z", "conditions": [
            {"type": "FailureTarget", "status": "False", "reason": "ConditionAddedManually",
             "message": "Testing"}]}},
        dict(active=1, ready=1,
             conditions=[("FailureTarget", "False", "ConditionAddedManually", "Testing")])),
    "SuccessCriteriaMet=False condition added manually is ignored": (
        1, 1, 0, {}, counts(active=1, ready=1),
        {"status": {"active": 1, "startTime": "2025-01-01T00:00:00Z", "conditions": [
            {"type": "SuccessCriteriaMet", "status": "False", "reason": "ConditionAddedManually",
             "message": "Testing"}]}},
        dict(active=1, ready=1,
             conditions=[("SuccessCriteriaMet", "False", "ConditionAddedManually", "Testing")])),
    "backoff limit exceeded; JobManagedBy enabled": (
        2, 3, 0, {"completionMode": IX}, indexed(("0", "Succeeded"), ("1", "Failed"), ("2", "Running")),
        {}, dict(succeeded=1, failed=2, completed="0", conditions=[FT_BACKOFF], patches=3, deletions=1,
                 terminating=1)),
}


def run_case(parallelism: int | None, completions: int | None, backoff: int, spec: dict[str, Any],
             pods: list[P], options: dict[str, Any]) -> Any:
    return Case(job_manifest(parallelism, completions, backoff, **spec), pods, **options).run()


@pytest.mark.parametrize("name", list(CASES))
def test_controller_sync_job(name: str) -> None:
    *setup, want = CASES[name]
    got = run_case(*setup)
    spec = setup[3]
    assert len(got.created) == want.get("creations", 0)
    assert len(got.deleted) == want.get("deletions", 0)
    assert len(got.released) == want.get("patches", 0)
    assert got.counters() == {"active": want.get("active", 0), "ready": want.get("ready", 0),
                              "succeeded": want.get("succeeded", 0), "failed": want.get("failed", 0),
                              "terminating": want.get("terminating", 0)}
    assert (got.status.completed_indexes or "") == want.get("completed", "")  # a Go string: "" = unset
    assert got.conditions() == want.get("conditions", [])
    if spec.get("completionMode") == IX:
        assert got.created_indexes() == want.get("created_indexes", set())
        for pod in got.created:  # checkIndexedJobPods: hostname and generateName carry the index
            ix = pod.metadata.annotations["batch.kubernetes.io/job-completion-index"]
            assert pod.spec.hostname == f"foobar-{ix}"
            assert pod.metadata.generate_name == f"foobar-{ix}-"
            assert pod.metadata.labels["batch.kubernetes.io/job-completion-index"] == ix
    for pod in got.created:  # each create carries the Job as controller
        ref = pod.metadata.controller_ref()
        assert (ref.api_version, ref.kind, ref.name, ref.uid) == (
            "batch/v1", "Job", "foobar", got.job.metadata.uid)
    assert (got.status.start_time is None) == bool(spec.get("suspend"))


# -- podControllerError: FakePodControl fails every pod create, delete and patch -------------------
def _failing_pod_control(case: Case) -> list[str]:
    """Every pod create, delete and patch the controller makes fails (upstream's
    ``FakePodControl{Err: ...}``); returns the kinds of the calls attempted."""
    client, calls = case.cp.controller_client("job"), []

    def fail(verb: str, real: Any) -> Any:
        def call(first: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(first, "__name__", type(first).__name__) == "Pod":
                calls.append(verb)
                raise Forbidden("fake error")
            return real(first, *args, **kwargs)
        return call

    for verb in ("create", "delete", "patch"):
        setattr(client, verb, fail(verb, getattr(client, verb)))
    return calls


def _events(got: Any, reason: str) -> list[str]:
    return [e.message for e in got.events if e.reason == reason]


def test_too_few_active_pods_with_controller_error() -> None:
    # "too few active pods, with controller error": the create fails and the success stays uncounted
    case = Case(job_manifest(2, 5, 6), counts(active=1, succeeded=1))
    calls = _failing_pod_control(case)
    got = case.run()
    assert calls.count("create") == 1 and calls.count("patch") >= 1
    assert got.created == [] and len(got.released) == 0
    assert got.counters() == {"active": 1, "ready": 0, "succeeded": 0, "failed": 0, "terminating": 0}
    assert _events(got, "FailedCreate")


def test_too_many_active_pods_with_controller_error() -> None:
    # "too many active pods, with controller error": the delete fails, all three stay active
    case = Case(job_manifest(2, 5, 6), counts(active=3))
    calls = _failing_pod_control(case)
    got = case.run()
    assert "delete" in calls or "patch" in calls
    assert got.deleted == [] and got.status.active == 3
    assert _events(got, "FailedDelete")


def test_only_new_failed_pod_with_controller_error() -> None:
    # "only new failed pod with controller error": a create is attempted, the failure stays uncounted
    case = Case(job_manifest(2, 5, 6), counts(active=1, failed=1))
    calls = _failing_pod_control(case)
    got = case.run()
    assert calls.count("create") == 1
    assert (got.status.active, got.status.failed or 0) == (1, 0)


def test_limited_pods() -> None:
    # "limited pods": creations beyond the 10th fail; slow start (1, 2, 4, 8) stops at the failing
    # batch, so at most 15 create calls are made and 10 pods exist
    case = Case(job_manifest(100, 200, 6))
    client, attempts = case.cp.controller_client("job"), [0]
    real = client.create

    def limited(obj: Any, *args: Any, **kwargs: Any) -> Any:
        if type(obj).__name__ == "Pod":
            attempts[0] += 1
            if attempts[0] > 10:
                raise Forbidden("pod limit")
        return real(obj, *args, **kwargs)

    client.create = limited  # type: ignore[method-assign]
    got = case.run()
    assert len(got.created) == 10 and got.status.active == 10
    assert attempts[0] <= 15


# -- the back-off record (upstream seeds the controller's in-memory podBackoffStore) ---------------
def test_too_few_active_pods_and_active_back_off() -> None:
    # "too few active pods and active back-off": a failure recorded at the controller's current time
    # holds off the replacement. kbatch's record comes from the pods it counted, so the case seeds a
    # failed pod that finished now (failuresAfterLastSuccess 1, lastFailureTime now).
    now = DEFAULT_START.strftime("%Y-%m-%dT%H:%M:%SZ")  # the control plane's clock at the start
    case = Case(job_manifest(1, 1, 6), [P("Failed", finished_at=now)])
    got = case.run()
    assert got.created == []
    assert got.counters() == {"active": 0, "ready": 0, "succeeded": 0, "failed": 1, "terminating": 0}
    case.cp.advance(10.5)  # the first back-off step, 10 s
    assert len(case.outcome().created) == 1


def test_too_few_active_pods_and_no_back_offs() -> None:
    # "too few active pods and no back-offs": no failure since the last success: create at once
    got = Case(job_manifest(1, 1, 6), [P("Failed")]).run()  # finished long ago
    assert len(got.created) == 1 and got.status.active == 1
