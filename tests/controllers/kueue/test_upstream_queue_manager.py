"""Upstream's ``pkg/cache/queue/manager_test.go`` (kubernetes-sigs/kueue v0.19.2), case by case,
against kbatch's queue manager (:class:`kbatch.controllers.kueue.queues.QueueManager`).

Upstream's ``Manager`` reads workloads from a client; kbatch's is handed them by the control plane's
event handlers, so "in the client" becomes the workload passed as ``current``. Case ids are
upstream's names. ClusterQueues here select every namespace (``MakeClusterQueue``'s default).
"""

from __future__ import annotations

import pytest

from kbatch.api.selectors import selector_from_set
from kbatch.controllers.kueue.model.info import InfoOptions
from kbatch.controllers.kueue.queues import QueueManager
from kbatch.controllers.kueue.scheduling.cycle import RequeueReason

from .upstream_queue import MINUTE, NOW, Clock, cond, info, make_wl

SECOND = MINUTE / 60
HOUR = 60 * MINUTE
RESERVED = cond("QuotaReserved", "True", "QuotaReserved")
FINISHED = cond("Finished", "True", "Succeeded")


def manager(cqs: tuple[str, ...] = (), lqs: tuple[tuple[str, str], ...] = (),
            strategy: str = "BestEffortFIFO") -> QueueManager:
    """``NewManagerForUnitTests`` with ClusterQueues ``cqs`` and LocalQueues ``(ns/name, cq)``."""
    m = QueueManager(InfoOptions(equivalence_hashing=False), Clock())
    for name in cqs:
        m.add_or_update_cluster_queue(name, strategy, selector_from_set({}))
    for key, cq in lqs:
        m.add_local_queue(key, cq, [])
    return m


def inactive(name: str, ns: str, queue: str):  # type: ignore[no-untyped-def]
    wl = make_wl(name, ns, queue=queue)
    wl.spec.active = False
    return wl


def pop_names(m: QueueManager, cq: str) -> list[str]:
    """``popNamesFromCQ``."""
    out = []
    q = m.cluster_queues[cq]
    while (wi := q.pop()) is not None:
        out.append(wi.key)
    return out


def test_add_local_queue_orphans() -> None:
    """``TestAddLocalQueueOrphans``: workloads created before their LocalQueue are picked up;
    every one naming the queue is assigned, only the admissible ones are queued."""
    m = manager()
    wls = [
        make_wl("a", "earth", queue="foo"),
        make_wl("c", "earth", queue="foo"),
        make_wl("d", "earth", queue="foo", conditions=[RESERVED]),
        inactive("e", "earth", "foo"),
        make_wl("f", "earth", queue="foo", conditions=[FINISHED]),
    ]
    m.add_local_queue("earth/foo", "", wls)
    assert sorted(m.local_queues["earth/foo"].items) == ["earth/a", "earth/c"]
    assert m.assigned == {f"earth/{n}": "earth/foo" for n in "acdef"}


def test_add_cluster_queue_orphans() -> None:
    """``TestAddClusterQueueOrphans``: a re-created ClusterQueue adopts its LocalQueues' workloads."""
    m = manager()
    m.add_local_queue("/foo", "cq", [make_wl("a", "", queue="foo", created=NOW + SECOND),
                                     make_wl("c", "", queue="foo", created=NOW, conditions=[RESERVED])])
    m.add_local_queue("/bar", "cq", [make_wl("b", "", queue="bar", created=NOW)])
    m.add_or_update_cluster_queue("cq", "BestEffortFIFO", selector_from_set({}))
    assert sorted(m.cluster_queues["cq"].in_heap) == ["/a", "/b"]
    m.delete_cluster_queue("cq")
    assert "cq" not in m.cluster_queues
    m.add_or_update_cluster_queue("cq", "BestEffortFIFO", selector_from_set({}))
    assert pop_names(m, "cq") == ["/b", "/a"]


