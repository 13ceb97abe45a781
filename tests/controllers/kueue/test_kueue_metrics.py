"""Kueue's Prometheus metrics (:mod:`kbatch.controllers.kueue.metrics`) after admissions, evictions and
preemptions, in virtual time; upstream's unit tests (kueue ``pkg/metrics/metrics_test.go``, v0.19.2:
the buckets, quotas with +Inf borrowing, series dropped with a flavor, evictions and preemptions by
reason) translated to the state that produces them, and the Configuration switches
(``metrics.enableClusterQueueResources``, ``metrics.localQueueMetrics``, the ``LocalQueueMetrics``
gate)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import ClusterQueue, Workload
from kbatch.controllers.kueue.metrics.families import kueue_buckets
from tests.controllers.kueue.helpers import World, cluster_queue, flavor, local_queue, quota, workload

ROLE = "standalone"


def _config(**metrics: Any) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "metrics": metrics}


def _world(nominal: str = "2", config: dict[str, Any] | None = None, feature_gates: str | None = None,
           lq_labels: dict[str, str] | None = None, **spec: Any) -> World:
    lq = local_queue("lq", "cq")
    if lq_labels:
        lq["metadata"]["labels"] = lq_labels
    cq = cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])]), **spec)
    return World(flavor("default"), cq, lq, kueue_config=config, feature_gates=feature_gates)


def _value(w: World, name: str, *labels: str) -> float | None:
    w.cp.metrics.collect()
    family = w.cp.metrics.get(name)
    assert family is not None, name
    return family.value(*labels)  # type: ignore[union-attr]


def _series(w: World, prefix: str) -> list[str]:
    return [line for line in w.cp.metrics.render().splitlines() if line.startswith(prefix)]


def test_generate_exponential_buckets() -> None:
    assert kueue_buckets(14) == (1, 2.5, 5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240)
    assert kueue_buckets(16)[-1] == 40960


def test_admissions_and_their_wait_in_virtual_time() -> None:
    w = _world()
    w.apply(workload("a", "lq", cpu="1"), workload("b", "lq", cpu="1"), workload("c", "lq", cpu="1"))
    w.cp.advance(2)
    cq = ("cq", "", ROLE)
    assert _value(w, "kueue_quota_reserved_workloads_total", *cq) == 2
    assert _value(w, "kueue_admitted_workloads_total", *cq) == 2
    assert _value(w, "kueue_pending_workloads", "cq", "inadmissible", ROLE) == 1
    assert _value(w, "kueue_pending_workloads", "cq", "active", ROLE) == 0
    assert _value(w, "kueue_reserving_active_workloads", "cq", ROLE) == 2
    assert _value(w, "kueue_admitted_active_workloads", "cq", ROLE) == 2
    assert _value(w, "kueue_cluster_queue_status", "cq", "active", ROLE) == 1
    assert _value(w, "kueue_cluster_queue_status", "cq", "pending", ROLE) == 0
    w.cp.advance(98)  # c has waited 100 s when a finishes
    w.finish("a")
    w.cp.advance(2)
    assert w.admitted("c")
    c = w.wl("c")  # admitted 101 s after its creation: the inadmissible requeue is batched (1 s)
    waited = (w.cond("c", "Admitted").last_transition_time - c.metadata.creation_timestamp).total_seconds()
    assert waited == 101
    wait = w.cp.metrics.get("kueue_admission_wait_time_seconds")
    assert wait.count(*cq) == 3 and math.isclose(wait.sum(*cq), waited)  # type: ignore[union-attr]
    assert 'kueue_admission_wait_time_seconds_bucket{cluster_queue="cq",priority_class="",' \
           'replica_role="standalone",le="80"} 2' in _series(w, "kueue_admission_wait_time_seconds_bucket")
    assert _value(w, "kueue_pending_workloads", "cq", "inadmissible", ROLE) == 0
    assert _value(w, "kueue_local_queue_admitted_workloads_total", "lq", "default", "", ROLE) == 3


def test_preemption_counts_the_preemptor_and_the_eviction() -> None:
    w = _world("4", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(workload("low", "lq", cpu="3", priority=1))
    w.cp.run_until_idle()
    w.apply(workload("high", "lq", cpu="3", priority=5))
    w.cp.run_until_idle()
    assert _value(w, "kueue_preempted_workloads_total", "cq", "InClusterQueue", ROLE) == 1
    assert _value(w, "kueue_evicted_workloads_total", "cq", "Preempted", "", "", ROLE) == 1
    lq = ("lq", "default", "Preempted", "", "", ROLE)
    assert _value(w, "kueue_local_queue_evicted_workloads_total", *lq) == 1


def test_a_deactivated_workload_is_an_eviction_by_deactivation() -> None:
    w = _world()
    w.apply(workload("a", "lq", cpu="1"))
    w.cp.run_until_idle()
    wl = edit(w.wl("a"))
    wl.spec.active = False
    w.cp.client.update(wl)
    w.cp.run_until_idle()
    assert _value(w, "kueue_evicted_workloads_total", "cq", "Deactivated", "", "", ROLE) == 1
    assert _series(w, "kueue_preempted_workloads_total") == []


def test_resource_gauges_follow_enable_cluster_queue_resources() -> None:
    assert _series(_world(), "kueue_cluster_queue_nominal_quota") == []  # off by default
    default = [quota("cpu", "5", lending="3"), quota("memory", "1Gi", borrowing="2Gi")]
    spot = [quota("cpu", "1"), quota("memory", "1Gi")]
    w = World(flavor("default"), flavor("spot"),
              cluster_queue("cq", (["cpu", "memory"], [("default", default), ("spot", spot)]), cohort="co"),
              local_queue("lq", "cq"), kueue_config=_config(enableClusterQueueResources=True))
    w.apply(workload("a", "lq", cpu="500m", memory="256Mi"))
    w.cp.run_until_idle()
    key = ("co", "cq", "default", "cpu", ROLE)
    assert _value(w, "kueue_cluster_queue_nominal_quota", *key) == 5
    assert _value(w, "kueue_cluster_queue_lending_limit", *key) == 3
    assert math.isinf(_value(w, "kueue_cluster_queue_borrowing_limit", *key) or 0)  # unset: +Inf
    memory = ("co", "cq", "default", "memory", ROLE)
    assert _value(w, "kueue_cluster_queue_borrowing_limit", *memory) == 2 * 2**30
    assert _value(w, "kueue_cluster_queue_resource_reservation", *key) == 0.5
    assert _value(w, "kueue_cluster_queue_resource_usage", *key) == 0.5
    assert len(_series(w, "kueue_cluster_queue_nominal_quota{")) == 4
    cq = edit(w.cq("cq"))  # drop the spot flavor: its series go
    cq.spec.resource_groups[0].flavors = cq.spec.resource_groups[0].flavors[:1]
    w.cp.client.update(cq)
    w.cp.run_until_idle()
    nominal = _series(w, "kueue_cluster_queue_nominal_quota{")
    assert len(nominal) == 2 and not any('flavor="spot"' in s for s in nominal)


def test_cluster_queue_status_pending_then_active_and_series_gone_with_the_queue() -> None:
    w = World(cluster_queue("cq", (["cpu"], [("late", [quota("cpu", "1")])])))
    assert _value(w, "kueue_cluster_queue_status", "cq", "pending", ROLE) == 1
    w.apply(flavor("late"))
    assert _value(w, "kueue_cluster_queue_status", "cq", "active", ROLE) == 1
    w.cp.client.delete(ClusterQueue, "cq")
    w.cp.run_until_idle()
    assert _series(w, "kueue_cluster_queue_status") == []


def test_local_queue_metrics_follow_the_gate_and_the_configuration() -> None:
    def lq_series(w: World) -> list[str]:
        w.apply(workload("a", "lq", cpu="1"))
        w.cp.run_until_idle()
        return _series(w, "kueue_local_queue_")

    assert lq_series(_world()) != []  # beta, on; no configuration: every LocalQueue
    assert lq_series(_world(feature_gates="LocalQueueMetrics=false")) == []
    assert lq_series(_world(config=_config(localQueueMetrics={"enable": False}))) == []
    team_a = {"matchLabels": {"team": "a"}}
    selected = _config(localQueueMetrics={"enable": True, "localQueueSelector": team_a})
    assert lq_series(_world(config=selected)) == []
    assert lq_series(_world(config=selected, lq_labels={"team": "a"})) != []


def test_admission_fair_sharing_usage_per_local_queue() -> None:
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "admissionFairSharing": {"usageHalfLifeTime": "10m", "usageSamplingInterval": "1m"}}
    w = _world("4", config=config, admissionScope={"admissionMode": "UsageBasedAdmissionFairSharing"})
    assert _series(w, "kueue_local_queue_admission_fair_sharing_usage") != []
    w.apply(workload("a", "lq", cpu="2"))
    w.cp.advance(120)
    usage = _value(w, "kueue_local_queue_admission_fair_sharing_usage", "lq", "default", "cq", ROLE)
    assert usage is not None and usage > 0
    assert _series(_world("4"), "kueue_local_queue_admission_fair_sharing_usage") == []  # AFS off


def test_a_restart_replays_no_transition() -> None:
    """An informer's initial list (``old`` None) counts nothing: only changes seen are counted."""
    from kbatch.controllers.kueue.metrics.transitions import transitions

    w = _world()
    w.apply(workload("a", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert transitions(None, w.wl("a"), w.cp.now()) == []
    assert isinstance(w.wl("a"), Workload)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "3"]), st.integers(0, 2)), min_size=1, max_size=6),
       st.integers(0, 3))
