"""Queueing hints (KEP-4247): each plugin's hint on the cases upstream's plugin tests document,
event matching, the requeue strategy and the queue's moves."""

from __future__ import annotations

from dataclasses import replace

from kbatch.controllers.scheduler.controller import hint_map
from kbatch.controllers.scheduler.defaults import default_profile
from kbatch.controllers.scheduler.events import (
    ASSIGNED_POD,
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    NODE,
    NODE_ADD,
    POD,
    QUEUE,
    QUEUE_SKIP,
    UNSCHEDULED_POD,
    ActionType,
    ClusterEvent,
    HintMap,
    Strategy,
    node_update_events,
    on_node,
    pod_update_events,
    requeue_strategy,
)
from kbatch.controllers.scheduler.plugins import (
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    scheduling_gates,
    taint_toleration,
)
from kbatch.controllers.scheduler.plugins.pod_hints import (
    affinity_after_node_change,
    affinity_after_pod_change,
    spread_after_node_change,
    spread_after_pod_change,
)
from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.controllers.scheduler.types import (
    HostPort,
    LabelSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinityTerm,
    SpreadConstraint,
    Taint,
    Toleration,
)

from .sched_builders import node, pod

NOSCHED = Taint("dedicated", "NoSchedule", "gpu")
ZONE_A, ZONE_A_PLUS = node("n", labels={"zone": "a"}), node("n", labels={"zone": "a", "x": "y"})


def bound(p, where: str = "n1"):  # type: ignore[no-untyped-def]
    return replace(p, node_name=where)


# -- NodeResourcesFit -------------------------------------------------------------------------------
def test_fit_node_hints() -> None:
    hint, want = node_resources_fit.after_node_change, pod("p", cpu_m=3000)
    assert hint(want, None, node("big", cpu=4)) == QUEUE
    assert hint(want, None, node("small", cpu=2)) == QUEUE_SKIP  # would not fit even empty
    assert hint(want, node("n", cpu=2), node("n", cpu=4)) == QUEUE  # cpu grew and now fits
    assert hint(want, node("n", cpu=4), node("n", cpu=4, mem_gi=64)) == QUEUE_SKIP  # memory: not asked
    assert hint(want, node("n", cpu=8), node("n", cpu=6)) == QUEUE_SKIP  # shrank
    assert hint(want, node("n", cpu=4, pods=1), node("n", cpu=4, pods=2)) == QUEUE  # room for pods
    assert hint(pod("nothing"), node("n", cpu=4), node("n", cpu=8)) == QUEUE_SKIP  # requests nothing


def test_fit_pod_hints() -> None:
    hint, want = node_resources_fit.after_pod_event, pod("p", cpu_m=1000)
    other = pod("o", cpu_m=500)
    assert hint(want, bound(other), None) == QUEUE
    assert hint(want, other, None) == QUEUE_SKIP  # an unscheduled pod freed nothing
    assert hint(want, replace(other, nominated_node="n1"), None) == QUEUE
    smaller = replace(bound(other), requests={"cpu": 100})
    assert hint(want, bound(other), smaller) == QUEUE  # in-place scale-down of cpu
    assert hint(want, other, replace(other, requests={"cpu": 100})) == QUEUE_SKIP  # not bound
    assert hint(want, want, replace(want, requests={"cpu": 10})) == QUEUE  # the pod itself


# -- NodeAffinity, NodeName -------------------------------------------------------------------------
def test_node_affinity_hint_queues_only_a_new_match() -> None:
    hint = node_affinity.after_node_change
    want = pod("p", node_selector=(("zone", "a"),))
    assert hint(want, None, node("n", labels={"zone": "a"})) == QUEUE
    assert hint(want, None, node("n", labels={"zone": "b"})) == QUEUE_SKIP
    assert hint(want, node("n"), node("n", labels={"zone": "a"})) == QUEUE
    assert hint(want, ZONE_A, ZONE_A_PLUS) == QUEUE_SKIP
    assert hint(want, node("n", labels={"zone": "a"}), node("n")) == QUEUE_SKIP
    term = NodeSelectorTerm((NodeSelectorRequirement("gen", "Gt", ("3",)),))
    by_terms = pod("q", required_terms=(term,))
    assert hint(by_terms, node("n", labels={"gen": "3"}), node("n", labels={"gen": "4"})) == QUEUE


