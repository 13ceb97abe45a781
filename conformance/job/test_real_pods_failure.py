"""Job checks with real pod outcomes, the failure side: backoffLimit, podFailurePolicy (FailJob,
Count, Ignore) and backoffLimitPerIndex, each driven by the exit code of the container command.

No virtual clock needed and no pod status patched (:mod:`conformance.job.workload`); waits allow
for the upstream pod-recreation back-off (10 s, doubling) in real time (:mod:`conformance.timing`).
"""

from __future__ import annotations

import pytest

from conformance.job.workload import job, pods, reason, sh, wait_job
from conformance.target import has_condition
from conformance.timing import budget

DOC = "k8s.io/docs/concepts/workloads/controllers/job"
INDEX = "batch.kubernetes.io/job-completion-index"
FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
pytestmark = pytest.mark.runs_pods


def _failed_pods(target, name: str) -> list[dict]:
    return [p for p in pods(target, name) if p["status"].get("phase") == "Failed"]


def _exit_code(pod: dict) -> int | None:
    for status in pod["status"].get("containerStatuses") or ():
        terminated = (status.get("state") or {}).get("terminated")
        if terminated:
            return terminated.get("exitCode")
    return None


@pytest.mark.semantic("real pods: a failing command exceeds backoffLimit 1: failed=2, FailureTarget and "
                      "Failed BackoffLimitExceeded", source=f"{DOC}#pod-backoff-failure-policy; KEP-3329")
def test_backoff_limit_exceeded(target):
    target.apply(job("bo", sh("exit 3"), completions=1, backoffLimit=1))
    done = wait_job(target, "bo", timeout=budget(rounds=2, failures=1))
    assert reason(done, "Failed") == "BackoffLimitExceeded", done["status"]
    assert reason(done, "FailureTarget") == "BackoffLimitExceeded", done["status"]
    assert done["status"]["failed"] == 2 and not done["status"].get("succeeded"), done["status"]
    failed = _failed_pods(target, "bo")
    assert len(failed) == 2 and {_exit_code(p) for p in failed} == {3}


@pytest.mark.semantic("real pods: podFailurePolicy FailJob on exit code 3 fails the Job at the first "
                      "failure, reason PodFailurePolicy", source="KEP-3329; pod_failure_policy.go")
def test_pod_failure_policy_fail_job(target):
    policy = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}
    target.apply(job("fj", sh("exit 3"), completions=2, parallelism=1, backoffLimit=6,
                     podFailurePolicy=policy))
    done = wait_job(target, "fj", timeout=budget())
    assert reason(done, "Failed") == "PodFailurePolicy", done["status"]
    assert reason(done, "FailureTarget") == "PodFailurePolicy"
    assert done["status"]["failed"] == 1 and len(pods(target, "fj")) == 1, done["status"]


@pytest.mark.semantic("real pods: podFailurePolicy rules in order: the Count rule's exit code counts "
                      "toward backoffLimit 0 (BackoffLimitExceeded)",
                      source="KEP-3329; pod_failure_policy.go")
def test_pod_failure_policy_count(target):
    policy = {"rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [42]}},
                        {"action": "Count", "onExitCodes": {"operator": "In", "values": [5]}},
                        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [5]}}]}
    target.apply(job("cnt", sh("exit 5"), completions=1, backoffLimit=0, podFailurePolicy=policy))
    done = wait_job(target, "cnt", timeout=budget())
    assert reason(done, "Failed") == "BackoffLimitExceeded", done["status"]
    assert done["status"]["failed"] == 1, done["status"]


@pytest.mark.semantic("real pods: podFailurePolicy Ignore on an exit code: the failure is not counted "
                      "(backoffLimit 0 not exceeded) and the pod is replaced",
                      source="KEP-3329; job docs #pod-failure-policy")
def test_pod_failure_policy_ignore(target):
    policy = {"rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [42]}}]}
    target.apply(job("ign", sh("exit 42"), completions=1, backoffLimit=0, podFailurePolicy=policy))
    assert target.wait_for(lambda: len(_failed_pods(target, "ign")) >= 2, budget(rounds=2, failures=1)), \
        pods(target, "ign")
    current = target.get("Job", "ign")
    assert not current["status"].get("failed"), current["status"]
    assert not has_condition(current, "Failed") and not has_condition(current, "FailureTarget")
    assert {_exit_code(p) for p in _failed_pods(target, "ign")} == {42}


@pytest.mark.semantic("real pods: backoffLimitPerIndex 1 with index 1 always failing: retried once "
                      "(failure-count annotation 1), failedIndexes 1, index 0 done, Failed FailedIndexes",
                      source="KEP-3850; job docs #backoff-limit-per-index")
def test_backoff_limit_per_index(target):
    # index 0 exits 0, index 1 exits 1 (exit $JOB_COMPLETION_INDEX)
    target.apply(job("bpi", sh("exit $JOB_COMPLETION_INDEX"), completions=2, parallelism=2,
                     completionMode="Indexed", backoffLimitPerIndex=1))
    done = wait_job(target, "bpi", timeout=budget(rounds=2, failures=1))  # index 1 retried once
    st = done["status"]
    assert reason(done, "Failed") == "FailedIndexes", st
    assert st["failedIndexes"] == "1" and st["completedIndexes"] == "0", st
    assert st["failed"] == 2 and st["succeeded"] == 1, st
    failed = _failed_pods(target, "bpi")
    assert len(failed) == 2 and {_exit_code(p) for p in failed} == {1}
    assert {p["metadata"]["annotations"][INDEX] for p in failed} == {"1"}
    counts = sorted(p["metadata"]["annotations"].get(FAILURE_COUNT) for p in failed)
    assert counts == ["0", "1"], counts  # the replacement carries the index's failure count


@pytest.mark.semantic("real pods: maxFailedIndexes 0 exceeded by one failed index: Failed reason "
                      "MaxFailedIndexesExceeded", source="KEP-3850; job docs #backoff-limit-per-index")
def test_max_failed_indexes_exceeded(target):
    target.apply(job("mfi", sh("exit 7"), completions=3, parallelism=1, completionMode="Indexed",
                     backoffLimitPerIndex=0, maxFailedIndexes=0))
    done = wait_job(target, "mfi", timeout=budget())
    assert reason(done, "Failed") == "MaxFailedIndexesExceeded", done["status"]
    assert done["status"]["failedIndexes"] == "0", done["status"]


@pytest.mark.needs_faults
@pytest.mark.semantic("real pods: a running container ended with exit code 3 (fault fail-pod) matches "
                      "podFailurePolicy FailJob like an exit of its own: Failed PodFailurePolicy",
                      source="KEP-3329; pod_failure_policy.go")
def test_injected_container_failure_meets_pod_failure_policy(target):
    policy = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}
    target.apply(job("flt", sh("sleep 600"), completions=1, backoffLimit=6, podFailurePolicy=policy))
    assert target.wait_for(lambda: [p["status"].get("phase") for p in pods(target, "flt")] == ["Running"],
                           budget()), pods(target, "flt")
    target.fault("fail-pod", {"name": pods(target, "flt")[0]["metadata"]["name"], "exitCode": 3})
    done = wait_job(target, "flt", timeout=budget(rounds=0))
    assert reason(done, "Failed") == "PodFailurePolicy", done["status"]
    assert done["status"]["failed"] == 1 and {_exit_code(p) for p in _failed_pods(target, "flt")} == {3}
