"""Nominated pods reserve their node (upstream RunFilterPluginsWithNominatedPods / nominator), and
a pod that finds no nodes at all is an error retried with back-off (ErrNoNodesAvailable)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubelet.cluster import condition, get_pod, pod_yaml, sim_cluster

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.controllers.scheduler import Scheduler
from kbatch.controllers.scheduler.algorithm import NO_NODES
from kbatch.controllers.scheduler.types import LabelSelector, PodAffinityTerm
from kbatch.sim import NodeTemplate, create_nodes

from .sched_builders import cluster, node, pod

HIGH = "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 100}"


# -- the pure core ---------------------------------------------------------------------------------
def test_lower_and_equal_priority_pods_leave_the_nominated_room_higher_ones_may_take_it() -> None:
    algo = cluster(node("a", cpu=1))
    algo.snapshot.nominate(pod("nominee", cpu_m=1000, priority=5), "a")
    for priority in (0, 5):  # addGENominatedPods: nominated pods of priority >= the pod's count
        decision = algo.schedule(pod(f"p{priority}", cpu_m=1000, priority=priority))
        assert decision.node is None and decision.diagnosis is not None
        assert decision.diagnosis.message().startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert algo.schedule(pod("higher", cpu_m=1000, priority=6)).node == "a"
    assert algo.schedule(pod("small", cpu_m=0, priority=0)).node == "a"  # room beside the nominee


def test_the_nominee_itself_is_not_counted_and_prefers_its_nominated_node() -> None:
    algo = cluster(node("a", cpu=4), node("b", cpu=4))
    algo.assume(pod("busy", cpu_m=3000), "b")  # LeastAllocated would pick a
    nominee = pod("nominee", cpu_m=1000, priority=5, nominated_node="b")
    algo.snapshot.nominate(nominee, "b")
    assert algo.schedule(nominee).node == "b"  # upstream evaluateNominatedNode: tried first


def test_affinity_to_a_nominated_pod_does_not_count() -> None:
    # The filters run with the nominated pods and again without them: both must pass.
    algo = cluster(node("a", cpu=4))
    algo.snapshot.nominate(pod("web", priority=5, labels={"app": "web"}), "a")
    term = PodAffinityTerm(LabelSelector((("app", "web"),)), "kubernetes.io/hostname")
    decision = algo.schedule(pod("follower", priority=0, affinity=(term,)))
    assert decision.node is None


def test_preemption_does_not_evict_for_room_a_higher_nominee_holds() -> None:
    algo = cluster(node("a", cpu=2))
    algo.assume(pod("low", cpu_m=1000, priority=0), "a")
    algo.snapshot.nominate(pod("first", cpu_m=2000, priority=50), "a")
    decision = algo.schedule(pod("second", cpu_m=1000, priority=10))  # even without low: no room
    assert decision.node is None and decision.preemption is not None
    assert decision.preemption.nominated_node is None and decision.preemption.clear_nomination
    assert algo.schedule(pod("top", cpu_m=1000, priority=60)).node == "a"  # first is lower: ignored


def test_nominations_change_the_generation_but_not_the_static_one() -> None:
    algo = cluster(node("a", cpu=1))
    snap = algo.snapshot
    before, static = snap.generation, snap.static_generation
    p = pod("n", cpu_m=1000, priority=5)
    snap.nominate(p, "a")
    assert snap.generation > before and snap.static_generation == static
    assert snap.nominated_for("a", pod("x", priority=0)) == [p] and snap.nominated_for("a", p) == []
    snap.nominate(p, "a")  # the same room, the same view: nothing changed
    assert snap.unnominate(p.key) is p and not snap.nominated and snap.unnominate(p.key) is None


# -- on a control plane ------------------------------------------------------------------------------
def _scheduler(cp: object) -> Scheduler:
    return cp.manager.get("scheduler").reconciler  # type: ignore[attr-defined]


def _preempted_cluster(grace: int, gates: str | None = None) -> object:
    cp = ControlPlane(seed=0, controllers="scheduler,kubelet", feature_gates=gates)
    create_nodes(cp, 1, NodeTemplate(cpu="1"))
    cp.apply(HIGH)
    cp.apply(pod_yaml("low", "sleep 1000", cpu="1", grace=grace))
    cp.apply(pod_yaml("high", "sleep 100", cpu="1", extra_spec="\n  priorityClassName: high"))
    assert get_pod(cp, "high").status.nominated_node_name == "node-0"
    return cp


def test_a_low_priority_pod_arriving_after_preemption_does_not_take_the_freed_node() -> None:
    cp = _preempted_cluster(grace=0)  # the victim is gone at once; high still backs off (1 s)
    cp.advance(0.2)  # type: ignore[attr-defined]
    cp.apply(pod_yaml("late", "sleep 100", cpu="1"))  # type: ignore[attr-defined]
    late = get_pod(cp, "late")
    assert not late.spec.node_name
    assert condition(late, "PodScheduled").message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    cp.advance(2)  # type: ignore[attr-defined]
    assert get_pod(cp, "high").spec.node_name == "node-0"
    assert not get_pod(cp, "late").spec.node_name
    assert not _scheduler(cp).snapshot.nominated


def test_deleting_a_nominated_pod_releases_its_room_and_retries_the_pods_it_kept_out() -> None:
    # the nominee must still wait in back-off when "late" comes: with SchedulerPopFromBackoffQ the
    # idle scheduler would retry it at once (and bind it) once its victim is gone
    cp = _preempted_cluster(grace=0, gates="SchedulerPopFromBackoffQ=false")
    cp.advance(0.2)  # type: ignore[attr-defined]
    cp.apply(pod_yaml("late", "sleep 100", cpu="1"))  # type: ignore[attr-defined]
    cp.client.delete(Pod, "high", "default")  # type: ignore[attr-defined]
    cp.advance(0.01)  # type: ignore[attr-defined]
    assert not _scheduler(cp).snapshot.nominated
    cp.advance(2.5)  # the late pod's back-off, not the 5-minute flush
    assert get_pod(cp, "late").spec.node_name == "node-0"


def test_a_nominee_bound_elsewhere_gives_up_its_nomination() -> None:
    cp = _preempted_cluster(grace=30)  # the victim terminates for 30 s
    scheduler = _scheduler(cp)
    assert scheduler.snapshot.nominated_node("default/high") == "node-0"
    # A bigger node appears: high is retried (NodeResourcesFit: Node/Add) and binds there, so it no
    # longer holds node-0; the nomination is released when it is assumed.
    create_nodes(cp, 1, NodeTemplate(cpu="2"), prefix="big-")  # type: ignore[arg-type]
    cp.advance(3)  # type: ignore[attr-defined]
    assert get_pod(cp, "high").spec.node_name == "big-0"
    assert not scheduler.snapshot.nominated


TOP = "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: top}, value: 200}"
_CLASS = {"low": "", "equal": "\n  priorityClassName: high", "top": "\n  priorityClassName: top"}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.integers(1, 3),
    grace=st.integers(0, 20),
    arrivals=st.lists(st.tuples(st.floats(0.0, 25.0), st.sampled_from(sorted(_CLASS))), max_size=4),
)
def test_a_nominated_pod_is_bound_once_its_victims_are_gone(nodes: int, grace: int, arrivals: list) -> None:
    """Every node is full of low-priority pods; a preemptor is nominated and later pods arrive at
    random times with lower, equal or higher priority. While the preemptor waits, no later pod of
    lower priority runs on its nominated node; unless a higher one came, it is bound once the
    victims' grace period is over."""
    cp = sim_cluster(nodes, NodeTemplate(cpu="1"))
    cp.apply(HIGH)
    cp.apply(TOP)
    for i in range(nodes):
        cp.apply(pod_yaml(f"low-{i}", "sleep 10000", cpu="1", grace=grace))
    cp.apply(pod_yaml("pre", "sleep 10000", cpu="1", extra_spec="\n  priorityClassName: high"))
    assert get_pod(cp, "pre").status.nominated_node_name
    for index, (at, kind) in enumerate(sorted(arrivals)):
        cp.advance(max(at - cp.clock.now(), 0.0))
        cp.apply(pod_yaml(f"later-{index}", "sleep 10000", cpu="1", extra_spec=_CLASS[kind]))
        _check_room_kept(cp)
    cp.advance(max(2 * grace + 30 - cp.clock.now(), 0.5))
    _check_room_kept(cp)
    if all(kind != "top" for _, kind in arrivals):
        assert get_pod(cp, "pre").spec.node_name


