"""Property tests of the scheduler's decisions (issue 5, "Tests and benchmarks")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.plugins.node_resources_fit import insufficient
from kbatch.controllers.scheduler.plugins.node_unschedulable import UNSCHEDULABLE_TAINT
from kbatch.controllers.scheduler.plugins.taint_toleration import untolerated_taint
from kbatch.controllers.scheduler.types import Taint, Toleration

from .sched_builders import cluster, node, place, pod

HARD = ("NoSchedule", "NoExecute")
TAINTS = st.sampled_from([(), (Taint("gpu", "NoSchedule", "yes"),), (Taint("spot", "NoExecute"),),
                          (Taint("soft", "PreferNoSchedule"),)])
TOLERATIONS = st.sampled_from([(), (Toleration("gpu", "Equal", "yes", "NoSchedule"),),
                               (Toleration("spot", "Exists"),), (Toleration(operator="Exists"),)])
ZONES = st.sampled_from(["z1", "z2"])

nodes_st = st.lists(
    st.tuples(st.integers(1, 8), st.integers(1, 16), st.integers(1, 6), st.integers(0, 4), TAINTS, ZONES,
              st.booleans()),
    min_size=1, max_size=6,
)
pods_st = st.lists(
    st.tuples(st.integers(0, 4000), st.integers(0, 8), st.integers(0, 2), st.integers(0, 3), TOLERATIONS,
              st.one_of(st.none(), ZONES)),
    min_size=1, max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(nodes_st, pods_st, st.integers(0, 3), st.booleans())
def test_scheduler_never_overcommits_and_respects_taints_and_selectors(nodes, pods, seed, most) -> None:
    shapes = [node(f"n{i}", cpu=c, mem_gi=m, pods=p, gpu=g, taints=t, labels={"zone": z}, unschedulable=u)
              for i, (c, m, p, g, t, z, u) in enumerate(nodes)]
    algo = cluster(*shapes, seed=seed, preemption=False,
                   scoring_strategy="MostAllocated" if most else "LeastAllocated")
    placed, unplaced = {}, []
    for i, (cpu, mem, gpu, prio, tols, zone) in enumerate(pods):
        p = pod(f"p{i}", cpu_m=cpu, mem_gi=mem, gpu=gpu, priority=prio, tolerations=tols,
                node_selector=(("zone", zone),) if zone else ())
        where = place(algo, p)
        (unplaced.append(p) if where is None else placed.__setitem__(p.key, (p, where)))
    for info in algo.snapshot:
        for name, used in info.requested.items():
            assert used <= info.shape.allocatable.get(name, 0), (info, name)
    for p, where in placed.values():
        shape = algo.snapshot.get(where).shape  # type: ignore[union-attr]
        assert untolerated_taint(shape.taints, p.tolerations, ("NoSchedule", "NoExecute")) is None
        assert all(shape.labels.get(k) == v for k, v in p.node_selector)
        assert not shape.unschedulable or any(t.tolerates(UNSCHEDULABLE_TAINT) for t in p.tolerations)
    # every pod that could fit was placed: an unplaced pod fits nowhere in the final state
    for p in unplaced:
        for info in algo.snapshot:
            tolerates_cordon = any(t.tolerates(UNSCHEDULABLE_TAINT) for t in p.tolerations)
            cordon_ok = not info.shape.unschedulable or tolerates_cordon
            static_ok = (cordon_ok
                         and untolerated_taint(info.shape.taints, p.tolerations, HARD) is None
                         and all(info.shape.labels.get(k) == v for k, v in p.node_selector))
            assert not static_ok or insufficient(p, info), (p, info)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 8), min_size=2, max_size=12), st.integers(1, 60), st.integers(0, 5))
def test_batched_placement_always_takes_a_best_scoring_node(cpus, n_pods, seed) -> None:
    """The batch heap (signature reuse) picks, every time, a node that full scoring ranks best."""
    algo = cluster(*(node(f"n{i}", cpu=c) for i, c in enumerate(cpus)), seed=seed)
    for i in range(n_pods):
        p = pod(f"p{i}", cpu_m=500)
        state: dict = {}
        feasible = [n for n in algo.snapshot if not insufficient(p, n)]
        totals = algo._prioritize(p, state, feasible)
        best = {n.name for n, t in zip(feasible, totals, strict=True) if t == max(totals, default=0)}
        where = place(algo, p)
        assert (where in best) if feasible else where is None
