"""JobSets whose pods really run (a scheduler and kubelet; the command decides): completion, and a
failing Job restarting the set up to maxRestarts (kubernetes-sigs/jobset ``test/e2e/e2e_test.go``)."""

from __future__ import annotations

import pytest

from conformance.jobset.driver import jobs_of, jobset, label, rjob, wait_jobset
from conformance.target import condition
from conformance.timing import budget

E2E = "kubernetes-sigs/jobset test/e2e/e2e_test.go"
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
