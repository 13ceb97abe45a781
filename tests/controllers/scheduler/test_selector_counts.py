"""The snapshot's kept PodTopologySpread counts (:mod:`kbatch.controllers.scheduler.selector_counts`)
always equal counting every node's pods again, and scoring with them gives the scores of counting
node by node (upstream ``countPodsMatchSelector`` in PreScore and Score)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.plugins import pod_topology_spread as pts
from kbatch.controllers.scheduler.plugins.pod_topology_spread import (
    HOSTNAME,
    SCHEDULE_ANYWAY,
    ZONE,
    PodTopologySpread,
    _count,
)
from kbatch.controllers.scheduler.selector_counts import SelectorIndex
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import (
    LabelSelector,
    NodeSelectorRequirement,
    PodInfo,
    SpreadConstraint,
)

from .sched_builders import node, pod

_SELECTORS = [LabelSelector((("app", "a"),)), LabelSelector((("app", "b"),)),
              LabelSelector((("app", "a"), ("tier", "x"))),
              LabelSelector((), (NodeSelectorRequirement("tier", "Exists"),))]
_NODES = ("n0", "n1", "n2")
_OPS = st.lists(st.tuples(
    st.sampled_from(["add", "terminate", "remove", "relabel", "drop-node", "readd-node", "query"]),
    st.integers(0, 6), st.integers(0, 2), st.sampled_from(["a", "b"]), st.sampled_from(["ns1", "ns2"]),
    st.sampled_from(["z0", "z1", None])), max_size=50)


def _zone_node(name: str, zone: str | None):  # type: ignore[no-untyped-def]
    return node(name, labels={ZONE: zone} if zone else {})


def _expected(snapshot: Snapshot, selector: LabelSelector, namespace: str) -> tuple[dict, dict]:
    c = SpreadConstraint(1, HOSTNAME, SCHEDULE_ANYWAY, selector)
    per_node, per_zone = {}, {}
    for info in snapshot:
        count = _count(info.pods.values(), c, namespace)
        if count:
            per_node[info.name] = count
        zone = info.shape.labels.get(ZONE, "")
        per_zone[zone] = per_zone.get(zone, 0) + count
    return per_node, per_zone


def _step(snapshot: Snapshot, pods: dict[str, PodInfo], op: tuple[str, int, int, str, str, str | None],
          tier: str) -> None:
    """Apply one generated operation to the snapshot (``pods``: the pods added, by key)."""
    kind, index, where, app, namespace, zone = op
    key, target = f"p{index}", _NODES[where]
    if kind == "add":
        pods[key] = pod(key, namespace=namespace, labels={"app": app, "tier": tier})
        snapshot.add_pod(pods[key], target)
    elif kind == "terminate" and key in pods:
        pods[key] = replace(pods[key], terminating=True)
        snapshot.add_pod(pods[key], snapshot.node_of(pods[key].key) or target)
    elif kind == "remove" and key in pods:
        snapshot.remove_pod(pods.pop(key).key)
    elif kind == "relabel" and snapshot.get(target) is not None:
        snapshot.set_node(_zone_node(target, zone))
    elif kind == "drop-node":
        snapshot.remove_node(target)
    elif kind == "readd-node" and snapshot.get(target) is None:
        snapshot.set_node(_zone_node(target, zone))  # its orphaned pods come back


@settings(max_examples=150, deadline=None)
@given(_OPS)
def test_kept_counts_equal_a_fresh_count(ops: list[tuple[str, int, int, str, str, str | None]]) -> None:
    snapshot = Snapshot()
    for name in _NODES:
        snapshot.set_node(_zone_node(name, "z0"))
    pods: dict[str, PodInfo] = {}
    for op, index, where, app, namespace, zone in ops:
        _step(snapshot, pods, (op, index, where, app, namespace, zone), "x")
        for selector in _SELECTORS:
            kept = snapshot.selector_counts(namespace, selector)
            per_node, per_zone = _expected(snapshot, selector, namespace)
            assert kept.nodes == per_node
            nonzero = {v: n for v, n in per_zone.items() if n}
            assert {v: n for v, n in kept.domains(ZONE).items() if n} == nonzero


_FIRST_ASKED = [*_SELECTORS, LabelSelector((("app", "c"),)), LabelSelector((("app", "a"), ("tier", "y")))]


@settings(max_examples=150, deadline=None)
@given(_OPS, st.lists(st.integers(0, len(_FIRST_ASKED) - 1), max_size=50))
def test_a_selector_first_asked_for_late_counts_what_is_placed(
        ops: list[tuple[str, int, int, str, str, str | None]], asked: list[int]) -> None:
    """Each selector is built when first asked for, at any point of the history (from a scan, or from
    nothing when a pair of it is carried by no placed pod), and kept from then on; the per-pair
    carrier counts equal a fresh count of the placed pods' labels."""
    snapshot = Snapshot()
    for name in _NODES:
        snapshot.set_node(_zone_node(name, "z0"))
    pods: dict[str, PodInfo] = {}
    for step, (op, index, where, app, namespace, zone) in enumerate(ops):
        _step(snapshot, pods, (op, index, where, app, namespace, zone), "x" if index % 2 else "y")
        for selector in _FIRST_ASKED[:asked[step] + 1] if step < len(asked) else _FIRST_ASKED:
            kept = snapshot.selector_counts(namespace, selector)
            assert kept.nodes == _expected(snapshot, selector, namespace)[0]
        carried: dict[tuple[str, str], int] = {}
        for info in snapshot:
            for placed in info.pods.values():
                for pair in placed.labels.items():
                    carried[pair] = carried.get(pair, 0) + 1
        assert snapshot._selectors._carried == carried


