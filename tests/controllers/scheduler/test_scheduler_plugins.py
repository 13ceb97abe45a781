"""Example tests, one per documented scheduler behaviour (docs/simulation.md, "Scheduler")."""

from __future__ import annotations

from kbatch.api.pod_resources import ContainerRequests, effective_requests
from kbatch.controllers.scheduler.plugins import PrioritySort, SchedulingGates
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.controllers.scheduler.types import (
    LabelSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinityTerm,
    Taint,
    Toleration,
    WeightedTerm,
)

from .sched_builders import cluster, node, place, pod


def test_init_containers_use_the_max_rule_with_sidecars() -> None:
    # component-helpers/resource/helpers.go PodRequests: sidecars add to the app containers and
    # run next to every later init container.
    app = [{"cpu": 500}]
    inits = [ContainerRequests({"cpu": 200}, restartable=True), ContainerRequests({"cpu": 900})]
    assert effective_requests(app, inits) == {"cpu": 1100}  # 200 + 900 while the init runs
    assert effective_requests(app, [ContainerRequests({"cpu": 300})]) == {"cpu": 500}
    assert effective_requests(app, [ContainerRequests({"cpu": 200}, True)]) == {"cpu": 700}


def test_unschedulable_message_counts_reasons_sorted_as_upstream() -> None:
    algo = cluster(
        node("a", taints=(Taint("k", "NoSchedule", "v"),)), node("b", cpu=1), node("c", cpu=1),
        preemption=False,
    )
    decision = algo.schedule(pod("p", cpu_m=2000))
    assert decision.node is None and decision.diagnosis is not None
    assert decision.diagnosis.message() == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."
    )


def test_insufficient_extended_resource_message() -> None:
    algo = cluster(*(node(f"n{i}", gpu=8) for i in range(4)), preemption=False)
    diagnosis = algo.schedule(pod("p", gpu=9)).diagnosis
    assert diagnosis is not None
    assert diagnosis.message() == "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."


def test_preemption_message_is_appended_when_no_victims_exist() -> None:
    algo = cluster(node("a", cpu=1))
    diagnosis = algo.schedule(pod("p", cpu_m=2000)).diagnosis
    assert diagnosis is not None
    assert diagnosis.message() == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


def test_too_many_pods() -> None:
    algo = cluster(node("a", pods=1), preemption=False)
    assert place(algo, pod("p1")) == "a"
    diagnosis = algo.schedule(pod("p2")).diagnosis
    assert diagnosis is not None and diagnosis.message() == "0/1 nodes are available: 1 Too many pods."


def test_node_selector_and_required_affinity_operators() -> None:
    algo = cluster(node("a", labels={"zone": "z1", "gen": "3"}), node("b", labels={"zone": "z2", "gen": "5"}))
    assert place(algo, pod("sel", node_selector=(("zone", "z2"),))) == "b"
    gt = NodeSelectorTerm((NodeSelectorRequirement("gen", "Gt", ("4",)),))
    assert place(algo, pod("gt", required_terms=(gt,))) == "b"
    lt_notin = NodeSelectorTerm((NodeSelectorRequirement("gen", "Lt", ("4",)),
                                 NodeSelectorRequirement("zone", "NotIn", ("z2",))))
    assert place(algo, pod("lt", required_terms=(lt_notin,))) == "a"
    by_name = NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", ("a",)),))
    assert place(algo, pod("field", required_terms=(by_name,))) == "a"
    missing = NodeSelectorTerm((NodeSelectorRequirement("gpu", "Exists"),))
    diagnosis = algo.schedule(pod("none", required_terms=(missing,))).diagnosis
    assert diagnosis is not None
    want = "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
    assert diagnosis.message().startswith(want)


def test_preferred_affinity_wins_over_spreading() -> None:
    algo = cluster(node("a", labels={"disk": "ssd"}), node("b"))
    term = WeightedTerm(10, NodeSelectorTerm((NodeSelectorRequirement("disk", "In", ("ssd",)),)))
    assert all(place(algo, pod(f"p{i}", cpu_m=100, preferred_terms=(term,))) == "a" for i in range(3))


def test_taints_need_tolerations_and_prefer_no_schedule_is_a_score() -> None:
    algo = cluster(node("a", taints=(Taint("gpu", "NoExecute", "yes"),)),
                   node("b", taints=(Taint("soft", "PreferNoSchedule"),)), node("c"))
    assert place(algo, pod("plain", cpu_m=10)) == "c"  # b is only less preferred
    tol = (Toleration("gpu", "Equal", "yes", "NoExecute"),)
    placed = {place(algo, pod(f"t{i}", cpu_m=10, tolerations=tol)) for i in range(5)}
    assert "a" in placed or placed <= {"a", "c"}
    everything = (Toleration(operator="Exists"),)
    assert place(algo, pod("any", tolerations=everything)) in {"a", "b", "c"}


def test_cordoned_node_is_skipped() -> None:
    algo = cluster(node("a", unschedulable=True), node("b"))
    assert place(algo, pod("p")) == "b"
    algo2 = cluster(node("a", unschedulable=True), preemption=False)
    diagnosis = algo2.schedule(pod("q")).diagnosis
    assert diagnosis is not None
    assert diagnosis.message() == "0/1 nodes are available: 1 node(s) were unschedulable."


def test_least_allocated_spreads_and_most_allocated_packs() -> None:
    spread = cluster(node("a"), node("b"))
    assert {place(spread, pod(f"p{i}", cpu_m=1000)) for i in range(2)} == {"a", "b"}
    pack = cluster(node("a"), node("b"), scoring_strategy="MostAllocated")
    assert len({place(pack, pod(f"p{i}", cpu_m=1000)) for i in range(3)}) == 1