def test_node_name_hint() -> None:
    hint, want = node_name.after_node_add, pod("p", node_name="there")
    assert (hint(want, None, node("there")), hint(want, None, node("elsewhere"))) == (QUEUE, QUEUE_SKIP)


# -- TaintToleration, NodeUnschedulable -------------------------------------------------------------
def test_taint_hints() -> None:
    hint, want = taint_toleration.after_node_change, pod("p")
    assert hint(want, None, node("n", taints=(NOSCHED,))) == QUEUE_SKIP
    assert hint(want, None, node("n")) == QUEUE
    assert hint(want, node("n", taints=(NOSCHED,)), node("n")) == QUEUE  # the taint was removed
    other = Taint("other", "NoExecute")
    assert hint(want, node("n", taints=(NOSCHED,)), node("n", taints=(other,))) == QUEUE_SKIP
    prefer = Taint("soft", "PreferNoSchedule")
    assert hint(want, node("n"), node("n", taints=(prefer,))) == QUEUE_SKIP  # tolerated before too
    tolerating = replace(want, tolerations=(Toleration("dedicated", "Exists"),))
    assert hint(tolerating, node("n", taints=(other,)), node("n", taints=(NOSCHED,))) == QUEUE
    added = taint_toleration.after_toleration_added
    assert (added(want, want, tolerating), added(want, pod("x"), pod("x"))) == (QUEUE, QUEUE_SKIP)


def test_node_unschedulable_hints() -> None:
    hint, want = node_unschedulable.after_node_change, pod("p")
    assert hint(want, None, node("n")) == QUEUE
    assert hint(want, None, node("n", unschedulable=True)) == QUEUE_SKIP
    assert hint(want, node("n", unschedulable=True), node("n")) == QUEUE  # uncordoned
    assert hint(want, node("n"), node("n", labels={"a": "b"})) == QUEUE_SKIP
    added = node_unschedulable.after_toleration_added
    tolerates = replace(want, tolerations=(Toleration("node.kubernetes.io/unschedulable", "Exists"),))
    assert added(want, want, tolerates) == QUEUE
    assert added(want, want, replace(want, tolerations=(Toleration("x", "Exists"),))) == QUEUE_SKIP


def test_scheduling_gates_hint_is_for_the_pod_itself() -> None:
    hint, want = scheduling_gates.after_gates_eliminated, pod("p")
    assert (hint(want, want, want), hint(want, pod("o"), pod("o"))) == (QUEUE, QUEUE_SKIP)


# -- NodePorts --------------------------------------------------------------------------------------
def test_node_ports_hint_queues_only_a_conflicting_deleted_pod() -> None:
    hint = node_ports.after_pod_deleted
    want = pod("p", host_ports=(HostPort("0.0.0.0", "TCP", 8080),))
    holder = pod("h", host_ports=(HostPort("10.0.0.1", "TCP", 8080),))
    assert hint(want, bound(holder), None) == QUEUE
    assert hint(want, holder, None) == QUEUE_SKIP  # never bound
    assert hint(want, bound(pod("u", host_ports=(HostPort("0.0.0.0", "UDP", 8080),))), None) == QUEUE_SKIP
    assert hint(want, bound(pod("none")), None) == QUEUE_SKIP


# -- InterPodAffinity -------------------------------------------------------------------------------
def _term(key: str = "zone", **labels: str) -> PodAffinityTerm:
    return PodAffinityTerm(LabelSelector(tuple(sorted(labels.items()))), key)


def test_affinity_pod_hints() -> None:
    hint = affinity_after_pod_change
    wants_db = pod("p", affinity=(_term(app="db"),))
    db, web = pod("db", labels={"app": "db"}), pod("web", labels={"app": "web"})
    assert hint(wants_db, None, bound(db)) == QUEUE
    assert hint(wants_db, None, bound(web)) == QUEUE_SKIP
    assert hint(wants_db, None, db) == QUEUE_SKIP  # unscheduled pods take no part
    assert hint(wants_db, bound(web), bound(replace(web, labels={"app": "db"}))) == QUEUE
    hates_db = pod("q", anti_affinity=(_term(app="db"), _term(app="cache")))
    assert hint(hates_db, bound(db), None) == QUEUE  # matched one anti term: any, not all
    assert hint(hates_db, bound(web), None) == QUEUE_SKIP
    assert hint(hates_db, bound(db), bound(replace(db, labels={"app": "x"}))) == QUEUE
    # the deleted pod's own anti-affinity repelled the pending pod (kubernetes#135325)
    repeller = bound(pod("r", anti_affinity=(_term(app="web"),)))
    assert hint(web, repeller, None) == QUEUE
    assert hint(db, repeller, None) == QUEUE_SKIP


