"""The AdmissionCheck reconciler and ``acCqHandler`` (kueue v0.19.2
``pkg/controller/core/admissioncheck_controller.go``), translated from upstream's integration test
``test/integration/singlecluster/controller/core/admissioncheck_controller_test.go`` ("one
clusterQueue references admissionChecks"), plus what the cache shows while a check is terminating
(``AdmissionCheckReconciler.Update`` leaves it as it was) and after it is gone
(``clusterqueue_controller_test.go``'s ``AdmissionCheckNotFound`` reason and message).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import AdmissionCheck, ClusterQueue
from kbatch.api.kueue_v1beta2.constants import RESOURCE_IN_USE_FINALIZER
from kbatch.controllers.kueue.admissionchecks import finalizers_after
from kbatch.controllers.kueue.watches import released_checks

from .helpers import KUEUE, World, activate_checks, cluster_queue, flavor, quota


def _check(name: str) -> dict:
    return {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": name},
            "spec": {"controllerName": "ac-controller"}}


def _strategy(*names: str) -> dict:
    return {"admissionChecks": [{"name": n} for n in names]}


def _world() -> World:
    """check1 (active) and ClusterQueue foo naming it, foo active."""
    w = World(flavor("default"), _check("check1"))
    activate_checks(w.cp, "check1")
    w.apply(cluster_queue("foo", (["cpu"], [("default", [quota("cpu", "4")])]),
                          admissionChecksStrategy=_strategy("check1")))
    w.cp.run_until_idle()
    assert _active(w, "foo") == ("True", "Ready")
    return w


def _active(w: World, cq: str) -> tuple[str, str]:
    w.cp.advance(2)  # the ClusterQueue status is batched by 1 s
    cond = next(c for c in w.cp.client.get(ClusterQueue, cq).status.conditions if c.type == "Active")
    return cond.status, cond.reason


def _gone(w: World, name: str) -> bool:
    try:
        w.cp.client.get(AdmissionCheck, name)
    except NotFound:
        return True
    return False


def _terminating(w: World, name: str) -> None:
    w.cp.client.delete(AdmissionCheck, name)
    w.cp.run_until_idle()
    assert w.cp.client.get(AdmissionCheck, name).metadata.deletion_timestamp is not None


def test_a_created_check_gets_the_resource_in_use_finalizer() -> None:
    w = World(_check("check1"))
    w.cp.run_until_idle()
    assert w.cp.client.get(AdmissionCheck, "check1").metadata.finalizers == [RESOURCE_IN_USE_FINALIZER]


def test_an_unused_check_is_deleted_at_once() -> None:
    w = World(_check("check1"))
    w.cp.run_until_idle()
    w.cp.client.delete(AdmissionCheck, "check1")
    w.cp.run_until_idle()
    assert _gone(w, "check1")


def test_deleted_when_its_cluster_queue_no_longer_uses_it() -> None:
    """Upstream: "Should delete the admissionCheck when the corresponding clusterQueue no longer uses
    the admissionCheck": a cohort change keeps it, switching the queue to check2 releases it."""
    w = _world()
    _terminating(w, "check1")
    w.cp.client.patch(ClusterQueue, "foo", {"spec": {"cohortName": "foo-cohort"}})
    w.cp.run_until_idle()
    assert not _gone(w, "check1")
    w.cp.client.patch(ClusterQueue, "foo", {"spec": {"admissionChecksStrategy": _strategy("check2")}})
    w.cp.run_until_idle()
    assert _gone(w, "check1")


def test_deleted_when_its_cluster_queue_is_deleted() -> None:
    """Upstream: "Should delete the admissionCheck when the corresponding clusterQueue is deleted"."""
    w = _world()
    _terminating(w, "check1")
    w.cp.client.delete(ClusterQueue, "foo")
    w.cp.run_until_idle()
    assert _gone(w, "check1")


def test_a_terminating_check_leaves_its_cluster_queue_active() -> None:
    """``AdmissionCheckReconciler.Update`` skips the cache for a check being deleted."""
    w = _world()
    _terminating(w, "check1")
    assert _active(w, "foo") == ("True", "Ready")


def test_a_check_deleted_without_its_finalizer_makes_the_cluster_queue_inactive() -> None:
    """Once the check is gone (its finalizer removed by hand), the cache drops it and the
    ClusterQueue reads ``AdmissionCheckNotFound`` with upstream's message."""
    w = _world()
    _terminating(w, "check1")
    w.cp.client.patch(AdmissionCheck, "check1", {"metadata": {"finalizers": None}})
    w.cp.run_until_idle()
    assert _gone(w, "check1")
    assert _active(w, "foo") == ("False", "AdmissionCheckNotFound")
    cond = next(c for c in w.cp.client.get(ClusterQueue, "foo").status.conditions if c.type == "Active")
    assert cond.message == "Can't admit new workloads: references missing AdmissionCheck(s): check1."


def _cq(*checks: str) -> ClusterQueue:
    return ClusterQueue.model_validate({"apiVersion": KUEUE, "kind": "ClusterQueue",
                                        "metadata": {"name": "cq"},
                                        "spec": {"admissionChecksStrategy": _strategy(*checks)}})


@pytest.mark.parametrize(("old", "new", "users", "want"), [
    # same checks, another order: NotifyClusterQueueUpdate's CmpNoOrder returns early
    (("a", "b"), ("b", "a"), {}, []),
    # a check dropped with no other user
    (("a", "b"), ("b",), {"b": ["cq"]}, ["a"]),
    # a check dropped that another ClusterQueue still names
    (("a", "b"), ("b",), {"a": ["other"], "b": ["cq"]}, []),
    # created: its checks are in use by itself
    (None, ("a",), {"a": ["cq"]}, []),
    # deleted: each of its checks no ClusterQueue names now
    (("a", "b"), None, {"b": ["other"]}, ["a"]),
])
def test_released_checks(old, new, users, want) -> None:  # type: ignore[no-untyped-def]
    got = released_checks(None if old is None else _cq(*old), None if new is None else _cq(*new),
                          lambda c: users.get(c, []))
    assert got == want


@given(st.lists(st.sampled_from(["x", RESOURCE_IN_USE_FINALIZER]), unique=True), st.booleans(),
       st.booleans())
def test_the_finalizer_is_held_exactly_while_the_check_lives_or_is_used(fins, deleting, in_use) -> None:  # type: ignore[no-untyped-def]
    after = finalizers_after(fins, deleting, in_use)
    if not deleting:
        assert RESOURCE_IN_USE_FINALIZER in after
    elif in_use:
        assert after == fins
    else:
        assert RESOURCE_IN_USE_FINALIZER not in after
    others = [f for f in fins if f != RESOURCE_IN_USE_FINALIZER]
    assert [f for f in after if f != RESOURCE_IN_USE_FINALIZER] == others
