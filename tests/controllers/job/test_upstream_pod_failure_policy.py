"""``TestMatchPodFailurePolicy``'s cases against kbatch's ``match_pod_failure_policy``.

Source: kubernetes/kubernetes ``pkg/controller/job/pod_failure_policy_test.go``
``TestMatchPodFailurePolicy`` (stored commit 14db6606) and ``pod_failure_policy.go``. The upstream
test is of the pure helper, which kbatch has too; the Job and the failed Pod are written as a user
(and the kubelet) would write them, decoded into the API models and adapted to the core's views
(``adapt.job_info`` / ``adapt.pod_info``) without the API server, since some cases hold rules the
API rejects (an unknown action or operator: what a newer API server could hand an older
controller). Upstream returns (message, countFailed, rule); kbatch (action, count_failed,
message) with the message only meaningful for FailJob. The case "expected matching rule returned"
also checks the matched rule's ``name`` (KEP-4443), a field kbatch's API does not have: only its
action and count are compared here.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.controllers.job.adapt import job_info, pod_info
from kbatch.controllers.job.failure_policy import match_pod_failure_policy


def _codes(action: str, op: str, values: list[int], **extra: Any) -> dict[str, Any]:
    return {"action": action, "onExitCodes": {"operator": op, "values": values, **extra}}


def _conds(action: str, ctype: str = "DisruptionTarget", status: str = "True") -> dict[str, Any]:
    return {"action": action, "onPodConditions": [{"type": ctype, "status": status}]}


def _term(code: int, name: str = "main-container") -> dict[str, Any]:
    return {"name": name, "image": "i", "imageID": "", "ready": False, "restartCount": 0,
            "state": {"terminated": {"exitCode": code}}}


def _cond(ctype: str = "DisruptionTarget", status: str = "True") -> dict[str, Any]:
    return {"type": ctype, "status": status}


def match(rules: list[dict[str, Any]] | None, status: dict[str, Any]) -> tuple[Any, ...]:
    spec: dict[str, Any] = {"template": {"spec": {"restartPolicy": "Never",
                                                  "containers": [{"name": "c", "image": "i"}]}}}
    if rules is not None:
        spec["podFailurePolicy"] = {"rules": rules}
    job = Job.model_validate({"apiVersion": "batch/v1", "kind": "Job",
                              "metadata": {"name": "j", "namespace": "default"}, "spec": spec})
    pod = Pod.model_validate({"apiVersion": "v1", "kind": "Pod",
                              "metadata": {"name": "mypod", "namespace": "default"},
                              "spec": {"containers": [{"name": "c", "image": "i"}]},
                              "status": {"phase": "Failed", **status}})
    got = match_pod_failure_policy(job_info(job).pod_failure_policy, pod_info(pod))
    message = got.message if got.action == "FailJob" else None
    return message, got.count_failed, got.action


def _msg(code: int, rule: int, container: str = "main-container") -> str:
    return (f"Container {container} for pod default/mypod failed with exit code {code} "
            f"matching FailJob rule at index {rule}")


DISRUPTION_MSG = "Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0"

# name: (rules, pod status, (message, countFailed, action))
CASES: dict[str, tuple[Any, ...]] = {
    "unknown action for rule matching by exit codes - skip rule with unknown action": (
        [_codes("UnknownAction", "In", [1, 2]), _codes("FailJob", "In", [2, 3])],
        {"containerStatuses": [_term(2)]}, (_msg(2, 1), True, "FailJob")),
    "unknown action for rule matching by pod conditions - skip rule with unknown action": (
        [_conds("UnkonwnAction"), _conds("Ignore")], {"conditions": [_cond()]}, (None, False, "Ignore")),
    "unknown operator - rule with unknown action is skipped for onExitCodes": (
        [_codes("Ignore", "UnknownOperator", [1, 2]), _codes("FailJob", "In", [2, 3])],
        {"containerStatuses": [_term(2)]}, (_msg(2, 1), True, "FailJob")),
    "no policy rules": (None, {"containerStatuses": [_term(2, "c")]}, (None, True, None)),
    "ignore rule matched for exit codes": (
        [_codes("Ignore", "In", [1, 2, 3])], {"containerStatuses": [_term(2, "c")]}, (None, False, "Ignore")),
    "ignore rule matched on negative exit codes - needed for Windows support": (
        [_codes("Ignore", "In", [-1073741676, -1073741510])],
        {"containerStatuses": [_term(-1073741510, "c")]}, (None, False, "Ignore")),
    "FailJob rule matched for exit codes": (
        [_codes("FailJob", "In", [1, 2, 3])], {"containerStatuses": [_term(2)]},
        (_msg(2, 0), True, "FailJob")),
    "successful containers are skipped by the rules": (
        [_codes("FailJob", "NotIn", [111])],
        {"initContainerStatuses": [_term(0, "init-container")],
         "containerStatuses": [_term(111), _term(0, "suppport-container")]}, (None, True, None)),
    "FailIndex rule matched for exit codes": (
        [_codes("FailIndex", "In", [1, 2, 3])], {"containerStatuses": [_term(2, "c")]},
        (None, True, "FailIndex")),
    "pod failure policy with NotIn operator and value 0": (
        [_codes("FailJob", "NotIn", [0])],
        {"containerStatuses": [_term(1), _term(0, "suppport-container")]}, (_msg(1, 0), True, "FailJob")),
    "second jobfail rule matched for exit codes": (
        [_codes("Count", "In", [1, 2, 3]), _codes("FailJob", "In", [4, 5, 6])],
        {"containerStatuses": [_term(6)]}, (_msg(6, 1), True, "FailJob")),
    "count rule matched for exit codes": (
        [_codes("Count", "In", [1, 2, 3])],
        {"containerStatuses": [{"name": "foo", "image": "i", "imageID": "", "ready": False,
                                "restartCount": 0, "state": {}}, _term(2, "bar")]},
        (None, True, "Count")),
    "FailIndex rule matched for pod conditions": (
        [_conds("FailIndex")], {"conditions": [_cond()]}, (None, True, "FailIndex")),
    "ignore rule matched for pod conditions": ([_conds("Ignore")], {"conditions": [_cond()]},
                                               (None, False, "Ignore")),
    "ignore rule matches by the status=False": (
        [_conds("Ignore", status="False")], {"conditions": [_cond(status="False")]}, (None, False, "Ignore")),
    "ignore rule matches by the status=Unknown": (
        [_conds("Ignore", status="Unknown")], {"conditions": [_cond(status="Unknown")]},
        (None, False, "Ignore")),
    "ignore rule does not match when status for pattern is False, but actual True": (
        [_conds("Ignore", status="False")], {"conditions": [_cond()]}, (None, True, None)),
    "ignore rule does not match when status for pattern is True, but actual False": (
        [_conds("Ignore")], {"conditions": [_cond(status="False")]}, (None, True, None)),
    "default - do not match condition with status=False": (
        [_conds("Ignore")], {"conditions": [_cond(status="False")]}, (None, True, None)),
    "job fail rule matched for pod conditions": (
        [_conds("FailJob")], {"conditions": [_cond()]}, (DISRUPTION_MSG, True, "FailJob")),
    "count rule matched for pod conditions": ([_conds("Count")], {"conditions": [_cond()]},
                                              (None, True, "Count")),
    "no rule matched": (
        [_codes("Count", "NotIn", [8]), _codes("Ignore", "In", [1, 2, 3]),
         _codes("FailJob", "NotIn", [5, 6, 7]), _conds("Count", "ResourceLimitExceeded"), _conds("Ignore")],
        {"containerStatuses": [_term(32, "c")]}, (None, True, "Count")),
    "expected matching rule returned": (
        [_conds("FailJob", "MaxFailedIndexesExceeded"), _conds("Ignore")], {"conditions": [_cond()]},
        (None, False, "Ignore")),
    # Not an upstream case: the "unknown operator" case with an exit code outside the rule's values.
    # isOnExitCodesOperatorMatching knows only In and NotIn; any other operator never matches.
    "unknown operator never matches, whatever the exit code": (
        [_codes("Ignore", "UnknownOperator", [1, 2]), _codes("FailJob", "In", [2, 3])],
        {"containerStatuses": [_term(3)]}, (_msg(3, 1), True, "FailJob")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_match_pod_failure_policy(name: str) -> None:
    rules, status, want = CASES[name]
    assert match(rules, status) == want
