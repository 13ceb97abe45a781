"""More Job example checks: status counters, scale-down order, OnFailure restarts, FailIndex,
successPolicy succeededCount, parallelism 0, the Job's events — each citing its upstream source.

Written only against :class:`conformance.target.Target`; pod outcomes are status patches
(:mod:`conformance.job.driver`), as in upstream's Job integration tests.
"""

from __future__ import annotations

import pytest

from conformance.job.driver import active_pods, by_index, fail, job_manifest, run, succeed, wait_status
from conformance.target import has_condition

CTRL = "kubernetes/kubernetes pkg/controller/job/job_controller.go"
pytestmark = [pytest.mark.needs_virtual_clock, pytest.mark.plays_kubelet]


def _status(target, job: str) -> dict:
    return (target.get("Job", job) or {}).get("status") or {}


def _counter(job: dict, name: str) -> int:
    """A status counter; zero counters are omitted on the wire (omitempty)."""
    return ((job.get("status") or {}).get(name)) or 0


def _restarted(target, pod, restarts: int) -> None:
    """The kubelet restarted the pod's container in place (restartPolicy OnFailure): still Running."""
    started = target.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    target.patch_status("Pod", pod["metadata"]["name"], {"status": {"phase": "Running", "containerStatuses": [
        {"name": "main", "ready": True, "restartCount": restarts, "image": "busybox", "imageID": "",
         "state": {"running": {"startedAt": started}}}]}})


@pytest.mark.semantic("status.ready counts active pods with Ready=True; status.terminating counts "
                      "deleted pods not yet terminal (podReplacementPolicy Failed)",
                      source=f"{CTRL} syncJob (countReadyPods, CountTerminatingPods); KEP-3939")
def test_ready_and_terminating_counters(target):
    target.apply(job_manifest("rt", parallelism=3, completions=3, podReplacementPolicy="Failed"))
    a, b, c = active_pods(target, "rt")
    run(target, a)
    run(target, b)
    run(target, c, ready=False)
    status = wait_status(target, "rt", lambda j: _counter(j, "ready") == 2, 30)["status"]
    assert status["active"] == 3 and status["terminating"] == 0
    target.delete("Pod", a["metadata"]["name"])
    status = wait_status(target, "rt", lambda j: _counter(j, "terminating") == 1, 30)["status"]
    assert status["active"] == 2 and status["ready"] == 1
    assert len(active_pods(target, "rt")) == 2  # Failed policy: no replacement while it terminates


@pytest.mark.semantic("scaling parallelism down deletes the not-ready pod before ready ones, "
                      "uncounted (no failure recorded)",
                      source=f"{CTRL} manageJob, activePodsForRemoval; controller_utils.go ActivePods")
def test_scale_down_order(target):
    target.apply(job_manifest("sd", parallelism=2))
    ready, not_ready = active_pods(target, "sd")
    run(target, ready)
    run(target, not_ready, ready=False)
    target.patch("Job", "sd", {"spec": {"parallelism": 1}})
    wait_status(target, "sd", lambda j: len(active_pods(target, "sd")) == 1, 30)
    assert [p["metadata"]["name"] for p in active_pods(target, "sd")] == [ready["metadata"]["name"]]
    status = _status(target, "sd")
    assert status.get("failed", 0) == 0 and status["active"] == 1


@pytest.mark.semantic("parallelism 0 deletes every active pod; raising it creates pods again",
                      source=f"{CTRL} manageJob")
def test_parallelism_zero_pauses(target):
    target.apply(job_manifest("pz", parallelism=2, completions=4))
    target.patch("Job", "pz", {"spec": {"parallelism": 0}})
    wait_status(target, "pz", lambda j: not active_pods(target, "pz") and _counter(j, "active") == 0, 30)
    assert _status(target, "pz").get("failed", 0) == 0
    target.patch("Job", "pz", {"spec": {"parallelism": 2}})
    assert len(active_pods(target, "pz")) == 2


@pytest.mark.semantic("restartPolicy OnFailure: container restarts of running pods reaching backoffLimit "
                      "fail the Job with BackoffLimitExceeded",
                      source=f"{CTRL} pastBackoffLimitOnFailure; k8s.io/docs/concepts/workloads/controllers/"
                             "job#pod-backoff-failure-policy")
def test_on_failure_restarts_count(target):
    target.apply(job_manifest("of", parallelism=1, completions=1, backoffLimit=2, restartPolicy="OnFailure"))
    pod = active_pods(target, "of")[0]
    _restarted(target, pod, 1)
    target.advance(2)
    assert not has_condition(target.get("Job", "of"), "FailureTarget")
    _restarted(target, pod, 2)
    job = wait_status(target, "of", lambda j: has_condition(j, "FailureTarget"), 30)
    failure = next(c for c in job["status"]["conditions"] if c["type"] == "FailureTarget")
    assert failure["reason"] == "BackoffLimitExceeded"
    assert failure["message"] == "Job has reached the specified backoff limit"


