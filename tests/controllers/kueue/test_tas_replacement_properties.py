"""Properties of a failed node's replacement (kbatch.controllers.kueue.tas.replacement) over random
three-level topologies with other Workloads' TAS usage: a pod set placed under a required level
loses one host (it leaves the snapshot, as a node that is not Ready does); the replacement keeps
every pod inside the originally required domain, places exactly the pod set's pods, never puts more
on a host than its free capacity less the usage holds (the Workload's own remaining pods counted),
and fails only when the required domain's other hosts cannot hold the lost pods."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue.tas.replacement import _within, find_replacement
from kbatch.controllers.kueue.tas.snapshot import (
    HOSTNAME,
    PodSetTASRequest,
    TASFlavorSnapshot,
    TASNode,
    count_in,
)

LEVELS = ("block", "rack", HOSTNAME)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[TASNode], dict[str, int], PodSetTASRequest, int]:
    nodes, used = [], {}
    for b in range(draw(st.integers(1, 2))):
        for r in range(draw(st.integers(1, 3))):
            for h in range(draw(st.integers(1, 4))):
                name = f"b{b}-r{r}-h{h}"
                nodes.append(TASNode(name, {"block": f"b{b}", "rack": f"b{b}-r{r}", HOSTNAME: name},
                                     {"cpu": draw(st.integers(0, 4)) * 1000, "pods": 10}))
                used[name] = draw(st.integers(0, 2)) * 500  # other Workloads' TAS usage
    level = draw(st.sampled_from(["block", "rack"]))
    req = PodSetTASRequest("main", draw(st.integers(1, 8)), {"cpu": draw(st.sampled_from([500, 1000]))},
                           required=level)
    return nodes, used, req, draw(st.integers(0, 100))


def _snapshot(nodes: list[TASNode], used: dict[str, int], gone: str = "") -> TASFlavorSnapshot:
    snap = TASFlavorSnapshot("t", LEVELS, [n for n in nodes if n.name != gone])
    for n in nodes:
        if n.name != gone and used[n.name]:
            snap.add_usage([((n.name,), 1)], {"cpu": used[n.name] - 0})
    return snap


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_a_replacement_stays_in_the_required_domain_within_capacity(
    scenario: tuple[list[TASNode], dict[str, int], PodSetTASRequest, int],
) -> None:
    nodes, used, req, pick = scenario
    placed = _snapshot(nodes, used).find(req)
    if placed.failure:
        return
    by_name = {n.name: n for n in nodes}
    depth = LEVELS.index(req.required or "") + 1
    domain = {tuple(by_name[h].labels[k] for k in LEVELS[:depth]) for (h,), _ in placed.domains}
    assert len(domain) == 1
    failed = placed.domains[pick % len(placed.domains)][0][0]
    snap = _snapshot(nodes, used, gone=failed)
    snap.add_usage([d for d in placed.domains if d[0][0] != failed], req.single_pod)  # the Workload's own
    got = find_replacement(snap, req, placed.levels, placed.domains, failed, {})
    lost = dict(placed.domains)[(failed,)]
    kept = {h: c for (h,), c in placed.domains if h != failed}
    one = {**req.single_pod, "pods": 1}
    room = {}  # what each other host holds for the lost pods (other usage and the kept pods taken)
    for n in nodes:
        if n.name != failed:
            left = {"cpu": n.free["cpu"] - used[n.name] - kept.get(n.name, 0) * req.single_pod["cpu"],
                    "pods": n.free["pods"] - (1 if used[n.name] else 0) - kept.get(n.name, 0)}
            room[n.name] = count_in(left, one)[0]

    def key(host: str) -> tuple[str, ...]:
        return tuple(by_name[host].labels[k] for k in LEVELS[:depth])

    if got.failure:
        if kept:  # only the required domain is searched
            assert sum(r for h, r in room.items() if key(h) in domain) < lost
        else:  # the whole topology, one domain of the required level
            per: dict[tuple[str, ...], int] = {}
            for h, r in room.items():
                per[key(h)] = per.get(key(h), 0) + r
            assert max(per.values(), default=0) < lost
        return
    final = {h: c for (h,), c in got.result.domains}
    assert sum(final.values()) == req.count
    assert failed not in final
    if kept:  # the required domain holds every pod
        assert {key(h) for h in final} == domain
    for (h,), c in got.added:
        assert c <= room[h]  # no host over capacity
        assert final[h] == kept.get(h, 0) + c


@given(st.booleans(), st.booleans(), st.sampled_from([("b0",), ("b0", "b0-r1")]))
def test_a_search_confined_to_a_replacement_domain_keeps_the_flavors_placement_gates(
        balanced: bool, preferred: bool, prefix: tuple[str, ...]) -> None:
    """Upstream confines the replacement search by an option of the same snapshot's
    ``findTopologyAssignment`` (``requiredReplacementDomain``), so ``TASBalancedPlacement`` and
    ``TASRespectNodeAffinityPreferred`` shape it as they shape any search; kbatch's confined copy of
    the snapshot dropped the balanced flag."""
    nodes = [TASNode(f"b0-r{r}-h0", {"block": "b0", "rack": f"b0-r{r}", HOSTNAME: f"b0-r{r}-h0"},
                     {"cpu": 1000, "pods": 10}) for r in range(2)]
    snap = TASFlavorSnapshot("t", LEVELS, nodes, balanced=balanced, respect_preferred=preferred)
    sub = _within(snap, prefix)
    assert (sub.balanced, sub.respect_preferred) == (balanced, preferred)
    assert all(leaf[:len(prefix)] == prefix for leaf in sub.leaf_free) and sub.leaf_free