def test_least_recently_used_selectors_are_dropped_and_rebuilt() -> None:
    index = SelectorIndex(lambda name: {})
    placed = [("n0", pod("x", labels={"app": "s0"}))]
    index.change(placed[0][1], "n0", 1)  # the index is told of what it scans
    first = index.get("default", LabelSelector((("app", "s0"),)), lambda: placed)
    for i in range(1, 300):
        index.get("default", LabelSelector((("app", f"s{i}"),)), lambda: placed)
    assert len(index) == 256
    again = index.get("default", LabelSelector((("app", "s0"),)), lambda: placed)
    assert again is not first and again.nodes == {"n0": 1}


_POD = st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 5))


@settings(max_examples=80, deadline=None)
@given(st.lists(_POD, max_size=30), st.lists(st.sampled_from(["z0", "z1", ""]), min_size=1, max_size=6),
       st.booleans())
def test_scores_from_kept_counts_equal_counting_node_by_node(
        placed: list[tuple[str, int]], zones: list[str], selected: bool) -> None:
    """System default spreading (a Service selects the pods) scored with the kept counts and with the
    node-by-node count: the same raw and normalized scores on every node."""
    snapshot = Snapshot()
    names = [f"n{i}" for i in range(len(zones))]
    for name, zone in zip(names, zones, strict=True):
        snapshot.set_node(_zone_node(name, zone or None))
    for i, (app, where) in enumerate(placed):
        snapshot.add_pod(pod(f"p{i}", labels={"app": app}), names[where % len(names)])
    plugin = PodTopologySpread()
    plugin.services.set("default", "svc", {"app": "a"} if selected else {"app": "nothing"})
    incoming = pod("incoming", labels={"app": "a"})
    nodes = snapshot.nodes()

    def scores(indexed: bool) -> list[int]:
        saved = pts._indexed_counts
        if not indexed:
            pts._indexed_counts = lambda *a: None  # type: ignore[assignment]
        try:
            state: dict = {}  # type: ignore[type-arg]
            plugin.pre_filter(state, incoming, snapshot)
            if plugin.pre_score(state, incoming, nodes) is not None:
                return []
            return plugin.normalize([plugin.score(state, incoming, n) for n in nodes])
        finally:
            pts._indexed_counts = saved

    assert scores(True) == scores(False)