@pytest.mark.semantic("podFailurePolicy FailIndex: the index fails at once (no retry), failedIndexes, "
                      "other indexes go on; FailedIndexes when all are done",
                      source=f"KEP-3850; {CTRL}; pod_failure_policy.go")
def test_fail_index(target):
    target.apply(job_manifest(
        "fi", parallelism=2, completions=2, completionMode="Indexed", backoffLimitPerIndex=3,
        podFailurePolicy={"rules": [{"action": "FailIndex",
                                     "onExitCodes": {"operator": "In", "values": [42]}}]}))
    pods = by_index(target, "fi")
    fail(target, pods[0], code=42)
    status = wait_status(target, "fi", lambda j: (j.get("status") or {}).get("failedIndexes") == "0",
                         30)["status"]
    assert status["failed"] == 1 and sorted(by_index(target, "fi")) == [1]
    succeed(target, by_index(target, "fi")[1])
    job = wait_status(target, "fi", lambda j: has_condition(j, "Failed"), 30)
    assert [c["reason"] for c in job["status"]["conditions"] if c["type"] == "Failed"] == ["FailedIndexes"]
    assert job["status"]["completedIndexes"] == "1"


@pytest.mark.semantic("successPolicy succeededCount: enough succeeded indexes end the Job "
                      "(SuccessCriteriaMet, then Complete once the rest are gone)",
                      source="KEP-3998; success_policy.go")
def test_success_policy_count(target):
    target.apply(job_manifest("sc", parallelism=3, completions=3, completionMode="Indexed",
                              successPolicy={"rules": [{"succeededCount": 2}]}))
    pods = by_index(target, "sc")
    succeed(target, pods[2])
    succeed(target, pods[0])
    job = wait_status(target, "sc", lambda j: has_condition(j, "SuccessCriteriaMet"), 30)
    scm = next(c for c in job["status"]["conditions"] if c["type"] == "SuccessCriteriaMet")
    assert scm["reason"] == "SuccessPolicy" and scm["message"] == "Matched rules at index 0"
    left = target.get("Pod", pods[1]["metadata"]["name"])
    if left is not None and left["metadata"].get("deletionTimestamp"):
        fail(target, left, code=137)  # the kubelet's part: the deleted pod ends
    job = wait_status(target, "sc", lambda j: has_condition(j, "Complete"), 60)
    assert job["status"]["completedIndexes"] == "0,2" and job["status"].get("failed", 0) == 0


@pytest.mark.semantic("events: SuccessfulCreate \"Created pod: <pod>\" per pod, Completed \"Job completed\"",
                      source=f"{CTRL} recordJobFinished; controller_utils.go RealPodControl")
def test_job_events(target):
    target.apply(job_manifest("ev", parallelism=1, completions=1))
    pod = active_pods(target, "ev")[0]
    succeed(target, pod)
    wait_status(target, "ev", lambda j: has_condition(j, "Complete"), 30)
    events = [e for e in target.list("Event") if (e.get("involvedObject") or {}).get("name") == "ev"]
    seen = {(e.get("type"), e.get("reason"), e.get("message")) for e in events}
    assert ("Normal", "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}") in seen
    assert ("Normal", "Completed", "Job completed") in seen


@pytest.mark.semantic("events: Suspended \"Job suspended\" on suspend, Resumed \"Job resumed\" on resume; "
                      "SuccessfulDelete \"Deleted pod: <pod>\" for the suspended Job's pods",
                      source=f"{CTRL} syncJob, deleteJobPods; KEP-2232")
def test_suspend_resume_events(target):
    target.apply(job_manifest("sre", parallelism=1, completions=1))
    pod = active_pods(target, "sre")[0]
    run(target, pod)
    target.patch("Job", "sre", {"spec": {"suspend": True}})
    wait_status(target, "sre", lambda j: has_condition(j, "Suspended"), 30)
    target.patch("Job", "sre", {"spec": {"suspend": False}})
    wait_status(target, "sre", lambda j: has_condition(j, "Suspended", "False"), 30)
    events = {(e.get("type"), e.get("reason"), e.get("message")) for e in target.list("Event")
              if (e.get("involvedObject") or {}).get("name") == "sre"}
    assert ("Normal", "Suspended", "Job suspended") in events
    assert ("Normal", "Resumed", "Job resumed") in events
    assert ("Normal", "SuccessfulDelete", f"Deleted pod: {pod['metadata']['name']}") in events
