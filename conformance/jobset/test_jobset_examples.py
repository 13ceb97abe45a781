"""Example checks, one per documented JobSet behaviour, each citing the upstream code or test it
restates (kubernetes-sigs/jobset v0.12.0). The kubelet is played: child Jobs finish through their
pods' status, the Job controller turns that into their conditions."""

from __future__ import annotations

import hashlib

import pytest

from conformance.jobset.driver import finish, jobs_of, jobset, label, rjob, wait_jobset
from conformance.target import condition, has_condition

CTRL = "kubernetes-sigs/jobset pkg/controllers/jobset_controller.go"
POLICY = "kubernetes-sigs/jobset pkg/controllers/failure_policy.go"
ITEST = "kubernetes-sigs/jobset test/integration/controller/jobset_controller_test.go"
pytestmark = [pytest.mark.needs_virtual_clock, pytest.mark.plays_kubelet]
KEYS = ("jobset-name", "replicatedjob-name", "replicatedjob-replicas", "global-replicas", "job-index",
        "job-global-index", "job-key", "group-name", "group-replicas", "job-group-index", "restart-attempt")


def _cond(obj, type_):
    c = condition(obj, type_)
    return (c["status"], c["reason"], c["message"]) if c else None


@pytest.mark.semantic("children: Jobs <jobset>-<rj>-<i> with the jobset.sigs.k8s.io labels and equal "
                      "annotations on Job and pod template, job-key SHA-1, owner ref, headless Service",
                      source=f"{CTRL} constructJob, labelAndAnnotateObject, createHeadlessSvcIfNecessary")
