"""TAS-aware preemption, translated from Kueue's ``TestScheduleForTASPreemption``
(kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_tas_test.go``) and extended where the
quota alone would choose other victims than the topology needs.

Upstream's ``workloadFits`` (``pkg/scheduler/preemption/preemption.go``) asks the quota and then
``FindTopologyAssignmentsForWorkload`` over the preemptor's TAS requests, with each candidate's TAS
usage removed as it is (``Snapshot.RemoveWorkload``); ``fillBackWorkloads`` puts candidates back
while the assignment is still found, so the victims are the fewest, in candidate order.

The fixtures of ``TestScheduleForTASPreemption`` are created through the API and admitted by the
scheduler (upstream writes their admissions directly): the lower-priority workloads first, one at a
time, then the preemptor. Those of ``TestScheduleForTASCohorts``' reclaim rows hold more pods on a
host than it has room for, so their admissions are written through the status subresource as
upstream's are. The
victims' evictions are released as a job integration would (``World.release_evicted``), and the
preemptor is then admitted on the freed domains."""

from __future__ import annotations

from typing import Any

from kbatch.api.kueue_v1beta1.topology import slices_to_domains
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, local_queue, quota

RACK, HOST = "cloud.com/rack", "kubernetes.io/hostname"
SINGLE_LEVEL = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "tas-single-level"},
                "spec": {"levels": [{"nodeLabel": HOST}]}}
TWO_LEVEL = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "tas-two-level"},
             "spec": {"levels": [{"nodeLabel": RACK}, {"nodeLabel": HOST}]}}
PREEMPTED = ("Preempted to accommodate a workload (UID: {uid}, JobUID: {job}) due to prioritization in "
             "the ClusterQueue; preemptor path: /tas-main; preemptee path: /tas-main")


def _world(topology: dict[str, Any], nodes: list[tuple[str, str, str]], pods: int = 10,
           **spec: Any) -> World:
    """``defaultClusterQueueWithPreemption`` (``withinClusterQueue: LowerPriority``) over the
    flavor ``tas-default``; ``nodes``: (name, rack, cpu) with 5Gi memory."""
    w = World(topology, {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas-default"},
                         "spec": {"nodeLabels": {"tas-node": "true"},
                                  "topologyName": topology["metadata"]["name"]}})
    for name, rack, cpu in nodes:
        labels = {"tas-node": "true", **({RACK: rack} if rack else {})}
        create_nodes(w.cp, 1, NodeTemplate(cpu=cpu, memory="5Gi", pods=pods, labels=labels),
                     prefix=name[0], start=int(name[1:]))
    spec.setdefault("preemption", {"withinClusterQueue": "LowerPriority"})
    w.apply(cluster_queue("tas-main", (["cpu", "memory"], [("tas-default", [quota("cpu", "50"),
                                                                             quota("memory", "50Gi")])]),
                          **spec),
            local_queue("tas-main", "tas-main"))
    return w


def _wl(name: str, priority: int, count: int, cpu: str, memory: str | None = None,
        **request: str) -> dict[str, Any]:
    requests = {"cpu": cpu, **({"memory": memory} if memory else {})}
    return {"apiVersion": KUEUE, "kind": "Workload",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"queueName": "tas-main", "priority": priority, "podSets": [{
                "name": "one", "count": count, "topologyRequest": request,
                "template": {"spec": {"restartPolicy": "Never", "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": requests}}]}}}]}}


def _admit_in_turn(w: World, *workloads: dict[str, Any]) -> None:
    for wl in workloads:
        w.apply(wl)
        w.cp.run_until_idle()
        assert w.admitted(wl["metadata"]["name"]), wl["metadata"]["name"]


def _hosts(w: World, name: str) -> list[tuple[str, int]]:
    adm = w.wl(name).status.admission  # type: ignore[union-attr]
    ta = adm.pod_set_assignments[0].topology_assignment  # type: ignore[union-attr]
    return [(d["values"][-1], d["count"]) for d in slices_to_domains(ta.to_dict())["domains"]]


def _preempted(w: World) -> list[str]:
    return w.names_where("Preempted")


def _check_preempted(w: World, victim: str, preemptor: str) -> None:
    # no owning job here (a job-uid label would make the Workload's owner missing): JobUID UNKNOWN
    message = PREEMPTED.format(uid=w.wl(preemptor).metadata.uid, job="UNKNOWN")
    evicted, preempted = w.cond(victim, "Evicted"), w.cond(victim, "Preempted")
    assert (evicted.reason, evicted.message) == ("Preempted", message)
    assert (preempted.reason, preempted.message) == ("InClusterQueue", message)


