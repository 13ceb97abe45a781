"""Job checks with real pod outcomes, the success side: completion, Indexed jobs, suspend at
creation, activeDeadlineSeconds, successPolicy, ttlSecondsAfterFinished.

No virtual clock needed and no pod status patched: a scheduler and kubelet run each pod and its
command decides the outcome (:mod:`conformance.job.workload`), so these run on a real cluster too.
Assertions hold for any timing upstream allows.
"""

from __future__ import annotations

import pytest

from conformance.job.workload import finished, job, pods, reason, sh, wait_job
from conformance.target import condition, has_condition
from conformance.timing import budget

DOC = "k8s.io/docs/concepts/workloads/controllers/job"
INDEX = "batch.kubernetes.io/job-completion-index"
pytestmark = pytest.mark.runs_pods


@pytest.mark.semantic("real pods: NonIndexed Job completes: succeeded=completions, SuccessCriteriaMet "
                      "then Complete, completionTime", source=f"{DOC}#job-termination-and-cleanup; KEP-4368")
def test_nonindexed_job_completes(target):
    target.apply(job("ok", sh("sleep 1; exit 0"), parallelism=2, completions=3))
    done = wait_job(target, "ok", timeout=budget(rounds=2, runs=2))  # 3 pods, 2 at a time, 1 s each
    assert reason(done, "Complete") == "CompletionsReached", done["status"]
    types = [c["type"] for c in done["status"]["conditions"] if c["status"] == "True"]
    assert types.index("SuccessCriteriaMet") < types.index("Complete"), types
    assert condition(done, "SuccessCriteriaMet")["lastTransitionTime"] <= \
        condition(done, "Complete")["lastTransitionTime"]
    st = done["status"]
    assert st["succeeded"] == 3 and not st.get("failed") and not st.get("active"), st
    assert st["startTime"] <= st["completionTime"], st
    succeeded = [p for p in pods(target, "ok") if p["status"].get("phase") == "Succeeded"]
    assert len(succeeded) == 3


@pytest.mark.semantic("real pods: Indexed Job completes with completedIndexes 0-2; pods carry the index "
                      "annotation+label and hostname <job>-<i>",
                      source="KEP-2214; KEP-4017; indexed_job_utils.go")
def test_indexed_job_completes(target):
    target.apply(job("idx", sh("echo index $JOB_COMPLETION_INDEX"), parallelism=3, completions=3,
                     completionMode="Indexed"))
    done = wait_job(target, "idx", timeout=budget())
    assert reason(done, "Complete") == "CompletionsReached", done["status"]
    assert done["status"]["completedIndexes"] == "0-2" and done["status"]["succeeded"] == 3
    seen = set()
    for pod in pods(target, "idx"):
        meta = pod["metadata"]
        index = meta["annotations"][INDEX]
        assert meta["labels"][INDEX] == index and pod["spec"]["hostname"] == f"idx-{index}"
        seen.add(index)
    assert seen == {"0", "1", "2"}


@pytest.mark.semantic("real pods: created suspended: Suspended=True, no pods until resumed, then runs "
                      "to Complete", source=f"KEP-2232; {DOC}#suspending-a-job")
def test_suspended_at_creation_runs_after_resume(target):
    target.apply(job("sus", sh("exit 0"), parallelism=2, completions=2, suspend=True))
    held = wait_job(target, "sus", lambda j: has_condition(j, "Suspended"), timeout=budget(rounds=0))
    assert reason(held, "Suspended") == "JobSuspended" and not held["status"].get("startTime")
    assert pods(target, "sus") == []
    target.patch("Job", "sus", {"spec": {"suspend": False}})
    done = wait_job(target, "sus", timeout=budget())
    assert reason(done, "Complete") == "CompletionsReached" and done["status"]["succeeded"] == 2
    assert has_condition(done, "Suspended", "False")
    assert condition(done, "Suspended")["reason"] == "JobResumed"
    assert len(pods(target, "sus")) == 2


@pytest.mark.semantic("real pods: activeDeadlineSeconds over a long sleep: Failed DeadlineExceeded, "
                      "pods terminated", source=f"{DOC}#job-termination-and-cleanup")
def test_active_deadline_fails_a_long_job(target):
    target.apply(job("dl", sh("sleep 600"), parallelism=1, completions=1, activeDeadlineSeconds=3))
    done = wait_job(target, "dl", timeout=budget(extra=3))
    assert reason(done, "Failed") == "DeadlineExceeded", done["status"]
    assert not done["status"].get("active") and not done["status"].get("terminating")
    assert target.wait_for(lambda: all(p["status"].get("phase") in ("Succeeded", "Failed")
                                       for p in pods(target, "dl")), budget(rounds=0, extra=1))


@pytest.mark.semantic("real pods: successPolicy succeededIndexes [0]: index 0 done ends the Job Complete "
                      "reason SuccessPolicy, others terminated", source="KEP-3998; success_policy.go")
def test_success_policy_succeeded_indexes(target):
    # index 0 sleeps "000" (0 s), the others 100 s and 200 s
    target.apply(job("sp", sh("sleep ${JOB_COMPLETION_INDEX}00"), parallelism=3, completions=3,
                     completionMode="Indexed",
                     successPolicy={"rules": [{"succeededIndexes": "0"}]}))
    done = wait_job(target, "sp", timeout=budget())
    assert reason(done, "SuccessCriteriaMet") == "SuccessPolicy", done["status"]
    assert reason(done, "Complete") == "SuccessPolicy", done["status"]
    assert done["status"]["completedIndexes"] == "0" and done["status"]["succeeded"] == 1
    assert not done["status"].get("active") and not done["status"].get("terminating")


@pytest.mark.semantic("real pods: ttlSecondsAfterFinished deletes the finished Job (and its pods)",
                      source="KEP-592; k8s.io/docs/concepts/workloads/controllers/ttlafterfinished")
def test_ttl_after_finished_deletes_the_job(target):
    target.apply(job("ttl", sh("exit 0"), completions=1, ttlSecondsAfterFinished=2))
    assert target.wait_for(lambda: finished(target.get("Job", "ttl")) or target.get("Job", "ttl") is None,
                           budget())
    assert target.wait_for(lambda: target.get("Job", "ttl") is None, budget(rounds=0, extra=2)), \
        target.get("Job", "ttl")
    assert target.wait_for(lambda: pods(target, "ttl") == [], budget(rounds=0)), pods(target, "ttl")
