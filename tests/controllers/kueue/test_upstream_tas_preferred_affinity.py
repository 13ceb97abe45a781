"""Kueue's preferred node affinity in TAS (``TASRespectNodeAffinityPreferred``, alpha, off), from
kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_cache_test.go`` (``TestFindTopologyAssignments``
rows "with preferred affinity" … "LWS with leader and workers; preferred affinity on workers; leader
cannot fit on preferred zone") and ``tas_flavor_snapshot_test.go`` (``TestSortedDomains``,
``TestSortedDomainsWithLeader``), run through kbatch's search.

Each search row runs with the gate on (upstream's want) and with it off, where the preferred terms
must change nothing: the answer is the one the same request without them gets.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kbatch.api.core_v1 import Node
from kbatch.api.kueue_v1beta2 import ResourceFlavor
from kbatch.controllers.kueue.tas.cluster import build_snapshot
from kbatch.controllers.kueue.tas.search import Domain, best_fit, sorted_domains, sorted_with_leader
from kbatch.controllers.kueue.tas.snapshot import PodSetTASRequest, TopologyResult
from kbatch.controllers.scheduler.types import NodeSelectorRequirement, NodeSelectorTerm, WeightedTerm

RACK, BLOCK, SWITCH = "cloud.com/topology-rack", "cloud.com/topology-block", "cloud.com/topology-switch"
ZONE, HOST = "cloud.com/topology-zone", "kubernetes.io/hostname"
GI = 1024**3


class _Cache:
    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes

    def list(self, kind: type) -> list[Any]:
        return self.nodes if kind is Node else []


def _node(name: str, labels: dict[str, str], cpu: str, extra: dict[str, str] | None = None) -> Node:
    allocatable = {"cpu": cpu, "pods": "10", **(extra or {})}
    return Node.model_validate(
        {
            "metadata": {"name": name, "labels": {HOST: name, **labels}},
            "status": {"allocatable": allocatable, "conditions": [{"type": "Ready", "status": "True"}]},
        }
    )


def _pref(*terms: tuple[int, str, str]) -> tuple[WeightedTerm, ...]:
    """``MakePreferredSchedulingTerms().Term(weight, key, In, value)``."""
    return tuple(
        WeightedTerm(w, NodeSelectorTerm((NodeSelectorRequirement(k, "In", (v,)),))) for w, k, v in terms
    )


def _in(key: str, value: str) -> tuple[NodeSelectorTerm, ...]:
    return (NodeSelectorTerm((NodeSelectorRequirement(key, "In", (value,)),)),)


def _search(levels: list[str], nodes: list[Node], req: PodSetTASRequest, gate: bool) -> TopologyResult:
    flavor = ResourceFlavor.model_validate({"metadata": {"name": "tas"}, "spec": {}})
    snap = build_snapshot(_Cache(nodes), flavor, "default", tuple(levels))
    snap.respect_preferred = gate
    return snap.find(req)


def _hosts(result: TopologyResult) -> list[tuple[str, int]]:
    assert not result.failure, result.failure
    assert result.levels == (HOST,)
    return [(values[0], count) for values, count in result.domains]


def _req(count: int, cpu: int = 1000, **kw: Any) -> PodSetTASRequest:
    return PodSetTASRequest("main", count, {"cpu": cpu}, **kw)


def _flat(labels: dict[str, tuple[str, str]]) -> list[Node]:
    """The flat-topology rows' nodes: name -> (cpu, type label or "")."""
    return [_node(n, {"type": t} if t else {}, cpu) for n, (cpu, t) in labels.items()]


TYPE_PREFERRED = _pref((10, "type", "preferred"))
FLAT_PAIRS = {  # the "size 2 pods x 2" rows' nodes
    "node-1-pref-2": ("2", "preferred"), "node-2-pref-1": ("1", "preferred"),
    "node-3-nonpref-2a": ("2", ""), "node-4-nonpref-2b": ("2", ""), "node-5-nonpref-1": ("1", ""),
}

