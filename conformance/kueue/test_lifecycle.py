"""Kueue's workload lifecycle through Jobs: the maximum execution time and a LocalQueue drained by
``stopPolicy: HoldAndDrain``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workload_controller.go``
(``reconcileMaxExecutionTime``, ``reconcileOnLocalQueueActiveState``: "The LocalQueue is stopped"),
``test/integration/singlecluster/controller/core/workload_controller_test.go`` ("should deactivate the
workload when the time expires"), ``pkg/controller/jobframework/reconciler.go`` (the Job is
suspended when its Workload is evicted).
"""

from __future__ import annotations

import pytest

from conformance.kueue.test_admission import _job, _suspended, _wl_has, _workload, queues
from conformance.target import condition
from conformance.timing import budget

CORE = "kubernetes-sigs/kueue pkg/controller/core/workload_controller.go"


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "a Job labelled kueue.x-k8s.io/max-exec-time-seconds runs until that time, then its Workload is "
    "deactivated (Evicted: DeactivatedDueToMaximumExecutionTimeExceeded) and the Job suspended again",
    source=f"{CORE} reconcileMaxExecutionTime; kubernetes-sigs/kueue "
    "pkg/controller/jobframework/reconciler.go",
)
def test_the_maximum_execution_time_deactivates_a_job(target) -> None:
    with queues(target, ("lq", "200m")):
        job = _job("slow", "lq", 600)
        job["metadata"]["labels"]["kueue.x-k8s.io/max-exec-time-seconds"] = "3"
        target.create(job)
        assert target.wait_for(lambda: _wl_has(target, "slow", "Admitted"), timeout=budget(extra=5))
        assert target.wait_for(lambda: _wl_has(target, "slow", "Evicted"), timeout=budget(extra=10))
        evicted = condition(_workload(target, "slow"), "Evicted")
        assert evicted["reason"] == "DeactivatedDueToMaximumExecutionTimeExceeded"
        assert evicted["message"] == "The workload is deactivated due to exceeding the maximum execution time"
        assert _workload(target, "slow")["spec"].get("active") is False
        assert target.wait_for(lambda: _suspended(target, "slow"), timeout=budget(extra=5))


@pytest.mark.runs_pods
@pytest.mark.needs_kueue
@pytest.mark.semantic(
    "a LocalQueue set to stopPolicy HoldAndDrain evicts its admitted Workloads (Evicted: LocalQueueStopped, "
    "'The LocalQueue is stopped') and their Jobs are suspended; new Jobs wait until the policy is None",
    source=f"{CORE} reconcileOnLocalQueueActiveState",
)
def test_hold_and_drain_suspends_running_jobs(target) -> None:
    with queues(target, ("lq", "200m")):
        target.create(_job("running", "lq", 600))
        assert target.wait_for(lambda: _wl_has(target, "running", "Admitted"), timeout=budget(extra=5))
        target.patch("LocalQueue", "lq", {"spec": {"stopPolicy": "HoldAndDrain"}})
        assert target.wait_for(lambda: _wl_has(target, "running", "Evicted"), timeout=budget(extra=5))
        evicted = condition(_workload(target, "running"), "Evicted")
        assert (evicted["reason"], evicted["message"]) == ("LocalQueueStopped", "The LocalQueue is stopped")
        assert target.wait_for(lambda: _suspended(target, "running"), timeout=budget(extra=5))
        target.create(_job("later", "lq", 1, pods=1))
        assert target.wait_for(lambda: _workload(target, "later") is not None, timeout=budget(extra=5))
        assert not _wl_has(target, "later", "QuotaReserved")
        target.patch("LocalQueue", "lq", {"spec": {"stopPolicy": "None"}})
        assert target.wait_for(
            lambda: _wl_has(target, "running", "Admitted") or _wl_has(target, "later", "Admitted"),
            timeout=budget(extra=10),
        )
