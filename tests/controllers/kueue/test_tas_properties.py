"""Properties of the TAS search (kbatch.controllers.kueue.tas.snapshot) over random three-level
topologies: an assignment places exactly the pod set's pods, never more on a host than its free
capacity holds, inside one domain of the required level; a failure happens only when no domain of
that level could hold them; the answer does not depend on the order nodes are listed in."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue.tas.snapshot import (
    HOSTNAME,
    PodSetTASRequest,
    TASFlavorSnapshot,
    TASNode,
    count_in,
)

LEVELS = ("block", "rack", HOSTNAME)


@st.composite
def clusters(draw: st.DrawFn) -> list[TASNode]:
    nodes = []
    for b in range(draw(st.integers(1, 3))):
        for r in range(draw(st.integers(1, 3))):
            for h in range(draw(st.integers(1, 3))):
                name = f"b{b}-r{r}-h{h}"
                free = {"cpu": draw(st.integers(0, 4)) * 1000, "pods": draw(st.integers(0, 5))}
                nodes.append(TASNode(name, {"block": f"b{b}", "rack": f"b{b}-r{r}", HOSTNAME: name}, free))
    return nodes


requests = st.builds(
    lambda level, kind, count, cpu: PodSetTASRequest(
        "main", count, {"cpu": cpu},
        required=level if kind == "required" else None,
        preferred=level if kind == "preferred" else None,
        unconstrained=kind == "unconstrained",
    ),
    st.sampled_from(LEVELS),
    st.sampled_from(["required", "preferred", "unconstrained"]),
    st.integers(1, 12),
    st.sampled_from([500, 1000, 2000]),
)


@settings(max_examples=300, deadline=None)
@given(clusters(), requests, st.randoms(use_true_random=False))
def test_an_assignment_places_every_pod_within_free_capacity_and_is_order_independent(
    nodes: list[TASNode], req: PodSetTASRequest, rnd: random.Random
) -> None:
    snap = TASFlavorSnapshot("t", LEVELS, nodes)
    got = snap.find(req)
    shuffled = list(nodes)
    rnd.shuffle(shuffled)
    assert TASFlavorSnapshot("t", LEVELS, shuffled).find(req) == got  # deterministic
    by_name = {n.name: n for n in nodes}
    one = {"cpu": req.single_pod["cpu"], "pods": 1}
    level = LEVELS.index(req.required or req.preferred or HOSTNAME)
    holds = {}  # pods each domain of the requested level holds
    for n in nodes:
        key = tuple(n.labels[k] for k in LEVELS[: level + 1])
        holds[key] = holds.get(key, 0) + count_in(n.free, one)[0]
    if got.failure:
        assert got.domains == ()
        if req.required is not None:
            assert max(holds.values()) < req.count
        else:
            assert sum(holds.values()) < req.count
        return
    assert got.levels == (HOSTNAME,)
    assert sum(c for _, c in got.domains) == req.count
    assert all(c > 0 for _, c in got.domains)
    for (host,), count in got.domains:
        assert count <= count_in(by_name[host].free, one)[0]
    if req.required is not None:
        used = {tuple(by_name[h].labels[k] for k in LEVELS[: level + 1]) for (h,), _ in got.domains}
        assert len(used) == 1
    assert [v for v, _ in got.domains] == sorted(
        (v for v, _ in got.domains), key=lambda v: tuple(by_name[v[0]].labels[k] for k in LEVELS)
    )


@settings(max_examples=100, deadline=None)
@given(clusters(), requests)
def test_usage_added_for_an_assignment_leaves_no_room_for_it_twice_when_it_filled_its_hosts(
    nodes: list[TASNode], req: PodSetTASRequest
) -> None:
    """``fits`` (the cycle's second look) holds right after the search and TAS usage is charged as
    the pods' requests: a host filled by the assignment has nothing left."""
    snap = TASFlavorSnapshot("t", LEVELS, nodes)
    got = snap.find(req)
    if got.failure:
        return
    assert snap.fits(got.domains, req.single_pod)
    snap.add_usage(got.domains, req.single_pod)
    by_name = {n.name: n for n in nodes}
    one = {"cpu": req.single_pod["cpu"], "pods": 1}
    for (host,), count in got.domains:
        leaf = tuple(by_name[host].labels[k] for k in LEVELS)
        left = count_in(by_name[host].free, one)[0] - count
        assert snap.fits([((host,), left)], req.single_pod) if left > 0 else True
        assert not snap.fits([((host,), left + 1)], req.single_pod)
        assert snap.usage[leaf]["pods"] == count