# name -> (levels, nodes, request, wanted (hostname, count) with the gate on)
ROWS: dict[str, tuple[list[str], list[Node], PodSetTASRequest, list[tuple[str, int]]]] = {
    "with preferred affinity": (
        [RACK, HOST],
        [
            _node("node-preferred", {RACK: "rack-preferred", "region": "us-west"}, "1"),
            _node("node-other", {RACK: "rack-other", "region": "us-east"}, "1"),
        ],
        _req(1, preferred=RACK, preferred_affinity=_pref((10, "region", "us-west"))),
        [("node-preferred", 1)],
    ),
    "with required and preferred affinity": (
        [RACK, HOST],
        [
            _node("node-preferred", {RACK: "rack-preferred", "region": "us-west", "zone": "us"}, "1"),
            _node("node-other", {RACK: "rack-other", "region": "us-east", "zone": "us"}, "1"),
            _node("node-excluded", {RACK: "rack-excluded", "region": "us-west", "zone": "eu"}, "1"),
        ],
        _req(1, preferred=RACK, affinity=_in("zone", "us"),
             preferred_affinity=_pref((10, "region", "us-west"))),
        [("node-preferred", 1)],
    ),
    "with multiple preferred affinities": (
        [BLOCK, RACK, HOST],
        [
            _node("node-a", {BLOCK: "b1", RACK: "r1"}, "1"),
            _node("node-b", {BLOCK: "b1", RACK: "r2"}, "1"),
            _node("node-c", {BLOCK: "b2", RACK: "r1"}, "1"),
        ],
        _req(1, preferred=RACK, preferred_affinity=_pref((10, BLOCK, "b1"), (100, RACK, "r1"))),
        [("node-a", 1)],
    ),
    "affinity takes precedence over best fit": (
        [HOST],
        [
            _node("node-better-fit", {"region": "us-east"}, "8"),
            _node("node-has-affinity", {"region": "us-west"}, "2"),
        ],
        _req(1, preferred=HOST, preferred_affinity=_pref((10, "region", "us-west"))),
        [("node-has-affinity", 1)],
    ),
    "affinity ordering with required topology level chooses secondary domain if primary is too small": (
        [RACK, HOST],
        [
            _node("node-preferred-small", {RACK: "rack-preferred", "region": "us-west"}, "2"),
            _node("node-secondary-large-1", {RACK: "rack-secondary", "region": "us-east"}, "4"),
            _node("node-secondary-large-2", {RACK: "rack-secondary", "region": "us-east"}, "4"),
        ],
        _req(4, required=RACK, preferred_affinity=_pref((10, "region", "us-west"))),
        [("node-secondary-large-1", 4)],
    ),
    "affinity ordering with preferred inner topology level bubbles up to parent level to avoid "
    "splitting across parent domains": (
        [RACK, SWITCH, HOST],
        [
            _node("node-preferred-small", {RACK: "r1", SWITCH: "s1", "region": "us-west"}, "2"),
            _node("node-secondary-large", {RACK: "r1", SWITCH: "s2", "region": "us-east"}, "4"),
        ],
        _req(4, preferred=SWITCH, preferred_affinity=_pref((10, "region", "us-west"))),
        [("node-preferred-small", 2), ("node-secondary-large", 2)],
    ),
    "flat topology, preferred mode, size 5 pods x 1": (
        [HOST],
        _flat({"node-1-pref-2": ("2", "preferred"), "node-2-pref-1": ("1", "preferred"),
               "node-3-nonpref-2": ("2", ""), "node-4-nonpref-1": ("1", "")}),
        _req(5, preferred=HOST, preferred_affinity=TYPE_PREFERRED),
        [("node-1-pref-2", 2), ("node-2-pref-1", 1), ("node-3-nonpref-2", 2)],
    ),
    "flat topology, unconstrained mode, size 5 pods x 1": (
        [HOST],
        _flat({"node-1-pref-2": ("2", "preferred"), "node-2-pref-1": ("1", "preferred"),
               "node-3-nonpref-2": ("2", ""), "node-4-nonpref-1a": ("1", ""),
               "node-5-nonpref-1b": ("1", "")}),
        _req(5, unconstrained=True, preferred_affinity=TYPE_PREFERRED),
        [("node-1-pref-2", 2), ("node-2-pref-1", 1), ("node-4-nonpref-1a", 1), ("node-5-nonpref-1b", 1)],
    ),
    "flat topology, preferred mode, size 2 pods x 2": (
        [HOST],
        _flat(FLAT_PAIRS),
        _req(4, preferred=HOST, slice_layers=((HOST, 2),), preferred_affinity=TYPE_PREFERRED),
        [("node-1-pref-2", 2), ("node-3-nonpref-2a", 2)],
    ),
    "flat topology, unconstrained mode, size 2 pods x 2": (
        [HOST],
        _flat(FLAT_PAIRS),
        _req(4, unconstrained=True, slice_layers=((HOST, 2),), preferred_affinity=TYPE_PREFERRED),
        [("node-1-pref-2", 2), ("node-3-nonpref-2a", 2)],
    ),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_find_with_preferred_affinity(name: str) -> None:
    levels, nodes, req, want = ROWS[name]
    assert _hosts(_search(levels, nodes, req, gate=True)) == want


@pytest.mark.parametrize("name", sorted(ROWS))
def test_gate_off_ignores_preferred_terms(name: str) -> None:
    """Without the gate the terms are not read (``PreferredSchedulingTerms`` stays nil)."""
    levels, nodes, req, _ = ROWS[name]
    off = _search(levels, nodes, req, gate=False)
    assert off == _search(levels, nodes, replace(req, preferred_affinity=()), gate=False)
    assert off == _search(levels, nodes, replace(req, preferred_affinity=()), gate=True)


def test_lws_leader_cannot_fit_on_preferred_zone() -> None:
    """"LWS with leader and workers; preferred affinity on workers; leader cannot fit on preferred
    zone": the workers' zone preference does not strand the leader."""
    nodes = [
        _node("us-west-1", {ZONE: "us-west"}, "8", {"memory": "32Gi", "nvidia.com/gpu": "8"}),
        _node("us-west-2", {ZONE: "us-west"}, "8", {"memory": "32Gi", "nvidia.com/gpu": "8"}),
        _node("us-east-1", {ZONE: "us-east"}, "32", {"memory": "128Gi"}),
    ]
    leader = PodSetTASRequest("leader", 1, {"cpu": 16000, "memory": 64 * GI}, preferred=ZONE,
                              slice_layers=((HOST, 1),))
    workers = PodSetTASRequest(
        "workers", 2, {"cpu": 4000, "memory": 32 * GI, "nvidia.com/gpu": 8}, preferred=ZONE,
        slice_layers=((HOST, 1),), preferred_affinity=_pref((10, ZONE, "us-west")),
    )
    flavor = ResourceFlavor.model_validate({"metadata": {"name": "tas"}, "spec": {}})
    snap = build_snapshot(_Cache(nodes), flavor, "default", (ZONE, HOST))
    snap.respect_preferred = True
    got, got_leader = snap.find_group(workers, leader)
    assert _hosts(got) == [("us-west-1", 1), ("us-west-2", 1)]
    assert got_leader is not None and _hosts(got_leader) == [("us-east-1", 1)]


# --- TestSortedDomains / TestSortedDomainsWithLeader (the affinity rows) ---------------------------
def test_sorted_domains_affinity_descending_first() -> None:
    """"affinityScore descending: higher affinity score comes first"."""
    low = Domain(("a",), count=10, slices=5, affinity=10)
    high = Domain(("b",), count=10, slices=5, affinity=100)
    assert [d.values for d in sorted_domains([low, high], False)] == [("b",), ("a",)]
    assert [d.values for d in sorted_domains([low, high], True)] == [("b",), ("a",)]


def test_sorted_domains_without_scores_unchanged() -> None:
    """"affinityScore ignored when feature gate is disabled": kbatch's snapshot computes no score
    without the gate, so equal (zero) scores leave the policy's order."""
    low = Domain(("a",), count=10, slices=5)
    high = Domain(("b",), count=10, slices=5)
    assert [d.values for d in sorted_domains([low, high], False)] == [("a",), ("b",)]


def test_sorted_with_leader_affinity_after_leader() -> None:
    """"affinityScore descending" and "leader capability prioritized over preferred affinity"."""
    low = Domain(("a",), leader=1, slices_wl=5, count_wl=10, affinity=10)
    high = Domain(("b",), leader=1, slices_wl=5, count_wl=10, affinity=100)
    assert [d.values for d in sorted_with_leader([low, high], False)] == [("b",), ("a",)]
    no_leader = Domain(("a",), affinity=100)
    has_leader = Domain(("b",), leader=1, slices_wl=5, count_wl=10, affinity=10)
    assert [d.values for d in sorted_with_leader([no_leader, has_leader], False)] == [("b",), ("a",)]


def test_best_fit_stays_in_the_top_tier() -> None:
    """``topAffinityTierDomains``: a tighter fit with a lower score is not taken."""
    preferred = Domain(("a",), count=8, slices=8, affinity=10)
    tight = Domain(("b",), count=2, slices=2)
    assert best_fit([preferred, tight], 2, True) is preferred
    assert best_fit([Domain(("a",), count=8, slices=8), tight], 2, True) is tight