def test_update_local_queue() -> None:
    """``TestUpdateLocalQueue``: a LocalQueue pointed at another ClusterQueue takes its workloads."""
    m = manager(("cq1", "cq2"), (("/foo", "cq1"), ("/bar", "cq2")))
    m.add_or_update_workload(make_wl("a", "", queue="foo", created=NOW + SECOND))
    m.add_or_update_workload(make_wl("b", "", queue="bar", created=NOW))
    assert m.update_local_queue("/foo", "cq2") is True
    assert pop_names(m, "cq1") == []
    assert pop_names(m, "cq2") == ["/b", "/a"]


def test_delete_local_queue() -> None:
    """``TestDeleteLocalQueue``."""
    m = manager(("cq",))
    m.add_local_queue("/foo", "cq", [make_wl("a", "", queue="foo")])
    assert sorted(m.cluster_queues["cq"].in_heap) == ["/a"]
    m.delete_local_queue("/foo")
    assert sorted(m.cluster_queues["cq"].in_heap) == []


ADD_WORKLOAD = {
    "finished": (make_wl("finished", "earth", queue="foo", conditions=[FINISHED]), False, {}),
    "inactive": (inactive("inactive", "earth", "foo"), False, {}),
    "quota_already_reserved": (
        make_wl("quota-already-reserved", "earth", queue="foo", conditions=[RESERVED]), False, {}),
    "existing_queue": (make_wl("existing-queue", "earth", queue="foo"), True,
                       {"earth/existing-queue": "earth/foo"}),
    "non_existing_queue": (make_wl("non-existing-queue", "earth", queue="baz"), False, {}),
    "non_existing_cluster_queue": (make_wl("non-existing-cluster-queue", "mars", queue="bar"), False,
                                   {"mars/non-existing-cluster-queue": "mars/bar"}),
    "wrong_namespace": (make_wl("wrong-namespace", "mars", queue="foo"), False, {}),
    "non_existing_local_queue": (make_wl("non-existing-local-queue", "earth", queue="baz"), False, {}),
}


@pytest.mark.parametrize("case", list(ADD_WORKLOAD))
def test_add_workload(case: str) -> None:
    """``TestAddWorkload`` (names hyphenated: an API server refuses underscores): an error upstream
    is "not queued" here."""
    wl, want_queued, want_assigned = ADD_WORKLOAD[case]
    m = manager(("cq",), (("earth/foo", "cq"), ("mars/bar", "")))
    assert m.add_or_update_workload(wl) is want_queued
    assert m.assigned == want_assigned


def test_delete_workload() -> None:
    """``TestDeleteWorkload`` "workload deleted but not forgotten"."""
    m = manager(("cq",), (("earth/foo", "cq"), ("mars/bar", "")))
    for n in ("wl1", "wl2"):
        m.add_or_update_workload(make_wl(n, "earth", queue="foo"))
    m.delete_workload("earth/wl1")
    assert sorted(m.local_queues["earth/foo"].items) == ["earth/wl2"]
    assert m.cluster_queues["cq"].pending_total() == 1
    assert m.assigned == {"earth/wl1": "earth/foo", "earth/wl2": "earth/foo"}


def test_delete_and_forget_workload() -> None:
    """``TestDeleteAndForgetWorkload`` "workload fully deleted and forgotten"."""
    m = manager(("cq",), (("earth/foo", "cq"), ("mars/bar", "")))
    for n in ("wl1", "wl2"):
        m.add_or_update_workload(make_wl(n, "earth", queue="foo"))
    m.forget_workload("earth/wl1")
    assert sorted(m.local_queues["earth/foo"].items) == ["earth/wl2"]
    assert m.cluster_queues["cq"].pending_total() == 1
    assert m.assigned == {"earth/wl2": "earth/foo"}


