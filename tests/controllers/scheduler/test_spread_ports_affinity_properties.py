"""Property tests of PodTopologySpread (DoNotSchedule), NodePorts and InterPodAffinity scoring."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.types import (
    HostPort,
    LabelSelector,
    PodAffinityTerm,
    SpreadConstraint,
    WeightedPodAffinityTerm,
)

from .sched_builders import cluster, node, place, pod

ZONE = "topology.kubernetes.io/zone"
APP = LabelSelector((("app", "web"),))


def _skews(algo, key: str, selector: LabelSelector, namespace: str = "default") -> dict[str, int]:
    counts: dict[str, int] = {}
    for info in algo.snapshot:
        value = info.shape.labels.get(key)
        if value is None:
            continue
        matching = sum(1 for p in info.pods.values()
                       if p.namespace == namespace and selector.matches(p.labels))
        counts[value] = counts.get(value, 0) + matching
    return counts


nodes_st = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 4)), min_size=1, max_size=7)


@settings(max_examples=60, deadline=None)
@given(nodes_st, st.integers(1, 3), st.integers(1, 25), st.lists(st.booleans(), max_size=25),
       st.integers(0, 3))
def test_do_not_schedule_never_places_beyond_max_skew(nodes, max_skew, count, matching, seed) -> None:
    """Every placement keeps count(domain) + 1 - min over domains <= maxSkew, so the final skew of
    matching pods among the (all eligible) zones never exceeds maxSkew."""
    shapes = [node(f"n{i}", cpu=cpu, labels={ZONE: zone}) for i, (zone, cpu) in enumerate(nodes)]
    algo = cluster(*shapes, seed=seed, preemption=False)
    constraint = SpreadConstraint(max_skew, ZONE, "DoNotSchedule", APP)
    for i in range(count):
        labels = {"app": "web"} if i >= len(matching) or matching[i] else {"app": "other"}
        p = pod(f"p{i}", cpu_m=1000, labels=labels, spread_constraints=(constraint,))
        before = _skews(algo, ZONE, APP)
        where = place(algo, p)
        if where is None or labels["app"] != "web":
            continue
        zone = algo.snapshot.get(where).shape.labels[ZONE]  # type: ignore[union-attr]
        assert before.get(zone, 0) + 1 - min(before.values()) <= max_skew
    counts = _skews(algo, ZONE, APP)  # counts only grow, so the minimum never drops
    assert max(counts.values()) - min(counts.values()) <= max_skew


def _clash(a: HostPort, b: HostPort) -> bool:
    """The oracle, from the API docs: same protocol and port, and the same hostIP or either one
    binding all addresses."""
    same = (a.port, a.protocol) == (b.port, b.protocol)
    return same and (a.ip == b.ip or "0.0.0.0" in (a.ip, b.ip))


def _conflicts(want: tuple[HostPort, ...], used: list[HostPort]) -> bool:
    return any(_clash(w, u) for w in want for u in used)


ports_st = st.lists(
    st.tuples(st.sampled_from(["", "10.0.0.1", "10.0.0.2", "0.0.0.0"]), st.sampled_from(["TCP", "UDP"]),
              st.sampled_from([80, 443])),
    min_size=0, max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.lists(ports_st, min_size=1, max_size=15), st.integers(0, 3))
def test_never_two_pods_with_conflicting_host_ports_on_a_node(n_nodes, pods, seed) -> None:
    algo = cluster(*[node(f"n{i}") for i in range(n_nodes)], seed=seed, preemption=False)
    for i, ports in enumerate(pods):
        host = tuple(HostPort(ip or "0.0.0.0", proto, port) for ip, proto, port in ports)
        placed = place(algo, pod(f"p{i}", host_ports=host))
        if placed is None:  # it conflicts on every node
            assert host and all(_conflicts(host, [u for o in n.pods.values() for u in o.host_ports])
                                for n in algo.snapshot)
    for info in algo.snapshot:
        pods_here = list(info.pods.values())
        for i, a in enumerate(pods_here):
            for b in pods_here[i + 1:]:
                assert not _conflicts(a.host_ports, list(b.host_ports)), (a, b)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 5), st.integers(1, 100), st.integers(0, 5))
def test_preferred_affinity_lands_on_the_only_matching_domain(n_nodes, target, weight, seed) -> None:
    """Equal nodes, one running a pod the preferred term selects: the pod goes there."""
    target %= n_nodes
    algo = cluster(*[node(f"n{i}") for i in range(n_nodes)], seed=seed, preemption=False)
    algo.assume(pod("anchor", labels={"app": "db"}), f"n{target}")
    term = PodAffinityTerm(LabelSelector((("app", "db"),)), "kubernetes.io/hostname")
    p = pod("p", preferred_affinity=(WeightedPodAffinityTerm(weight, term),))
    assert place(algo, p) == f"n{target}"


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 5), st.integers(1, 100), st.integers(0, 5))
def test_preferred_anti_affinity_avoids_the_matching_domain(n_nodes, target, weight, seed) -> None:
    target %= n_nodes
    algo = cluster(*[node(f"n{i}") for i in range(n_nodes)], seed=seed, preemption=False)
    algo.assume(pod("anchor", labels={"app": "db"}), f"n{target}")
    term = PodAffinityTerm(LabelSelector((("app", "db"),)), "kubernetes.io/hostname")
    p = pod("p", preferred_anti_affinity=(WeightedPodAffinityTerm(weight, term),))
    assert place(algo, p) != f"n{target}"
