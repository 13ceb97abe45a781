"""Cases of upstream's TaintToleration tables, ported one by one
(``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go`` at the stored commit
04c0d74, the 1.35+ layout with ``EnableTaintTolerationComparisonOperators``: ``TestTaintTolerationScore``,
``TestTaintTolerationFilter``, ``TestTaintTolerationFilterWithFeatureGate``). Each test names the
upstream case it follows. The Gt/Lt toleration operators (KEP-5471, gate
TaintTolerationComparisonOperators) are not modelled by kbatch: those cases are left out.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_harness import api_node, api_pod, filter_reasons, plugin_scores, world

TT = "TaintToleration"
UNTOLERATED = ("UNRESOLVABLE", ("node(s) had untolerated taint(s)",))


def _taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def _tol(key: str, value: str = "", effect: str = "", operator: str = "Equal") -> dict[str, str]:
    out = {"key": key, "operator": operator}
    if value:
        out["value"] = value
    if effect:
        out["effect"] = effect
    return out


def _node(name: str, *taints: dict[str, str]) -> Any:
    return api_node(name, {"cpu": "4", "memory": "4Gi", "pods": "110"}, taints=taints)


def _pod(*tolerations: dict[str, str]) -> Any:
    return api_pod("pod1", tolerations=list(tolerations)) if tolerations else api_pod("pod1")


# -- TestTaintTolerationFilter ----------------------------------------------------------------------
FILTER = [
    (
        "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
        [],
        [_taint("dedicated", "user1", "NoSchedule")],
        UNTOLERATED,
    ),
    (
        "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
        [_tol("dedicated", "user1", "NoSchedule")],
        [_taint("dedicated", "user1", "NoSchedule")],
        None,
    ),
    (
        "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
        [_tol("dedicated", "user2", "NoSchedule")],
        [_taint("dedicated", "user1", "NoSchedule")],
        UNTOLERATED,
    ),
    (
        "A pod can be scheduled onto the node, with a toleration uses operator Exists"
        " that tolerates the taints",
        [_tol("foo", effect="NoSchedule", operator="Exists")],
        [_taint("foo", "bar", "NoSchedule")],
        None,
    ),
    (
        "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated",
        [_tol("dedicated", "user2", "NoSchedule"), _tol("foo", effect="NoSchedule", operator="Exists")],
        [_taint("dedicated", "user2", "NoSchedule"), _taint("foo", "bar", "NoSchedule")],
        None,
    ),
    (
        "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect "
        "doesn't match, can't be scheduled onto the node",
        [_tol("foo", "bar", "PreferNoSchedule")],
        [_taint("foo", "bar", "NoSchedule")],
        UNTOLERATED,
    ),
    (
        "The pod has a toleration that keys and values match the taint on the node, the effect of toleration "
        "is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
        [_tol("foo", "bar")],
        [_taint("foo", "bar", "NoSchedule")],
        None,
    ),
    (
        "The pod has a toleration that key and value don't match the taint on the node, but the effect of "
        "taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
        [_tol("dedicated", "user2", "NoSchedule")],
        [_taint("dedicated", "user1", "PreferNoSchedule")],
        None,
    ),
    (
        "The pod has no toleration, but the effect of taint on node is PreferNoSchedule",
        [],
        [_taint("dedicated", "user1", "PreferNoSchedule")],
        None,
    ),
    # TestTaintTolerationFilterWithFeatureGate
    (
        "Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored "
        "(the Equal toleration alone)",
        [_tol("dedicated", "user1", "NoSchedule")],
        [_taint("dedicated", "user1", "NoSchedule")],
        None,
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "taints", "want"), [c[1:] for c in FILTER], ids=[c[0] for c in FILTER]
)
def test_taint_toleration_filter(tolerations: list[Any], taints: list[Any], want: Any) -> None:
    """Upstream 1.35 (kubernetes#134740, cherry-picked to 1.34) no longer names the taint in the
    reason: "node(s) had untolerated taint(s)"."""
    algo = world([_node("nodeA", *taints)])
    assert filter_reasons(algo, _pod(*tolerations), TT) == {"nodeA": want}


def test_untolerated_taint_message_is_generic_in_the_fit_error() -> None:
    # the FitError a user reads (kubectl describe): no taint key or value
    algo = world([_node("nodeA", _taint("dedicated", "user1", "NoSchedule"))])
    diagnosis = algo.schedule(_pod()).diagnosis
    assert diagnosis is not None
    assert diagnosis.message().startswith("0/1 nodes are available: 1 node(s) had untolerated taint(s).")


# -- TestTaintTolerationScore -----------------------------------------------------------------------
PREFER = "PreferNoSchedule"
SCORE = [
    (
        "node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
        [_tol("foo", "bar", PREFER)],
        [[_taint("foo", "bar", PREFER)], [_taint("foo", "blah", PREFER)]],
        [100, 0],
    ),
    (
        "the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many "
        "tolerable taints a node has",
        [_tol("cpu-type", "arm64", PREFER), _tol("disk-type", "ssd", PREFER)],
        [
            [],
            [_taint("cpu-type", "arm64", PREFER)],
            [_taint("cpu-type", "arm64", PREFER), _taint("disk-type", "ssd", PREFER)],
        ],
        [100, 100, 100],
    ),
    (
        "the more intolerable taints a node has, the lower score it gets.",
        [_tol("foo", "bar", PREFER)],
        [
            [],
            [_taint("cpu-type", "arm64", PREFER)],
            [_taint("cpu-type", "arm64", PREFER), _taint("disk-type", "ssd", PREFER)],
        ],
        [100, 50, 0],
    ),
    (
        "only taints and tolerations that have effect PreferNoSchedule are checked by"
        " taints-tolerations priority",
        [_tol("cpu-type", "arm64", "NoSchedule"), _tol("disk-type", "ssd", "NoSchedule")],
        [
            [],
            [_taint("cpu-type", "arm64", "NoSchedule")],
            [_taint("cpu-type", "arm64", PREFER), _taint("disk-type", "ssd", PREFER)],
        ],
        [100, 100, 0],
    ),
    (
        "Default behaviour No taints and tolerations, lands on node with no taints",
        [],
        [[], [_taint("cpu-type", "arm64", PREFER)]],
        [100, 0],
    ),
]


@pytest.mark.parametrize(("tolerations", "nodes", "want"), [c[1:] for c in SCORE], ids=[c[0] for c in SCORE])
def test_taint_toleration_score(tolerations: list[Any], nodes: list[list[Any]], want: list[int]) -> None:
    names = ["nodeA", "nodeB", "nodeC"][: len(nodes)]
    algo = world([_node(n, *t) for n, t in zip(names, nodes, strict=True)])
    assert plugin_scores(algo, _pod(*tolerations), TT) == dict(zip(names, want, strict=True))
