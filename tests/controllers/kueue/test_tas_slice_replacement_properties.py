"""Properties of a failed node's replacement for a sliced pod set (kbatch.controllers.kueue.tas.
replacement, upstream ``tas_flavor_snapshot.go`` ``findReplacementAssignment``,
``requiredReplacementDomain``, ``findIncompleteSliceDomain``) over random three-level topologies:
a pod set placed in whole slices of its slice level loses one host; when a replacement is found,
every domain of the slice level still holds a whole number of slices, the pod set keeps its pod
count, the failed host holds none of it, and a required pod set stays inside its domain. When the
lost pods broke a slice, the replacement stays inside that slice's domain."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue.tas.replacement import find_replacement
from kbatch.controllers.kueue.tas.snapshot import HOSTNAME, PodSetTASRequest, TASFlavorSnapshot, TASNode

LEVELS = ("block", "rack", HOSTNAME)
Scenario = tuple[list[TASNode], PodSetTASRequest, int]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    nodes = []
    for b in range(draw(st.integers(1, 2))):
        for r in range(draw(st.integers(1, 3))):
            for h in range(draw(st.integers(1, 4))):
                name = f"b{b}-r{r}-h{h}"
                nodes.append(TASNode(name, {"block": f"b{b}", "rack": f"b{b}-r{r}", HOSTNAME: name},
                                     {"cpu": draw(st.integers(0, 4)) * 1000, "pods": 10}))
    size = draw(st.integers(1, 4))
    slice_level = draw(st.sampled_from(["rack", HOSTNAME]))
    level = draw(st.sampled_from(["block", "rack"]))
    required = draw(st.booleans())
    cpu = draw(st.sampled_from([500, 1000]))
    req = PodSetTASRequest("main", size * draw(st.integers(1, 4)), {"cpu": cpu},
                           required=level if required else None, preferred=None if required else level,
                           slice_layers=((slice_level, size),))
    return nodes, req, draw(st.integers(0, 100))


def _snapshot(nodes: list[TASNode], gone: str = "") -> TASFlavorSnapshot:
    return TASFlavorSnapshot("t", LEVELS, [n for n in nodes if n.name != gone])


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_a_replacement_keeps_whole_slices(scenario: Scenario) -> None:
    nodes, req, pick = scenario
    placed = _snapshot(nodes).find(req)
    if placed.failure:
        return
    by_name = {n.name: n for n in nodes}
    slice_level, size = req.slice_layers[0]
    depth = LEVELS.index(slice_level) + 1

    def slice_domain(host: str) -> tuple[str, ...]:
        return tuple(by_name[host].labels[k] for k in LEVELS[:depth])

    failed = placed.domains[pick % len(placed.domains)][0][0]
    lost = dict(placed.domains)[(failed,)]
    snap = _snapshot(nodes, gone=failed)
    snap.add_usage([d for d in placed.domains if d[0][0] != failed], req.single_pod)  # the Workload's own
    got = find_replacement(snap, req, placed.levels, placed.domains, failed, {})
    if got.failure:
        return
    final = {h: c for (h,), c in got.result.domains}
    assert sum(final.values()) == req.count and failed not in final
    per: dict[tuple[str, ...], int] = {}
    for h, c in final.items():
        per[slice_domain(h)] = per.get(slice_domain(h), 0) + c
    assert all(c % size == 0 for c in per.values()), per
    kept = [h for (h,), _ in placed.domains if h != failed]
    if lost % size and kept:  # the broken slice is completed where it was
        assert {slice_domain(h) for (h,), _ in got.added} == {slice_domain(failed)}
    if req.required is not None and kept:
        top = LEVELS.index(req.required) + 1
        assert len({tuple(by_name[h].labels[k] for k in LEVELS[:top]) for h in final}) == 1