def _check_waiting(w: World, name: str, message: str) -> None:
    """QuotaReserved=False with upstream's message (the reason is ``WaitingForPreemptedWorkloads``
    only with ``UnadmittedWorkloadsObservability``, beta and off: ``Pending`` here)."""
    reserved = w.cond(name, "QuotaReserved")
    assert (reserved.status, reserved.reason, reserved.message) == ("False", "Pending", message)


def test_only_low_priority_workload_is_preempted() -> None:
    w = _world(SINGLE_LEVEL, [("x1", "", "5")])
    _admit_in_turn(w, _wl("low-priority-admitted", 1, 1, "5", required=HOST))
    w.apply(_wl("foo", 3, 1, "2", preferred=HOST))
    w.cp.run_until_idle()
    _check_waiting(w, "foo", 'couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t '
                   'allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1. Pending the '
                   "preemption of 1 workload(s)")
    _check_preempted(w, "low-priority-admitted", "foo")
    assert ("Normal", "PreemptedWorkload") in {e[:2] for e in w.events("foo")}
    w.settle()
    assert w.admitted("foo") and _hosts(w, "foo") == [("x1", 1)]


def test_with_pods_count_pressure_only_low_priority_workload_is_preempted() -> None:
    w = _world(SINGLE_LEVEL, [("x1", "", "5")], pods=1)
    _admit_in_turn(w, _wl("low-priority-admitted", 1, 1, "5", required=HOST))
    w.apply(_wl("high-priority-waiting", 3, 1, "2", preferred=HOST))
    w.cp.run_until_idle()
    assert _preempted(w) == ["low-priority-admitted"]
    w.settle()
    assert w.admitted("high-priority-waiting")


def test_preemption_tas_uses_podspec_memory_for_fit() -> None:
    w = _world(SINGLE_LEVEL, [("x1", "", "5")])
    _admit_in_turn(w, _wl("low-priority-admitted", 1, 1, "1", "2Gi", required=HOST))
    w.apply(_wl("foo", 3, 1, "1", "4Gi", preferred=HOST))
    w.cp.run_until_idle()
    assert _preempted(w) == ["low-priority-admitted"]
    assert w.cond("foo", "QuotaReserved").message.startswith(
        'couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of '
        '1 pod(s). Total nodes: 1; excluded: resource "memory": 1')
    w.settle()
    assert w.admitted("foo")


def test_low_priority_workload_is_preempted_mid_priority_workload_survives() -> None:
    w = _world(SINGLE_LEVEL, [("x1", "", "5")])
    _admit_in_turn(w, _wl("mid-priority-admitted", 2, 1, "2", required=HOST),
                   _wl("low-priority-admitted", 1, 1, "2", required=HOST))
    w.apply(_wl("foo", 3, 1, "2", preferred=HOST))
    w.cp.run_until_idle()
    assert _preempted(w) == ["low-priority-admitted"]
    w.settle()
    assert w.admitted("foo") and w.admitted("mid-priority-admitted")


def test_low_priority_workload_is_preempted_though_capacity_is_enough_but_fragmented() -> None:
    w = _world(SINGLE_LEVEL, [("x1", "", "5"), ("y1", "", "5")])
    _admit_in_turn(w, _wl("mid-priority-admitted", 2, 1, "4", required=HOST),
                   _wl("low-priority-admitted", 1, 1, "4", required=HOST))
    assert _hosts(w, "low-priority-admitted") == [("y1", 1)]
    w.apply(_wl("foo", 3, 2, "1", required=HOST))
    w.cp.run_until_idle()
    _check_waiting(w, "foo", 'couldn\'t assign flavors to pod set one: topology "tas-single-level" allows to '
                   "fit only 1 out of 2 pod(s). Pending the preemption of 1 workload(s)")
    assert _preempted(w) == ["low-priority-admitted"]
    w.settle()
    assert w.admitted("foo") and _hosts(w, "foo") == [("y1", 2)]


def test_workload_with_equal_priority_awaits_for_other_workloads_to_complete() -> None:
    w = _world(SINGLE_LEVEL, [("x1", "", "5")])
    _admit_in_turn(w, _wl("admitted", 3, 1, "5", required=HOST))
    w.apply(_wl("foo", 3, 1, "2", preferred=HOST))
    w.cp.run_until_idle()
    reserved = w.cond("foo", "QuotaReserved")
    assert (reserved.status, reserved.reason) == ("False", "Pending")
    assert reserved.message == ('couldn\'t assign flavors to pod set one: topology "tas-single-level" '
                                'doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: '
                                'resource "cpu": 1')
    assert _preempted(w) == []