def test_required_anti_affinity_spreads_one_per_host() -> None:
    algo = cluster(node("a"), node("b"), node("c"))
    sel = LabelSelector((("app", "x"),))
    anti = (PodAffinityTerm(sel, "kubernetes.io/hostname"),)
    hosts = [place(algo, pod(f"p{i}", labels={"app": "x"}, anti_affinity=anti)) for i in range(4)]
    assert sorted(h for h in hosts if h) == ["a", "b", "c"] and hosts[3] is None


def test_required_affinity_follows_the_first_pod_of_the_group() -> None:
    algo = cluster(node("a", labels={"zone": "1"}), node("b", labels={"zone": "2"}))
    aff = (PodAffinityTerm(LabelSelector((("app", "x"),)), "zone"),)
    first = place(algo, pod("p0", labels={"app": "x"}, affinity=aff))
    assert first is not None
    assert all(place(algo, pod(f"p{i}", labels={"app": "x"}, affinity=aff)) == first for i in range(1, 4))
    lonely = algo.schedule(pod("q", affinity=(PodAffinityTerm(LabelSelector((("app", "y"),)), "zone"),)))
    assert lonely.node is None


def test_preemption_picks_minimal_lowest_priority_victims() -> None:
    algo = cluster(node("a", cpu=2), node("b", cpu=2))
    for started, (name, prio, n) in enumerate((("low-a", 1, "a"), ("mid-a", 5, "a"), ("low-b1", 1, "b"),
                                                ("low-b2", 2, "b"))):
        algo.assume(pod(name, cpu_m=1000, priority=prio, start_time=float(started)), n)
    decision = algo.schedule(pod("high", cpu_m=1000, priority=10))
    assert decision.node is None and decision.preemption is not None
    # Each node needs one victim of priority 1 (mid-a and low-b2 are reprieved); upstream's
    # pickOneNodeForPreemption then prefers the node whose top victim started (status.startTime) latest: b.
    assert decision.preemption.nominated_node == "b"
    assert [v.name for v in decision.preemption.victims] == ["low-b1"]


def test_preemption_prefers_the_node_with_the_lowest_priority_victim() -> None:
    algo = cluster(node("a", cpu=1), node("b", cpu=1))
    algo.assume(pod("mid", cpu_m=1000, priority=5), "a")
    algo.assume(pod("low", cpu_m=1000, priority=1), "b")
    decision = algo.schedule(pod("high", cpu_m=1000, priority=10))
    assert decision.preemption is not None and decision.preemption.nominated_node == "b"
    assert algo.schedule(pod("equal", cpu_m=1000, priority=1)).preemption.nominated_node is None  # type: ignore[union-attr]


def test_preemption_policy_never() -> None:
    algo = cluster(node("a", cpu=1))
    algo.assume(pod("low", cpu_m=1000, priority=0), "a")
    decision = algo.schedule(pod("high", cpu_m=1000, priority=10, preemption_policy="Never"))
    assert decision.preemption is not None and decision.preemption.nominated_node is None
    assert decision.diagnosis is not None
    assert decision.diagnosis.message().endswith("preemption: not eligible due to preemptionPolicy=Never.")


def test_ties_are_broken_by_the_seeded_rng() -> None:
    def run(seed: int) -> list[str | None]:
        algo = cluster(*(node(f"n{i}") for i in range(8)), seed=seed)
        return [place(algo, pod(f"p{i}", labels={"k": str(i)}, affinity=())) for i in range(8)]

    assert run(1) == run(1)
    assert len({tuple(run(s)) for s in range(5)}) > 1


def test_queue_orders_by_priority_then_creation_and_holds_gated_pods() -> None:
    q = SchedulingQueue(PrioritySort().sort_key, [SchedulingGates()])
    low, high = pod("low"), pod("high", priority=5)
    gated = pod("gated", scheduling_gates=("example.com/wait",))
    for p in (low, high, gated):
        q.add(p, now=0.0)
    assert q.where("default/gated") == "gated"
    assert q.entry("default/gated").gate.message == "waiting for scheduling gates: [example.com/wait]"  # type: ignore[union-attr]
    assert [q.pop(0.0).name, q.pop(0.0).name, q.pop(0.0)] == ["high", "low", None]  # type: ignore[union-attr]


def test_unschedulable_pods_wait_for_an_event_or_the_five_minute_flush() -> None:
    q = SchedulingQueue(PrioritySort().sort_key)
    p = pod("p")
    q.add(p, 0.0)
    assert q.pop(0.0) is p
    q.unschedulable(p, 0.0)
    assert q.pop(100.0) is None  # no busy loop
    assert q.next_wakeup(100.0) == 300.0
    assert q.pop(300.0) is p  # upstream podMaxInUnschedulablePodsDuration
    q.unschedulable(p, 300.0)
    q.move_all(300.5)  # a cluster event while still backing off (2 attempts: 2 s)
    assert q.where("default/p") == "backoff" and q.pop(301.0) is None and q.pop(302.0) is p


def test_equal_pods_reuse_a_failure_until_the_snapshot_changes() -> None:
    algo = cluster(node("a", cpu=1), preemption=False)
    first, second = algo.schedule(pod("p1", cpu_m=2000)), algo.schedule(pod("p2", cpu_m=2000))
    assert first.diagnosis is second.diagnosis  # no second evaluation of every node
    algo.assume(pod("small", cpu_m=10), "a")  # the snapshot changed: evaluate again
    assert algo.schedule(pod("p3", cpu_m=2000)).diagnosis is not first.diagnosis
