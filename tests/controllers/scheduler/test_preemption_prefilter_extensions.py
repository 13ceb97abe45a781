"""Preemption's what-if with PreFilter extensions (upstream ``SelectVictimsOnNode`` calling
``RunPreFilterExtensionRemovePod``/``AddPod``): a victim's removal changes InterPodAffinity's and
PodTopologySpread's counts, and the scheduling cycle's own state is left as it was."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.plugins.inter_pod_affinity import (
    ERR_ANTI_AFFINITY,
    ERR_EXISTING_ANTI_AFFINITY,
)
from kbatch.controllers.scheduler.types import LabelSelector, PodAffinityTerm, SpreadConstraint

from .sched_builders import cluster, node, pod

ZONE = "topology.kubernetes.io/zone"


def _hates(app: str, key: str = ZONE) -> tuple[PodAffinityTerm, ...]:
    return (PodAffinityTerm(LabelSelector((("app", app),)), key),)


def test_preempting_the_pod_the_anti_affinity_hates_frees_its_zone() -> None:
    algo = cluster(node("n0", labels={ZONE: "a"}), node("n1", labels={ZONE: "a"}, cpu=1))
    algo.assume(pod("db", priority=0, labels={"app": "db"}), "n0")
    algo.assume(pod("filler", priority=100, cpu_m=1000), "n1")
    decision = algo.schedule(pod("web", priority=10, cpu_m=500, anti_affinity=_hates("db")))
    assert decision.node is None and decision.diagnosis is not None
    reasons = {s.message for s in decision.diagnosis.statuses.values()}
    assert reasons == {ERR_ANTI_AFFINITY, "Insufficient cpu"}
    assert decision.preemption is not None and decision.preemption.nominated_node == "n0"
    assert [v.name for v in decision.preemption.victims] == ["db"]


def test_a_hated_pod_elsewhere_in_the_zone_is_out_of_reach() -> None:
    algo = cluster(node("n0", labels={ZONE: "a"}), node("n1", labels={ZONE: "a"}))
    algo.assume(pod("db0", priority=0, labels={"app": "db"}), "n0")
    algo.assume(pod("db1", priority=100, labels={"app": "db"}), "n1")
    decision = algo.schedule(pod("web", priority=10, anti_affinity=_hates("db")))
    assert decision.preemption is not None and decision.preemption.nominated_node is None


def test_preempting_an_existing_pods_anti_affinity() -> None:
    algo = cluster(node("n0", labels={ZONE: "a"}))
    algo.assume(pod("guard", priority=0, anti_affinity=_hates("web")), "n0")
    decision = algo.schedule(pod("web", priority=10, labels={"app": "web"}))
    assert decision.diagnosis is not None
    assert [s.message for s in decision.diagnosis.statuses.values()] == [ERR_EXISTING_ANTI_AFFINITY]
    assert decision.preemption is not None and [v.name for v in decision.preemption.victims] == ["guard"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["db", "web", "x"]), st.integers(0, 20)),
                max_size=10),
       st.sampled_from(["anti", "spread", "both"]), st.integers(5, 15))
def test_preemption_never_changes_the_cycle_state_and_its_victims_make_room(placed, kind, priority) -> None:
    """The extensions work on a copy; evicting the victims the what-if chose makes the pod fit on
    the nominated node in a fresh attempt (upstream's invariant for a nomination)."""
    algo = cluster(*(node(f"n{i}", labels={ZONE: "ab"[i % 2]}, cpu=2) for i in range(4)))
    for index, (where, app, prio) in enumerate(placed):
        algo.assume(pod(f"p{index}", priority=prio, cpu_m=500, labels={"app": app}), f"n{where}")
    spread = (SpreadConstraint(1, ZONE, "DoNotSchedule", LabelSelector((("app", "web"),))),)
    incoming = pod("new", priority=priority, cpu_m=500, labels={"app": "web"},
                   anti_affinity=_hates("db", "kubernetes.io/hostname") if kind != "spread" else (),
                   spread_constraints=spread if kind != "anti" else ())
    decision = algo.schedule(incoming)
    if decision.node is not None or decision.preemption is None or decision.preemption.nominated_node is None:
        return
    before = {k: (dict(v.domains[0]) if hasattr(v, "domains") else None) for k, v in decision.state.items()
              if k.endswith("/filter")}
    target = decision.preemption.nominated_node
    for victim in decision.preemption.victims:
        algo.forget(victim.key)
    assert {k: (dict(v.domains[0]) if hasattr(v, "domains") else None) for k, v in decision.state.items()
            if k.endswith("/filter")} == before
    retry = algo.schedule(incoming)
    assert retry.node is not None
    filters = algo.profile.filter
    assert algo._run(filters, retry.state, incoming, algo.snapshot.get(target)) is None
