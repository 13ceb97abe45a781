"""Example checks, one per documented Job behaviour, each citing its upstream source.

Written only against :class:`conformance.target.Target`. Pod outcomes are status patches
(:mod:`conformance.job.driver`).
"""

from __future__ import annotations

import pytest

from conformance.job.driver import (
    INDEX,
    active_pods,
    by_index,
    fail,
    job_manifest,
    pods_of,
    run,
    succeed,
    wait_status,
)
from conformance.target import condition, has_condition

DOC = "k8s.io/docs/concepts/workloads/controllers/job"
CTRL = "kubernetes/kubernetes pkg/controller/job/job_controller.go"
pytestmark = [pytest.mark.needs_virtual_clock, pytest.mark.plays_kubelet]


def _finished(job):
    return has_condition(job, "Complete") or has_condition(job, "Failed")


@pytest.mark.semantic("creates parallelism pods with owner ref, tracking finalizer, generateName <job>-",
                      source=f"{CTRL} manageJob; KEP-2307")
def test_pod_shape_nonindexed(target):
    target.apply(job_manifest("pi", parallelism=2, completions=4))
    pods = pods_of(target, "pi")
    assert len(pods) == 2
    meta = pods[0]["metadata"]
    assert meta["generateName"] == "pi-" and meta["name"].startswith("pi-")
    assert "batch.kubernetes.io/job-tracking" in meta["finalizers"]
    ref = meta["ownerReferences"][0]
    assert (ref["kind"], ref["controller"], ref["blockOwnerDeletion"]) == ("Job", True, True)


@pytest.mark.semantic("Indexed pods: index annotation+label, hostname <job>-<i>, JOB_COMPLETION_INDEX env",
                      source="KEP-2214; indexed_job_utils.go; KEP-4017 (PodIndexLabel)")
def test_pod_shape_indexed(target):
    target.apply(job_manifest("idx", parallelism=3, completions=3, completionMode="Indexed",
                              subdomain="svc"))
    pods = sorted(pods_of(target, "idx"), key=lambda p: p["metadata"]["annotations"][INDEX])
    for i, pod in enumerate(pods):
        assert pod["metadata"]["annotations"][INDEX] == str(i)
        assert pod["metadata"]["labels"][INDEX] == str(i)
        assert pod["metadata"]["generateName"] == f"idx-{i}-"
        assert pod["spec"]["hostname"] == f"idx-{i}" and pod["spec"]["subdomain"] == "svc"
        env = pod["spec"]["containers"][0]["env"]
        assert env[0]["name"] == "JOB_COMPLETION_INDEX"
        assert env[0]["valueFrom"]["fieldRef"]["fieldPath"] == f"metadata.labels['{INDEX}']"


@pytest.mark.semantic("success: SuccessCriteriaMet then Complete (CompletionsReached), completionTime",
                      source=f"KEP-4368; kubernetes#125510; {CTRL}")
def test_completion(target):
    target.apply(job_manifest("ok", parallelism=2, completions=2))
    for pod in active_pods(target, "ok"):
        succeed(target, pod)
    job = wait_status(target, "ok", _finished, 30)
    assert has_condition(job, "SuccessCriteriaMet") and has_condition(job, "Complete")
    assert condition(job, "Complete")["reason"] == "CompletionsReached"
    st = job["status"]
    assert st["succeeded"] == 2 and st.get("active", 0) == 0 and st["completionTime"]
    assert st["uncountedTerminatedPods"] == {}
    assert all("batch.kubernetes.io/job-tracking" not in p["metadata"].get("finalizers", [])
               for p in pods_of(target, "ok"))


@pytest.mark.semantic("completedIndexes uses the interval format (runs of two as a,b)",
                      source="indexed_job_utils.go orderedIntervals.String; KEP-2214")
def test_completed_indexes_format(target):
    target.apply(job_manifest("fmt", parallelism=8, completions=8, completionMode="Indexed"))
    pods = by_index(target, "fmt")
    for ix in (1, 3, 4, 5, 7):
        succeed(target, pods[ix])
    job = wait_status(target, "fmt", lambda j: j.get("status", {}).get("succeeded") == 5, 30)
    assert job["status"]["completedIndexes"] == "1,3-5,7"


@pytest.mark.semantic("backoffLimit: failed > limit gives FailureTarget then Failed BackoffLimitExceeded",
                      source=f"{DOC}#pod-backoff-failure-policy; {CTRL}")
def test_backoff_limit(target):
    target.apply(job_manifest("bo", parallelism=1, completions=1, backoffLimit=1))
    fail(target, active_pods(target, "bo")[0])
    wait_status(target, "bo", lambda j: len(active_pods(target, "bo")) == 1, 60)
    fail(target, active_pods(target, "bo")[0])
    job = wait_status(target, "bo", _finished, 120)
    assert condition(job, "Failed")["reason"] == "BackoffLimitExceeded"
    assert condition(job, "FailureTarget")["reason"] == "BackoffLimitExceeded"
    assert job["status"]["failed"] == 2


@pytest.mark.semantic("replacement pods wait for the failure back-off (10 s, then 20 s)",
                      source="backoff_utils.go; job_controller.go DefaultJobPodFailureBackOff")
