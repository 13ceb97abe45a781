"""Manager quota automation (KEP 9988): which worker queue events requeue a manager ClusterQueue.

Upstream (kubernetes-sigs/kueue v0.19.2 ``multikueuecluster.go`` ``startQueueWatchers``) requeues the
related manager ClusterQueues for a worker ClusterQueue added or deleted, or updated with its
``spec.resourceGroups`` changed (``equality.Semantic.DeepEqual``), and for a worker LocalQueue added or
deleted (never updated: its ClusterQueue is immutable). So a worker's status-only update, a label, or
another spec field costs the manager nothing: no list of the worker's LocalQueues, no reconcile.

* rows: :func:`worker_event_requeues` on each kind of event;
* the in-process watch's event types (``_Handler``);
* live, in-process workers: reconciles counted per worker edit;
* a hypothesis property over random worker edits: the manager's quotas equal the aggregate of what the
  workers hold, and the reconciles are one per requeueing event plus one per manager quota write
  (its own spec change requeues it, ``cqEventFilter``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import ClusterQueue, ClusterQueueStatus, LocalQueue, LocalQueueStatus, Workload
from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL
from kbatch.api.meta import Condition, Resource
from kbatch.controllers.kueue.multikueue import MULTIKUEUE
from kbatch.controllers.kueue.multikueue.inprocess import _Handler, workers_of
from kbatch.controllers.kueue.multikueue.quota_automation import WorkerQueues, aggregate
from kbatch.controllers.kueue.multikueue.quota_events import worker_event_requeues
from kbatch.controllers.kueue.multikueue.quota_reconciler import QUOTA_CONTROLLER
from kbatch.controllers.kueue.multikueue.remote import ADDED, DELETED, MODIFIED, WatchEvent, deliver

from .quota_world import Worker, build, config, cq, lq, manager, quotas, settle


def _new_status(obj: Any) -> Any:
    return obj.status or (ClusterQueueStatus() if isinstance(obj, ClusterQueue) else LocalQueueStatus())


def _cq(**quota: str) -> ClusterQueue:
    return ClusterQueue.from_dict(cq("w-cq", [("default", quota or {"cpu": "4"})]))


def _with(obj: Resource, change: Callable[[Any], None]) -> Resource:
    new = edit(obj)
    change(new)
    return new


def _status(obj: Any) -> None:
    obj.status = _new_status(obj)
    obj.status.pending_workloads = 3


def _label(obj: Any) -> None:
    obj.metadata.labels = {"team": "a"}


def _strategy(obj: Any) -> None:
    obj.spec.queueing_strategy = "StrictFIFO"


def _no_groups(obj: Any) -> None:
    obj.spec.resource_groups = None


def _empty_groups(obj: Any) -> None:
    obj.spec.resource_groups = []


# -- worker_event_requeues -------------------------------------------------------------------------


LQ = LocalQueue.from_dict(lq("lq1", "w-cq"))
ROWS: list[tuple[str, WatchEvent, bool]] = [
    ("ClusterQueue added", WatchEvent(ADDED, _cq()), True),
    ("ClusterQueue deleted", WatchEvent(DELETED, _cq()), True),
    ("ClusterQueue nominal quota changed", WatchEvent(MODIFIED, _cq(cpu="5"), _cq()), True),
    ("ClusterQueue resource added", WatchEvent(MODIFIED, _cq(cpu="4", memory="1Gi"), _cq()), True),
    ("ClusterQueue status only", WatchEvent(MODIFIED, _with(_cq(), _status), _cq()), False),
    ("ClusterQueue label only", WatchEvent(MODIFIED, _with(_cq(), _label), _cq()), False),
    ("ClusterQueue other spec field", WatchEvent(MODIFIED, _with(_cq(), _strategy), _cq()), False),
    ("ClusterQueue quota the same value", WatchEvent(MODIFIED, _cq(cpu="4000m"), _cq()), False),
    (
        "ClusterQueue groups missing vs empty",
        WatchEvent(MODIFIED, _with(_cq(), _empty_groups), _with(_cq(), _no_groups)),
        False,
    ),
    ("LocalQueue added", WatchEvent(ADDED, LQ), True),
    ("LocalQueue deleted", WatchEvent(DELETED, LQ), True),
    ("LocalQueue updated", WatchEvent(MODIFIED, _with(LQ, _status), LQ), False),
]


@pytest.mark.parametrize(("case", "event", "want"), ROWS, ids=[r[0] for r in ROWS])
def test_worker_event_requeues(case: str, event: WatchEvent, want: bool) -> None:
    assert worker_event_requeues(event) is want


# -- the in-process watch's event types ------------------------------------------------------------


def _wl(labelled: bool, rv: str) -> Workload:
    labels = {ORIGIN_LABEL: "multikueue"} if labelled else {}
    meta = {"name": "wl", "namespace": "default", "labels": labels, "resourceVersion": rv}
    return Workload.from_dict({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": meta})


def test_in_process_handler_types_its_events() -> None:
    """Added, updated (with the old state), deleted; an update bringing the origin label is an add, as an
    API server's label-selected watch reports it (``cache_watcher.go`` ``convertToWatchEvent``)."""
    seen: list[tuple[str, str, str | None]] = []

    def record(e: WatchEvent) -> None:
        old = e.old.metadata.resource_version if e.old is not None else None
        seen.append((e.type, e.obj.metadata.resource_version or "", old))

    handler = _Handler("multikueue", record)
    handler.on_add(_wl(False, "1"))  # not selected
    handler.on_update(_wl(False, "1"), _wl(True, "2"))
    handler.on_update(_wl(True, "2"), _wl(True, "3"))
    handler.on_delete(_wl(True, "4"))
    assert seen == [("ADDED", "2", None), ("MODIFIED", "3", "2"), ("DELETED", "4", None)]


