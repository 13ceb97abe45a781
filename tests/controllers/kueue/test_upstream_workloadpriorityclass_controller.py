"""The WorkloadPriorityClass reconciler, translated from kueue v0.19.2
``pkg/controller/core/workloadpriorityclass_controller_test.go``
(``TestWorkloadPriorityClassReconciler_Predicates``, ``TestWorkloadPriorityClassReconcile``; case ids
are upstream's), then once through the running manager."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kbatch.api.errors import Conflict, NotFound, StatusError
from kbatch.api.kueue_v1beta2 import Workload, WorkloadPriorityClass
from kbatch.controllers.kueue.priorityclasses import PRIORITY_CLASS_EVENTS, PriorityClassPropagator
from kbatch.runtime.reconcile import Request

from .helpers import KUEUE, World, cluster_queue, flavor, local_queue, quota, workload


def _wpc(value: int, name: str = "high") -> WorkloadPriorityClass:
    return WorkloadPriorityClass.model_validate({"metadata": {"name": name}, "value": value})


@pytest.mark.parametrize(("case", "event", "old", "new", "want"), [
    ("create event should trigger reconcile", "create", None, 100, True),
    ("delete event should not trigger reconcile", "delete", 100, None, False),
    ("update event with changed priority should trigger reconcile", "update", 100, 200, True),
    ("update event with unchanged priority should not trigger reconcile", "update", 100, 100, False),
])
def test_predicates(case: str, event: str, old: int | None, new: int | None, want: bool) -> None:
    if event == "create":
        got = PRIORITY_CLASS_EVENTS.create(_wpc(new or 0))
    elif event == "delete":
        got = PRIORITY_CLASS_EVENTS.delete(_wpc(old or 0))
    else:
        got = PRIORITY_CLASS_EVENTS.update(_wpc(old or 0), _wpc(new or 0))
    assert got is want


def _wl(name: str, priority: int, ref: str = "high") -> Workload:
    """``MakeWorkload(name, "default").Priority(p).WorkloadPriorityClassRef(ref)``."""
    return Workload.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "priority": priority, "podSets": [],
        "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": ref}}})


class _Client:
    """The fake client and its interceptor: ``fail`` names the Workloads whose update fails,
    ``gone`` those deleted before the update."""

    def __init__(self, workloads: list[Workload], fail: set[str], gone: set[str]) -> None:
        self.stored = {w.metadata.name: w for w in workloads}
        self.fail, self.gone = fail, gone

    def update(self, obj: Workload) -> Workload:
        name = obj.metadata.name or ""
        if name in self.gone:
            raise NotFound.of("workloads.kueue.x-k8s.io", name)
        if name in self.fail:
            raise Conflict("update failed")
        self.stored[name] = obj
        return obj


def _reconcile(wpc: WorkloadPriorityClass | None, workloads: list[Workload], fail: set[str] = frozenset(),
               gone: set[str] = frozenset()) -> tuple[dict[str, int | None], bool]:  # type: ignore[assignment]
    client = _Client(workloads, set(fail), set(gone))
    ctx = SimpleNamespace(client=client, cache=SimpleNamespace(list=lambda kind: list(workloads)))
    mgr: Any = SimpleNamespace(ctx=ctx, get=lambda kind, name: wpc)
    try:
        PriorityClassPropagator(mgr).reconcile(Request("", "high"))
        errored = False
    except StatusError:
        errored = True
    return {n: w.spec.priority for n, w in sorted(client.stored.items())}, errored


def test_reconcile_updates_workload_priority_when_wpc_priority_changes() -> None:
    assert _reconcile(_wpc(1000), [_wl("wl1", 100)]) == ({"wl1": 1000}, False)


def test_reconcile_updates_multiple_workloads() -> None:
    assert _reconcile(_wpc(1000), [_wl("wl1", 100), _wl("wl2", 200)]) == ({"wl1": 1000, "wl2": 1000}, False)


def test_reconcile_skips_workloads_with_up_to_date_priority() -> None:
    assert _reconcile(_wpc(1000), [_wl("wl1", 1000)]) == ({"wl1": 1000}, False)


def test_reconcile_succeeds_when_no_workloads_use_the_wpc() -> None:
    assert _reconcile(_wpc(1000), [_wl("other", 100, ref="low")]) == ({"other": 100}, False)


def test_reconcile_handles_workload_not_found_error() -> None:
    assert _reconcile(_wpc(1000), [_wl("wl1", 100)], gone={"wl1"}) == ({"wl1": 100}, False)


def test_reconcile_returns_error_when_update_fails() -> None:
    assert _reconcile(_wpc(1000), [_wl("wl1", 100)], fail={"wl1"}) == ({"wl1": 100}, True)


def test_reconcile_handles_partial_update_failures() -> None:
    got = _reconcile(_wpc(1000), [_wl("wl1", 100), _wl("wl2", 200)], fail={"wl2"})
    assert got == ({"wl1": 1000, "wl2": 200}, True)


def test_reconcile_handles_wpc_not_found() -> None:
    assert _reconcile(None, []) == ({}, False)


def test_a_class_value_change_reaches_its_workloads_through_the_manager() -> None:
    wpc = {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 100}
    w = World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])),
              local_queue("lq", "cq"), wpc)
    wl = workload("a", "lq", priority=100)
    wl["spec"]["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                      "name": "high"}
    w.apply(wl, workload("b", "lq", priority=100))
    w.cp.run_until_idle()
    w.cp.client.patch(WorkloadPriorityClass, "high", {"value": 500})
    w.cp.run_until_idle()
    assert (w.wl("a").spec.priority, w.wl("b").spec.priority) == (500, 100)
