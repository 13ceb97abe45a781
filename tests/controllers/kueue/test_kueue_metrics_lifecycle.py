"""Kueue's lifecycle metrics on scenarios, exact values in virtual time: evictions and requeues
(``evicted_workloads_once_total``, ``workload_eviction_latency_seconds``, ``pods_ready_to_evicted``),
finishes (``finished_workloads_total`` and the ``finished_workloads`` gauges), admission checks
(``admission_checks_wait_time_seconds``), PodsReady (``ready_wait_time_seconds``,
``admitted_until_ready_wait_time_seconds``), admission attempts, cohorts and the hierarchy, pending
resources, the build, workload creation and gate removal, and the cleanups when a queue goes.

Upstream: kueue v0.19.2 ``pkg/metrics/metrics.go`` and ``metrics_test.go`` (rows translated to the
state that produces them: the cleanups of ``TestReportAndCleanup*``, ``TestGitVersionMetric``,
``TestRecordWorkloadCreationLatency``, ``TestReportAndCleanupClusterQueuePendingResources``,
``TestCohortMetrics``); the recording sites named in :mod:`kbatch.controllers.kueue.metrics`.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue, Workload
from kbatch.controllers.kueue.metrics.families import help_text
from tests.controllers.kueue.helpers import (
    World,
    activate_checks,
    cluster_queue,
    flavor,
    local_queue,
    quota,
    workload,
)
from tests.controllers.kueue.test_jobs import _workload_of, job, node

ROLE = "standalone"
KUEUE = "kueue.x-k8s.io/v1beta2"


def _value(w: World, name: str, *labels: str) -> float | None:
    w.cp.metrics.collect()
    family = w.cp.metrics.get(name)
    assert family is not None, name
    return family.value(*labels)  # type: ignore[union-attr]


def _hist(w: World, name: str, *labels: str) -> tuple[int, float]:
    family: Any = w.cp.metrics.get(name)
    assert family is not None, name
    return family.count(*labels), family.sum(*labels)


def _series(w: World, prefix: str) -> list[str]:
    return [line for line in w.cp.metrics.render().splitlines() if line.startswith(prefix)]


def _preempting_world() -> World:
    cq = cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])]),
                       preemption={"withinClusterQueue": "LowerPriority"})
    return World(flavor("default"), cq, local_queue("lq", "cq"))


def test_evict_requeue_finish_scenario() -> None:
    """low is preempted twice (by high at 10 s, released 5 s later; by high2, released 2 s later),
    high finishes and is deleted: two evictions but one unique, two latencies, one finish."""
    w = _preempting_world()
    w.apply(workload("low", "lq", cpu="3", priority=1))
    w.cp.run_until_idle()
    w.cp.advance(10)
    w.apply(workload("high", "lq", cpu="3", priority=5))
    w.cp.run_until_idle()
    w.cp.advance(5)
    assert w.release_evicted() == 1
    w.cp.advance(20)
    w.finish("high")
    w.cp.advance(3)
    assert w.admitted("low")
    cq, lq = ("cq", "", ROLE), ("lq", "default", "", ROLE)
    assert _value(w, "kueue_finished_workloads_total", *cq) == 1
    assert _value(w, "kueue_local_queue_finished_workloads_total", *lq) == 1
    assert _value(w, "kueue_finished_workloads", "cq", ROLE) == 1
    assert _value(w, "kueue_local_queue_finished_workloads", "lq", "default", ROLE) == 1
    w.apply(workload("high2", "lq", cpu="3", priority=5))
    w.cp.run_until_idle()
    w.cp.advance(2)
    w.release_evicted()
    w.cp.advance(2)
    w.cp.client.delete(Workload, "high", "default")
    w.cp.run_until_idle()
    preempted = ("cq", "Preempted", "", "", ROLE)
    assert _value(w, "kueue_evicted_workloads_total", *preempted) == 2
    assert _value(w, "kueue_evicted_workloads_once_total", *preempted) == 1
    assert _hist(w, "kueue_workload_eviction_latency_seconds", "cq", "Preempted", ROLE) == (2, 7.0)
    assert _value(w, "kueue_finished_workloads", "cq", ROLE) == 0  # deleted: the series stays at 0
    assert _value(w, "kueue_local_queue_finished_workloads", "lq", "default", ROLE) == 0
    assert _value(w, "kueue_finished_workloads_total", *cq) == 1
    assert _hist(w, "kueue_admission_checks_wait_time_seconds", *cq) == (4, 0.0)  # no checks: 0 each
    assert _value(w, "kueue_admission_attempts_total", "success", ROLE) == 4
    assert _value(w, "kueue_admission_attempts_total", "inadmissible", ROLE) == 8
    assert _hist(w, "kueue_admission_attempt_duration_seconds", "success", ROLE) == (4, 0.0)
    assert _value(w, "kueue_preempted_workloads_total", "cq", "InClusterQueue", ROLE) == 2


def test_admission_checks_wait_from_reservation_to_admission() -> None:
    cq = cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])]),
                       admissionChecksStrategy={"admissionChecks": [{"name": "check"}]})
    check = {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": "check"},
             "spec": {"controllerName": "example.com/never"}}
    w = World(flavor("default"), cq, check, local_queue("lq", "cq"))
    activate_checks(w.cp, "check")
    w.apply(workload("a", "lq"))
    w.cp.run_until_idle()
    assert w.reserved("a") and not w.admitted("a")
    assert _hist(w, "kueue_admission_checks_wait_time_seconds", "cq", "", ROLE) == (0, 0.0)
    w.cp.advance(7)
    wl = edit(w.wl("a"))
    for state in wl.status.admission_checks:
        state.state = "Ready"
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()
    assert w.admitted("a")
    assert _hist(w, "kueue_admission_checks_wait_time_seconds", "cq", "", ROLE) == (1, 7.0)
    lq = ("lq", "default", "", ROLE)
    assert _hist(w, "kueue_local_queue_admission_checks_wait_time_seconds", *lq) == (1, 7.0)


def test_pods_ready_waits_and_ready_to_evicted_with_jobs() -> None:
    """With waitForPodsReady, low's pods are ready 1 s after its admission (3 s), high ("hi") preempts
    it at 23 s: 19 s from ready to evicted; low starts again once high is done."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "waitForPodsReady": {"blockAdmission": False, "timeout": "10m"}}
    w = World(node("n-a", "a"), flavor("fa", labels={"pool": "a"}),
              cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "4")])]),
                            preemption={"withinClusterQueue": "LowerPriority"}),
              local_queue("lq", "cq"), controllers="*", kueue_config=config)
    w.cp.advance(3)
    w.apply(job("low", seconds=600))
    w.cp.run_until_idle()
    w.cp.advance(20)
    assert w.cond(_workload_of(w, "low").metadata.name, "PodsReady").reason == "Started"
    assert _hist(w, "kueue_ready_wait_time_seconds", "cq", "", ROLE) == (1, 1.0)
    assert _hist(w, "kueue_admitted_until_ready_wait_time_seconds", "cq", "", ROLE) == (1, 1.0)
    w.apply({"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "hi"}, "value": 100})
    w.apply(job("high", parallelism=4, priority_class="hi", seconds=30))
    w.cp.advance(60)
    assert _hist(w, "kueue_pods_ready_to_evicted_time_seconds", "cq", "Preempted", "", ROLE) == (1, 19.0)
    assert _hist(w, "kueue_ready_wait_time_seconds", "cq", "hi", ROLE) == (1, 1.0)
    assert _hist(w, "kueue_ready_wait_time_seconds", "cq", "", ROLE) == (2, 34.0)  # requeued at 23 s
    assert _hist(w, "kueue_local_queue_ready_wait_time_seconds", "lq", "default", "", ROLE) == (2, 34.0)
    assert _hist(w, "kueue_workload_creation_latency_seconds", "Job", ROLE) == (2, 0.0)


def test_workload_creation_latency_follows_its_gate() -> None:
    w = World(node("n-a", "a"), flavor("fa", labels={"pool": "a"}),
              cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "4")])])), local_queue("lq", "cq"),
              controllers="*", feature_gates="MetricForWorkloadCreationLatency=false")
    w.apply(job("j"))
    w.cp.run_until_idle()
    assert _workload_of(w, "j") is not None
    assert w.cp.metrics.get("kueue_workload_creation_latency_seconds") is None


