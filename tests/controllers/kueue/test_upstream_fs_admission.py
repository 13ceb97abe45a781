"""Admission fair sharing's queue order: upstream's ``TestFsAdmission`` and its integration cases.

* ``TestFsAdmission`` (kubernetes-sigs/kueue v0.19.2 ``pkg/cache/queue/cluster_queue_test.go``): a
  usage-based ClusterQueue pops the workload of the LocalQueue with the lower weighted usage first,
  whatever its priority; equal usage falls back to priority; a ``NoAdmissionFairSharing`` queue, or no
  ``admissionFairSharing`` configuration, orders by priority.
* ``test/integration/singlecluster/scheduler/fairsharing/fair_sharing_test.go`` ("Using
  AdmissionFairSharing at ClusterQueue level", half-life and sampling 1 s; "Scheduler with
  AdmissionFairSharing = nil"), through the API on the virtual clock.
* hypothesis: the popped head is a function of the state (the same state in any push order gives
  the same pops), and it is the ``(usage, base order)`` minimum.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_config import AdmissionFairSharingConfig
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.api.selectors import selector_from_set
from kbatch.controllers.kueue.admissionfairsharing.arithmetic import from_quantity
from kbatch.controllers.kueue.model.info import InfoOptions
from kbatch.controllers.kueue.queues import QueueManager

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload
from .upstream_queue import NOW, Clock, info, make_wl

USAGE_BASED = "UsageBasedAdmissionFairSharing"


def _manager(afs: AdmissionFairSharingConfig | None, mode: str, weights: dict[str, float],
             consumed: dict[str, dict[str, str]]) -> QueueManager:
    qm = QueueManager(InfoOptions(equivalence_hashing=False), Clock(), hashing=False,
                      admission_fair_sharing=afs)
    qm.lq_weight = lambda key: weights.get(key, 1.0)
    for lq, resources in consumed.items():
        qm.afs_ledger.set(lq, {k: from_quantity(Quantity(v)) for k, v in resources.items()}, NOW)
    qm.add_or_update_cluster_queue("cq", "BestEffortFIFO", selector_from_set({}), mode)
    return qm


def _afs(**weights: float) -> AdmissionFairSharingConfig:
    return AdmissionFairSharingConfig(0.0, 300.0, weights)


FS_ADMISSION: dict[str, tuple[Any, ...]] = {
    "workloads are ordered by LQ usage, instead of priorities": (
        _afs(), USAGE_BASED, {}, {"default/lqa": {"cpu": "2"}, "default/lqb": {"cpu": "1"}},
        [("wla-high", "lqa", 2), ("wlb-low", "lqb", 1)], "wlb-low"),
    "workloads are ordered by LQ usage with respect to resource weights": (
        _afs(cpu=0, **{"example.com/gpu": 1}), USAGE_BASED, {},
        {"default/lqa": {"cpu": "1", "example.com/gpu": "10"},
         "default/lqb": {"cpu": "1000", "example.com/gpu": "1"}},
        [("wla-high", "lqa", 2), ("wlb-low", "lqb", 1)], "wlb-low"),
    "workloads are ordered by LQ usage with respect to LQs' fair sharing weights": (
        _afs(), USAGE_BASED, {"default/lqa": 1.0, "default/lqb": 2.0},
        {"default/lqa": {"cpu": "10"}, "default/lqb": {"cpu": "6"}},
        [("wla-high", "lqa", 2), ("wlb-low", "lqb", 1)], "wlb-low"),
    "workloads with the same LQ usage are ordered by priority": (
        _afs(), USAGE_BASED, {}, {"default/lqa": {"cpu": "10"}},
        [("wla-low", "lqa", 1), ("wla-high", "lqa", 2)], "wla-high"),
    "workloads with NoFairSharing CQ are ordered by priority": (
        _afs(), "NoAdmissionFairSharing", {}, {},
        [("wla-low", "lqa", 1), ("wla-high", "lqa", 2)], "wla-high"),
    "workloads with no FS config are ordered by priority": (
        None, "NoAdmissionFairSharing", {}, {},
        [("wla-low", "lqa", 1), ("wla-high", "lqa", 2)], "wla-high"),
}


@pytest.mark.parametrize("name", list(FS_ADMISSION))
def test_fs_admission(name: str) -> None:
    afs, mode, weights, consumed, wls, want = FS_ADMISSION[name]
    qm = _manager(afs, mode, weights, consumed)
    cq = qm.cluster_queues["cq"]
    for wl_name, queue, priority in wls:
        cq.push_or_update(info(make_wl(wl_name, queue=queue, priority=priority, created=NOW)))
    popped = cq.pop()
    assert popped is not None and popped.name == want


def test_usage_based_order_needs_the_configuration() -> None:
    """A usage-based ClusterQueue without ``admissionFairSharing`` (``afs.Enabled`` false) orders
    by priority, even with the gate on."""
    qm = _manager(None, USAGE_BASED, {}, {"default/lqa": {"cpu": "2"}, "default/lqb": {"cpu": "1"}})
    cq = qm.cluster_queues["cq"]
    for wl_name, queue, priority in [("wla-high", "lqa", 2), ("wlb-low", "lqb", 1)]:
        cq.push_or_update(info(make_wl(wl_name, queue=queue, priority=priority, created=NOW)))
    assert cq.pop().name == "wla-high"  # type: ignore[union-attr]


def test_entry_penalty_reorders_before_the_next_sample() -> None:
    """A pending entry penalty counts as usage (``CalcLocalQueueFSUsage``)."""
    qm = _manager(_afs(), USAGE_BASED, {}, {})
    cq = qm.cluster_queues["cq"]
    for wl_name, queue in [("a1", "lqa"), ("b1", "lqb")]:
        cq.push_or_update(info(make_wl(wl_name, queue=queue, created=NOW)))
    qm.afs_ledger.push_penalty("default/lqa", "default/a0", {"cpu": from_quantity(Quantity("100m"))}, NOW)
    assert cq.pop().name == "b1"  # type: ignore[union-attr]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["lqa", "lqb", "lqc"]), st.integers(0, 3)), min_size=1, max_size=8),
    st.dictionaries(st.sampled_from(["default/lqa", "default/lqb", "default/lqc"]),
                    st.integers(0, 5000), max_size=3),
    st.randoms(use_true_random=False),
)
def test_pop_order_is_a_function_of_the_state(
    wls: list[tuple[str, int]], consumed: dict[str, int], rnd: Any
) -> None:
    """Pushed in any order, the same workloads (same arrival ranks) pop in the same order, and the
    first is the ``(LocalQueue usage, -priority, arrival)`` minimum."""
    usage = {k: {"cpu": f"{v}m"} for k, v in consumed.items()}
    infos = [info(make_wl(f"w{i}", queue=q, priority=p, created=NOW)) for i, (q, p) in enumerate(wls)]

    def pops(order: list[Any]) -> list[str]:
        qm = _manager(_afs(), USAGE_BASED, {}, usage)
        cq = qm.cluster_queues["cq"]
        cq.arrival = {i.key: n for n, i in enumerate(infos)}
        cq.arrivals = len(infos)
        for i in order:
            cq.push_or_update(i)
        return [head.name for head in iter(cq.pop, None)]

    shuffled = list(infos)
    rnd.shuffle(shuffled)
    first = pops(infos)
    assert first == pops(shuffled) and sorted(first) == sorted(i.name for i in infos)
    rank = {i.name: (consumed.get(f"default/{i.queue_name}", 0), -i.priority, n) for n, i in enumerate(infos)}
    assert first[0] == min(rank, key=rank.__getitem__)


# --- integration: fair_sharing_test.go, "Using AdmissionFairSharing at ClusterQueue level" -------------

AFS_CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "admissionFairSharing": {"usageHalfLifeTime": "1s", "usageSamplingInterval": "1s"},
}


def _world(config: dict | None = AFS_CONFIG, mode: str = USAGE_BASED) -> World:
    kwargs = {"kueue_config": config} if config is not None else {}
    return World(
        flavor("default"),
        cluster_queue("cq1", (["cpu"], [("default", [quota("cpu", "8")])]),
                      admissionScope={"admissionMode": mode}),
        *[local_queue(f"lq-{x}", "cq1", fairSharing={"weight": "1"}) for x in "abc"],
        **kwargs,
    )


def _create(w: World, *names: str) -> None:
    for n in names:
        w.apply(workload(n, f"lq-{n[0]}", cpu="4"))
        w.cp.advance(1)  # upstream creates them one by one; distinct creation seconds


def _consumed_milli(w: World, lq: str) -> int | None:
    fs = w.lq(lq).status.fair_sharing
    afs = fs.admission_fair_sharing_status if fs is not None else None
    if afs is None:
        return None
    return (afs.consumed_resources or {}).get("cpu", Quantity("0")).milli_value()


def _finish(w: World, name: str) -> None:
    """``util.FinishWorkloads``, then the requeue batch period (1 s) that brings the inadmissible
    workloads back to the heap."""
    w.finish(name)
    w.cp.advance(1)


def _admitted(w: World, *names: str) -> list[str]:
    return [n for n in names if w.admitted(n)]


def test_admits_one_workload_from_each_local_queue_when_quota_is_limited() -> None:
    w = _world()
    cq = w.cq("cq1")
    w.cp.client.update(cq.model_copy(update={"spec": cq.spec.model_copy(update={"stop_policy": "Hold"})}))
    w.cp.run_until_idle()
    _create(w, "a1", "a2", "b1", "b2")
    assert _admitted(w, "a1", "a2", "b1", "b2") == []
    cq = w.cq("cq1")
    w.cp.client.update(cq.model_copy(update={"spec": cq.spec.model_copy(update={"stop_policy": "None"})}))
    w.cp.run_until_idle()
    assert len(_admitted(w, "a1", "a2")) == 1 and len(_admitted(w, "b1", "b2")) == 1


def test_prioritizes_workloads_from_less_active_local_queues() -> None:
    w = _world()
    _create(w, "a1", "a2")
    assert _admitted(w, "a1", "a2") == ["a1", "a2"]
    _create(w, "a3", "a4", "b1")
    w.cp.advance(10)
    assert (_consumed_milli(w, "lq-a") or 0) > 7500 and _consumed_milli(w, "lq-b") == 0
    _finish(w, "a1")
    _finish(w, "a2")
    assert w.admitted("b1") and len(_admitted(w, "a3", "a4")) == 1


def test_admits_workload_from_new_local_queue_when_all_others_have_high_usage() -> None:
    w = _world()
    _create(w, "a1", "b1")
    _create(w, "a2", "a3", "b2", "b3", "c1")
    w.cp.advance(10)
    assert (_consumed_milli(w, "lq-a") or 0) > 3900 and (_consumed_milli(w, "lq-b") or 0) > 3900
    assert _consumed_milli(w, "lq-c") == 0
    _finish(w, "a1")
    _finish(w, "b1")
    assert w.admitted("c1")


def test_admits_workloads_from_less_active_local_queues_after_quota_is_released() -> None:
    w = _world()
    _create(w, "a1", "a2", "b1", "b2", "c1")
    w.cp.advance(10)
    assert (_consumed_milli(w, "lq-a") or 0) > 7500
    assert _consumed_milli(w, "lq-b") == 0 and _consumed_milli(w, "lq-c") == 0
    _finish(w, "a1")
    _finish(w, "a2")
    assert len(_admitted(w, "b1", "b2")) == 1 and w.admitted("c1")


def test_consumed_resources_grow_with_admissions_and_penalties_settle() -> None:
    """"should update consumed resources and subtract entry penalties on workload admission"."""
    w = _world()
    mgr = _mgr(w)
    _create(w, "a1")
    assert w.admitted("a1") and not mgr.queues.afs_ledger.has_pending_penalty("default/lq-a")
    assert (_consumed_milli(w, "lq-a") or 0) > 0
    _create(w, "a2")
    w.cp.advance(5)
    assert w.admitted("a2") and (_consumed_milli(w, "lq-a") or 0) > 3900
    assert not mgr.queues.afs_ledger.has_pending_penalty("default/lq-a")


def test_without_admission_fair_sharing_the_status_has_no_fair_sharing() -> None:
    """"Scheduler with AdmissionFairSharing = nil": "should ignore FairSharing"."""
    w = _world(config=None)
    w.apply(workload("a1", "lq-a", cpu="8"))
    w.cp.advance(5)
    assert w.admitted("a1")
    assert w.lq("lq-a").status.fair_sharing is None


def test_no_admission_fair_sharing_mode_keeps_fifo() -> None:
    w = _world(mode="NoAdmissionFairSharing")
    _create(w, "a1", "a2", "a3", "b1")
    w.cp.advance(5)
    _finish(w, "a1")
    assert w.admitted("a3") and not w.admitted("b1")


def _mgr(w: World) -> Any:
    (controller,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    return controller.reconciler.mgr


# --- fair_sharing_test.go, "Using AdmissionFairSharing at Cohort level" (half-life 2 s, sampling 1 s) --


def _cohort_world() -> World:
    cfg = dict(AFS_CONFIG, admissionFairSharing={"usageHalfLifeTime": "2s", "usageSamplingInterval": "1s"})
    return World(
        flavor("default"),
        cluster_queue("cq1", (["cpu"], [("default", [quota("cpu", "16")])]), cohort="all",
                      preemption={"withinClusterQueue": "Never"}, queueingStrategy="StrictFIFO",
                      admissionScope={"admissionMode": USAGE_BASED}),
        cluster_queue("cq2", (["cpu"], [("default", [quota("cpu", "16")])]), cohort="all",
                      preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}),
        local_queue("lq-a", "cq1", fairSharing={"weight": "1"}),
        local_queue("lq-b", "cq1", fairSharing={"weight": "1"}),
        local_queue("lq-c", "cq2", fairSharing={"weight": "1"}),
        kueue_config=cfg,
    )


def test_promotes_a_workload_from_the_local_queue_with_lower_recent_usage() -> None:
    w = _cohort_world()
    w.apply(workload("first", "lq-a", cpu="32"))
    w.cp.advance(2)
    assert w.admitted("first") and (_consumed_milli(w, "lq-a") or 0) > 0
    w.apply(workload("a1", "lq-a", cpu="32"))
    w.cp.advance(1)
    w.apply(workload("b1", "lq-b", cpu="32"))
    w.cp.advance(1)
    _finish(w, "first")
    assert w.admitted("b1") and not w.admitted("a1")


def test_preempts_a_workload_from_the_local_queue_with_higher_recent_usage() -> None:
    """Reclaiming cq2's quota takes lq-a's workload, of higher priority but higher usage
    (``CandidatesOrdering``: usage before priority for candidates of one ClusterQueue)."""
    w = _cohort_world()
    w.apply(workload("high-a", "lq-a", cpu="20", priority=10))
    w.apply(workload("low-b", "lq-b", cpu="12", priority=1))
    w.cp.advance(3)
    assert w.admitted("high-a") and w.admitted("low-b")
    usage = _mgr(w).queues.admission_fair_sharing_usage()
    assert usage["default/lq-a"] > usage["default/lq-b"]
    w.apply(workload("c1", "lq-c", cpu="10"))
    w.cp.run_until_idle()
    evicted = w.cond("high-a", "Evicted")
    assert evicted is not None and evicted.status == "True" and evicted.reason == "Preempted"
    assert w.cond("low-b", "Evicted") is None


def test_the_v1beta1_served_version_carries_the_fields() -> None:
    """v1beta1 (``apis/kueue/v1beta1/localqueue_conversion.go``, ``clusterqueue_conversion.go``)
    has the same ``spec.fairSharing``, ``status.fairSharing.admissionFairSharingStatus`` and
    ``spec.admissionScope``: served as they are stored, and accepted back."""
    from kbatch.api.kueue_v1beta1 import models as v1
    from kbatch.api.kueue_v1beta1.conversion import CONVERSIONS

    w = _world()
    _create(w, "a1")
    w.cp.advance(3)
    stored = w.lq("lq-a").to_dict()
    served = CONVERSIONS["LocalQueue"].from_storage(stored)
    old = v1.LocalQueue.model_validate(served)
    assert old.spec.fair_sharing.weight == Quantity("1")
    afs = old.status.fair_sharing.admission_fair_sharing_status
    fair = stored["status"]["fairSharing"]
    assert afs.consumed_resources["cpu"] == fair["admissionFairSharingStatus"]["consumedResources"]["cpu"]
    assert CONVERSIONS["LocalQueue"].to_storage(served)["status"]["fairSharing"] == fair
    cq = CONVERSIONS["ClusterQueue"].from_storage(w.cq("cq1").to_dict())
    assert cq["spec"]["admissionScope"] == {"admissionMode": USAGE_BASED}


# --- fair_sharing_test.go, "Using AdmissionFairSharing with AdmissionChecks" ---------------------------


def _checked_world() -> World:
    from .helpers import activate_checks

    w = World(
        flavor("default"),
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "check1"},
         "spec": {"controllerName": "ctrl"}},
        cluster_queue("cq-with-check", (["cpu"], [("default", [quota("cpu", "8")])]),
                      admissionScope={"admissionMode": USAGE_BASED},
                      admissionChecksStrategy={"admissionChecks": [{"name": "check1"}]}),
        local_queue("lq-a", "cq-with-check", fairSharing={"weight": "1"}),
        kueue_config=AFS_CONFIG,
    )
    activate_checks(w.cp, "check1")
    return w


def _set_check(w: World, name: str, state: str) -> None:
    st = {"name": "check1", "state": state, "message": "", "lastTransitionTime": w.cp.now().isoformat()}
    w.cp.client.patch_status(Workload, name, {"status": {"admissionChecks": [st]}}, "default")
    w.cp.run_until_idle()


def _pending(w: World) -> dict[str, Any]:
    entry = _mgr(w).queues.afs_ledger.get("default/lq-a")
    return dict(entry.pending_penalty) if entry is not None else {}


def test_the_entry_penalty_settles_when_an_admission_check_admits() -> None:
    w = _checked_world()
    w.apply(workload("wl", "lq-a", cpu="4"))
    w.cp.run_until_idle()
    assert w.reserved("wl") and not w.admitted("wl") and _pending(w)
    _set_check(w, "wl", "Ready")
    assert w.admitted("wl") and not _pending(w)


def test_the_entry_penalty_is_dropped_when_the_workload_is_deleted_before_admission() -> None:
    w = _checked_world()
    w.apply(workload("wl", "lq-a", cpu="4"))
    w.cp.run_until_idle()
    assert _pending(w)
    w.cp.client.delete(Workload, "wl", "default")
    w.cp.run_until_idle()
    assert not _pending(w)


def test_entry_penalties_do_not_stack_when_an_evicted_workload_reserves_again() -> None:
    w = _checked_world()
    w.apply(workload("wl", "lq-a", cpu="4"))
    w.cp.run_until_idle()
    first = _pending(w)
    assert first
    _set_check(w, "wl", "Retry")
    evicted = w.cond("wl", "Evicted")
    assert evicted is not None and evicted.status == "True"
    assert w.release_evicted() == 1  # the job integration's part (FinishEvictionForWorkloads)
    w.cp.advance(5)
    assert w.reserved("wl") and w.cond("wl", "Evicted").status == "False"  # reserved again
    assert _pending(w) == first


def test_consumed_cpu_stays_non_zero_across_sampling_intervals() -> None:
    """fair_sharing_test.go "Self-triggered reconciles do not truncate CPU": every LocalQueue is
    sampled with the feature on (its ClusterQueue need not be usage-based), and 500m keeps a
    non-zero consumption sample after sample."""
    cfg = dict(AFS_CONFIG, admissionFairSharing={"usageHalfLifeTime": "2s", "usageSamplingInterval": "1s"})
    w = World(flavor("default"), cluster_queue("cq-afs-cpu", (["cpu"], [("default", [quota("cpu", "4")])]),
                                               cohort="cohort"),
              local_queue("lq-afs-cpu", "cq-afs-cpu"), kueue_config=cfg)
    w.apply(workload("wl", "lq-afs-cpu", cpu="500m"))
    seen = []
    for _ in range(6):
        w.cp.advance(1)
        seen.append(_consumed_milli(w, "lq-afs-cpu"))
    assert all(m is not None and m > 0 for m in seen) and seen == sorted(seen)
