"""The scheduler's admission write (``scheduler.py`` ``_admit``): the status it assumed in the cache
is the first attempt's write, so the admission is prepared once; after a conflict the retry starts
again from the stored object, as ``PatchAdmissionStatus``'s retry does."""

from __future__ import annotations

from typing import Any
from unittest import mock

from kbatch.api.errors import Conflict
from kbatch.controllers.kueue import scheduler as scheduler_mod

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload


def _world() -> World:
    return World(cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])),
                 local_queue("lq", "cq"), flavor("default"), seed=1)


def _counting() -> tuple[list[int], Any]:
    calls: list[int] = []
    original = scheduler_mod.W.set_quota_reservation

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    return calls, counted


def test_an_admission_is_prepared_once() -> None:
    w = _world()
    calls, counted = _counting()
    with mock.patch.object(scheduler_mod.W, "set_quota_reservation", counted):
        w.apply(workload("w1", "lq"))
        w.settle()
    assert w.admitted("w1")
    assert len(calls) == 1  # the assumed status, written as it is (it was prepared twice before)


def test_a_conflicting_first_write_is_retried_from_the_stored_object() -> None:
    w = _world()
    (controller,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    client = controller.reconciler.mgr.ctx.client
    real = client.update_status
    failed: list[str] = []

    def conflict_once(obj: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append(obj.metadata.name or "")
            raise Conflict.stale("workloads.kueue.x-k8s.io", obj.metadata.name or "")
        return real(obj, **kwargs)

    calls, counted = _counting()
    with mock.patch.object(client, "update_status", conflict_once), \
            mock.patch.object(scheduler_mod.W, "set_quota_reservation", counted):
        w.apply(workload("w1", "lq"))
        w.settle()
    assert failed == ["w1"]
    assert w.admitted("w1")
    assert len(calls) == 2  # the assumed status, then the retry's from the stored object
    assert [r for _, r, _ in w.events("w1")].count("QuotaReserved") == 1
