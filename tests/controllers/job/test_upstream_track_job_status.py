"""``TestTrackJobStatusAndRemoveFinalizers``'s cases, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go``
``TestTrackJobStatusAndRemoveFinalizers`` (stored copy of the 1.31 era, commit de00a3c8) and
``job_controller.go`` ``trackJobStatusAndRemoveFinalizers`` / ``flushUncountedAndRemoveFinalizers``.
Upstream calls the function with a hand-built Job status, pods and (sometimes) a finishing condition,
and records each status write. Here the status (counters, ``uncountedTerminatedPods`` by the pods'
names — upstream's uids) and the pods are seeded, the controller runs once with time frozen, and
the status writes it made are compared on the fields the case is about. The Job's spec is chosen so
that the case's finishing condition (or none) is what kbatch's own sync decides; a case whose
upstream expectation hinges on an injected condition compares the outcome upstream's full sync
gives (noted per case). Each write is (uncounted succeeded, uncounted failed, succeeded, failed,
completedIndexes, failedIndexes, condition types).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Forbidden

from .upstream import Case, P, job_manifest

FC = "batch.kubernetes.io/job-index-failure-count"
IX = "Indexed"


def writes(case: Case) -> list[tuple[Any, ...]]:
    case.run()
    out = []
    for w in case.writes:
        u = w.uncounted_terminated_pods
        out.append((case.names(u.succeeded if u else None), case.names(u.failed if u else None),
                    w.succeeded or 0, w.failed or 0, w.completed_indexes or "", w.failed_indexes,
                    [c.type for c in w.conditions or ()]))
    return out


def released(case: Case) -> list[str]:
    return case.outcome().released


def _fail_pod_patches(case: Case) -> None:
    """upstream's ``podControlErr``: every finalizer-removal patch fails."""
    real = case.cp.controller_client("job").patch

    def patch(kind: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(kind, "__name__", "") == "Pod":
            raise Forbidden("mock error")
        return real(kind, *args, **kwargs)

    case.cp.controller_client("job").patch = patch  # type: ignore[method-assign]


def _scale(case: Case, completions: int) -> None:
    """An elastic Indexed Job scaled down, so ``completedIndexes`` may hold indexes out of range (the
    only way the API accepts such a status)."""
    case.cp.client.patch(Job, "foobar", {"spec": {"completions": completions, "parallelism": completions}},
                         "default")


def test_track_finished_pods() -> None:
    case = Case(job_manifest(2, 100, 100), [
        P("Succeeded", name="a"), P("Failed", name="b"), P("Succeeded", name="c", terminating=True),
        P("Failed", name="d", terminating=True), P("Pending", name="e", terminating=True),
        P("Pending"), P("Running")])
    assert writes(case) == [(["a", "c"], ["b", "d", "e"], 0, 0, "", None, []),
                            ([], [], 2, 3, "", None, [])]
    assert released(case) == ["a", "b", "c", "d", "e"]


def test_past_and_new_finished_pods() -> None:
    # e (no finalizer) and f (gone) are counted before the new uids are added: the first write
    # already has them in the counters (cleanUncountedPodsWithoutFinalizers runs first).
    case = Case(job_manifest(1, 100, 100), [
        P("Succeeded", name="e", finalizer=False), P("Failed", finalizer=False),
        P("Pending", finalizer=False), P("Succeeded", name="a"), P("Failed", name="b"),
        P("Succeeded", name="c"), P("Failed", name="d")],
        status={"active": 1, "succeeded": 2, "failed": 3},
        uncounted={"succeeded": ["a", "e"], "failed": ["b", "f"]})
    assert writes(case) == [(["a", "c"], ["b", "d"], 3, 4, "", None, []),
                            ([], [], 5, 6, "", None, [])]
    assert released(case) == ["a", "b", "c", "d", "e", "pod-001", "pod-002"]  # the last three never had it


def test_succeeding_job() -> None:
    # "succeeding job by JobSuccessPolicy"/"completing job": kbatch decides SuccessCriteriaMet
    # (CompletionsReached) itself; the pending pod c is deleted and released, not counted. Upstream's
    # full sync then adds Complete once c is no longer terminating (here: at once, c is gone).
    case = Case(job_manifest(1, 1, 6), [P("Succeeded", name="a"), P("Failed", name="b"),
                                        P("Pending", name="c")])
    got = writes(case)
    assert got[0] == (["a"], ["b"], 0, 0, "", None, ["SuccessCriteriaMet"])
    assert got[1] == ([], [], 1, 1, "", None, ["SuccessCriteriaMet"])
    assert released(case) == ["a", "b", "c"]


def test_completing_job() -> None:
    case = Case(job_manifest(1, 1, 6), [P("Succeeded", name="a"), P("Failed", name="b")])
    assert writes(case) == [(["a"], ["b"], 0, 0, "", None, ["SuccessCriteriaMet"]),
                            ([], [], 1, 1, "", None, ["SuccessCriteriaMet", "Complete"])]
    assert case.outcome().status.completion_time == case.cp.now()


def test_failing_job() -> None:
    # "failing job": the running pod counts as failed (backoffLimit 0 decides the failure)
    case = Case(job_manifest(1, 3, 0), [P("Succeeded", name="a"), P("Failed", name="b"),
                                        P("Running", name="c")])
    assert writes(case) == [(["a"], ["b", "c"], 0, 0, "", None, ["FailureTarget"]),
                            ([], [], 1, 2, "", None, ["FailureTarget"])]  # c still terminating
    assert released(case) == ["a", "b", "c"]


def test_deleted_job() -> None:
    # the running pod's finalizer is removed, but it is not counted as failed
    case = Case(job_manifest(1, 100, 100), [P("Succeeded", name="a"), P("Failed", name="b"),
                                            P("Running", name="r")], status={"active": 1}, deleting=True)
    assert writes(case) == [(["a"], ["b"], 0, 0, "", None, []), ([], [], 1, 1, "", None, [])]
    assert released(case) == ["a", "b", "r"]


def test_pod_patch_errors() -> None:
    case = Case(job_manifest(1, 100, 100), [P("Succeeded", name="a"), P("Failed", name="b"),
                                            P("Running")])
    _fail_pod_patches(case)
    assert writes(case) == [(["a"], ["b"], 0, 0, "", None, [])]
    assert released(case) == []


def test_pod_patch_errors_with_partial_success() -> None:
    # a lost its finalizer and b is gone: both counted in the one write, c and d stay uncounted
    case = Case(job_manifest(1, 100, 100), [P("Succeeded", name="a", finalizer=False),
                                            P("Succeeded", name="c"), P("Failed", name="d"),
                                            P("Running")],
                uncounted={"succeeded": ["a"], "failed": ["b"]})
    _fail_pod_patches(case)
    assert writes(case) == [(["c"], ["d"], 1, 1, "", None, [])]


def test_indexed_job_new_successful_pods() -> None:
    case = Case(job_manifest(1, 6, 100, completionMode=IX), [
        P("Succeeded", index="1"), P("Succeeded", index="3"), P("Succeeded", index="3"),
        P("Running", index="5"), P("Succeeded")], status={"active": 1})
    assert writes(case) == [([], [], 2, 0, "1,3", None, [])]
    assert len(released(case)) == 4


def test_indexed_job_prev_successful_pods_outside_range_no_new_succeeded() -> None:
    case = Case(job_manifest(4, 4, 100, completionMode=IX),
                [P("Running", index="0"), P("Running", index="1")],
                status={"active": 2, "succeeded": 1, "completedIndexes": "3"})
    _scale(case, 2)
    assert writes(case) == [([], [], 0, 0, "", None, [])]
    assert released(case) == []


def test_indexed_job_prev_successful_pods_outside_range_new_succeeded_in_range() -> None:
    case = Case(job_manifest(4, 4, 100, completionMode=IX),
                [P("Running", index="0"), P("Succeeded", index="1")],
                status={"active": 2, "succeeded": 1, "completedIndexes": "3"})
    _scale(case, 2)
    assert writes(case) == [([], [], 1, 0, "1", None, [])]
    assert len(released(case)) == 1


def test_indexed_job_new_failed_pods() -> None:
    case = Case(job_manifest(1, 6, 100, completionMode=IX), [
        P("Failed", name="a", index="1"), P("Failed", name="b", index="3"),
        P("Failed", name="c", index="3"), P("Running", name="d", index="5"), P("Failed", name="x")],
        status={"active": 1})
    assert writes(case) == [([], ["a", "b", "c"], 0, 0, "", None, []), ([], [], 0, 3, "", None, [])]
    assert released(case) == ["a", "b", "c", "x"]  # x (no index) released, not counted


def test_indexed_job_past_and_new_pods() -> None:
    case = Case(job_manifest(8, 8, 100, completionMode=IX), [
        P("Succeeded", index="0", finalizer=False), P("Failed", index="1", finalizer=False),
        P("Succeeded", index="1"), P("Succeeded", index="3"), P("Failed", name="a", index="2"),
        P("Failed", name="b", index="5")],
        status={"failed": 2, "succeeded": 5, "completedIndexes": "0-2,4,6,7"})
    _scale(case, 7)
    assert writes(case) == [([], ["a", "b"], 6, 2, "0-4,6", None, []),
                            ([], [], 6, 4, "0-4,6", None, [])]


def test_too_many_finished() -> None:
    # MaxUncountedPods counts every uid in uncountedTerminatedPods (after those without a
    # finalizer are counted), not only this sync's: a (gone) is counted, b stays uncounted and
    # 499 successes fill the list to 500; one success and b wait for the next sync. (kbatch walks
    # pods by name; upstream's b comes last, hence the name "zb".)
    pods = [P("Succeeded", name=f"s{i:03d}") for i in range(500)] + [P("Failed", name="zb")]
    case = Case(job_manifest(1, 1000, 1000), pods, uncounted={"failed": ["a", "zb"]})
    got = writes(case)
    assert [(len(s), f, succ, fail) for s, f, succ, fail, *_ in got[:2]] == [
        (499, ["zb"], 0, 1), (0, ["zb"], 499, 1)]
    assert len(released(case)) >= 499


def test_too_many_indexed_finished() -> None:
    pods = [P("Succeeded", index=str(i)) for i in range(501)]
    case = Case(job_manifest(1, 501, 1000, completionMode=IX), pods)
    got = writes(case)
    # upstream's full sync has met the success criteria (501 succeeded indexes among the pods), so
    # SuccessCriteriaMet is written with the capped indexes; Complete waits for the next sync
    assert got[0] == ([], [], 500, 0, "0-499", None, ["SuccessCriteriaMet"])


def test_pod_flips_from_failed_to_succeeded() -> None:
    # b is in uncounted failed: it is counted as failed though it succeeded
    case = Case(job_manifest(2, 2, 0), [P("Failed", name="a"), P("Succeeded", name="b")],
                uncounted={"failed": ["a", "b"]})
    assert writes(case)[-1] == ([], [], 0, 2, "", None, ["FailureTarget", "Failed"])


def test_pod_is_terminal_job_failed_condition_is_set() -> None:
    case = Case(job_manifest(1, 1, 0), [P("Failed", name="a")], uncounted={"failed": ["a"]})
    assert writes(case)[-1] == ([], [], 0, 1, "", None, ["FailureTarget", "Failed"])


FT = {"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded", "message": "m"}
SCM = {"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached", "message": "m"}


def test_pod_is_terminating_counted_failed_but_failed_condition_delayed() -> None:
    # "...; JobPodReplacementPolicy enabled" and "...; JobManagedBy enabled" (the gate-off sibling
    # does not apply: both gates are GA)
    case = Case(job_manifest(1, 1, 0), [P("Running", name="a", terminating=True, finalizer=False)],
                uncounted={"failed": ["a"]}, status={"conditions": [FT]})
    assert writes(case) == [([], [], 0, 1, "", None, ["FailureTarget"])]


def test_pod_is_terminating_success_criteria_met_but_complete_delayed() -> None:
    case = Case(job_manifest(1, 1, 0), [P("Running", name="a", terminating=True, finalizer=False)],
                uncounted={"failed": ["a"], "succeeded": ["b"]}, status={"conditions": [SCM]})
    assert writes(case) == [([], [], 1, 1, "", None, ["SuccessCriteriaMet"])]


def test_indexed_failed_pod_with_delayed_finalizer_removal_is_not_counted() -> None:
    case = Case(job_manifest(1, 6, None, completionMode=IX, backoffLimitPerIndex=1),
                [P("Failed", name="a", index="1", annotations=((FC, "0"),))])
    assert writes(case)[0][:6] == ([], [], 0, 0, "", "")
    assert released(case) == []


def test_indexed_failed_pod_recreated_by_a_running_pod_is_counted() -> None:
    case = Case(job_manifest(1, 6, None, completionMode=IX, backoffLimitPerIndex=1), [
        P("Failed", name="a1", index="1", annotations=((FC, "0"),)),
        P("Running", name="a2", index="1", annotations=((FC, "1"),))], status={"active": 1})
    assert writes(case) == [([], ["a1"], 0, 0, "", "", []), ([], [], 0, 1, "", "", [])]
    assert released(case) == ["a1"]


def test_indexed_failed_pod_for_a_failed_index_is_counted() -> None:
    case = Case(job_manifest(1, 6, None, completionMode=IX, backoffLimitPerIndex=1),
                [P("Failed", name="a", index="1", annotations=((FC, "1"),))])
    assert writes(case) == [([], ["a"], 0, 0, "", "1", []), ([], [], 0, 1, "", "1", [])]
    assert released(case) == ["a"]
