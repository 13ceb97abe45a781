"""Example tests for Kueue behaviour that had none: maximum execution time, deactivation
(``spec.active=false``), ``stopPolicy: HoldAndDrain``, partial admission
(``kueue.x-k8s.io/job-min-parallelism``), fair sharing.

Upstream (kubernetes-sigs/kueue v0.19.2), each test names the case it mirrors:
``test/integration/singlecluster/controller/core/workload_controller_test.go``,
``pkg/controller/core/workload_controller.go`` (messages), ``test/integration/singlecluster/
controller/jobs/job/job_controller_test.go`` and ``test/integration/singlecluster/scheduler/
fairsharing/fair_sharing_test.go``.
"""

from __future__ import annotations

from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue, Workload
from kbatch.controllers.kueue.manager import UPDATES_BATCH_PERIOD

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload
from .test_jobs import _workload_of, job
from .test_jobs import _world as job_world


def _one_queue(nominal: str = "4", **spec) -> World:
    cq = cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])]), **spec)
    return World(flavor("default"), cq, local_queue("lq", "cq"))


def test_maximum_execution_time_deactivates_the_workload() -> None:
    """workload_controller_test.go "should deactivate the workload when the time expires"."""
    w = _one_queue()
    wl = workload("wl", "lq")
    wl["spec"]["maximumExecutionTimeSeconds"] = 2
    w.apply(wl)
    w.cp.run_until_idle()
    assert w.admitted("wl") and w.wl("wl").spec.active is not False
    w.cp.advance(2.5)
    assert w.wl("wl").spec.active is False
    evicted = w.cond("wl", "Evicted")
    assert (evicted.status, evicted.reason, evicted.message) == (
        "True", "DeactivatedDueToMaximumExecutionTimeExceeded",
        "The workload is deactivated due to exceeding the maximum execution time")
    event = ("Warning", "MaximumExecutionTimeExceeded", "The maximum execution time (2s) exceeded")
    assert event in w.events("wl")


def test_a_deactivated_workload_is_evicted_and_stays_out_of_the_queue() -> None:
    """workload_controller.go: ``spec.active=false`` evicts with ``Deactivated``, "The workload is
    deactivated"; the next workload gets the quota; reactivating queues it again."""
    w = _one_queue(nominal="1")
    w.apply(workload("first", "lq"), workload("second", "lq"))
    w.cp.run_until_idle()
    assert w.admitted("first") and not w.reserved("second")
    w.cp.client.patch(Workload, "first", {"spec": {"active": False}}, "default")
    w.cp.run_until_idle()
    evicted = w.cond("first", "Evicted")
    assert (evicted.reason, evicted.message) == ("Deactivated", "The workload is deactivated")
    w.release_evicted()
    w.cp.advance(2)
    assert w.admitted("second") and not w.reserved("first")
    w.finish("second")
    w.cp.advance(2)
    assert not w.reserved("first")  # inactive: never admitted
    w.cp.client.patch(Workload, "first", {"spec": {"active": True}}, "default")
    w.cp.advance(2)
    assert w.admitted("first")


def test_hold_and_drain_evicts_admitted_workloads() -> None:
    """workload_controller.go ``reconcileOnClusterQueueActiveState`` / ``...LocalQueue...``:
    HoldAndDrain evicts admitted workloads ("The ClusterQueue is stopped" / "The LocalQueue is
    stopped"); Hold keeps them."""
    w = _one_queue(nominal="4")
    w.apply(workload("a", "lq"), workload("b", "lq"))
    w.cp.run_until_idle()
    assert w.admitted("a") and w.admitted("b")
    w.cp.client.patch(LocalQueue, "lq", {"spec": {"stopPolicy": "Hold"}}, "default")
    w.cp.run_until_idle()
    assert w.cond("a", "Evicted") is None  # Hold: admitted workloads keep running
    w.cp.client.patch(LocalQueue, "lq", {"spec": {"stopPolicy": "HoldAndDrain"}}, "default")
    w.cp.run_until_idle()
    for name in ("a", "b"):
        evicted = w.cond(name, "Evicted")
        assert (evicted.status, evicted.reason, evicted.message) == (
            "True", "LocalQueueStopped", "The LocalQueue is stopped")
    w.release_evicted()
    w.cp.client.patch(LocalQueue, "lq", {"spec": {"stopPolicy": "None"}}, "default")
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"stopPolicy": "HoldAndDrain"}})
    w.apply(workload("c", "lq"))
    w.cp.advance(2)
    assert not w.reserved("c")
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"stopPolicy": "None"}})
    w.cp.advance(2)
    assert w.admitted("c")


