"""``TestSyncJobWithJobBackoffLimitPerIndex``'s cases, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go``
``TestSyncJobWithJobBackoffLimitPerIndex`` (stored copy of the 1.31 era, commit de00a3c8). Pods are
named ``mypod-<i>`` with the index and ``batch.kubernetes.io/job-index-failure-count`` annotation
the case gives. The "...; JobPodReplacementPolicy and JobManagedBy disabled" variants are checked
against their gate-on outcome (both gates are GA in 1.37), which their "JobManagedBy enabled"
siblings state; "failedIndexes are cleaned when JobBackoffLimitPerIndex disabled" has no GA form and
is not translated.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream import Case, P, job_manifest

MAX = 2**31 - 1
FC = "batch.kubernetes.io/job-index-failure-count"
FAILED_INDEXES = [("FailureTarget", "True", "FailedIndexes", "Job has failed indexes"),
                  ("Failed", "True", "FailedIndexes", "Job has failed indexes")]
MAX_FAILED = [("FailureTarget", "True", "MaxFailedIndexesExceeded",
               "Job has exceeded the specified maximal number of failed indexes")]


def _pods(*specs: tuple[Any, ...]) -> list[P]:
    """(index, phase, failure count[, extra P fields]) -> pods named mypod-<i>."""
    out = []
    for i, (ix, phase, count, *extra) in enumerate(specs):
        out.append(P(phase, index=ix, name=f"mypod-{i}", annotations=((FC, count),),
                     **(extra[0] if extra else {})))
    return out


def _on_exit_3(action: str) -> dict[str, Any]:
    return {"rules": [{"action": action, "onExitCodes": {"operator": "In", "values": [3]}}]}


FAILED_IX = _pods(("0", "Failed", "1"), ("1", "Succeeded", "0"))
MAX_FAILED_PODS = _pods(("0", "Failed", "1"), ("1", "Succeeded", "0"), ("2", "Failed", "1"),
                        ("3", "Running", "0"))
EXIT_3 = {"containers": (("x", 3),)}

# name: (size, backoffLimit, spec extras, pods, want status fields, conditions)
CASES: dict[str, tuple[Any, ...]] = {
    "successful job after a single failure within index": (
        2, MAX, {}, _pods(("0", "Failed", "0"), ("0", "Succeeded", "1"), ("1", "Succeeded", "0")),
        dict(failed=1, succeeded=2, completed="0,1", failed_indexes=""),
        [("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
         ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")]),
    "single failed pod, not counted as the replacement pod creation is delayed": (
        2, MAX, {}, _pods(("0", "Failed", "0")), dict(active=2, failed_indexes=""), []),
    "single failed pod replaced already": (
        2, MAX, {}, _pods(("0", "Failed", "0"), ("0", "Pending", "1")),
        dict(active=2, failed=1, failed_indexes=""), []),
    "single failed index due to exceeding the backoff limit per index, the job continues": (
        2, MAX, {}, _pods(("0", "Failed", "1")), dict(active=1, failed=1, failed_indexes="0"), []),
    "single failed index due to FailIndex action, the job continues": (
        2, MAX, {"podFailurePolicy": _on_exit_3("FailIndex"), "template_containers": ["x"]},
        _pods(("0", "Failed", "0", EXIT_3)), dict(active=1, failed=1, failed_indexes="0"), []),
    "job failed index due to FailJob action": (
        2, 6, {"podFailurePolicy": _on_exit_3("FailJob"), "template_containers": ["x"]},
        _pods(("0", "Failed", "0", EXIT_3)), dict(failed=1, failed_indexes=""),
        [(t, "True", "PodFailurePolicy",
          "Container x for pod default/mypod-0 failed with exit code 3 matching FailJob rule at index 0")
         for t in ("FailureTarget", "Failed")]),
    "job pod failure ignored due to matching Ignore action": (
        2, 6, {"podFailurePolicy": _on_exit_3("Ignore"), "template_containers": ["x"]},
        _pods(("0", "Failed", "0", EXIT_3)), dict(active=2, failed_indexes=""), []),
    "job failed due to exceeding backoffLimit before backoffLimitPerIndex": (
        2, 1, {}, _pods(("0", "Failed", "0"), ("1", "Failed", "0")), dict(failed=2, failed_indexes=""),
        [(t, "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
         for t in ("FailureTarget", "Failed")]),
    "job failed due to failed indexes": (
        2, MAX, {}, FAILED_IX, dict(failed=1, succeeded=1, failed_indexes="0", completed="1"),
        FAILED_INDEXES),
    "job failed due to exceeding max failed indexes": (
        4, MAX, {"maxFailedIndexes": 1}, MAX_FAILED_PODS,
        dict(failed=3, succeeded=1, terminating=1, failed_indexes="0,2", completed="1"), MAX_FAILED),
    "job failed due to failed indexes; JobPodReplacementPolicy and JobManagedBy disabled": (
        2, MAX, {}, FAILED_IX, dict(failed=1, succeeded=1, failed_indexes="0", completed="1"),
        FAILED_INDEXES),
    "job failed due to failed indexes; JobManagedBy enabled": (
        2, MAX, {}, FAILED_IX, dict(failed=1, succeeded=1, failed_indexes="0", completed="1"),
        FAILED_INDEXES),
    "job failed due to exceeding max failed indexes; JobPodReplacementPolicy and JobManagedBy disabled": (
        4, MAX, {"maxFailedIndexes": 1}, MAX_FAILED_PODS,
        dict(failed=3, succeeded=1, terminating=1, failed_indexes="0,2", completed="1"), MAX_FAILED),
    "job failed due to exceeding max failed indexes; JobManagedBy enabled": (
        4, MAX, {"maxFailedIndexes": 1}, MAX_FAILED_PODS,
        dict(failed=3, succeeded=1, terminating=1, failed_indexes="0,2", completed="1"), MAX_FAILED),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sync_job_with_backoff_limit_per_index(name: str) -> None:
    size, backoff, spec, pods, want, conditions = CASES[name]
    manifest = job_manifest(size, size, backoff, completionMode="Indexed", backoffLimitPerIndex=1, **spec)
    got = Case(manifest, pods).run()
    s = got.status
    assert got.conditions() == conditions
    assert {"active": s.active or 0, "failed": s.failed or 0, "succeeded": s.succeeded or 0,
            "terminating": s.terminating or 0, "completed": s.completed_indexes or "",
            "failed_indexes": s.failed_indexes} == {
        "active": 0, "failed": 0, "succeeded": 0, "terminating": 0, "completed": "",
        "failed_indexes": None, **want}


# -- TestGetPodCreationInfoForIndependentIndexes, through an Indexed Job ---------------------------
# Indexes 1 and 3 need pods (0 and 2 run); each delayed (failed, finalizer kept) pod failed
# ``ago`` seconds before now with the given failure count; backoffLimitPerIndex 3 keeps every index
# alive. Upstream's pods finish at their deletionTimestamp; these at their container's end, the
# first source getFinishedTime reads. Per-index back-off: 10 s x 2^count.
# name: (delayed pods {index: (failure count, seconds ago)}, indexes created now, seconds to wait)
CREATION_INFO: dict[str, tuple[dict[str, tuple[int, int]], list[str], float | None]] = {
    "simple index creation": ({}, ["1", "3"], None),
    "subset of indexes can be recreated now": ({"1": (0, 0)}, ["3"], 10),
    "subset of indexes can be recreated now as the pods failed long time ago": (
        {"1": (0, 0), "3": (0, 10)}, ["3"], 10),
    "no indexes can be recreated now, need to wait default pod failure backoff": (
        {"1": (1, 0), "2": (0, 0), "3": (2, 0)}, [], 10),
    "no indexes can be recreated now, need to wait but 1s already passed": (
        {"1": (1, 1), "2": (0, 1), "3": (2, 1)}, [], 9),
}


@pytest.mark.parametrize("name", list(CREATION_INFO))
def test_get_pod_creation_info_for_independent_indexes(name: str) -> None:
    from datetime import timedelta

    from kbatch.runtime.controlplane import DEFAULT_START

    delayed, created_now, wait = CREATION_INFO[name]
    pods = [P("Running", index=ix, name=f"run-{ix}") for ix in ("0", "2") if ix not in delayed]
    for ix, (count, ago) in delayed.items():
        at = (DEFAULT_START - timedelta(seconds=ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
        pods.append(P("Failed", index=ix, name=f"failed-{ix}", finished_at=at,
                      annotations=((FC, str(count)),)))
    manifest = job_manifest(4, 4, MAX, completionMode="Indexed", backoffLimitPerIndex=3)
    case = Case(manifest, pods)
    got = case.run()
    assert sorted(got.created_indexes()) == [int(ix) for ix in created_now]
    if wait is None:
        return
    case.cp.advance(wait - 0.5)
    assert sorted(case.outcome().created_indexes()) == [int(ix) for ix in created_now]
    case.cp.advance(1)
    assert len(case.outcome().created) > len(created_now)
