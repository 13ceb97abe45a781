"""JobSets whose pods really run (a scheduler and kubelet; the command decides): completion, a failing
Job restarting the set up to maxRestarts (Recreate and BlockingRecreate), and exclusive placement
across the target's nodes, which needs two nodes with distinct ``kubernetes.io/hostname`` labels
(kubernetes-sigs/jobset ``test/e2e/e2e_test.go``)."""

from __future__ import annotations

import pytest

from conformance.jobset.driver import finished, jobs_of, jobset, label, rjob, wait_jobset
from conformance.target import condition
from conformance.timing import budget

E2E = "kubernetes-sigs/jobset test/e2e/e2e_test.go"
ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
GRACE = 10
pytestmark = pytest.mark.runs_pods


@pytest.mark.semantic("real pods: a JobSet of two replicated jobs completes; every child Job Complete",
                      source=f"{E2E}; pkg/controllers/jobset_controller.go")
def test_jobset_completes(target):
    target.apply(jobset("e2e-ok", rjob("driver", command="sleep 1"), rjob("w", replicas=2, pods=2,
                                                                         command="sleep 1")))
    js = wait_jobset(target, "e2e-ok", timeout=budget(runs=1))
    assert condition(js, "Completed")["status"] == "True", js["status"]
    assert all(condition(j, "Complete")["status"] == "True" for j in jobs_of(target, "e2e-ok"))


@pytest.mark.semantic("real pods: a failing Job restarts the JobSet (new restart attempt) until "
                      "maxRestarts, then ReachedMaxRestarts",
                      source=f"{E2E}; pkg/controllers/failure_policy.go")
def test_failing_job_restarts_then_fails(target):
    target.apply(jobset("e2e-fail", rjob("w", command="exit 1"), failurePolicy={"maxRestarts": 1}))
    js = wait_jobset(target, "e2e-fail", timeout=budget(rounds=2))
    assert condition(js, "Failed")["reason"] == "ReachedMaxRestarts", js["status"]
    assert js["status"]["restarts"] == 1
    assert {label(j, "jobset.sigs.k8s.io/restart-attempt") for j in jobs_of(target, "e2e-fail")} <= {"1"}


@pytest.mark.semantic("BlockingRecreate: a restart's new Jobs are created only once every Job of the "
                      "previous attempt is gone (a Job whose pod takes its grace period to stop)",
                      source="kubernetes-sigs/jobset pkg/controllers/jobset_controller.go reconcile "
                             "(BlockingRecreate); test/integration/controller/jobset_controller_test.go")
def test_blocking_recreate(target):
    overlaps: list[list[str]] = []

    def attempts_never_overlap_until_done() -> bool:
        jobs = target.list("Job", label_selector="jobset.sigs.k8s.io/jobset-name=e2e-block")
        seen = {label(j, ATTEMPT) for j in jobs}
        if len(seen) > 1:
            overlaps.append(sorted(f"{j['metadata']['name']}@{label(j, ATTEMPT)}" for j in jobs))
        return bool(finished(target.get("JobSet", "e2e-block")))

    slow = rjob("slow", command="sleep 600")  # being deleted, it takes its whole grace period to go
    slow["template"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = GRACE
    target.apply(jobset("e2e-block", rjob("bad", command="sleep 2; exit 1"), slow,
                        failurePolicy={"maxRestarts": 1, "restartStrategy": "BlockingRecreate"}))
    assert target.wait_for(attempts_never_overlap_until_done, budget(rounds=2, runs=4 + 2 * GRACE)), \
        target.get("JobSet", "e2e-block")
    js = target.get("JobSet", "e2e-block")
    assert condition(js, "Failed")["reason"] == "ReachedMaxRestarts" and js["status"]["restarts"] == 1
    assert overlaps == [], overlaps


@pytest.mark.semantic("exclusive placement (alpha.jobset.sigs.k8s.io/exclusive-topology): one Job per "
                      "topology domain, every pod of a Job in its leader's domain",
                      source="kubernetes-sigs/jobset pkg/webhooks/pod_webhook.go (leader affinities, "
                             "follower node selector); test/e2e/e2e_test.go exclusive placement")
def test_exclusive_placement(target):
    key = "kubernetes.io/hostname"
    target.apply(jobset("e2e-excl", rjob("w", replicas=2, pods=2, command="sleep 5"),
                        annotations={"alpha.jobset.sigs.k8s.io/exclusive-topology": key}))
    js = wait_jobset(target, "e2e-excl", timeout=budget(rounds=2, failures=2, runs=5))
    assert condition(js, "Completed")["status"] == "True", js["status"]
    domains: dict[str, set[str]] = {}
    pods = target.list("Pod", label_selector="jobset.sigs.k8s.io/jobset-name=e2e-excl")
    for pod in pods:
        node = target.get("Node", pod["spec"]["nodeName"], namespace="")
        domain = (node["metadata"].get("labels") or {})[key]
        domains.setdefault(label(pod, "batch.kubernetes.io/job-name"), set()).add(domain)
    assert sorted(domains) == ["e2e-excl-w-0", "e2e-excl-w-1"], domains
    assert all(len(d) == 1 for d in domains.values()) and len(set.union(*domains.values())) == 2, domains
    leader = next(p for p in pods if label(p, "batch.kubernetes.io/job-completion-index") == "0")
    anti = leader["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert [t["topologyKey"] for t in anti] == [key]