def test_children_and_headless_service(target):
    target.apply(jobset("js", rjob("a"), rjob("b", replicas=2), coordinator={"replicatedJob": "b"}))
    jobs = {j["metadata"]["name"]: j for j in jobs_of(target, "js")}
    assert sorted(jobs) == ["js-a-0", "js-b-0", "js-b-1"]
    ns = jobs["js-b-1"]["metadata"]["namespace"]
    job = jobs["js-b-1"]
    pod_meta = job["spec"]["template"]["metadata"]
    for key in KEYS:
        full = f"jobset.sigs.k8s.io/{key}"
        assert job["metadata"]["labels"][full] == job["metadata"]["annotations"][full] == \
            pod_meta["labels"][full] == pod_meta["annotations"][full], key
    assert label(job, "jobset.sigs.k8s.io/job-key") == hashlib.sha1(f"{ns}/js-b-1".encode()).hexdigest()
    assert [label(job, f"jobset.sigs.k8s.io/{k}") for k in ("job-global-index", "global-replicas",
                                                           "restart-attempt")] == ["2", "3", "0"]
    assert label(job, "jobset.sigs.k8s.io/coordinator") == "js-b-0-0.js"
    ref = job["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["name"], ref["controller"]) == ("JobSet", "js", True)
    assert job["spec"]["template"]["spec"]["subdomain"] == "js" and job["spec"]["suspend"] is False
    svc = target.get("Service", "js")
    assert svc["spec"]["clusterIP"] == "None"
    assert svc["spec"]["selector"] == {"jobset.sigs.k8s.io/jobset-name": "js"}
    assert svc["spec"]["publishNotReadyAddresses"] is True


@pytest.mark.semantic("success policy All: Completed (AllJobsCompleted) once every Job succeeded",
                      source=f"{CTRL} executeSuccessPolicy; success_policy.go")
def test_all_jobs_succeed(target):
    target.apply(jobset("ok"))
    finish(target, "ok-w-0")
    target.advance(5)
    assert not has_condition(target.get("JobSet", "ok"), "Completed")
    finish(target, "ok-w-1")
    js = wait_jobset(target, "ok")
    assert _cond(js, "Completed") == ("True", "AllJobsCompleted", "jobset completed successfully")
    assert js["status"]["terminalState"] == "Completed"


@pytest.mark.semantic("success policy Any over targetReplicatedJobs: one targeted Job completes the set",
                      source=f"{CTRL} executeSuccessPolicy; success_policy.go numJobsExpectedToSucceed")
def test_any_targeted_job(target):
    target.apply(jobset("any", rjob("driver"), rjob("w", replicas=2),
                        successPolicy={"operator": "Any", "targetReplicatedJobs": ["driver"]}))
    finish(target, "any-w-0")
    target.advance(5)
    assert not has_condition(target.get("JobSet", "any"), "Completed")
    finish(target, "any-driver-0")
    assert has_condition(wait_jobset(target, "any"), "Completed")


@pytest.mark.semantic("no failurePolicy: a failed Job fails the JobSet (FailedJobs, first failed job)",
                      source=f"{POLICY} executeFailurePolicy")
def test_failed_job_fails_the_jobset(target):
    target.apply(jobset("f"))
    finish(target, "f-w-1", success=False)
    js = wait_jobset(target, "f")
    assert _cond(js, "Failed") == ("True", "FailedJobs",
                                   "jobset failed due to one or more job failures (first failed job: f-w-1)")
    assert js["status"]["terminalState"] == "Failed"


@pytest.mark.semantic("RestartJobSet: restarts and restartsCountTowardsMax +1, RestartingJobSet, Jobs "
                      "recreated with the next restart-attempt; at maxRestarts: ReachedMaxRestarts",
                      source=f"{POLICY} restartJobSetActionApplier; {CTRL} getChildJobs; {ITEST}")
def test_restart_up_to_max_restarts(target):
    target.apply(jobset("r", failurePolicy={"maxRestarts": 1}))
    finish(target, "r-w-0", success=False)
    js = wait_jobset(target, "r", lambda j: (j.get("status") or {}).get("restarts") == 1)
    assert js["status"]["restartsCountTowardsMax"] == 1
    status, reason, message = _cond(js, "RestartingJobSet")
    assert (status, reason) == ("True", "DefaultFailurePolicy")
    assert message == "applying RestartJobSet failure policy action (first failed job: r-w-0)"
    assert target.wait_for(lambda: len(jobs_of(target, "r", "1")) == 2, 120), jobs_of(target, "r")
    finish(target, "r-w-1", success=False)
    js = wait_jobset(target, "r")
    assert _cond(js, "Failed")[:2] == ("True", "ReachedMaxRestarts")
    assert js["status"]["restarts"] == 1


@pytest.mark.semantic("failure policy rules: the first rule matching a failed Job's reason applies "
                      "(FailJobSet); RestartJobSetAndIgnoreMaxRestarts does not count towards max",
                      source=f"{POLICY} findFirstFailedPolicyRuleAndJob, ruleIsApplicable")
def test_rules_and_ignore_max(target):
    target.apply(jobset("ig", failurePolicy={"maxRestarts": 0, "rules": [
        {"name": "retry", "action": "RestartJobSetAndIgnoreMaxRestarts",
         "onJobFailureReasons": ["DeadlineExceeded"]},
        {"name": "again", "action": "RestartJobSetAndIgnoreMaxRestarts", "targetReplicatedJobs": ["w"]}]}))
    finish(target, "ig-w-0", success=False)  # BackoffLimitExceeded: the second rule
    js = wait_jobset(target, "ig", lambda j: (j.get("status") or {}).get("restarts") == 1)
    assert js["status"].get("restartsCountTowardsMax", 0) == 0
    assert _cond(js, "RestartingJobSet")[1] == "FailurePolicy_again"
    target.apply(jobset("fj", failurePolicy={"maxRestarts": 3, "rules": [
        {"name": "stop", "action": "FailJobSet", "onJobFailureReasons": ["BackoffLimitExceeded"]}]}))
    finish(target, "fj-w-0", success=False)
    assert _cond(wait_jobset(target, "fj"), "Failed")[:2] == ("True", "FailJobSetFailurePolicyAction")


@pytest.mark.semantic("suspend: Jobs created suspended, Suspended=True SuspendedJobs; resume unsuspends "
                      "them, Suspended=False ResumeJobs", source=f"{CTRL} suspendJobs, resumeJobsIfNecessary")
def test_suspend_and_resume(target):
    target.apply(jobset("s", suspend=True))
    assert all(j["spec"]["suspend"] for j in jobs_of(target, "s")) and len(jobs_of(target, "s")) == 2
    assert _cond(target.get("JobSet", "s"), "Suspended") == ("True", "SuspendedJobs", "jobset is suspended")
    target.patch("JobSet", "s", {"spec": {"suspend": False}})
    target.advance(1)
    assert not any(j["spec"]["suspend"] for j in jobs_of(target, "s"))
    assert _cond(target.get("JobSet", "s"), "Suspended") == ("False", "ResumeJobs", "jobset is resumed")


@pytest.mark.semantic("startupPolicy InOrder: a replicated job's Jobs are created once the previous "
                      "ones are ready; StartupPolicyInProgress then StartupPolicyCompleted",
                      source="kubernetes-sigs/jobset pkg/controllers/startup_policy.go; "
                             "reconcileReplicatedJobs")
def test_in_order_startup(target):
    from conformance.job.driver import active_pods, run

    target.apply(jobset("io", rjob("first"), rjob("second"), startupPolicy={"startupPolicyOrder": "InOrder"}))
    assert [j["metadata"]["name"] for j in jobs_of(target, "io")] == ["io-first-0"]
    assert _cond(target.get("JobSet", "io"), "StartupPolicyInProgress")[:2] == (
        "True", "InOrderStartupPolicyInProgress")
    for pod in active_pods(target, "io-first-0"):
        run(target, pod)
    assert target.wait_for(lambda: len(jobs_of(target, "io")) == 2, 60)
    for pod in active_pods(target, "io-second-0"):
        run(target, pod)
    js = wait_jobset(target, "io", lambda j: has_condition(j, "StartupPolicyCompleted"))
    assert has_condition(js, "StartupPolicyInProgress", "False")


@pytest.mark.semantic("dependsOn Complete: a replicated job is created once its dependency's Jobs all "
                      "succeeded", source="kubernetes-sigs/jobset pkg/controllers/depends_on.go")
def test_depends_on_complete(target):
    then = rjob("then", dependsOn=[{"name": "first", "status": "Complete"}])
    target.apply(jobset("dep", rjob("first"), then))
    target.advance(5)
    assert [j["metadata"]["name"] for j in jobs_of(target, "dep")] == ["dep-first-0"]
    finish(target, "dep-first-0")
    assert target.wait_for(lambda: len(jobs_of(target, "dep")) == 2, 60)


@pytest.mark.semantic("ttlSecondsAfterFinished: the finished JobSet is deleted that long after its "
                      "terminal condition",
                      source="kubernetes-sigs/jobset pkg/controllers/ttl_after_finished.go")
def test_ttl_after_finished(target):
    target.apply(jobset("ttl", rjob("w"), ttlSecondsAfterFinished=30))
    finish(target, "ttl-w-0")
    wait_jobset(target, "ttl")
    target.advance(20)
    assert target.get("JobSet", "ttl") is not None
    assert target.wait_for(lambda: target.get("JobSet", "ttl") is None, 60)


@pytest.mark.semantic("managedBy another controller: the JobSet controller leaves the JobSet alone",
                      source=f"{CTRL} managedByExternalController")
def test_managed_elsewhere(target):
    target.apply(jobset("mk", managedBy="kueue.x-k8s.io/multikueue"))
    target.advance(10)
    assert jobs_of(target, "mk") == [] and "status" not in target.get("JobSet", "mk")


@pytest.mark.semantic("volumeClaimPolicies: a claim <template>-<jobset> per template, labelled with the "
                      "JobSet's name, mounted by the Jobs' pods; owned by the JobSet unless Retain",
                      source="kubernetes-sigs/jobset pkg/controllers/volume_claim_policy.go; "
                             f"{CTRL} constructJob")
def test_volume_claim_policies(target):
    def claim(name):
        return {"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                     "resources": {"requests": {"storage": "1Gi"}}}}

    w = rjob("w")
    w["template"]["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "data", "mountPath": "/data"}, {"name": "ckpt", "mountPath": "/ckpt"}]
    target.apply(jobset("vc", w, volumeClaimPolicies=[
        {"templates": [claim("data")]},
        {"templates": [claim("ckpt")], "retentionPolicy": {"whenDeleted": "Retain"}}]))
    assert target.wait_for(lambda: len(jobs_of(target, "vc")) == 1, 30)
    data, ckpt = (target.get("PersistentVolumeClaim", f"{t}-vc") for t in ("data", "ckpt"))
    assert data is not None and ckpt is not None
    assert [label(c, "jobset.sigs.k8s.io/jobset-name") for c in (data, ckpt)] == ["vc", "vc"]
    assert [(r["kind"], r["name"]) for r in data["metadata"]["ownerReferences"]] == [("JobSet", "vc")]
    assert not ckpt["metadata"].get("ownerReferences")
    volumes = jobs_of(target, "vc")[0]["spec"]["template"]["spec"]["volumes"]
    assert sorted((v["name"], v["persistentVolumeClaim"]["claimName"]) for v in volumes) == [
        ("ckpt", "ckpt-vc"), ("data", "data-vc")]
