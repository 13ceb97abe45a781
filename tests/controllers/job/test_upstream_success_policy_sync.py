"""``TestSyncJobWithJobSuccessPolicy``'s cases, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go``
``TestSyncJobWithJobSuccessPolicy`` (stored copy of the 1.31 era, commit de00a3c8). Pods are named
``mypod-<i>`` as upstream's loop names them. JobSuccessPolicy, JobPodReplacementPolicy,
JobBackoffLimitPerIndex and JobManagedBy are GA by 1.37: a case written with one of them off is
checked against its gate-on sibling's outcome (``terminating`` counted, ``Complete`` only once no
pod is terminating, ``failedIndexes`` written whenever ``backoffLimitPerIndex`` is set). The case
"when the JobSuccessPolicy is disabled, ..." has no gate-on form and is not translated.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream import Case, P, job_manifest

MAX = 2**31 - 1
RULE_01_COUNT_1 = {"rules": [{"succeededIndexes": "0,1", "succeededCount": 1}]}
FAIL_ON_DISRUPTION = {"rules": [{"action": "FailJob", "onPodConditions": [
    {"type": "DisruptionTarget", "status": "True"}]}]}
DISRUPTED = ({"type": "DisruptionTarget", "status": "True"},)
SCM_POLICY = ("SuccessCriteriaMet", "True", "SuccessPolicy", "Matched rules at index 0")
COMPLETE_POLICY = ("Complete", "True", "SuccessPolicy", "Matched rules at index 0")
DISRUPTION_MSG = "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"


def _cond(*c: str) -> dict[str, str]:
    return dict(zip(("type", "status", "reason", "message"), c, strict=True))


def _indexed(*pods: tuple[str, str] | tuple[str, str, dict[str, Any]]) -> list[P]:
    """(index, phase[, extra P fields]) -> pods named mypod-<i>."""
    out = []
    for i, (ix, phase, *extra) in enumerate(pods):
        out.append(P(phase, index=ix, name=f"mypod-{i}", **(extra[0] if extra else {})))
    return out


FC1 = {"annotations": (("batch.kubernetes.io/job-index-failure-count", "1"),)}
SOME_FAIL = _indexed(("0", "Failed"), ("0", "Running"), ("1", "Succeeded"), ("2", "Running"))
TWO = _indexed(("0", "Failed"), ("0", "Running"), ("1", "Succeeded"))

# name: (parallelism/completions, spec extras, pods, seeded status, want status fields, conditions)
CASES: dict[str, tuple[Any, ...]] = {
    "job with successPolicy; jobPodReplacementPolicy feature enabled; job has SuccessCriteriaMet "
    "condition if job meets to successPolicy and some indexes fail": (
        3, {"successPolicy": RULE_01_COUNT_1}, SOME_FAIL, None,
        dict(failed=1, succeeded=1, terminating=2, completed="1"), [SCM_POLICY]),
    "job with successPolicy; jobPodReplacementPolicy feature disabled; job has SuccessCriteriaMet "
    "condition if job meets to successPolicy and some indexes fail": (
        3, {"successPolicy": RULE_01_COUNT_1}, SOME_FAIL, None,
        dict(failed=1, succeeded=1, terminating=2, completed="1"), [SCM_POLICY]),
    "job with podFailurePolicy and successPolicy; jobPodReplacementPolicy feature enabled; job has "
    "SuccessCriteriaMet condition if job meets to successPolicy and doesn't meet to podFailurePolicy": (
        2, {"successPolicy": RULE_01_COUNT_1, "podFailurePolicy": FAIL_ON_DISRUPTION}, TWO, None,
        dict(failed=1, succeeded=1, terminating=1, completed="1"), [SCM_POLICY]),
    "job with podFailurePolicy and successPolicy; jobPodReplacementPolicy feature disabled; job has "
    "SuccessCriteriaMet condition if job meets to successPolicy and doesn't meet to podFailurePolicy": (
        2, {"successPolicy": RULE_01_COUNT_1, "podFailurePolicy": FAIL_ON_DISRUPTION}, TWO, None,
        dict(failed=1, succeeded=1, terminating=1, completed="1"), [SCM_POLICY]),
    "job with backoffLimitPerIndex and successPolicy; jobPodReplacementPolicy feature enabled; job has "
    "SuccessCriteriaMet condition if job meets to successPolicy and doesn't meet backoffLimitPerIndex": (
        2, {"successPolicy": RULE_01_COUNT_1, "backoffLimitPerIndex": 2}, TWO, None,
        dict(failed=1, succeeded=1, terminating=1, completed="1", failed_indexes=""), [SCM_POLICY]),
    # upstream's case has JobBackoffLimitPerIndex off (failedIndexes nil); on, it is written ""
    "job with successPolicy; jobPodReplacementPolicy feature enabled; job has both Complete and "
    "SuccessCriteriaMet condition when job meets to successPolicy and all pods have been already removed": (
        2, {"successPolicy": RULE_01_COUNT_1, "backoffLimitPerIndex": 2},
        _indexed(("0", "Failed"), ("1", "Succeeded")), {"conditions": [_cond(*SCM_POLICY)]},
        dict(failed=1, succeeded=1, completed="1", failed_indexes=""), [SCM_POLICY, COMPLETE_POLICY]),
    "job with successPolicy; jobPodReplacementPolicy feature enabled; job has SuccessCriteriaMet "
    "condition when job meets to successPolicy and some pods still are running": (
        3, {"successPolicy": RULE_01_COUNT_1, "backoffLimitPerIndex": 3},
        _indexed(("0", "Failed"), ("1", "Running"), ("1", "Succeeded"), ("2", "Running")),
        {"conditions": [_cond(*SCM_POLICY)]},
        dict(failed=1, succeeded=1, terminating=2, completed="1", failed_indexes=""), [SCM_POLICY]),
    "job with successPolicy; JobManagedBy feature enabled; job has SuccessCriteriaMet condition when "
    "job meets to successPolicy and some pods still are running": (
        3, {"successPolicy": RULE_01_COUNT_1, "backoffLimitPerIndex": 3},
        _indexed(("0", "Failed"), ("1", "Running"), ("1", "Succeeded"), ("2", "Running")),
        {"conditions": [_cond(*SCM_POLICY)]},
        dict(failed=1, succeeded=1, terminating=2, completed="1", failed_indexes=""), [SCM_POLICY]),
    "job with successPolicy and podFailurePolicy; jobPodReplacementPolicy feature enabled; job has a "
    "failed condition when job meets to both successPolicy and podFailurePolicy": (
        2, {"successPolicy": RULE_01_COUNT_1, "podFailurePolicy": FAIL_ON_DISRUPTION},
        _indexed(("0", "Failed", {"conditions": DISRUPTED, "containers": ()}), ("0", "Running"),
                 ("1", "Succeeded")), None,
        dict(failed=2, succeeded=1, terminating=1, completed="1"),
        [("FailureTarget", "True", "PodFailurePolicy", DISRUPTION_MSG)]),
    "job with successPolicy and backoffLimitPerIndex; jobPodReplacementPolicy feature enabled; job has "
    "a failed condition when job meets to both successPolicy and backoffLimitPerIndex": (
        2, {"successPolicy": RULE_01_COUNT_1, "backoffLimitPerIndex": 1},
        _indexed(("0", "Failed", FC1), ("1", "Succeeded")), None,
        dict(failed=1, succeeded=1, completed="1", failed_indexes="0"),
        [("FailureTarget", "True", "FailedIndexes", "Job has failed indexes"),
         ("Failed", "True", "FailedIndexes", "Job has failed indexes")]),
    "job with successPolicy and backoffLimit; jobPodReplacementPolicy feature enabled; job has a failed "
    "condition when job meets to both successPolicy and backoffLimit": (
        2, {"successPolicy": RULE_01_COUNT_1, "backoffLimit": 1},
        _indexed(("0", "Failed"), ("0", "Failed"), ("1", "Succeeded")), None,
        dict(failed=2, succeeded=1, completed="1"),
        [("FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
         ("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")]),
    "job with successPolicy and podFailurePolicy; jobPodReplacementPolicy feature enabled; job with "
    "SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meets "
    "podFailurePolicy": (
        2, {"successPolicy": {"rules": [{"succeededCount": 1}]}, "podFailurePolicy": FAIL_ON_DISRUPTION},
        _indexed(("0", "Failed", {"conditions": DISRUPTED, "containers": ()}), ("1", "Succeeded")),
        {"succeeded": 1, "completedIndexes": "1", "conditions": [_cond(*SCM_POLICY)]},
        dict(failed=1, succeeded=1, completed="1"), [SCM_POLICY, COMPLETE_POLICY]),
    "job with successPolicy and backoffLimitPerIndex; jobPodReplacementPolicy feature enabled; job with "
    "SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meet "
    "backoffLimitPerIndex": (
        2, {"successPolicy": {"rules": [{"succeededIndexes": "1"}]}, "backoffLimitPerIndex": 1},
        _indexed(("0", "Failed", FC1), ("1", "Succeeded")),
        {"succeeded": 1, "completedIndexes": "1", "conditions": [_cond(*SCM_POLICY)]},
        dict(failed=1, succeeded=1, completed="1", failed_indexes="0"), [SCM_POLICY, COMPLETE_POLICY]),
    "job with successPolicy and backoffLimit; jobPodReplacementPolicy feature enabled; job with "
    "SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meets "
    "backoffLimit": (
        2, {"successPolicy": RULE_01_COUNT_1, "backoffLimit": 1},
        _indexed(("0", "Failed"), ("1", "Succeeded")),
        {"succeeded": 1, "completedIndexes": "1", "conditions": [_cond(*SCM_POLICY)]},
        dict(failed=1, succeeded=1, completed="1"), [SCM_POLICY, COMPLETE_POLICY]),
    # the pod mypod-0 lost its tracking finalizer (upstream: no trackingFinalizer()), already counted
    "job with successPolicy and podFailureTarget; jobPodReplacementPolicy feature enabled; job with "
    "FailureTarget has never been transitioned to SuccessCriteriaMet even if job meets successPolicy": (
        2, {"successPolicy": RULE_01_COUNT_1, "podFailurePolicy": FAIL_ON_DISRUPTION},
        _indexed(("0", "Failed", {"conditions": DISRUPTED, "containers": (), "finalizer": False}),
                 ("1", "Succeeded")),
        {"failed": 1, "completedIndexes": "1",
         "conditions": [_cond("FailureTarget", "True", "PodFailurePolicy", DISRUPTION_MSG)]},
        dict(failed=1, succeeded=1, completed="1"),
        [("FailureTarget", "True", "PodFailurePolicy", DISRUPTION_MSG),
         ("Failed", "True", "PodFailurePolicy", DISRUPTION_MSG)]),
    "job without successPolicy; jobSuccessPolicy is enabled; job got SuccessCriteriaMet and Completion "
    "with CompletionsReached reason conditions": (
        1, {}, _indexed(("0", "Succeeded")), None, dict(succeeded=1, completed="0"),
        [("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
         ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sync_job_with_success_policy(name: str) -> None:
    size, spec, pods, status, want, conditions = CASES[name]
    spec = {"completionMode": "Indexed", "backoffLimit": MAX, **spec}
    backoff = spec.pop("backoffLimit")
    got = Case(job_manifest(size, size, backoff, **spec), pods, status=status).run()
    s = got.status
    assert got.conditions() == conditions
    assert {"active": s.active or 0, "failed": s.failed or 0, "succeeded": s.succeeded or 0,
            "terminating": s.terminating or 0, "completed": s.completed_indexes or "",
            "failed_indexes": s.failed_indexes} == {
        "active": 0, "failed": 0, "succeeded": 0, "terminating": 0, "completed": "",
        "failed_indexes": None, **want}
    assert s.uncounted_terminated_pods is None or not (
        s.uncounted_terminated_pods.succeeded or s.uncounted_terminated_pods.failed)
