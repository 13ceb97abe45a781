"""Cases of upstream's InterPodAffinity Score table, ported one by one
(``pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go`` at the stored commit 030880a,
``TestPreferredAffinity``: PreScore, Score and NormalizeScore over all nodes). Each test names the
upstream case it follows; upstream's empty namespace is "default" here.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_harness import api_node, api_pod, plugin_scores, world

IPA = "InterPodAffinity"
CHINA, INDIA, AZ1 = {"region": "China"}, {"region": "India"}, {"az": "az1"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
S1, S2 = {"security": "S1"}, {"security": "S2"}


def _weighted(weight: int, topology: str, key: str, *values: str) -> dict[str, Any]:
    expr = {"key": key, "operator": "In", "values": list(values)}
    return {
        "weight": weight,
        "podAffinityTerm": {"labelSelector": {"matchExpressions": [expr]}, "topologyKey": topology},
    }


STAY_WITH_S1_IN_REGION = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [_weighted(5, "region", "security", "S1")]
    }
}
STAY_WITH_S2_IN_REGION = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [_weighted(6, "region", "security", "S2")]
    }
}

_seq = iter(range(10**6))


def _pod(labels: dict[str, str] | None = None, affinity: dict[str, Any] | None = None, node: str = "") -> Any:
    spec = {"affinity": affinity} if affinity else {}
    return api_pod(f"p{next(_seq)}", labels=labels or {}, node=node, **spec)


def _nodes(*labels: dict[str, str]) -> list[Any]:
    return [
        api_node(f"node{i + 1}", {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels=lb)
        for i, lb in enumerate(labels)
    ]


CASES = [
    ("all nodes are same priority as Affinity is nil", _pod(S1), [], [CHINA, INDIA, AZ1], [0, 0, 0]),
    (
        "Affinity: pod that matches topology key & pods in nodes will get high score comparing to others"
        " which doesn't "
        "match either pods in nodes or in topology key",
        _pod(S1, STAY_WITH_S1_IN_REGION),
        [_pod(S1, node="node1"), _pod(S2, node="node2"), _pod(S1, node="node3")],
        [CHINA, INDIA, AZ1],
        [100, 0, 0],
    ),
    (
        "All the nodes that have the same topology key & label value with one of them has an existing pod"
        " that match "
        "the affinity rules, have the same score",
        _pod(affinity=STAY_WITH_S1_IN_REGION),
        [_pod(S1, node="node1")],
        [CHINA, CHINA_AZ1, INDIA],
        [100, 100, 0],
    ),
    (
        "Affinity: nodes in one region has more matching pods comparing to other region, so the region"
        " which has more "
        "matches will get high score",
        _pod(S1, STAY_WITH_S2_IN_REGION),
        [_pod(S2, node=n) for n in ("node1", "node1", "node2", "node3", "node4", "node5")],
        [CHINA, INDIA, CHINA, CHINA, INDIA],
        [100, 0, 100, 100, 0],
    ),
]


@pytest.mark.parametrize(("pod", "pods", "labels", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_preferred_affinity(pod: Any, pods: list[Any], labels: list[dict[str, str]], want: list[int]) -> None:
    nodes = _nodes(*labels)
    assert plugin_scores(world(nodes, pods), pod, IPA) == {
        n.name: w for n, w in zip(nodes, want, strict=True)
    }


def test_normalize_score_uses_upstreams_float_arithmetic() -> None:
    """Not an upstream case: upstream ``NormalizeScore`` (interpodaffinity/scoring.go) computes
    ``MaxNodeScore * ((score - min) / (max - min))`` in float64 and truncates, so a node at 29/100 of
    the range scores 28 (0.29 * 100 = 28.999...), not 29."""
    pod = _pod(
        affinity={
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    _weighted(29, "region", "security", "S1"),
                    _weighted(100, "region", "security", "S2"),
                ]
            }
        }
    )
    nodes = _nodes({"region": "r1"}, {"region": "r2"}, {"region": "r3"})
    pods = [_pod(S1, node="node1"), _pod(S2, node="node2")]
    assert plugin_scores(world(nodes, pods), pod, IPA) == {"node1": 28, "node2": 100, "node3": 0}


AZ2 = {"az": "az2"}


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def _term(topology: str, *exprs: dict[str, Any]) -> dict[str, Any]:
    return {"labelSelector": {"matchExpressions": list(exprs)}, "topologyKey": topology}


AFFINITY3 = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 8,
                "podAffinityTerm": _term(
                    "region", _expr("security", "NotIn", "S1"), _expr("security", "In", "S2")
                ),
            },
            {
                "weight": 2,
                "podAffinityTerm": _term(
                    "region", _expr("security", "Exists"), _expr("wrongkey", "DoesNotExist")
                ),
            },
        ]
    }
}
HARD_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            _term("region", _expr("security", "In", "S1", "value2")),
            _term("region", _expr("security", "Exists"), _expr("wrongkey", "DoesNotExist")),
        ]
    }
}
AWAY_FROM_S1_IN_AZ = {
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [_weighted(5, "az", "security", "S1")]
    }
}
AWAY_FROM_S2_IN_AZ = {
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [_weighted(5, "az", "security", "S2")]
    }
}
STAY_S1_AWAY_S2 = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [_weighted(8, "region", "security", "S1")]
    },
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [_weighted(5, "az", "security", "S2")]
    },
}

MORE = [
    (
        "Affinity: different Label operators and values for pod affinity scheduling preference, including"
        " some match "
        "failures",
        _pod(S1, AFFINITY3),
        [_pod(S1, node="node1"), _pod(S2, node="node2"), _pod(S1, node="node3")],
        [CHINA, INDIA, AZ1],
        [20, 100, 0],
    ),
    (
        "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod"
        " affinity symmetry",
        _pod(S2),
        [_pod(S1, STAY_WITH_S1_IN_REGION, "node1"), _pod(S2, STAY_WITH_S2_IN_REGION, "node2")],
        [CHINA, INDIA, AZ1],
        [0, 100, 0],
    ),
    (
        "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity"
        " symmetry",
        _pod(S1),
        [_pod(S1, HARD_AFFINITY, "node1"), _pod(S2, HARD_AFFINITY, "node2")],
        [CHINA, INDIA, AZ1],
        [100, 100, 0],
    ),
    (
        "Anti Affinity: pod that does not match existing pods in node will get high score",
        _pod(S1, AWAY_FROM_S1_IN_AZ),
        [_pod(S1, node="node1"), _pod(S2, node="node2")],
        [AZ1, CHINA],
        [0, 100],
    ),
    (
        "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher"
        " score comparing "
        "to others",
        _pod(S1, AWAY_FROM_S1_IN_AZ),
        [_pod(S1, node="node1"), _pod(S1, node="node2")],
        [AZ1, CHINA],
        [0, 100],
    ),
    (
        "Anti Affinity: one node has more matching pods comparing to other node, so the node which has"
        " more unmatches "
        "will get high score",
        _pod(S1, AWAY_FROM_S1_IN_AZ),
        [_pod(S1, node="node1"), _pod(S1, node="node1"), _pod(S2, node="node2")],
        [AZ1, INDIA],
        [0, 100],
    ),
    (
        "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
        _pod(S2),
        [_pod(S1, AWAY_FROM_S2_IN_AZ, "node1"), _pod(S2, AWAY_FROM_S1_IN_AZ, "node2")],
        [AZ1, AZ2],
        [0, 100],
    ),
    (
        "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in"
        " both pod affinity "
        "& anti affinity",
        _pod(S1, STAY_S1_AWAY_S2),
        [_pod(S1, node="node1"), _pod(S1, node="node2")],
        [CHINA, AZ1],
        [100, 0],
    ),
    (
        "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and"
        " existing pods "
        "have the same labels",
        _pod(S1, STAY_S1_AWAY_S2),
        [_pod(S1, node=n) for n in ("node1", "node1", "node2", "node3", "node3", "node4", "node5")],
        [CHINA_AZ1, INDIA, CHINA, CHINA, INDIA],
        [100, 0, 100, 100, 0],
    ),
    (
        "Affinity and Anti Affinity and symmetry: considered only"
        " preferredDuringSchedulingIgnoredDuringExecution in both "
        "pod affinity & anti affinity & symmetry",
        _pod(S1, STAY_S1_AWAY_S2),
        [
            _pod(S1, node="node1"),
            _pod(S2, node="node2"),
            _pod(affinity=STAY_S1_AWAY_S2, node="node3"),
            _pod(affinity=AWAY_FROM_S1_IN_AZ, node="node4"),
        ],
        [CHINA, AZ1, INDIA, AZ2],
        [100, 0, 100, 0],
    ),
    (
        "Avoid panic when partial nodes in a topology don't have pods with affinity",
        _pod(S1),
        [_pod(S1, node="node1"), _pod(affinity=STAY_S1_AWAY_S2, node="node2")],
        [CHINA, CHINA],
        [0, 0],
    ),
]


@pytest.mark.parametrize(("pod", "pods", "labels", "want"), [c[1:] for c in MORE], ids=[c[0] for c in MORE])
def test_preferred_affinity_more(
    pod: Any, pods: list[Any], labels: list[dict[str, str]], want: list[int]
) -> None:
    nodes = _nodes(*labels)
    assert plugin_scores(world(nodes, pods), pod, IPA) == {
        n.name: w for n, w in zip(nodes, want, strict=True)
    }