def test_a_plain_pods_admission_gate_removal_is_timed() -> None:
    from tests.controllers.kueue.test_pods import _world as pod_world
    from tests.controllers.kueue.test_pods import pod

    w = pod_world()
    w.apply(pod("p"))
    w.cp.run_until_idle()
    assert _hist(w, "kueue_pod_scheduling_gate_removal_seconds", "kueue.x-k8s.io/admission", "cq", "false",
                 ROLE) == (1, 0.0)


def test_cohorts_and_the_hierarchy() -> None:
    """Two ClusterQueues under Cohort ``team`` under ``org``: the hierarchy info, subtree quotas and
    reservations (only above 0), admitted workloads per subtree, and the weighted shares."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare"]},
              "metrics": {"enableClusterQueueResources": True}}
    org = {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": "org"}, "spec": {}}
    team = {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": "team"},
            "spec": {"parentName": "org"}}
    w = World(flavor("default"), org, team,
              cluster_queue("a", (["cpu"], [("default", [quota("cpu", "2")])]), cohort="team"),
              cluster_queue("b", (["cpu"], [("default", [quota("cpu", "2")])]), cohort="team"),
              local_queue("lq", "a"), kueue_config=config)
    w.apply(workload("w1", "lq", cpu="3"))
    w.cp.run_until_idle()
    assert w.admitted("w1")
    assert _value(w, "kueue_cluster_queue_info", "a", "team", "org", ROLE) == 1
    assert _value(w, "kueue_cohort_info", "team", "org", "org", ROLE) == 1
    assert _value(w, "kueue_cohort_info", "org", "", "org", ROLE) == 1
    assert _value(w, "kueue_cohort_subtree_quota", "team", "default", "cpu", ROLE) == 4
    assert _value(w, "kueue_cohort_subtree_quota", "org", "default", "cpu", ROLE) == 4
    assert _value(w, "kueue_cohort_subtree_resource_reservations", "team", "default", "cpu", ROLE) == 3
    assert _value(w, "kueue_cohort_subtree_admitted_active_workloads", "team", ROLE) == 1
    assert _value(w, "kueue_cohort_subtree_admitted_workloads_total", "team", "", ROLE) == 1
    assert _value(w, "kueue_cohort_subtree_admitted_workloads_total", "org", "", ROLE) == 1
    # a borrows 1 cpu of the 4 its Cohort could give it: 250 per mille, as its status says
    assert _value(w, "kueue_cluster_queue_weighted_share", "a", "team", ROLE) == 250
    w.cp.advance(2)  # the ClusterQueue's status is written a moment later
    assert w.cq("a").status.fair_sharing.weighted_share == 250
    assert _value(w, "kueue_cluster_queue_weighted_share", "b", "team", ROLE) == 0
    assert _value(w, "kueue_cohort_weighted_share", "team", ROLE) == 0  # its parent lends nothing more
    w.finish("w1")
    assert _series(w, "kueue_cohort_subtree_resource_reservations{") == []  # 0: no series


def test_cohort_info_needs_metrics_for_cohorts() -> None:
    cq = cluster_queue("a", (["cpu"], [("default", [quota("cpu", "2")])]), cohort="t")
    w = World(flavor("default"), cq,
              feature_gates="MetricsForCohorts=false")
    assert _series(w, "kueue_cohort_info") == [] and _series(w, "kueue_cluster_queue_info") == []
    assert _series(w, "kueue_cohort_subtree_quota") == []


def test_pending_resources_per_cluster_queue() -> None:
    """``TestReportAndCleanupClusterQueuePendingResources``: a series per resource (0 for one the
    quotas name and nothing requests): the heap's and the inadmissible workloads' total requests."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "metrics": {"enableClusterQueueResources": True}}
    cq = cluster_queue("cq", (["cpu", "memory"], [("default", [quota("cpu", "1"), quota("memory", "1Gi")])]))
    w = World(flavor("default"), cq, local_queue("lq", "cq"), kueue_config=config)
    assert _value(w, "kueue_cluster_queue_resource_pending", "cq", "cpu", ROLE) == 0
    w.apply(workload("big", "lq", cpu="4", count=2), workload("small", "lq", cpu="500m"))
    w.cp.run_until_idle()
    assert w.admitted("small")
    assert _value(w, "kueue_cluster_queue_resource_pending", "cq", "cpu", ROLE) == 8
    assert _value(w, "kueue_cluster_queue_resource_pending", "cq", "memory", ROLE) == 0
    w.cp.client.delete(Workload, "big", "default")
    w.cp.run_until_idle()
    assert _value(w, "kueue_cluster_queue_resource_pending", "cq", "cpu", ROLE) == 0


