"""Properties of preferred node affinity in the TAS search (``TASRespectNodeAffinityPreferred``,
kubernetes-sigs/kueue v0.19.2 ``tas_flavor_snapshot.go``: ``affinityScore``, ``sortedDomains``,
``topAffinityTierDomains``, ``findLevelWithFitDomains``) over random three-level topologies:

* the gate on never costs a placement: a pod set that fits without it fits with it, and the
  placement still holds exactly its pods within free capacity;
* a required level's domain is a best-scored one among those that can hold the pod set, whatever
  domain the placement policy (BestFit) would pick without the gate;
* a single pod asking for a host (required) or for none (unconstrained: LeastFreeCapacity) lands on
  a best-scored node that has room for it (a ``preferred`` request climbs a level instead when the
  best-scored domain has no room, as upstream's "bubbles up to parent level" row shows, so it is
  not held to this);
* with no preferred term, or only terms no node matches, the gate changes nothing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue.tas.snapshot import (
    HOSTNAME,
    PodSetTASRequest,
    TASFlavorSnapshot,
    TASNode,
    TopologyResult,
    count_in,
)
from kbatch.controllers.scheduler.types import NodeSelectorRequirement, NodeSelectorTerm, WeightedTerm

LEVELS = ("block", "rack", HOSTNAME)


@st.composite
def clusters(draw: st.DrawFn) -> list[TASNode]:
    nodes = []
    for b in range(draw(st.integers(1, 3))):
        for r in range(draw(st.integers(1, 3))):
            for h in range(draw(st.integers(1, 3))):
                name = f"b{b}-r{r}-h{h}"
                labels = {"block": f"b{b}", "rack": f"b{b}-r{r}", HOSTNAME: name}
                labels["tier"] = draw(st.sampled_from(["gold", "silver", "none"]))
                free = {"cpu": draw(st.integers(0, 4)) * 1000, "pods": draw(st.integers(0, 5))}
                nodes.append(TASNode(name, labels, free))
    return nodes


def _term(weight: int, value: str) -> WeightedTerm:
    return WeightedTerm(weight, NodeSelectorTerm((NodeSelectorRequirement("tier", "In", (value,)),)))


preferences = st.lists(
    st.builds(_term, st.integers(1, 100), st.sampled_from(["gold", "silver"])), min_size=1, max_size=2
)


def _request(kind: str, level: str, count: int, terms: tuple[WeightedTerm, ...]) -> PodSetTASRequest:
    return PodSetTASRequest(
        "main", count, {"cpu": 1000},
        required=level if kind == "required" else None,
        preferred=level if kind == "preferred" else None,
        unconstrained=kind == "unconstrained",
        preferred_affinity=terms,
    )


def _score(node: TASNode, terms: tuple[WeightedTerm, ...]) -> int:
    return sum(t.weight for t in terms if t.term.matches(node.labels, node.name))


def _find(nodes: list[TASNode], req: PodSetTASRequest, gate: bool) -> TopologyResult:
    return TASFlavorSnapshot("t", LEVELS, nodes, respect_preferred=gate).find(req)


@settings(max_examples=200, deadline=None)
@given(
    clusters(), preferences, st.sampled_from(["required", "preferred", "unconstrained"]),
    st.sampled_from(LEVELS), st.integers(1, 10),
)
def test_the_gate_never_costs_a_placement(
    nodes: list[TASNode], terms: list[WeightedTerm], kind: str, level: str, count: int
) -> None:
    req = _request(kind, level, count, tuple(terms))
    off, on = _find(nodes, req, False), _find(nodes, req, True)
    if not off.failure:
        assert not on.failure, on.failure
    if on.failure:
        return
    by_name = {n.name: n for n in nodes}
    assert sum(c for _, c in on.domains) == count
    for (host,), c in on.domains:
        assert c <= count_in(by_name[host].free, {"cpu": 1000, "pods": 1})[0]


@settings(max_examples=200, deadline=None)
@given(clusters(), preferences, st.sampled_from(["block", "rack"]), st.integers(1, 8))
def test_a_required_domain_is_a_best_scored_one_that_holds_the_pod_set(
    nodes: list[TASNode], terms: list[WeightedTerm], level: str, count: int
) -> None:
    req = _request("required", level, count, tuple(terms))
    got = _find(nodes, req, True)
    holds: dict[str, int] = {}
    score: dict[str, int] = {}
    for n in nodes:
        key = n.labels[level]
        holds[key] = holds.get(key, 0) + count_in(n.free, {"cpu": 1000, "pods": 1})[0]
        score[key] = score.get(key, 0) + _score(n, req.preferred_affinity)
    fitting = [k for k in holds if holds[k] >= count]
    assert bool(got.failure) == (not fitting)
    if fitting:
        by_name = {n.name: n for n in nodes}
        chosen = {by_name[host].labels[level] for (host,), _ in got.domains}
        assert len(chosen) == 1
        assert score[chosen.pop()] == max(score[k] for k in fitting)


@settings(max_examples=200, deadline=None)
@given(clusters(), preferences, st.sampled_from(["required", "unconstrained"]))
def test_a_single_pod_lands_on_a_best_scored_node_with_room(
    nodes: list[TASNode], terms: list[WeightedTerm], kind: str
) -> None:
    req = _request(kind, HOSTNAME, 1, tuple(terms))
    got = _find(nodes, req, True)
    room = [n for n in nodes if count_in(n.free, {"cpu": 1000, "pods": 1})[0] >= 1]
    assert bool(got.failure) == (not room)
    if room:
        ((host,), _), = got.domains
        best = max(_score(n, req.preferred_affinity) for n in room)
        assert _score(next(n for n in nodes if n.name == host), req.preferred_affinity) == best


@settings(max_examples=200, deadline=None)
@given(
    clusters(), st.sampled_from([(), (_term(5, "platinum"),)]),
    st.sampled_from(["required", "preferred", "unconstrained"]), st.sampled_from(LEVELS), st.integers(1, 10),
)
def test_no_matching_term_means_no_change(
    nodes: list[TASNode], terms: tuple[WeightedTerm, ...], kind: str, level: str, count: int
) -> None:
    req = _request(kind, level, count, terms)
    assert _find(nodes, req, True) == _find(nodes, req, False)