def test_affinity_node_hints() -> None:
    hint = affinity_after_node_change
    wants = pod("p", affinity=(_term(app="db"),))
    assert hint(wants, None, node("n", labels={"zone": "a"})) == QUEUE
    assert hint(wants, None, node("n")) == QUEUE_SKIP
    assert hint(wants, node("n"), node("n", labels={"zone": "a"})) == QUEUE
    assert hint(wants, node("n", labels={"zone": "a"}), node("n", labels={"zone": "b"})) == QUEUE
    assert hint(wants, ZONE_A, ZONE_A_PLUS) == QUEUE_SKIP
    hates = pod("q", anti_affinity=(_term(app="db"),))
    assert hint(hates, None, node("n")) == QUEUE
    assert hint(hates, node("n", labels={"zone": "a"}), node("n")) == QUEUE  # lost the key
    assert hint(hates, node("n"), node("n", labels={"zone": "a"})) == QUEUE_SKIP  # gained it
    # repelled only by an existing pod's anti-affinity (the rest of kubernetes#134393)
    plain = pod("plain")
    assert hint(plain, None, node("n")) == QUEUE
    assert hint(plain, node("n", labels={"rack": "1"}), node("n", labels={"rack": "2"})) == QUEUE
    assert hint(plain, node("n"), node("n", labels={"rack": "1"})) == QUEUE_SKIP


# -- PodTopologySpread ------------------------------------------------------------------------------
def _spread(policy: str = "Ignore") -> SpreadConstraint:
    return SpreadConstraint(1, "zone", "DoNotSchedule", LabelSelector((("app", "web"),)),
                            node_taints_policy=policy)


def test_spread_pod_hints() -> None:
    hint = spread_after_pod_change
    want = pod("p", labels={"app": "web"}, spread_constraints=(_spread(),))
    web = pod("w", labels={"app": "web"})
    assert hint(want, None, bound(web)) == QUEUE
    assert hint(want, bound(web), None) == QUEUE
    assert hint(want, None, bound(pod("x", labels={"app": "x"}))) == QUEUE_SKIP
    assert hint(want, None, bound(replace(web, namespace="other"))) == QUEUE_SKIP
    assert hint(want, None, web) == QUEUE_SKIP  # unscheduled and not the pod itself
    relabelled = bound(replace(web, labels={"app": "web", "tier": "1"}))
    assert hint(want, bound(web), relabelled) == QUEUE_SKIP  # still matches
    assert hint(want, bound(web), bound(replace(web, labels={}))) == QUEUE
    honours = replace(want, spread_constraints=(_spread("Honor"),))
    tolerating = replace(honours, tolerations=(Toleration("dedicated", "Exists"),))
    assert hint(honours, honours, tolerating) == QUEUE
    assert hint(want, want, replace(want, tolerations=(Toleration("dedicated", "Exists"),))) == QUEUE_SKIP
    assert hint(pod("free"), None, bound(web)) == QUEUE_SKIP  # no DoNotSchedule constraints


def test_spread_node_hints() -> None:
    hint = spread_after_node_change
    want = pod("p", spread_constraints=(_spread(),))
    assert hint(want, None, node("n", labels={"zone": "a"})) == QUEUE
    assert hint(want, None, node("n")) == QUEUE_SKIP
    assert hint(want, node("n", labels={"zone": "a"}), None) == QUEUE  # deleted
    assert hint(want, node("n"), node("n", labels={"zone": "a"})) == QUEUE
    assert hint(want, node("n", labels={"zone": "a"}), node("n", labels={"zone": "b"})) == QUEUE
    assert hint(want, ZONE_A, ZONE_A_PLUS) == QUEUE_SKIP
    assert hint(want, node("n", labels={"zone": "a"}), node("n", labels={"zone": "a"}, taints=(NOSCHED,))) \
        == QUEUE