def test_a_deleted_queue_takes_its_counters() -> None:
    """``ClearClusterQueueMetrics`` / ``ClearLocalQueueMetrics``: counters and histograms go with the
    queue (the preemptor's too), another queue's stay."""
    w = _preempting_world()
    w.apply(local_queue("other", "cq"), workload("low", "lq", cpu="3", priority=1))
    w.cp.run_until_idle()
    w.apply(workload("high", "other", cpu="3", priority=5))
    w.settle()
    assert w.admitted("high")
    assert _series(w, "kueue_local_queue_evicted_workloads_total{") != []
    w.cp.client.delete(LocalQueue, "lq", "default")
    w.cp.run_until_idle()
    assert _series(w, 'kueue_local_queue_admitted_workloads_total{name="lq"') == []
    assert _series(w, "kueue_local_queue_evicted_workloads_total{") == []
    assert _series(w, 'kueue_local_queue_admitted_workloads_total{name="other"') != []
    for name in ("kueue_admitted_workloads_total", "kueue_evicted_workloads_total",
                 "kueue_preempted_workloads_total", "kueue_quota_reserved_wait_time_seconds_count"):
        assert _series(w, name + "{") != []
    for name in ("low", "high"):  # a ClusterQueue holding workloads waits for them (its finalizer)
        w.cp.client.delete(Workload, name, "default")
    w.cp.client.delete(ClusterQueue, "cq")
    w.cp.run_until_idle()
    assert w.cp.client.list(ClusterQueue).items == []
    for name in ("kueue_admitted_workloads_total", "kueue_evicted_workloads_total",
                 "kueue_evicted_workloads_once_total", "kueue_preempted_workloads_total",
                 "kueue_quota_reserved_wait_time_seconds_count",
                 "kueue_admission_checks_wait_time_seconds_count"):
        assert _series(w, name + "{") == [], name