@pytest.mark.parametrize("case, want", [("foo", 3), ("bar", 1), ("fake", 0)])
def test_status(case: str, want: int) -> None:
    """``TestStatus``: ``PendingWorkloads`` of a LocalQueue counts its workloads even without a
    ClusterQueue (the LocalQueue's ``status.pendingWorkloads``)."""
    m = manager((), (("/foo", "fooCq"), ("/bar", "barCq")))
    for n, q, at in (("a", "foo", NOW + HOUR), ("b", "bar", NOW), ("c", "foo", NOW), ("d", "foo", NOW)):
        m.add_or_update_workload(make_wl(n, "", queue=q, created=at))
    assert m.pending_in_local_queue(f"/{case}") == want


# name: (workload, in client, in queue, want requeued)
REQUEUE_STRICT = {
    "existing queue and obj": (make_wl("wl", "", queue="foo"), True, False, True),
    "non existing queue": (make_wl("wl", "", queue="baz"), True, False, False),
    "non existing cluster queue": (make_wl("wl", "", queue="bar"), True, False, False),
    "not in client": (make_wl("wl", "", queue="foo"), False, False, False),
    "has no quota reservation": (make_wl("wl", "", queue="foo", conditions=[RESERVED]), True, True, False),
    "finished": (make_wl("wl", "", queue="foo", conditions=[FINISHED]), True, True, False),
    "deactivated": (inactive("wl", "", "foo"), True, True, False),
    "already in queue": (make_wl("wl", "", queue="foo"), True, True, False),
}


@pytest.mark.parametrize("case", list(REQUEUE_STRICT))
def test_requeue_workload_strict_fifo(case: str) -> None:
    """``TestRequeueWorkloadStrictFIFO`` (the ClusterQueue's default strategy, BestEffortFIFO, as
    upstream's ``MakeClusterQueue``; the reason is Generic)."""
    wl, in_client, in_queue, want = REQUEUE_STRICT[case]
    m = manager(("cq",), (("/foo", "cq"), ("/bar", "")))
    if in_queue:
        m.add_or_update_workload(wl)
    current = wl if in_client else None
    assert m.requeue_workload(current, info(wl), None, RequeueReason.GENERIC, "") is want


def test_requeue_workload_already_admitted() -> None:
    """``TestRequeueWorkloadStrictFIFO`` "already admitted" (``status.admission`` without the
    QuotaReserved condition, already queued)."""
    m = manager(("cq",), (("/foo", "cq"),))
    wl = make_wl("wl", "", queue="foo")
    wl.status = type(wl).model_validate({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                                         "metadata": {"name": "x"}, "status": {"admission": {
                                             "clusterQueue": "", "podSetAssignments": []}}}).status
    m.add_or_update_workload(wl)
    assert m.requeue_workload(wl, info(wl), None, RequeueReason.GENERIC, "") is False


# name: (cqs, lqs, workloads (name, queue, created), assigned before, update, want order per cq,
#        want members per lq, want assigned, want queued)
UPDATE_WORKLOAD = {
    "in queue": (("cq",), (("/foo", "cq"),), [("a", "foo", NOW), ("b", "foo", NOW + SECOND)],
                 {"/a": "/foo", "/b": "/foo"}, {"created": NOW + MINUTE},
                 {"cq": ["/b", "/a"]}, {"/foo": ["/a", "/b"]}, {"/a": "/foo", "/b": "/foo"}, True),
    "between queues": (("cq",), (("/foo", "cq"), ("/bar", "cq")), [("a", "foo", None)],
                       {"/a": "/foo"}, {"queue": "bar"}, {"cq": ["/a"]},
                       {"/foo": [], "/bar": ["/a"]}, {"/a": "/bar"}, True),
    "between cluster queues": (("cq1", "cq2"), (("/foo", "cq1"), ("/bar", "cq2")), [("a", "foo", None)],
                               {"/a": "/foo"}, {"queue": "bar"}, {"cq1": [], "cq2": ["/a"]},
                               {"/foo": [], "/bar": ["/a"]}, {"/a": "/bar"}, True),
    "to non existent queue": (("cq",), (("/foo", "cq"),), [("a", "foo", None)], {"/a": "/foo"},
                              {"queue": "bar"}, {"cq": []}, {"/foo": []}, {}, False),
    "from non existing queue": (("cq",), (("/foo", "cq"),), [("a", "bar", None)], {},
                                {"queue": "foo"}, {"cq": ["/a"]}, {"/foo": ["/a"]}, {"/a": "/foo"}, True),
}