# -- events, matching, strategy ---------------------------------------------------------------------
def test_event_matching_follows_upstream() -> None:
    registered = ClusterEvent(POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL)
    assert registered.matches(ClusterEvent(ASSIGNED_POD, ActionType.ADD))
    assert registered.matches(ClusterEvent(UNSCHEDULED_POD, ActionType.UPDATE_POD_LABEL))
    assert not registered.matches(ClusterEvent(ASSIGNED_POD, ActionType.DELETE))
    assert not registered.matches(ClusterEvent(NODE, ActionType.ADD))
    # a generic Update reaches only registrations of (at least) every Update bit
    assert not registered.matches(ClusterEvent(ASSIGNED_POD, ActionType.UPDATE))
    assert ClusterEvent(POD, ActionType.ALL).matches(ClusterEvent(ASSIGNED_POD, ActionType.UPDATE))
    assert ClusterEvent("*", ActionType.ALL).matches(NODE_ADD)


def test_update_events_are_classified_as_upstream() -> None:
    old, cordoned = node("n", labels={"a": "1"}), node("n", labels={"a": "1"}, unschedulable=True)
    assert node_update_events(cordoned, old) == [ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT)]
    assert node_update_events(old, cordoned) == []  # becoming unschedulable helps nobody
    grown = node("n", cpu=8, labels={"a": "2"})
    assert [e.action for e in node_update_events(old, grown)] == [
        ActionType.UPDATE_NODE_ALLOCATABLE, ActionType.UPDATE_NODE_LABEL]
    p = pod("p", labels={"x": "1"})
    generic = [ClusterEvent(UNSCHEDULED_POD, ActionType.UPDATE)]
    assert pod_update_events(p, replace(p, nominated_node="n")) == generic
    relabelled = bound(replace(p, labels={"x": "2"}, tolerations=(Toleration("t", "Exists"),)))
    assert [(e.resource, e.action) for e in pod_update_events(bound(p), relabelled)] == [
        (ASSIGNED_POD, ActionType.UPDATE_POD_LABEL), (ASSIGNED_POD, ActionType.UPDATE_POD_TOLERATION)]


def test_requeue_strategy() -> None:
    p = pod("p")

    def boom(*_: object) -> object:
        raise RuntimeError("bug")

    hints = (("A", lambda *_: QUEUE_SKIP), ("B", boom), ("C", None))
    assert requeue_strategy(p, (), (), NODE_ADD, None, None, hints) == Strategy.AFTER_BACKOFF  # an error
    assert requeue_strategy(p, ("A",), (), NODE_ADD, None, None, hints) == Strategy.SKIP
    assert requeue_strategy(p, ("B",), (), NODE_ADD, None, None, hints) == Strategy.AFTER_BACKOFF  # raised
    assert requeue_strategy(p, ("A",), ("C",), NODE_ADD, None, None, hints) == Strategy.IMMEDIATELY
    assert requeue_strategy(p, ("Z",), (), NODE_ADD, None, None, hints) == Strategy.SKIP  # not registered


def test_a_plugin_without_registrations_is_registered_for_everything() -> None:
    class Custom:
        name = "Custom"

    class Silent:
        name = "Silent"

        def events_to_register(self) -> list:
            return []

    hints = HintMap.from_plugins([Custom(), Silent()])
    assert hints.plugins_for(ClusterEvent(ASSIGNED_POD, ActionType.UPDATE)) == ("Custom",)
    assert hints.plugins_for(NODE_ADD) == ("Custom",)


# -- the queue ---------------------------------------------------------------------------------------
def _queue() -> SchedulingQueue:
    return SchedulingQueue(PrioritySort().sort_key, hints=hint_map(default_profile()))