def test_recreation_backoff(target):
    target.apply(job_manifest("slow", parallelism=1, completions=1, backoffLimit=5))
    fail(target, active_pods(target, "slow")[0])
    target.advance(9)
    assert not active_pods(target, "slow")
    target.advance(2)
    assert len(active_pods(target, "slow")) == 1


@pytest.mark.semantic("activeDeadlineSeconds: DeadlineExceeded, running pods terminated",
                      source=f"{DOC}#job-termination-and-cleanup")
def test_active_deadline(target):
    target.apply(job_manifest("dl", parallelism=2, completions=2, activeDeadlineSeconds=30))
    job = wait_status(target, "dl", _finished, 120)
    assert condition(job, "Failed")["reason"] == "DeadlineExceeded"
    assert condition(job, "Failed")["message"] == "Job was active longer than specified deadline"
    assert job["status"].get("active", 0) == 0


@pytest.mark.semantic("podFailurePolicy FailJob on exit code (seed 004 rules): Failed/PodFailurePolicy",
                      source="KEP-3329; pod_failure_policy.go; seed 004")
def test_pod_failure_policy_fail_job(target):
    policy = {"rules": [
        {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [40, 41, 42]}},
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    target.apply(job_manifest("pfp", parallelism=1, completions=1, podFailurePolicy=policy))
    pod = active_pods(target, "pfp")[0]
    fail(target, pod, code=3)
    job = wait_status(target, "pfp", _finished, 60)
    failed = condition(job, "Failed")
    assert failed["reason"] == "PodFailurePolicy"
    meta = pod["metadata"]
    assert failed["message"] == (f"Container main for pod {meta['namespace']}/{meta['name']} failed with "
                                 "exit code 3 matching FailJob rule at index 0")


@pytest.mark.semantic("podFailurePolicy Ignore on DisruptionTarget: not counted, pod replaced",
                      source="KEP-3329; seed 003 'Use DisruptionTarget to retry any disruptions'")
def test_pod_failure_policy_ignore(target):
    policy = {"rules": [
        {"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue"}]},
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 2, 126, 127, 128, 139]}},
        {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [130, 137, 138, 147]}}]}
    target.apply(job_manifest("ign", parallelism=1, completions=1, backoffLimit=0,
                              podFailurePolicy=policy))
    fail(target, active_pods(target, "ign")[0], code=1, conditions=("DisruptionTarget",))
    job = wait_status(target, "ign", lambda j: len(active_pods(target, "ign")) == 1, 60)
    assert job["status"].get("failed", 0) == 0 and not _finished(job)


@pytest.mark.semantic("FailJob on a custom pod condition (ConfigIssue)", source="KEP-3329; seed 003")
def test_pod_failure_policy_condition(target):
    policy = {"rules": [{"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue"}]}]}
    target.apply(job_manifest("cfg", parallelism=1, completions=1, podFailurePolicy=policy))
    pod = active_pods(target, "cfg")[0]
    fail(target, pod, code=0, conditions=("ConfigIssue",))
    job = wait_status(target, "cfg", _finished, 60)
    assert condition(job, "Failed")["message"] == (
        f"Pod {pod['metadata']['namespace']}/{pod['metadata']['name']} has condition ConfigIssue matching "
        "FailJob rule at index 0")


@pytest.mark.semantic("backoffLimitPerIndex: failure-count annotations, failedIndexes, FailedIndexes",
                      source="KEP-3850; indexed_job_utils.go")