def _check_room_kept(cp: object) -> None:
    pods = cp.client.list(Pod, "default").items  # type: ignore[attr-defined]
    pre = next((p for p in pods if p.metadata.name == "pre"), None)
    if pre is None or pre.spec.node_name or not pre.status.nominated_node_name:
        return  # bound (or preempted in turn by a "top" pod), or not nominated
    target = pre.status.nominated_node_name
    taken = [p.metadata.name for p in pods
             if p.metadata.name.startswith("later-") and p.spec.node_name == target
             and (p.spec.priority or 0) < 100 and p.metadata.deletion_timestamp is None]
    assert not taken, taken


# -- no nodes at all ----------------------------------------------------------------------------------
def test_no_nodes_is_an_error_retried_with_backoff() -> None:
    cp = sim_cluster(0)
    cp.apply(pod_yaml("p", "sleep 1"))
    cond = condition(get_pod(cp, "p"), "PodScheduled")
    assert (cond.status, cond.reason, cond.message) == ("False", "Unschedulable", NO_NODES)
    controller = cp.manager.get("scheduler")
    scheduler = controller.reconciler
    assert scheduler.queue.where("default/p") == "backoff"  # no event needed: upstream's error back-off
    reconciles = controller.reconciles
    cp.advance(30)
    retries = controller.reconciles - reconciles
    assert 3 <= retries <= 6  # 1 + 2 + 4 + 8 + 10 s ... : backing off, not busy-looping
    assert scheduler.queue.entry("default/p").attempts >= 4  # type: ignore[union-attr]
    create_nodes(cp, 1, NodeTemplate())
    cp.advance(11)  # error back-off is not popped early; windows: tried at 0, 2, 5, 10, 19, 30, 41 s
    assert get_pod(cp, "p").spec.node_name == "node-0"