def _failed(q: SchedulingQueue, p, now: float, *plugins: str, pending: tuple[str, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    q.add(p, now)
    assert q.pop(now) is p
    q.unschedulable(p, now, plugins, pending)


def test_only_events_a_rejecting_plugin_accepts_move_the_pod() -> None:
    q = _queue()
    want = pod("p", cpu_m=1000, node_selector=(("zone", "a"),))
    _failed(q, want, 0.0, "NodeAffinity")
    assert q.move(ASSIGNED_POD_DELETE, bound(pod("o", cpu_m=4000)), None, 20.0) == 0  # resources: not why
    assert q.move(NODE_ADD, None, node("n", labels={"zone": "b"}), 20.0) == 0
    assert q.where("default/p") == "unschedulable"
    assert q.move(NODE_ADD, None, node("n", labels={"zone": "a"}), 20.0) == 1
    assert q.where("default/p") == "active"


def test_an_event_nobody_registered_for_moves_nothing_even_pods_without_plugins() -> None:
    q = _queue()
    _failed(q, pod("err"), 0.0)  # no plugin recorded: an error, queued by any event of interest
    assert q.move(ClusterEvent(ASSIGNED_POD, ActionType.UPDATE), None, None, 20.0) == 0
    assert q.move(ClusterEvent(NODE, ActionType.UPDATE_NODE_CONDITION), None, None, 20.0) == 0
    assert q.move(ASSIGNED_POD_ADD, None, bound(pod("x")), 20.0) == 1


def test_backoff_or_active_and_pending_plugins_skip_the_backoff() -> None:
    q = _queue()
    a, b = pod("a"), pod("b")
    _failed(q, a, 0.0, "NodeUnschedulable")
    _failed(q, b, 0.0, "NodeUnschedulable", pending=("NodeName",))
    q.move(NODE_ADD, None, node("n"), 0.5)  # both hints say Queue; b's pending plugin skips back-off
    assert (q.where("default/a"), q.where("default/b")) == ("backoff", "active")


def test_skipped_pods_still_leave_after_five_minutes_and_updates_use_hints() -> None:
    q = _queue()
    want = pod("p", cpu_m=1000)
    _failed(q, want, 0.0, "TaintToleration")
    relabelled = replace(want, labels={"new": "label"})
    assert not q.update(relabelled, pod_update_events(want, relabelled), want, 10.0)
    assert q.where("default/p") == "unschedulable" and q.entry("default/p").pod is relabelled  # type: ignore[union-attr]
    tolerating = replace(relabelled, tolerations=(Toleration("dedicated", "Exists"),))
    assert q.update(tolerating, pod_update_events(relabelled, tolerating), relabelled, 20.0)
    _failed(q, tolerating, 30.0, "TaintToleration")
    assert q.pop(329.0) is None
    assert q.pop(331.0) is tolerating  # upstream flushUnschedulablePodsLeftover


def test_without_hints_every_event_moves_every_pod() -> None:
    q = SchedulingQueue(PrioritySort().sort_key)
    _failed(q, pod("p"), 0.0, "NodeAffinity")
    assert q.move(ClusterEvent(NODE, ActionType.UPDATE_NODE_CONDITION), None, None, 20.0) == 1


def test_registration_helper_builds_node_events() -> None:
    assert on_node(ActionType.ADD).event == NODE_ADD


def test_node_add_without_taint_registration_gets_update_node_taint_as_upstream() -> None:
    hints = hint_map(default_profile())
    taint = ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT)
    assert set(hints.plugins_for(taint)) >= {"NodeResourcesFit", "NodeAffinity", "NodeName", "NodePorts"}
    assert dict(hints.hints_for(taint))["NodeResourcesFit"] is None  # no hint: always Queue
    assert "NodeResourcesFit" not in hints.plugins_for(ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL))


def test_events_seen_in_flight_are_asked_when_the_pod_comes_back() -> None:
    """Upstream ``determineSchedulingHintForInFlightPod``: a pod waiting at Permit that is rejected
    after an event its rejecting plugin accepts goes back to the queue, not to the pool."""
    q = _queue()
    helped, unhelped = pod("helped", cpu_m=1000), pod("unhelped", cpu_m=1000)
    for p in (helped, unhelped):
        q.add(p, 0.0)
    assert q.pop(0.0) is helped and q.pop(0.0) is unhelped  # both in flight (e.g. at Permit)
    q.move(ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL), node("n"), node("n", labels={"a": "b"}), 1.0)
    q.unschedulable(unhelped, 2.0, ("NodeResourcesFit",))
    assert q.where("default/unhelped") == "unschedulable"  # the label change could not help it
    q.move(NODE_ADD, None, node("big", cpu=8), 3.0)  # (moves unhelped from the pool, as usual)
    q.unschedulable(helped, 3.5, ("NodeResourcesFit",))
    assert q.where("default/helped") == "backoff"  # the node added while it was in flight
    fresh, later = _queue(), pod("later")
    fresh.add(later, 0.0)  # nothing in flight while the node is added: nothing kept
    fresh.move(NODE_ADD, None, node("big", cpu=8), 1.0)
    assert fresh.pop(1.0) is later
    fresh.unschedulable(later, 2.0, ("NodeResourcesFit",))
    assert fresh.where("default/later") == "unschedulable"


