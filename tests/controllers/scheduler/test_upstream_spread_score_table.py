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


BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}


def _foo_bar_pod() -> Any:
    constraints = [_soft(1, "zone"), _soft(1, HOST, BAR)]
    return api_pod("p", labels={"foo": "", "bar": ""}, topologySpreadConstraints=constraints)


def _labelled(node: str, *labels: str) -> Any:
    return api_pod(f"e{next(_seq)}", labels=dict.fromkeys(labels, ""), node=node)


ZONED = [("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2")]
FOO_BAR_PODS = (("node-a", ("foo",)), ("node-b", ("foo", "bar")), ("node-y", ("foo",)), ("node-y", ("bar",)))


@pytest.mark.parametrize(
    ("pods", "candidates", "want"),
    [
        (FOO_BAR_PODS, None, {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}),
        (
            (("node-b", ("bar",)), ("node-x", ("foo",)), ("node-y", ("foo", "bar"))),
            None,
            {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
        ),
        (FOO_BAR_PODS, ["node-a", "node-b", "node-x"], {"node-a": 50, "node-b": 25, "node-x": 100}),
    ],
    ids=[
        "two Constraints on zone and node, with different labelSelectors",
        "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
    ],
)
def test_two_constraints_with_different_label_selectors(
    pods: Any, candidates: Any, want: dict[str, int]
) -> None:
    nodes = [_node(n, z) for n, z in ZONED]
    existing = [_labelled(n, *labels) for n, labels in pods]
    assert plugin_scores(world(nodes, existing), _foo_bar_pod(), PTS, candidates) == want


def test_existing_pods_in_a_different_namespace_do_not_count() -> None:
    pods = [
        api_pod(f"e{next(_seq)}", labels={"foo": ""}, node="node-a", namespace="ns1"),
        *_spread(("node-a", 1), ("node-b", 2)),
    ]
    got = plugin_scores(world([_node("node-a"), _node("node-b")], pods), _pod(_soft(1, HOST)), PTS)
    assert got == {"node-a": 100, "node-b": 33}


def test_terminating_pods_should_be_excluded() -> None:
    pods = [api_pod("e-term", labels={"foo": ""}, node="node-a", terminating=True), *_spread(("node-b", 1))]
    got = plugin_scores(world([_node("node-a"), _node("node-b")], pods), _pod(_soft(1, HOST)), PTS)
    assert got == {"node-a": 100, "node-b": 0}


def _policy_node(name: str, foo: bool = False, tainted: bool = False) -> Any:
    labels = {"node": name, **({"foo": ""} if foo else {})}
    taints = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}] if tainted else []
    return api_node(name, {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels=labels, taints=taints)


POLICY_PODS = (("node-a", 2), ("node-b", 1), ("node-c", 1))
HONORED, IGNORED = {"node-a": 0, "node-b": 33, "node-c": 100}, {"node-a": 66, "node-b": 100, "node-c": 100}
FOO_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": [""]}]}]
        }
    }
}


@pytest.mark.parametrize(
    ("policy", "selector", "want"),
    [
        ({}, {"nodeSelector": {"foo": ""}}, HONORED),
        ({"nodeAffinityPolicy": "Ignore"}, {"nodeSelector": {"foo": ""}}, IGNORED),
        ({}, {"affinity": FOO_AFFINITY}, HONORED),
        ({"nodeAffinityPolicy": "Ignore"}, {"affinity": FOO_AFFINITY}, IGNORED),
    ],
    ids=[
        "NodeAffinityPolicy honoed with labelSelectors",
        "NodeAffinityPolicy ignored with labelSelectors",
        "NodeAffinityPolicy honoed with nodeAffinity",
        "NodeAffinityPolicy ignored with nodeAffinity",
    ],
)
def test_node_affinity_policy(policy: dict[str, str], selector: dict[str, Any], want: dict[str, int]) -> None:
    nodes = [_policy_node("node-a", foo=True), _policy_node("node-b", foo=True), _policy_node("node-c")]
    pod = api_pod(
        "p", labels={"foo": ""}, topologySpreadConstraints=[{**_soft(1, "node"), **policy}], **selector
    )
    assert plugin_scores(world(nodes, _spread(*POLICY_PODS)), pod, PTS) == want


@pytest.mark.parametrize(
    ("policy", "want"),
    [({"nodeTaintsPolicy": "Honor"}, HONORED), ({}, IGNORED)],
    ids=["NodeTaintsPolicy honored", "NodeTaintsPolicy ignored"],
)
def test_node_taints_policy(policy: dict[str, str], want: dict[str, int]) -> None:
    nodes = [_policy_node("node-a"), _policy_node("node-b"), _policy_node("node-c", tainted=True)]
    pod = api_pod("p", labels={"foo": ""}, topologySpreadConstraints=[{**_soft(1, "node"), **policy}])
    assert plugin_scores(world(nodes, _spread(*POLICY_PODS)), pod, PTS) == want
