"""Cases of upstream's PodTopologySpread Score table, ported one by one
(``pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go`` at the stored commit 38f68d5,
``TestPodTopologySpreadScore``: PreScore over the candidate nodes, Score, NormalizeScore). Each test
names the upstream case it follows; upstream's ``failedNodes`` are in the cluster but not among the
nodes scored.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_harness import api_node, api_pod, plugin_scores, world

PTS = "PodTopologySpread"
HOST = "kubernetes.io/hostname"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}


def _soft(skew: int, key: str, selector: Any = FOO) -> dict[str, Any]:
    c: dict[str, Any] = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway"}
    if selector is not None:
        c["labelSelector"] = selector
    return c


def _pod(*constraints: dict[str, Any]) -> Any:
    return api_pod("p", labels={"foo": ""}, topologySpreadConstraints=list(constraints))


def _node(name: str, zone: str | None = None, host_key: str = HOST) -> Any:
    labels = {host_key: name}
    if zone:
        labels["zone"] = zone
    return api_node(name, {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels=labels)


_seq = iter(range(10**6))


def _spread(*counts: tuple[str, int]) -> list[Any]:
    return [api_pod(f"e{next(_seq)}", labels={"foo": ""}, node=n) for n, k in counts for _ in range(k)]


ABCD = ["node-a", "node-b", "node-c", "node-d"]
SPREAD_2103 = (("node-a", 2), ("node-b", 1), ("node-d", 3))
SPREAD_4321 = (("node-a", 4), ("node-b", 3), ("node-c", 2), ("node-d", 1))
SPREAD_4213 = (("node-a", 4), ("node-b", 2), ("node-x", 1), ("node-y", 3))

CASES = [
    (
        "one constraint on node, no existing pods",
        _soft(1, HOST),
        [_node("node-a"), _node("node-b")],
        [],
        None,
        {"node-a": 100, "node-b": 100},
    ),
    (
        "one constraint on node, only one node is candidate",
        _soft(1, HOST),
        [_node("node-a"), _node("node-b")],
        _spread(("node-a", 2), ("node-b", 1)),
        ["node-a"],
        {"node-a": 100},
    ),
    (
        "one constraint on node, all nodes have the same number of matching pods",
        _soft(1, HOST),
        [_node("node-a"), _node("node-b")],
        _spread(("node-a", 1), ("node-b", 1)),
        None,
        {"node-a": 100, "node-b": 100},
    ),
    (
        "one constraint on node, all 4 nodes are candidates",
        _soft(1, HOST),
        [_node(n) for n in ABCD],
        _spread(*SPREAD_2103),
        None,
        {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
    ),
    (
        "one constraint on node, null selector",
        _soft(1, HOST, None),
        [_node(n) for n in ABCD],
        _spread(*SPREAD_2103),
        None,
        {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
    ),
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=2",
        _soft(2, HOST),
        [_node(n) for n in ABCD],
        _spread(*SPREAD_2103),
        None,
        {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
    ),
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=3",
        _soft(3, HOST),
        [_node(n) for n in ABCD],
        _spread(*SPREAD_4321),
        None,
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
    ),
    (
        "one constraint on node, 3 out of 4 nodes are candidates",
        _soft(1, HOST),
        [_node(n) for n in ("node-a", "node-b", "node-x", "node-y")],
        _spread(*SPREAD_4213),
        ["node-a", "node-b", "node-x"],
        {"node-a": 33, "node-b": 83, "node-x": 100},
    ),
    (
        "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
        _soft(1, HOST),
        [_node("node-a"), _node("node-b", host_key="n"), _node("node-x"), _node("node-y")],
        _spread(*SPREAD_4213),
        ["node-a", "node-b", "node-x"],
        {"node-a": 16, "node-b": 0, "node-x": 100},
    ),
    (
        "one constraint on zone, 3 out of 4 nodes are candidates",
        _soft(1, "zone"),
        [
            _node("node-a", "zone1"),
            _node("node-b", "zone1"),
            _node("node-x", "zone2"),
            _node("node-y", "zone2"),
        ],
        _spread(*SPREAD_4213),
        ["node-a", "node-b", "node-x"],
        {"node-a": 75, "node-b": 75, "node-x": 100},
    ),
]


@pytest.mark.parametrize(
    ("constraint", "nodes", "pods", "candidates", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_pod_topology_spread_score(
    constraint: Any, nodes: list[Any], pods: list[Any], candidates: Any, want: dict[str, int]
) -> None:
    assert plugin_scores(world(nodes, pods), _pod(constraint), PTS, candidates) == want