# --- beyond upstream's rows: the topology, not the quota, picks the victims ----------------------

def test_the_victim_is_the_one_on_the_domain_the_preemptor_needs_not_the_lowest_priority() -> None:
    """The lowest-priority workload is on rack r1, the preemptor requires a rack where only r2's
    workload can make room: both are removed in candidate order, then the first is put back
    (``fillBackWorkloads``). Quota alone would take the lowest-priority one and wait forever."""
    w = _world(TWO_LEVEL, [("x1", "r1", "2"), ("y1", "r2", "4")])
    _admit_in_turn(w, _wl("low", 1, 1, "2", required=HOST), _wl("mid", 2, 1, "3", required=HOST))
    assert _hosts(w, "low") == [("x1", 1)] and _hosts(w, "mid") == [("y1", 1)]
    w.apply(_wl("foo", 3, 1, "4", required=RACK))
    w.cp.run_until_idle()
    assert _preempted(w) == ["mid"]
    _check_preempted(w, "mid", "foo")
    w.settle()
    assert w.admitted("foo") and _hosts(w, "foo") == [("y1", 1)] and w.admitted("low")


def test_every_workload_on_the_needed_domain_is_taken_when_one_is_not_enough() -> None:
    """Quota fits after the first removal; the node needs both gone."""
    w = _world(SINGLE_LEVEL, [("x1", "", "4")])
    _admit_in_turn(w, _wl("a", 1, 1, "2", required=HOST), _wl("b", 2, 1, "2", required=HOST))
    w.apply(_wl("foo", 3, 1, "4", required=HOST))
    w.cp.run_until_idle()
    assert _preempted(w) == ["a", "b"]
    assert "Pending the preemption of 2 workload(s)" in w.cond("foo", "QuotaReserved").message
    w.settle()
    assert w.admitted("foo")


def test_no_victim_when_even_removing_every_candidate_leaves_no_domain() -> None:
    """An equal-priority workload holds the other half of the node: removing the lower one alone
    does not make room, so nothing is preempted (upstream: no targets, the quota-only preemptor
    would have taken the lower one for nothing)."""
    w = _world(SINGLE_LEVEL, [("x1", "", "4")])
    _admit_in_turn(w, _wl("low", 1, 1, "2", required=HOST), _wl("same", 3, 1, "2", required=HOST))
    w.apply(_wl("foo", 3, 1, "4", required=HOST))
    w.cp.run_until_idle()
    assert _preempted(w) == []
    assert w.cond("foo", "QuotaReserved").reason == "Pending"


# --- TestScheduleForTASCohorts: reclaim within the cohort (admissions written as upstream's) -----

def _cohort_world() -> World:
    """``defaultTwoNodes`` of ``TestScheduleForTASCohorts`` (x1: 3 cpu, y1: 5 cpu) and
    ``tas-cq-a`` (LowerPriority within, reclaim Any) and ``tas-cq-b`` (reclaim Any), 4 cpu each, in
    ``tas-cohort-main``."""
    w = World(SINGLE_LEVEL, {"apiVersion": KUEUE, "kind": "ResourceFlavor",
                             "metadata": {"name": "tas-default"},
                             "spec": {"nodeLabels": {"tas-node": "true"},
                                      "topologyName": "tas-single-level"}})
    for name, cpu, memory in (("x1", "3", "5Gi"), ("y1", "5", "3Gi")):
        node = NodeTemplate(cpu=cpu, memory=memory, pods=10, labels={"tas-node": "true"})
        create_nodes(w.cp, 1, node, prefix=name[0], start=int(name[1:]))
    group = (["cpu", "memory"], [("tas-default", [quota("cpu", "4"), quota("memory", "4Gi")])])
    w.apply(cluster_queue("tas-cq-a", group, cohort="tas-cohort-main",
                          preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}),
            cluster_queue("tas-cq-b", group, cohort="tas-cohort-main",
                          preemption={"reclaimWithinCohort": "Any"}),
            local_queue("tas-lq-a", "tas-cq-a"), local_queue("tas-lq-b", "tas-cq-b"))
    return w