def test_deliver_hands_each_event_type_to_its_informer_method() -> None:
    """A worker's watch event reaches an informer handler as ``processDeltas`` would call it."""
    calls: list[tuple[str, ...]] = []

    class Recorder:
        def on_add(self, obj: Any) -> None:
            calls.append(("add", obj.metadata.resource_version))

        def on_update(self, old: Any, new: Any) -> None:
            calls.append(("update", old.metadata.resource_version, new.metadata.resource_version))

        def on_delete(self, obj: Any) -> None:
            calls.append(("delete", obj.metadata.resource_version))

    for event in (WatchEvent(ADDED, _wl(True, "1")), WatchEvent(MODIFIED, _wl(True, "2"), _wl(True, "1")),
                  WatchEvent(DELETED, _wl(True, "3"))):
        deliver(event, Recorder())
    assert calls == [("add", "1"), ("update", "1", "2"), ("delete", "3")]


# -- live: reconciles per worker edit --------------------------------------------------------------

WORKERS = ("worker1", "worker2")


def _world() -> ControlPlane:
    workers = {n: Worker([lq("lq1", "w-cq"), cq("w-cq", [("default", {"cpu": "4"})])]) for n in WORKERS}
    return build(
        manager(cq("cq1", [("default", {"cpu": "0"})], checks=("ac1",)), [lq("lq1", "cq1")],
                config("config1", list(WORKERS))),
        workers,
    )


def _worker(m: ControlPlane, name: str) -> ControlPlane:
    return workers_of(m.published).planes[name]


def _reconciles(m: ControlPlane) -> int:
    return m.published.get(MULTIKUEUE).mgr.controllers[QUOTA_CONTROLLER].reconciles  # type: ignore[no-any-return]


def _generation(m: ControlPlane) -> int:
    return m.client.get(ClusterQueue, "cq1").metadata.generation or 0


def _update(
    w: ControlPlane, kind: type, name: str, change: Callable[[Any], None], status: bool = False
) -> None:
    namespace = "default" if kind is LocalQueue else None
    obj = edit(w.client.get(kind, name, namespace))
    change(obj)
    (w.client.update_status if status else w.client.update)(obj)


def _condition(obj: Any) -> None:
    """A status-only change the worker's own controllers leave alone."""
    obj.status = _new_status(obj)
    others = [c for c in obj.status.conditions or () if c.type != "ByTest"]
    n = next((int(c.message or 0) for c in obj.status.conditions or () if c.type == "ByTest"), 0)
    cond = Condition(type="ByTest", status="True", reason="ByTest", message=str(n + 1),
                     last_transition_time="2026-01-01T00:00:00Z")
    obj.status.conditions = [*others, cond]