def test_backoff_limit_per_index(target):
    target.apply(job_manifest("bli", parallelism=2, completions=2, completionMode="Indexed",
                              backoffLimitPerIndex=1))
    first = by_index(target, "bli")[0]
    assert first["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] == "0"
    fail(target, first)
    wait_status(target, "bli", lambda j: 0 in by_index(target, "bli"), 60)
    second = by_index(target, "bli")[0]
    assert second["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] == "1"
    fail(target, second)
    job = wait_status(target, "bli", lambda j: j.get("status", {}).get("failedIndexes") == "0", 60)
    succeed(target, by_index(target, "bli")[1])
    job = wait_status(target, "bli", _finished, 60)
    assert condition(job, "Failed")["reason"] == "FailedIndexes"
    assert job["status"]["completedIndexes"] == "1"


@pytest.mark.semantic("suspend: pods deleted uncounted, Suspended=True JobSuspended; resume: JobResumed",
                      source="KEP-2232; job docs #suspending-a-job")
def test_suspend_resume(target):
    target.apply(job_manifest("sus", parallelism=2, completions=2))
    target.patch("Job", "sus", {"spec": {"suspend": True}})
    job = wait_status(target, "sus", lambda j: has_condition(j, "Suspended"), 30)
    assert condition(job, "Suspended")["reason"] == "JobSuspended"
    assert not active_pods(target, "sus") and job["status"].get("failed", 0) == 0
    target.advance(60)
    target.patch("Job", "sus", {"spec": {"suspend": False}})
    job = wait_status(target, "sus", lambda j: has_condition(j, "Suspended", "False"), 30)
    assert condition(job, "Suspended")["reason"] == "JobResumed"
    assert len(active_pods(target, "sus")) == 2


@pytest.mark.semantic("suspending a started Job clears status.startTime; resuming sets it again (1.36+)",
                      source="KEP-5440 'Related changes' (MutableSchedulingDirectivesForSuspendedJobs); "
                             "job docs #suspending-a-job")
def test_suspend_clears_start_time(target):
    target.apply(job_manifest("sst", parallelism=1, completions=1))
    has_start = lambda j: "startTime" in j.get("status", {})  # noqa: E731
    started = wait_status(target, "sst", has_start, 30)["status"]["startTime"]
    target.advance(30)
    target.patch("Job", "sst", {"spec": {"suspend": True}})
    job = wait_status(target, "sst", lambda j: has_condition(j, "Suspended"), 30)
    assert "startTime" not in job["status"]
    target.advance(30)
    target.patch("Job", "sst", {"spec": {"suspend": False}})
    assert wait_status(target, "sst", has_start, 30)["status"]["startTime"] > started


@pytest.mark.semantic("created suspended: no pods, no startTime", source="KEP-2232")
def test_created_suspended(target):
    target.apply(job_manifest("cs", parallelism=2, completions=2, suspend=True))
    target.advance(5)
    job = target.get("Job", "cs")
    assert not pods_of(target, "cs") and "startTime" not in job.get("status", {})
    assert has_condition(job, "Suspended")


@pytest.mark.semantic("successPolicy succeededIndexes: SuccessCriteriaMet reason SuccessPolicy",
                      source="KEP-3998; success_policy.go")
def test_success_policy(target):
    target.apply(job_manifest("sp", parallelism=3, completions=3, completionMode="Indexed",
                              successPolicy={"rules": [{"succeededIndexes": "0"}]}))
    succeed(target, by_index(target, "sp")[0])
    job = wait_status(target, "sp", _finished, 60)
    assert condition(job, "Complete")["reason"] == "SuccessPolicy"
    assert condition(job, "SuccessCriteriaMet")["message"] == "Matched rules at index 0"


@pytest.mark.semantic("managedBy another controller: built-in controller leaves the Job alone",
                      source="KEP-4368; job_controller.go")
def test_managed_by(target):
    target.apply(job_manifest("ext", parallelism=1, completions=1, managedBy="example.com/other"))
    target.advance(5)
    assert not pods_of(target, "ext") and not target.get("Job", "ext").get("status")


@pytest.mark.semantic("TerminatingOrFailed: a deleted running pod counts as failed and is replaced",
                      source="KEP-3939")
def test_terminating_or_failed(target):
    target.apply(job_manifest("tof", parallelism=1, completions=1, backoffLimit=3))
    pod = active_pods(target, "tof")[0]
    run(target, pod)
    target.delete("Pod", pod["metadata"]["name"])
    job = wait_status(target, "tof", lambda j: j.get("status", {}).get("failed") == 1, 30)
    assert job["status"]["failed"] == 1


@pytest.mark.semantic("podReplacementPolicy Failed: replacement only after the pod is Failed",
                      source="KEP-3939; seed 004")
def test_replacement_failed(target):
    target.apply(job_manifest("rf", parallelism=1, completions=1, podReplacementPolicy="Failed"))
    pod = active_pods(target, "rf")[0]
    run(target, pod)
    target.delete("Pod", pod["metadata"]["name"])
    target.advance(30)
    job = target.get("Job", "rf")
    assert job["status"].get("terminating") == 1 and not active_pods(target, "rf")
    fail(target, target.get("Pod", pod["metadata"]["name"]), code=137)
    job = wait_status(target, "rf", lambda j: j.get("status", {}).get("failed") == 1, 60)
    assert job["status"]["terminating"] == 0


@pytest.mark.semantic("elastic Indexed Job: scale down removes high indexes, succeeded recomputed",
                      source="KEP-3715 (ElasticIndexedJob)")
def test_elastic_indexed(target):
    target.apply(job_manifest("el", parallelism=4, completions=4, completionMode="Indexed"))
    pods = by_index(target, "el")
    succeed(target, pods[3])
    wait_status(target, "el", lambda j: j.get("status", {}).get("completedIndexes") == "3", 30)
    target.patch("Job", "el", {"spec": {"parallelism": 2, "completions": 2}})
    job = wait_status(target, "el", lambda j: sorted(by_index(target, "el")) == [0, 1], 30)
    assert job["status"].get("succeeded", 0) == 0 and job["status"].get("completedIndexes", "") == ""


@pytest.mark.semantic("work-queue Job (completions unset) completes after a success once idle",
                      source=f"{DOC}#parallel-jobs")
def test_work_queue(target):
    target.apply(job_manifest("wq", parallelism=2))
    a, b = active_pods(target, "wq")
    succeed(target, a)
    target.advance(2)
    assert not _finished(target.get("Job", "wq"))
    succeed(target, b)
    job = wait_status(target, "wq", _finished, 30)
    assert has_condition(job, "Complete") and job["status"]["succeeded"] == 2
