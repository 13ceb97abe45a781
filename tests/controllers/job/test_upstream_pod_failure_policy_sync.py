"""``TestSyncJobWithJobPodFailurePolicy``'s cases, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go``
``TestSyncJobWithJobPodFailurePolicy`` (stored copy of the 1.31 era, commit de00a3c8). The pods are
named ``mypod-<i>`` (indexed Jobs: index ``i``) as upstream's ``podBuilder`` names them, so the
condition messages compare verbatim. Gate-off expectations are read as their GA outcome: the
terminal ``Failed`` follows ``FailureTarget`` in the same sync only when no pod is terminating, and
``status.terminating`` is counted. Upstream's pods without any finish time fall back to their zero
creation time (long ago, no back-off); here, where the API server stamps creation, such a pod
carries the kubelet's ``Ready=False`` transition long ago instead (``getFinishedTime``'s step 2).
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream import LONG_AGO, Case, P, job_manifest

IGNORE_123_FAIL_567 = [
    {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1, 2, 3]}},
    {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [5, 6, 7]}},
]
READY_FALSE_LONG_AGO = {"type": "Ready", "status": "False", "lastTransitionTime": LONG_AGO}
DISRUPTION = {"type": "DisruptionTarget", "status": "True"}


def _pfp(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"rules": list(rules)}


def _msg(container: str, pod: int, code: int, rule: int) -> str:
    return (f"Container {container} for pod default/mypod-{pod} failed with exit code {code} "
            f"matching FailJob rule at index {rule}")


def _failed_by_policy(msg: str, terminal: bool = True) -> list[tuple[str, str, str, str]]:
    conds = [("FailureTarget", "True", "PodFailurePolicy", msg)]
    return [*conds, ("Failed", "True", "PodFailurePolicy", msg)] if terminal else conds


BACKOFF = "Job has reached the specified backoff limit"


def _named(pods: list[P], indexed: bool = False) -> list[P]:
    out = []
    for i, pod in enumerate(pods):
        fields = {**pod.__dict__, "name": f"mypod-{i}"}
        if indexed:
            fields["index"] = str(i)
        out.append(P(**fields))
    return out


# name: (parallelism, completions, backoffLimit, spec extras, pods, status, want conditions,
#        want active, want failed, want terminating)
CASES: dict[str, tuple[Any, ...]] = {
    "default handling for pod failure if the container matching the exit codes does not match the "
    "containerName restriction": (
        1, 1, 6, {"template_containers": ["main-container", "monitoring-container"],
                  "podFailurePolicy": _pfp(
            {"action": "Ignore", "onExitCodes": {"containerName": "main-container", "operator": "In",
                                                 "values": [1, 2, 3]}},
            {"action": "FailJob", "onExitCodes": {"containerName": "main-container", "operator": "In",
                                                  "values": [5, 6, 7]}})},
        [P("Failed", containers=(("monitoring-container", 5), ("main-container", 42)))], None,
        [], 1, 1, 0),
    "running pod should not result in job fail based on OnExitCodes": (
        1, 1, 6, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Running", containers=(("main-container", 5),))], None, [], 1, 0, 0),
    "fail job based on OnExitCodes": (
        1, 1, 6, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("main-container", 5),), finished_at=None)], None,
        _failed_by_policy(_msg("main-container", 0, 5, 1)), 0, 1, 0),
    "job marked already as failure target with failed pod": (
        1, 1, 6, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("main-container", 5),), finished_at=None)],
        {"conditions": [{"type": "FailureTarget", "status": "True", "reason": "PodFailurePolicy",
                         "message": _msg("main-container", 0, 5, 1)}]},
        _failed_by_policy(_msg("main-container", 0, 5, 1)), 0, 1, 0),
    "job marked already as failure target with failed pod, message based on already deleted pod": (
        1, 1, 6, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("main-container", 5),), finished_at=None)],
        {"conditions": [{"type": "FailureTarget", "status": "True", "reason": "PodFailurePolicy",
                         "message": _msg("main-container", 0, 5, 1).replace("mypod-0",
                                                                            "already-deleted-pod")}]},
        _failed_by_policy(_msg("main-container", 0, 5, 1).replace("mypod-0", "already-deleted-pod")),
        0, 1, 0),
    # gate off: Failed at once; on (and "; JobManagedBy enabled delays setting terminal condition"):
    # the running pod is terminating, so FailureTarget only
    "fail job with multiple pods": (
        2, 2, 6, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Running", containers=()), P("Failed", containers=(("main-container", 5),), finished_at=None)],
        None, _failed_by_policy(_msg("main-container", 1, 5, 1), terminal=False), 0, 2, 1),
    "fail job with multiple pods; JobManagedBy enabled delays setting terminal condition": (
        2, 2, 6, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Running", containers=()), P("Failed", containers=(("main-container", 5),), finished_at=None)],
        None, _failed_by_policy(_msg("main-container", 1, 5, 1), terminal=False), 0, 2, 1),
    "fail indexed job based on OnExitCodes": (
        1, 1, 6, {"completionMode": "Indexed", "podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("main-container", 5),), finished_at=None)], None,
        _failed_by_policy(_msg("main-container", 0, 5, 1)), 0, 1, 0),
    "fail job based on OnExitCodes with NotIn operator": (
        1, 1, 6, {"podFailurePolicy": _pfp(
            {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [5, 6, 7]}})},
        [P("Failed", containers=(("main-container", 42),), finished_at=None)], None,
        _failed_by_policy(_msg("main-container", 0, 42, 0)), 0, 1, 0),
    "default handling job based on OnExitCodes with NotIn operator": (
        1, 1, 6, {"podFailurePolicy": _pfp(
            {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [5, 6, 7]}})},
        [P("Failed", containers=(("main-container", 5),))], None, [], 1, 1, 0),
    "fail job based on OnExitCodes for InitContainer": (
        1, 1, 6, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", init_containers=(("init-container", 5),), containers=(("main-container", 143),),
           finished_at=None)], None, _failed_by_policy(_msg("init-container", 0, 5, 1)), 0, 1, 0),
    "ignore pod failure; both rules are matching, the first is executed only": (
        1, 1, 0, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("container1", 2), ("container2", 6)))], None, [], 1, 0, 0),
    "ignore pod failure based on OnExitCodes": (
        1, 1, 0, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("c", 1),))], None, [], 1, 0, 0),
    # gate off: Failed alone; on (and the "; JobManagedBy enabled triggers adding interim condition"
    # sibling): FailureTarget, then Failed
    "default job based on OnExitCodes": (
        1, 1, 0, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("c", 10),), finished_at=None)], None,
        [("FailureTarget", "True", "BackoffLimitExceeded", BACKOFF),
         ("Failed", "True", "BackoffLimitExceeded", BACKOFF)], 0, 1, 0),
    "default job based on OnExitCodes; JobManagedBy enabled triggers adding interim condition": (
        1, 1, 0, {"podFailurePolicy": _pfp(*IGNORE_123_FAIL_567)},
        [P("Failed", containers=(("c", 10),), finished_at=None)], None,
        [("FailureTarget", "True", "BackoffLimitExceeded", BACKOFF),
         ("Failed", "True", "BackoffLimitExceeded", BACKOFF)], 0, 1, 0),
    "count pod failure based on OnExitCodes; both rules are matching, the first is executed only": (
        1, 1, 6, {"podFailurePolicy": _pfp(
            {"action": "Count", "onExitCodes": {"operator": "In", "values": [1, 2]}},
            {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [2, 3]}})},
        [P("Failed", containers=(("c", 2),))], None, [], 1, 1, 0),
    "count pod failure based on OnPodConditions; both rules are matching, the first is executed only": (
        1, 1, 6, {"podFailurePolicy": _pfp(
            {"action": "Count", "onPodConditions": [{"type": "ResourceLimitExceeded", "status": "True"}]},
            {"action": "Ignore", "onPodConditions": [DISRUPTION]})},
        [P("Failed", containers=(("c", 0),),
           conditions=({"type": "ResourceLimitExceeded", "status": "True"}, DISRUPTION))],
        None, [], 1, 1, 0),
    "ignore pod failure based on OnPodConditions": (
        1, 1, 0, {"podFailurePolicy": _pfp({"action": "Ignore", "onPodConditions": [DISRUPTION]})},
        [P("Failed", containers=(), conditions=(DISRUPTION, READY_FALSE_LONG_AGO))], None, [], 1, 0, 0),
    "ignore pod failure based on OnPodConditions, ignored failures delays pod recreation": (
        1, 1, 0, {"podFailurePolicy": _pfp({"action": "Ignore", "onPodConditions": [DISRUPTION]})},
        [P("Failed", containers=(), conditions=(DISRUPTION,), terminating=True)], None, [], 0, 0, 0),
    "fail job based on OnPodConditions": (
        1, 1, 6, {"podFailurePolicy": _pfp({"action": "FailJob", "onPodConditions": [DISRUPTION]})},
        [P("Failed", containers=(), conditions=(DISRUPTION,))], None,
        [("FailureTarget", "True", "PodFailurePolicy",
          "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"),
         ("Failed", "True", "PodFailurePolicy",
          "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0")], 0, 1, 0),
    # gate off: terminating not counted; on: the deleted pod is terminating, not failed, not replaced
    "terminating Pod not considered failed when JobPodFailurePolicy is enabled and used": (
        1, None, 0, {"podFailurePolicy": _pfp({"action": "Count", "onPodConditions": [DISRUPTION]})},
        [P("Pending", containers=(), terminating=True)], None, [], 0, 0, 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sync_job_with_pod_failure_policy(name: str) -> None:
    parallelism, completions, backoff, spec, pods, status, conditions, active, failed, terminating = \
        CASES[name]
    manifest = job_manifest(parallelism, completions, backoff, **spec)
    case = Case(manifest, _named(pods, spec.get("completionMode") == "Indexed"), status=status)
    got = case.run()
    assert got.conditions() == conditions
    assert (got.status.active or 0, got.status.succeeded or 0, got.status.failed or 0) == (active, 0, failed)
    assert (got.status.terminating or 0) == terminating