def _step(m: ControlPlane, act: Callable[[], None]) -> tuple[int, int]:
    """Run ``act`` on a worker and settle: (reconciles, manager quota writes) it caused."""
    reconciles, generation = _reconciles(m), _generation(m)
    act()
    settle(m)
    return _reconciles(m) - reconciles, _generation(m) - generation


def test_status_only_and_other_updates_do_not_reconcile() -> None:
    m = _world()
    assert quotas(m, "cq1") == {"cpu": "8"}
    w = _worker(m, "worker1")
    assert _step(m, lambda: _update(w, ClusterQueue, "w-cq", _condition, status=True)) == (0, 0)
    assert _step(m, lambda: _update(w, ClusterQueue, "w-cq", _label)) == (0, 0)
    assert _step(m, lambda: _update(w, ClusterQueue, "w-cq", _strategy)) == (0, 0)
    assert _step(m, lambda: _update(w, LocalQueue, "lq1", _condition, status=True)) == (0, 0)
    assert _step(m, lambda: _update(w, LocalQueue, "lq1", _label)) == (0, 0)
    assert quotas(m, "cq1") == {"cpu": "8"}


def test_a_quota_change_and_a_delete_reconcile() -> None:
    m = _world()
    w = _worker(m, "worker2")
    # one reconcile for the worker's event; it writes the quota, and that write reconciles once more
    assert _step(m, lambda: w.apply(cq("w-cq", [("default", {"cpu": "6"})]))) == (2, 1)
    assert quotas(m, "cq1") == {"cpu": "10"}
    assert _step(m, lambda: w.client.delete(ClusterQueue, "w-cq")) == (2, 1)
    assert quotas(m, "cq1") == {"cpu": "4"}
    assert _step(m, lambda: w.client.delete(LocalQueue, "lq1", "default")) == (1, 0)  # nothing related left


# -- property: random worker edits -----------------------------------------------------------------

EDITS = ["quota", "status", "label", "strategy", "lq-status", "delete", "create"]
edits = st.lists(st.tuples(st.sampled_from(EDITS), st.sampled_from(WORKERS), st.integers(0, 6)),
                 min_size=1, max_size=5)


def _groups(w: ControlPlane) -> Any:
    """The worker ClusterQueue's resource groups, ``None`` while it does not exist."""
    found = [c for c in w.client.list(ClusterQueue).items if c.metadata.name == "w-cq"]
    return [g.to_dict() for c in found for g in c.spec.resource_groups or ()] if found else None


def _apply_edit(w: ControlPlane, op: str, value: int) -> None:
    present = _groups(w) is not None
    if op == "quota" and present:
        w.apply(cq("w-cq", [("default", {"cpu": str(value)})]))
    elif op == "status" and present:
        _update(w, ClusterQueue, "w-cq", _condition, status=True)
    elif op == "label" and present:
        _update(w, ClusterQueue, "w-cq", _label)
    elif op == "strategy" and present:
        _update(w, ClusterQueue, "w-cq", _strategy)
    elif op == "lq-status":
        _update(w, LocalQueue, "lq1", _condition, status=True)
    elif op == "delete" and present:
        w.client.delete(ClusterQueue, "w-cq")
    elif op == "create" and not present:
        w.apply(cq("w-cq", [("default", {"cpu": str(value)})]))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_reconciles_follow_only_resource_group_changes(ops: list[tuple[str, str, int]]) -> None:
    m = _world()
    for op, name, value in ops:
        w = _worker(m, name)
        before = _groups(w)
        reconciles, writes = _step(m, lambda w=w, op=op, value=value: _apply_edit(w, op, value))  # type: ignore[misc]
        requeueing = _groups(w) != before  # created, deleted, or its resourceGroups changed
        assert reconciles == int(requeueing) + writes, (op, name, value)
        state = [
            WorkerQueues(tuple(_worker(m, n).client.list(LocalQueue).items),
                         tuple(_worker(m, n).client.list(ClusterQueue).items))
            for n in WORKERS
        ]
        assert quotas(m, "cq1") == {"cpu": str(aggregate({("default", "lq1")}, state).get("cpu", 0))}