def test_a_job_with_min_parallelism_is_admitted_with_fewer_pods() -> None:
    """job_controller_test.go "Should schedule jobs with partial admission": a Job of parallelism 5
    (2 cpu each) does not fit 5 cpu; annotated job-min-parallelism 1 it runs with parallelism 2, its
    Workload's pod set carrying minCount 1 and the queue using 4 cpu."""
    w = job_world(nominal="5")
    w.apply(job("job1", parallelism=5, cpu="2", seconds=300))
    w.cp.run_until_idle()
    j = w.cp.client.get(Job, "job1", "default")
    assert j.spec.suspend is True
    w.cp.client.patch(Job, "job1", {"metadata": {"annotations": {"kueue.x-k8s.io/job-min-parallelism": "1"}}},
                      "default")
    w.cp.run_until_idle()
    j = w.cp.client.get(Job, "job1", "default")
    assert j.spec.suspend is False and j.spec.parallelism == 2
    wl = _workload_of(w, "job1")
    assert wl.spec.pod_sets[0].min_count == 1
    assert wl.status.admission.pod_set_assignments[0].count == 2
    w.cp.advance(UPDATES_BATCH_PERIOD)  # the queue's status follows a batch period later
    usage = w.cq("cq").status.flavors_usage[0].resources[0]
    assert (usage.name, str(usage.total)) == ("cpu", "4")


def test_fair_sharing_shares_the_cohorts_unused_quota() -> None:
    """fair_sharing_test.go "Admits workloads respecting fair share" (preemption disabled): cq a (3
    cpu) fills the cohort's 8 cpu; as a's workloads finish, b (1 cpu) is admitted until both hold
    the same weighted share, then they alternate."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare",
                                                       "LessThanInitialShare"]}}
    w = World(flavor("default"),
              cluster_queue("a", (["cpu"], [("default", [quota("cpu", "3")])]), cohort="all"),
              cluster_queue("b", (["cpu"], [("default", [quota("cpu", "1")])]), cohort="all"),
              cluster_queue("shared", (["cpu"], [("default", [quota("cpu", "4")])]), cohort="all"),
              local_queue("a", "a"), local_queue("b", "b"), kueue_config=config)
    w.apply(*(workload(f"a{i}", "a") for i in range(10)))
    w.cp.run_until_idle()
    assert _admitted_in(w, "a") == 8
    w.cp.advance(1)
    w.apply(*(workload(f"b{i}", "b") for i in range(5)))
    w.cp.run_until_idle()
    assert _admitted_in(w, "b") == 0

    expected = [(7, 1), (6, 2), (5, 3), (5, 3)]  # a finishes one at a time: b, b, b, then a again
    for want in expected:
        _finish_one(w, "a")
        assert (_admitted_in(w, "a"), _admitted_in(w, "b")) == want
    assert w.cq("a").status.fair_sharing.weighted_share == 250
    assert w.cq("b").status.fair_sharing.weighted_share == 250
    _finish_one(w, "a")
    _finish_one(w, "a")
    assert (_admitted_in(w, "a"), _admitted_in(w, "b")) == (4, 4)
    assert w.cq("a").status.fair_sharing.weighted_share == 125
    assert w.cq("b").status.fair_sharing.weighted_share == 375


def _running(w: World, cq: str) -> list[str]:
    out = []
    for wl in w.cp.client.list(Workload, "default").items:
        adm = wl.status.admission if wl.status else None
        if adm is not None and adm.cluster_queue == cq and w.admitted(wl.metadata.name) \
                and w.cond(wl.metadata.name, "Finished") is None:
            out.append(wl.metadata.name)
    return sorted(out)


def _admitted_in(w: World, cq: str) -> int:
    return len(_running(w, cq))


def _finish_one(w: World, cq: str) -> None:
    """``FinishRunningWorkloadsInCQ(cq, 1)``."""
    w.finish(_running(w, cq)[0])
    w.cp.advance(2)  # whole seconds: World.finish writes the clock's time as the condition's