def test_preemption_clears_the_nominations_of_lower_pods_on_the_chosen_node() -> None:
    cp = sim_cluster(1, NodeTemplate(cpu="2"))
    cp.apply(HIGH)
    cp.apply("{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: mid}, value: 50}")
    for name in ("low-a", "low-b"):
        cp.apply(pod_yaml(name, "sleep 1000", cpu="1", grace=30))
    cp.apply(pod_yaml("mid", "sleep 1000", cpu="1", extra_spec="\n  priorityClassName: mid"))
    assert get_pod(cp, "mid").status.nominated_node_name == "node-0"
    cp.advance(1)
    cp.apply(pod_yaml("high", "sleep 1000", cpu="1", extra_spec="\n  priorityClassName: high"))
    cp.advance(0.01)
    # high ignores the lower nominee, evicts the other low pod, and takes over the nomination
    assert get_pod(cp, "high").status.nominated_node_name == "node-0"
    assert not get_pod(cp, "mid").status.nominated_node_name  # upstream prepareCandidate
    assert [p.key for p in _scheduler(cp).snapshot.nominated_for("node-0", pod("any"))] == ["default/high"]
    cp.advance(40)
    assert get_pod(cp, "high").spec.node_name == "node-0" and get_pod(cp, "mid").spec.node_name == "node-0"