@pytest.mark.parametrize("case", list(UPDATE_WORKLOAD))
def test_update_workload(case: str) -> None:
    """``TestUpdateWorkload``."""
    cqs, lqs, wls, assigned, update, want_order, want_members, want_assigned, want_queued = (
        UPDATE_WORKLOAD[case])
    m = manager(cqs, lqs)
    for n, q, at in wls:
        m.add_or_update_workload(make_wl(n, "", queue=q, created=at))
    assert m.assigned == assigned
    n, q, at = wls[0]
    kw = {"queue": update.get("queue", q), "created": update.get("created", at)}
    wl = make_wl(n, "", **kw)
    assert m.add_or_update_workload(wl) is want_queued
    lq = m.local_queues.get(f"/{kw['queue']}")
    if lq is not None:
        assert lq.items[f"/{n}"].obj is wl
        cq = m.cluster_queues.get(lq.cluster_queue)
        if cq is not None:
            assert cq.tracked(f"/{n}").obj is wl
    assert {name: pop_names(m, name) for name in m.cluster_queues} == want_order
    assert {k: sorted(v.items) for k, v in m.local_queues.items()} == want_members
    assert m.assigned == want_assigned


HEADS = {
    "empty clusterQueues": ([], {}, set()),
    "active clusterQueues": ([("a", "foo", NOW), ("b", "bar", NOW)], {"/a": "/foo", "/b": "/bar"},
                             {"a", "b"}),
    "active clusterQueues with multiple workloads": (
        [("a1", "foo", NOW), ("a2", "foo", NOW + HOUR), ("b", "bar", NOW)],
        {"/a1": "/foo", "/a2": "/foo", "/b": "/bar"}, {"a1", "b"}),
    "inactive clusterQueues": (
        [("a", "foo", NOW), ("b", "bar", NOW), ("c", "baz", NOW + HOUR)],
        {"/a": "/foo", "/b": "/bar", "/c": "/baz"}, {"a", "b"}),
}


@pytest.mark.parametrize("case", list(HEADS))
def test_heads(case: str) -> None:
    """``TestHeads``: one head per active ClusterQueue; the assignments stay."""
    wls, want_assigned, want_heads = HEADS[case]
    m = manager(("active-foocq", "active-barcq", "pending-bazcq"),
                (("/foo", "active-foocq"), ("/bar", "active-barcq"), ("/baz", "pending-bazcq")))
    for n, q, at in wls:
        m.add_or_update_workload(make_wl(n, "", queue=q, created=at))
    assert m.assigned == want_assigned
    heads = m.heads(lambda name: name.startswith("active-"))
    assert {h.info.name for h in heads} == want_heads
    assert m.assigned == want_assigned


def test_heads_preemptor_is_the_generation_evaluated() -> None:
    """``TestClusterQueueIsPreemptor`` through ``Heads`` (``IsPreemptor: cq.IsPreemptor(wl)``): a
    workload requeued while preempting is the preemptor at its next pop, unless its spec changed
    (a new generation) since it was evaluated."""
    m = manager(("cq",), (("/foo", "cq"),))
    wl1 = make_wl("wl", "", queue="foo", generation=1)
    m.add_or_update_workload(wl1)
    [head] = m.heads(lambda _: True)
    assert not head.is_preemptor
    m.requeue_workload(wl1, head.info, None, RequeueReason.PENDING_PREEMPTION, "")
    [head] = m.heads(lambda _: True)
    assert head.is_preemptor
    m.requeue_workload(wl1, head.info, None, RequeueReason.PENDING_PREEMPTION, "")
    m.add_or_update_workload(make_wl("wl", "", queue="foo", generation=2, priority=5))
    [head] = m.heads(lambda _: True)
    assert head.info.generation == 2 and not head.is_preemptor