def test_in_flight_events_are_kept_only_while_needed() -> None:
    from kbatch.controllers.scheduler.inflight import InFlightEvents

    log = InFlightEvents()
    log.record(NODE_ADD, None, 1)  # nobody in flight: dropped
    log.begin("a")
    log.record(NODE_ADD, None, 2)
    log.begin("b")
    log.record(NODE_ADD, None, 3)
    assert [new for _, _, new in log.finish("a")] == [2, 3]
    assert log._events == [(NODE_ADD, None, 3)]  # a's start pruned
    assert [new for _, _, new in log.finish("b")] == [3] and not log._events and not log
    assert log.finish("b") == []


def test_a_pre_enqueue_plugin_lifts_its_gate_on_the_events_it_registered() -> None:
    """The seam a coscheduling PreEnqueue plugin uses: it waits for a sibling, registers Pod/Add
    with a hint, and its gated pods run PreEnqueue again only when that hint says Queue."""
    from kbatch.controllers.scheduler.events import ASSIGNED_POD_ADD, on_pod
    from kbatch.controllers.scheduler.framework import Status

    class WaitForSibling:
        name = "WaitForSibling"
        arrived = False

        def pre_enqueue(self, p):  # type: ignore[no-untyped-def]
            return None if self.arrived else Status.unresolvable(self.name, "waiting for a sibling")

        def events_to_register(self) -> list:
            return [on_pod(ActionType.ADD, lambda p, old, new: QUEUE if new.labels.get("group") == "g"
                           else QUEUE_SKIP)]

    gate = WaitForSibling()
    q = SchedulingQueue(PrioritySort().sort_key, [gate], hints=HintMap.from_plugins([gate]))
    member = pod("member")
    q.add(member, 0.0)
    assert q.where("default/member") == "gated" and q.wants_events()
    gate.arrived = True
    assert q.move(ASSIGNED_POD_ADD, None, bound(pod("stranger")), 1.0) == 0  # hint: QueueSkip
    assert q.move(NODE_ADD, None, node("n"), 1.0) == 0  # not registered
    assert q.where("default/member") == "gated"
    assert q.move(ASSIGNED_POD_ADD, None, bound(pod("sib", labels={"group": "g"})), 2.0) == 1
    assert q.where("default/member") == "active"
    gate.arrived = False
    other = pod("other")
    q.add(other, 3.0)
    assert q.move(ASSIGNED_POD_ADD, None, bound(pod("sib2", labels={"group": "g"})), 4.0) == 0  # still gated
    assert q.where("default/other") == "gated"
    q.delete("default/other")
    assert q.gated() == [] and q._gated_by == {"WaitForSibling": {}}


def test_activate_skips_the_backoff_once_per_instant() -> None:
    """Upstream ``PriorityQueue.Activate`` moves a pod from the unschedulable pool or the backoffQ to
    active; kbatch lets a pod skip its back-off once per virtual instant, so two group members that
    cannot fit and activate each other cannot loop forever at one instant."""
    q = _queue()
    a, b = pod("a"), pod("b")
    _failed(q, a, 0.0, "NodeResourcesFit")
    _failed(q, b, 0.0, "NodeResourcesFit")
    q.move_all(0.5)  # both to back-off (1 s after their failure)
    assert (q.where("default/a"), q.where("default/b")) == ("backoff", "backoff")
    assert q.activate(["default/a", "default/b", "default/unknown"], 0.5) == 2
    assert (q.where("default/a"), q.where("default/b")) == ("active", "active")
    assert q.pop(0.5) is a
    q.unschedulable(a, 0.5, ("NodeResourcesFit",))
    assert q.activate(["default/a"], 0.5) == 1  # to back-off: activated once already at 0.5
    assert q.where("default/a") == "backoff" and q.activate(["default/a"], 0.5) == 0
    assert q.activate(["default/b"], 0.5) == 0  # already active: left alone
    assert q.activate(["default/a"], 0.75) == 1 and q.where("default/a") == "active"  # a new instant