def _admitted(w: World, name: str, priority: int, host: str, count: int) -> None:
    """``ReserveQuotaAt(..).AdmittedAt(true, now)`` in ``tas-cq-a``: ``count`` one-cpu pods on ``host``."""
    from kbatch.api.kueue_v1beta1.topology import domains_to_slices
    from kbatch.api.kueue_v1beta2 import Workload

    doc = _wl(name, priority, count, "1", required=HOST)
    doc["spec"]["queueName"] = "tas-lq-a"
    w.apply(doc)
    wl = w.cp.client.get(Workload, name, "default")
    now = w.cp.clock.now_datetime()
    psa = {"name": "one", "count": count, "flavors": {"cpu": "tas-default"},
           "resourceUsage": {"cpu": str(count)},
           "topologyAssignment": domains_to_slices({"levels": [HOST],
                                                    "domains": [{"values": [host], "count": count}]})}
    status = {"conditions": [
        {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
         "message": "Quota reserved in ClusterQueue tas-cq-a", "lastTransitionTime": now},
        {"type": "Admitted", "status": "True", "reason": "Admitted",
         "message": "The workload is admitted", "lastTransitionTime": now}],
        "admission": {"clusterQueue": "tas-cq-a", "podSetAssignments": [psa]}}
    w.cp.client.update_status(wl.model_copy(update={"status": type(wl.status).model_validate(status)}))
    w.cp.run_until_idle()


RECLAIMED = ("Preempted to accommodate a workload (UID: {uid}, JobUID: UNKNOWN) due to reclamation "
             "within the cohort; preemptor path: /tas-cohort-main/tas-cq-b; "
             "preemptee path: /tas-cohort-main/tas-cq-a")


def _check_reclaimed(w: World, victims: list[str], preemptor: str, more: int) -> None:
    message = RECLAIMED.format(uid=w.wl(preemptor).metadata.uid)
    assert _preempted(w) == victims
    for v in victims:
        preempted = w.cond(v, "Preempted")
        assert (preempted.reason, preempted.message) == ("InCohortReclamation", message)
        assert w.cond(v, "Evicted").message == message
    _check_waiting(w, preemptor, "couldn't assign flavors to pod set one: insufficient unused quota for "
                   f"cpu in flavor tas-default, {more} more needed. Pending the preemption of 1 workload(s)")


def test_reclaim_within_cohort_single_borrowing_workload_gets_preempted() -> None:
    w = _cohort_world()
    _admitted(w, "a1-admitted", 0, "x1", 5)
    doc = _wl("b1", 0, 4, "1", preferred=HOST)
    doc["spec"]["queueName"] = "tas-lq-b"
    w.apply(doc)
    w.cp.run_until_idle()
    _check_reclaimed(w, ["a1-admitted"], "b1", 1)


def test_reclaim_within_cohort_single_workload_is_preempted_out_of_three_candidates() -> None:
    w = _cohort_world()
    _admitted(w, "a1-admitted", 1, "x1", 5)
    _admitted(w, "a2-admitted", 2, "y1", 2)
    _admitted(w, "a3-admitted", 2, "y1", 1)
    doc = _wl("b1", 3, 3, "1", preferred=HOST)
    doc["spec"]["queueName"] = "tas-lq-b"
    w.apply(doc)
    w.cp.run_until_idle()
    _check_reclaimed(w, ["a1-admitted"], "b1", 3)


def test_an_entry_whose_domain_a_victim_of_the_cycle_frees_is_admitted_in_that_cycle() -> None:
    """Upstream's ``fits`` (``scheduler.go``) removes the usage — TAS usage too — of the workloads
    the cycle has preempted before asking ``ClusterQueueSnapshot.Fits``. In one cycle: ``a`` (the
    highest priority) needs the whole host and preempts ``v``; ``c`` takes the 2 free cpu; ``b``
    was nominated on the same 2 cpu, which ``c`` now holds, but ``v``'s 2 cpu count as freed, so
    ``b`` is admitted too (and ``a`` waits)."""
    w = _world(SINGLE_LEVEL, [("x1", "", "4")])
    for name in ("a", "b", "c"):
        w.apply(cluster_queue(f"cq-{name}", (["cpu"], [("tas-default", [quota("cpu", "10")])]),
                              preemption={"withinClusterQueue": "LowerPriority"}),
                local_queue(f"lq-{name}", f"cq-{name}"))

    def wl(name: str, queue: str, priority: int, cpu: str) -> dict[str, Any]:
        doc = _wl(name, priority, 1, cpu, required=HOST)
        doc["spec"]["queueName"] = queue
        return doc

    _admit_in_turn(w, wl("v", "lq-a", 0, "2"))
    w.apply(wl("a", "lq-a", 10, "4"), wl("c", "lq-c", 5, "2"), wl("b", "lq-b", 1, "2"))
    w.cp.run_until_idle()
    assert _preempted(w) == ["v"]
    assert w.admitted("c") and w.admitted("b")
    assert not w.reserved("a")