def test_build_info_and_upstream_help() -> None:
    """``TestGitVersionMetric``: one series of value 1; the HELP lines are upstream's."""
    w = _preempting_world()
    w.apply(workload("a", "lq"))
    w.cp.run_until_idle()
    (line,) = _series(w, "kueue_build_info{")
    assert 'git_version="v0.19.2"' in line and line.endswith(" 1")
    text = w.cp.metrics.render()
    admitted = "The total number of admitted workloads per 'cluster_queue'"
    assert f"# HELP kueue_admitted_workloads_total {admitted}\n" in text
    pending = help_text("kueue_pending_workloads")
    assert pending.startswith("The number of pending workloads, per 'cluster_queue' and 'status'.\n")
    assert "# HELP kueue_pending_workloads " + pending.replace("\n", "\\n") + "\n" in text


@pytest.mark.parametrize("gate", ["LocalQueueMetrics=false"])
def test_local_queue_lifecycle_series_follow_the_gate(gate: str) -> None:
    w = World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])),
              local_queue("lq", "cq"), feature_gates=gate)
    w.apply(workload("a", "lq"))
    w.cp.run_until_idle()
    w.finish("a")
    assert _series(w, "kueue_local_queue_") == []
    assert _value(w, "kueue_finished_workloads_total", "cq", "", ROLE) == 1
    assert not math.isnan(_value(w, "kueue_finished_workloads", "cq", ROLE) or 0)


