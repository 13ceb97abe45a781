"""Manager quota automation (KEP 9988) with in-process workers: what requeues a manager ClusterQueue,
and the quotas following the workers' as they change.

The handler rows translate kubernetes-sigs/kueue v0.19.2 ``clusterqueue_test.go``
(``TestCQReconciler_EventHandlers``); the scenarios follow the KEP's test plan (integration: remote
LocalQueue and ClusterQueue changes trigger the reconciler; e2e: disabled → enabled → disabled, and a
quota raised by automation admitting a waiting Workload).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    LocalQueue,
    MultiKueueCluster,
    MultiKueueConfig,
    Workload,
)
from kbatch.controllers.kueue.multikueue import MULTIKUEUE, set_reachable
from kbatch.controllers.kueue.multikueue.options import MultiKueueOptions
from kbatch.controllers.kueue.multikueue.quota_events import local_event_handlers
from kbatch.controllers.kueue.multikueue.quota_reconciler import QUOTA_CONTROLLER
from kbatch.testing import make_job

from .quota_world import Worker, build, condition, config, cq, lq, manager, quotas, settle
from .world import KUEUE, mk_check, mk_cluster

# -- TestCQReconciler_EventHandlers ------------------------------------------------------------------


class _Recorder:
    def __init__(self, cache: Any) -> None:
        self.ctx = SimpleNamespace(cache=cache)
        self.options = MultiKueueOptions()
        self.queued: list[tuple[str, str, float]] = []

    def enqueue(self, controller: str, request: Any, delay: float = 0.0) -> None:
        self.queued.append((controller, request.name, delay))


def _handler_world() -> tuple[ControlPlane, dict[type, Any], _Recorder]:
    cp = ControlPlane()
    cp.apply(
        [
            cq("cq1", [("default", {"cpu": "1"})], checks=("ac1",)),
            mk_check("ac1", "config1"),
            config("config1", ["cluster1"], mode=None),
            mk_cluster("cluster1"),
            lq("lq1", "cq1"),
        ]
    )
    cp.run_until_idle()
    rec = _Recorder(cp.cache)
    return cp, dict(local_event_handlers(rec)), rec  # type: ignore[arg-type]


def _get(cp: ControlPlane, kind: type, name: str, namespace: str | None = None) -> Any:
    return cp.client.get(kind, name, namespace)


def _bumped(obj: Any) -> Any:
    new = obj.model_copy(deep=True)
    new.metadata.generation = (obj.metadata.generation or 0) + 1
    return new


def _active(obj: Any) -> Any:
    return MultiKueueCluster.from_dict(
        {
            **obj.to_dict(),
            "status": {
                "conditions": [
                    {
                        "type": "Active",
                        "status": "True",
                        "reason": "ByTest",
                        "message": "by test",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ]
            },
        }
    )


HANDLER_ROWS = [
    # (case, kind, event, make the update's new object from the old one, want a reconcile of cq1)
    ("LocalQueue Create", LocalQueue, "add", None, True),
    ("LocalQueue Update (irrelevant)", LocalQueue, "update", lambda o: o, False),
    ("LocalQueue Delete", LocalQueue, "delete", None, True),
    ("AdmissionCheck Create", AdmissionCheck, "add", None, True),
    ("AdmissionCheck Update (relevant)", AdmissionCheck, "update", _bumped, True),
    ("AdmissionCheck Update (irrelevant)", AdmissionCheck, "update", lambda o: o, False),
    ("AdmissionCheck Delete", AdmissionCheck, "delete", None, True),
    ("MultiKueueConfig Create", MultiKueueConfig, "add", None, True),
    ("MultiKueueConfig Update (relevant)", MultiKueueConfig, "update", _bumped, True),
    ("MultiKueueConfig Update (irrelevant)", MultiKueueConfig, "update", lambda o: o, False),
    ("MultiKueueConfig Delete", MultiKueueConfig, "delete", None, True),
    ("MultiKueueCluster Create", MultiKueueCluster, "add", None, True),
    ("MultiKueueCluster Update (relevant)", MultiKueueCluster, "update", _active, True),
    ("MultiKueueCluster Update (irrelevant)", MultiKueueCluster, "update", lambda o: o, False),
    ("MultiKueueCluster Delete", MultiKueueCluster, "delete", None, True),
]
NAMES = {
    LocalQueue: ("lq1", "default"),
    AdmissionCheck: ("ac1", None),
    MultiKueueConfig: ("config1", None),
    MultiKueueCluster: ("cluster1", None),
}


@pytest.mark.parametrize(
    ("case", "kind", "event", "new", "want"), HANDLER_ROWS, ids=[r[0] for r in HANDLER_ROWS]
)
def test_event_handlers(case: str, kind: type, event: str, new: Any, want: bool) -> None:
    cp, handlers, rec = _handler_world()
    obj = _get(cp, kind, *NAMES[kind])
    handler = handlers[kind]
    if event == "add":
        handler.on_add(obj)
    elif event == "delete":
        handler.on_delete(obj)
    else:
        handler.on_update(obj, new(obj))
    assert rec.queued == ([(QUOTA_CONTROLLER, "cq1", 1.0)] if want else [])


# -- the live wiring -----------------------------------------------------------------------------------


def _two_workers(**manager_extra: Any) -> ControlPlane:
    workers = {
        "worker1": Worker([lq("lq1", "w-cq"), cq("w-cq", [("default", {"cpu": "10", "memory": "20Gi"})])]),
        "worker2": Worker([lq("lq1", "w-cq"), cq("w-cq", [("default", {"cpu": "5", "memory": "10Gi"})])]),
    }
    cfg = config("config1", ["worker1", "worker2"], **manager_extra)
    return build(
        manager(
            cq("cq1", [("default", {"cpu": "0", "memory": "0"})], checks=("ac1",)), [lq("lq1", "cq1")], cfg
        ),
        workers,
    )


def _worker(m: ControlPlane, name: str) -> ControlPlane:
    from kbatch.controllers.kueue.multikueue.inprocess import workers_of

    return workers_of(m.published).planes[name]


def test_quotas_follow_worker_changes() -> None:
    m = _two_workers()
    assert quotas(m, "cq1") == {"cpu": "15", "memory": "30Gi"}
    # a worker's ClusterQueue quota changes (queueEventsForCQ)
    _worker(m, "worker2").apply(cq("w-cq", [("default", {"cpu": "7", "memory": "10Gi"})]))
    settle(m)
    assert quotas(m, "cq1") == {"cpu": "17", "memory": "30Gi"}
    # a worker's LocalQueue goes (queueEventsForLQ): its ClusterQueue is no longer related
    _worker(m, "worker1").client.delete(LocalQueue, "lq1", "default")
    settle(m)
    assert quotas(m, "cq1") == {"cpu": "7", "memory": "10Gi"}
    # a new worker LocalQueue of the same key relates a worker ClusterQueue again
    _worker(m, "worker1").apply(
        [cq("other", [("default", {"cpu": "2", "memory": "1Gi"})]), lq("lq1", "other")]
    )
    settle(m)
    assert quotas(m, "cq1") == {"cpu": "9", "memory": "11Gi"}


def test_disconnected_worker_leaves_the_sum() -> None:
    m = _two_workers()
    set_reachable(m, "worker1", False)  # the cluster's Active turns False → cqClusterHandler
    settle(m)
    assert quotas(m, "cq1") == {"cpu": "5", "memory": "10Gi"}
    set_reachable(m, "worker1", True)
    settle(m, batches=8)  # reconnection waits for the back-off (5 s)
    assert quotas(m, "cq1") == {"cpu": "15", "memory": "30Gi"}


def test_enable_then_disable() -> None:
    """KEP test plan (e2e): disabled → enabled (and reacting to a change) → disabled."""
    m = _two_workers(mode=None)
    assert quotas(m, "cq1") == {"cpu": "0", "memory": "0"}
    assert condition(m, "cq1") == (
        "False",
        "NotRequested",
        "MultiKueue manager quota automation has not been requested.",
    )
    m.apply(config("config1", ["worker1", "worker2"], mode="Automated"))
    settle(m)
    assert quotas(m, "cq1") == {"cpu": "15", "memory": "30Gi"}
    assert condition(m, "cq1")[:2] == ("True", "QuotaAutomated")
    _worker(m, "worker1").apply(cq("w-cq", [("default", {"cpu": "1", "memory": "20Gi"})]))
    settle(m)
    assert quotas(m, "cq1") == {"cpu": "6", "memory": "30Gi"}
    m.apply(config("config1", ["worker1", "worker2"], mode="Manual"))
    settle(m)
    assert condition(m, "cq1")[:2] == ("False", "NotRequested")
    _worker(m, "worker1").apply(cq("w-cq", [("default", {"cpu": "3", "memory": "20Gi"})]))
    settle(m)
    assert quotas(m, "cq1") == {"cpu": "6", "memory": "30Gi"}  # left as automation last wrote it


def test_check_removed_drops_the_condition() -> None:
    m = _two_workers()
    assert condition(m, "cq1")[:2] == ("True", "QuotaAutomated")
    m.apply(cq("cq1", [("default", {"cpu": "15", "memory": "30Gi"})]))  # no admission check any more
    settle(m)
    assert condition(m, "cq1") is None


def test_raised_quota_admits_a_waiting_workload() -> None:
    """KEP test plan (e2e): an automatic quota change promptly re-assigns Workloads."""
    m = _two_workers(mode=None)
    m.apply({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default"}})
    job = make_job("j").command("sleep 30").requests(cpu="2").label("kueue.x-k8s.io/queue-name", "lq1")
    m.client.create(job.obj())
    settle(m)
    (wl,) = m.client.list(Workload).items
    assert wl.status.admission is None  # manager quota 0
    m.apply(config("config1", ["worker1", "worker2"], mode="Automated"))
    settle(m)
    (wl,) = m.client.list(Workload).items
    assert wl.status.admission is not None and wl.status.admission.cluster_queue == "cq1"


def test_gate_off_changes_nothing() -> None:
    workers = {"worker1": Worker([lq("lq1", "w-cq"), cq("w-cq", [("default", {"cpu": "10"})])])}
    m = build(
        manager(
            cq("cq1", [("default", {"cpu": "0"})], checks=("ac1",)),
            [lq("lq1", "cq1")],
            config("config1", ["worker1"]),
        ),
        workers,
        gates="",
    )
    assert QUOTA_CONTROLLER not in m.published.get(MULTIKUEUE).mgr.controllers
    assert quotas(m, "cq1") == {"cpu": "0"}
    assert condition(m, "cq1") is None
    assert m.client.get(ClusterQueue, "cq1").metadata.generation == 1