# name: (FlavorFungibilityPreserveScanProgress, inadmissible, inflight, change shape, tried, carried)
CARRIES = {
    "tracked in the heap": (True, False, False, False, 1, True),
    "tracked in inadmissibleWorkloads": (True, True, False, False, -1, True),
    "without the gate the progress is dropped": (False, False, False, False, 1, False),
    "without the gate the progress is dropped for an inadmissible workload": (
        False, True, False, False, -1, False),
    "tracked as inflight": (True, False, True, False, 1, True),
    "without the gate the progress is dropped for an inflight workload": (
        False, False, True, False, 1, False),
    "a changed scheduling shape is not carried": (True, False, False, True, 1, False),
}


@pytest.mark.parametrize("case", list(CARRIES))
def test_add_or_update_workload_carries_last_assignment(case: str) -> None:
    """``TestAddOrUpdateWorkloadCarriesLastAssignment``: an update of a queued workload keeps the
    flavor scan progress (kbatch keeps it per workload in ``QueueManager.last``) only with
    ``FlavorFungibilityPreserveScanProgress`` and an unchanged scheduling shape; upstream's new
    ``Info`` has none otherwise."""
    from kbatch.controllers.kueue.scheduling.assignment import LastState

    preserve, inadmissible_, inflight, change_shape, tried, want = CARRIES[case]
    m = QueueManager(InfoOptions(), Clock())
    m.preserve_scan_progress = preserve
    m.add_or_update_cluster_queue("cq", "BestEffortFIFO", selector_from_set({}))
    m.add_local_queue("/lq", "cq", [])
    wl = make_wl("wl", "", queue="lq", cpu="1")
    m.add_or_update_workload(wl)
    tracked = m.cluster_queues["cq"].tracked("/wl")
    recorded = LastState(tried=[{"cpu": tried}], cq_generation=3, cycle=7,
                         scheduling_hash=tracked.scheduling_hash)
    m.last["/wl"] = recorded
    if inadmissible_ or inflight:
        [head] = m.heads(lambda _: True)
    if inadmissible_:
        assert m.requeue_workload(wl, head.info, recorded, RequeueReason.NO_FIT, "")
        assert "/wl" in m.cluster_queues["cq"].inadmissible
    updated = make_wl("wl", "", queue="lq", cpu="1", count=4 if change_shape else 1)
    updated.metadata.labels = {"updated": "true"}
    m.add_or_update_workload(updated)
    assert (m.last.get("/wl") == recorded) is want


def test_scan_progress_is_not_carried_to_another_cluster_queue() -> None:
    """``TestUpdateWorkload`` "between cluster queues" with recorded flavor scan progress: the
    workload is forgotten by its old queue (``deleteAndForgetWorkloadWithoutLock``) and the new
    ClusterQueue does not track it, so the flavor indices of the old ClusterQueue's flavors are
    not carried (``AddOrUpdateWorkloadWithoutLock`` carries only a tracked workload's progress)."""
    from kbatch.controllers.kueue.scheduling.assignment import LastState

    m = QueueManager(InfoOptions(), Clock())
    for cq in ("cq1", "cq2"):
        m.add_or_update_cluster_queue(cq, "BestEffortFIFO", selector_from_set({}))
    m.add_local_queue("/foo", "cq1", [])
    m.add_local_queue("/bar", "cq2", [])
    m.add_or_update_workload(make_wl("a", "", queue="foo", cpu="1"))
    tracked = m.cluster_queues["cq1"].tracked("/a")
    m.last["/a"] = LastState(tried=[{"cpu": 0}], cq_generation=3, cycle=7,
                             scheduling_hash=tracked.scheduling_hash)
    m.add_or_update_workload(make_wl("a", "", queue="bar", cpu="1"))
    assert m.assigned == {"/a": "/bar"}
    assert "/a" not in m.last