def test_gauges_agree_with_the_queue_status(specs: list[tuple[str, int]], finished: int) -> None:
    """Whatever was admitted, finished or left pending, the gauges say what the ClusterQueue's status
    says once written (pending, reserving, admitted), and quota reservations count every admission."""
    w = _world("4", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(*(workload(f"w{i}", "lq", cpu=cpu, priority=p) for i, (cpu, p) in enumerate(specs)))
    w.cp.advance(2)
    for wl in [x for x in w.cp.client.list(Workload).items if w.admitted(x.metadata.name)][:finished]:
        w.finish(wl.metadata.name)
    w.cp.advance(3)
    status = w.cq("cq").status
    pending = sum(_value(w, "kueue_pending_workloads", "cq", s, ROLE) or 0
                  for s in ("active", "inadmissible"))
    assert pending == status.pending_workloads
    assert _value(w, "kueue_reserving_active_workloads", "cq", ROLE) == status.reserving_workloads
    assert (_value(w, "kueue_admitted_active_workloads", "cq", ROLE) or 0) == status.admitted_workloads
    reserved = _value(w, "kueue_quota_reserved_workloads_total", "cq", "", ROLE) or 0
    evicted = sum(float(line.split()[-1]) for line in _series(w, "kueue_evicted_workloads_total{"))
    assert reserved == status.reserving_workloads + _count(w, "Finished")  # nothing released a reservation
    assert evicted == _count(w, "Evicted")  # preempted, still reserving (no job framework releases them)


def _count(w: World, condition: str) -> int:
    return sum(1 for x in w.cp.client.list(Workload).items if x.status and any(
        c.type == condition and c.status == "True" for c in x.status.conditions or ()))
