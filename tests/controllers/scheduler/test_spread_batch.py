"""The spread batch (:mod:`kbatch.controllers.scheduler.spread_batch`) decides exactly as scoring every
node of upstream's window does: same node, same next start index, same random draws, for pods a
Service selects (system-default topology spreading), with zones or without, windows smaller than the
cluster (``percentageOfNodesToScore``), full nodes, pods of other signatures and pods leaving."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.algorithm import Algorithm
from kbatch.controllers.scheduler.defaults import default_profile
from kbatch.controllers.scheduler.plugins import LEAST_ALLOCATED, MOST_ALLOCATED
from kbatch.controllers.scheduler.plugins.pod_topology_spread import ZONE, PodTopologySpread
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.spread_batch import SpreadBatch
from kbatch.controllers.scheduler.types import PodInfo

from .sched_builders import node, pod

_POD = st.tuples(st.sampled_from(["a", "b", "c"]),  # app label: Services select a and b
                 st.sampled_from([100, 500, 1500]),  # cpu request (m)
                 st.sampled_from(["ns1", "ns2"]),
                 st.integers(0, 9))  # 0: a pod placed earlier leaves first


def _algorithm(nodes: int, zones: list[str | None], cpus: list[int], percentage: int | None,
               seed: int, strategy: str = LEAST_ALLOCATED) -> Algorithm:
    snapshot = Snapshot()
    for i in range(nodes):
        zone = zones[i % len(zones)]
        snapshot.set_node(node(f"n{i:03}", cpu=cpus[i % len(cpus)], labels={ZONE: zone} if zone else {}))
    profile = default_profile(strategy, percentage_of_nodes_to_score=percentage)
    algo = Algorithm(profile, snapshot, random.Random(seed))
    spread = next(p for p in algo.profile.score if isinstance(p, PodTopologySpread))
    for namespace in ("ns1", "ns2"):
        spread.services.set(namespace, "svc-a", {"app": "a"})
        spread.services.set(namespace, "svc-b", {"app": "b"})
    return algo


def _run(algo: Algorithm, pods: list[tuple[str, int, str, int]]) -> list[tuple[str | None, int]]:
    placed: list[PodInfo] = []
    out = []
    for i, (app, cpu, namespace, leave) in enumerate(pods):
        if leave == 0 and placed:
            algo.forget(placed.pop(0).key)
        p = pod(f"p{i}", cpu_m=cpu, namespace=namespace, labels={"app": app})
        decision = algo.schedule(p, post_filter=False)
        if decision.node is not None:
            algo.assume(p, decision.node)
            placed.append(p)
        out.append((decision.node, algo.next_start))
    return out


@settings(max_examples=60, deadline=None)
@given(nodes=st.integers(1, 130),
       zones=st.lists(st.sampled_from(["z0", "z1", "z2", None]), min_size=1, max_size=4),
       cpus=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       percentage=st.sampled_from([None, 1, 30, 100]), seed=st.integers(0, 3),
       strategy=st.sampled_from([LEAST_ALLOCATED, MOST_ALLOCATED]),
       pods=st.lists(_POD, min_size=1, max_size=60))
def test_the_spread_batch_decides_as_scoring_every_node(
        nodes: int, zones: list[str | None], cpus: list[int], percentage: int | None, seed: int,
        strategy: str, pods: list[tuple[str, int, str, int]]) -> None:
    """MostAllocated packs while spreading spreads: the two pull apart, so the spread scores decide."""
    fast = _algorithm(nodes, zones, cpus, percentage, seed, strategy)
    ordinary = _algorithm(nodes, zones, cpus, percentage, seed, strategy)
    ordinary._spreader = None  # every attempt filters and scores the window, as upstream
    assert _run(fast, pods) == _run(ordinary, pods)
    assert fast.rng.random() == ordinary.rng.random()  # the same draws were taken


def test_the_batch_is_used_and_kept_in_step() -> None:
    """Pods of one Service are placed from the batch, which is built once while only its own pods
    are assumed (and rebuilt after any other change)."""
    algo = _algorithm(120, ["z0", "z1", None], [8], None, 0)
    builds = []
    original = SpreadBatch.build.__func__  # type: ignore[attr-defined]

    def counting(cls, *args):  # type: ignore[no-untyped-def]
        builds.append(args[0])
        return original(cls, *args)

    SpreadBatch.build = classmethod(counting)  # type: ignore[method-assign,assignment]
    try:
        for i in range(200):
            p = pod(f"p{i}", cpu_m=500, namespace="ns1", labels={"app": "a"})
            node_name = algo.schedule(p).node
            assert node_name is not None
            algo.assume(p, node_name)
        assert len(builds) == 1
        algo.forget("ns1/p0")
        p = pod("late", cpu_m=500, namespace="ns1", labels={"app": "a"})
        assert algo.schedule(p).node is not None
        assert len(builds) == 2
    finally:
        SpreadBatch.build = classmethod(original)  # type: ignore[method-assign,assignment]


def test_spread_is_kept_by_the_batch() -> None:
    """Ten pods of one Service on ten equal nodes without zones land on ten different nodes (the
    system default hostname spreading), as scoring every node does."""
    algo = _algorithm(10, [None], [64], None, 3)
    chosen = []
    for i in range(10):
        p = pod(f"p{i}", cpu_m=100, namespace="ns1", labels={"app": "a"})
        name = algo.schedule(p).node
        assert name is not None
        algo.assume(p, name)
        chosen.append(name)
    assert len(set(chosen)) == 10
    assert algo._spread is not None


def test_spread_beats_packing_where_it_outweighs_it() -> None:
    """MostAllocated prefers the node already holding a pod; the hostname spreading (weight 2) outweighs
    that small difference, so the second pod goes to the other node (without the spread scores it
    would not: the batch must score spreading)."""
    algo = _algorithm(2, [None], [64], None, 0, MOST_ALLOCATED)
    first = pod("p0", cpu_m=1000, namespace="ns1", labels={"app": "a"})
    where = algo.schedule(first).node
    assert where is not None
    algo.assume(first, where)
    second = pod("p1", cpu_m=1000, namespace="ns1", labels={"app": "a"})
    assert algo.schedule(second).node not in (None, where)
    assert algo._spread is not None