def test_replaced_slice_counts_once_for_its_cluster_queue() -> None:
    """An elastic Job scaled up: the old slice finishes ``WorkloadSliceReplaced`` when the new one is
    admitted (``replaceWorkloadSlice``)."""
    from tests.controllers.kueue.test_elastic_jobs import _world as elastic_world
    from tests.controllers.kueue.test_elastic_jobs import elastic_job, scale

    w = elastic_world(nominal="4")
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    scale(w, "e", 4)
    assert _value(w, "kueue_replaced_workload_slices_total", "cq", ROLE) == 1
    assert _value(w, "kueue_finished_workloads_total", "cq", "", ROLE) == 1


def _total(w: World, prefix: str) -> float:
    return sum(float(line.split()[-1]) for line in _series(w, prefix + "{"))


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "finish", "delete", "release"]), st.integers(1, 3),
                          st.integers(0, 2)), min_size=1, max_size=8))
def test_counters_agree_with_the_workloads(steps: list[tuple[str, int, int]]) -> None:
    """Whatever was added, preempted, released, finished or deleted: a unique eviction is at most every
    eviction of its reason; every admission has one admission-check wait; the finished gauge counts the
    Finished workloads that exist, the counter every finish seen."""
    w = _preempting_world()
    finishes = 0
    for i, (action, cpu, priority) in enumerate(steps):
        admitted = sorted(x.metadata.name for x in w.cp.client.list(Workload).items
                          if w.admitted(x.metadata.name) and not w.cond(x.metadata.name, "Finished"))
        if action == "add":
            w.apply(workload(f"w{i}", "lq", cpu=str(cpu), priority=priority))
        elif action == "finish" and admitted:
            w.finish(admitted[0])
            finishes += 1
        elif action == "delete" and admitted:
            w.cp.client.delete(Workload, admitted[-1], "default")
        elif action == "release":
            w.release_evicted()
        w.cp.advance(2)
    assert _total(w, "kueue_evicted_workloads_once_total") <= _total(w, "kueue_evicted_workloads_total")
    admissions = _total(w, "kueue_admitted_workloads_total")
    assert _total(w, "kueue_admission_checks_wait_time_seconds_count") == admissions
    assert _total(w, "kueue_admission_attempts_total") >= (1 if admissions else 0)
    finished_now = sum(1 for x in w.cp.client.list(Workload).items if w.cond(x.metadata.name, "Finished"))
    assert (_value(w, "kueue_finished_workloads", "cq", ROLE) or 0) == finished_now
    assert _total(w, "kueue_finished_workloads_total") == finishes


def test_unadmitted_workloads_by_reason_and_cause() -> None:
    """``UnadmittedWorkloadsObservability`` on: pending workloads per Admitted reason and QuotaReserved
    cause (``getUnadmittedWorkloadStatus``); off (the default): no series."""
    def world(gates: str | None) -> World:
        w = World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "2")])])),
                  local_queue("lq", "cq"), feature_gates=gates)
        w.apply(workload("a", "lq", cpu="2"), workload("b", "lq", cpu="1"), workload("c", "lq", cpu="5"))
        w.cp.run_until_idle()
        w.cp.advance(2)
        return w

    w = world("UnadmittedWorkloadsObservability=true")
    for cause in ("WaitingForQuota", "ExceedsMaxQuota"):
        assert _value(w, "kueue_unadmitted_workloads", "cq", "NoReservation", cause, ROLE) == 1
        lq = ("lq", "default", "cq", "NoReservation", cause, ROLE)
        assert _value(w, "kueue_local_queue_unadmitted_workloads", *lq) == 1
    assert len(_series(w, "kueue_unadmitted_workloads{")) == 2  # a is admitted
    w.cp.client.delete(Workload, "c", "default")
    w.cp.run_until_idle()
    assert _value(w, "kueue_unadmitted_workloads", "cq", "NoReservation", "ExceedsMaxQuota", ROLE) is None
    assert _series(world(None), "kueue_unadmitted_workloads{") == []
