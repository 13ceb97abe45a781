"""Cases of upstream's PodTopologySpread Filter tables, ported one by one
(``pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go`` at the stored commit 01c2588:
``TestSingleConstraint`` and ``TestMultipleConstraints``, which compare the Filter's status code per
node). Each test names the upstream case it follows. Upstream runs only PodTopologySpread's PreFilter
and Filter, so a node NodeAffinity or TaintToleration would reject may still pass here ("in real case,
it's false" in upstream's comments); the harness runs the profile's PreFilters, then this one Filter.
Not ported: "two Constraints on zone, spreads = [3/3, 2/1]" and "[3/4, 2/1]", whose two constraints on
one topologyKey and whenUnsatisfiable the API server refuses (Duplicate value).
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_harness import api_node, api_pod, filter_reasons, world

PTS = "PodTopologySpread"
OK, UNSCHED, UNRES = None, "UNSCHEDULABLE", "UNRESOLVABLE"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
ZONED = [("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2")]
UNSCHEDULABLE_TAINT = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]


def _constraint(
    skew: int,
    key: str,
    selector: Any,
    min_domains: int | None = None,
    affinity: str | None = None,
    taints: str | None = None,
) -> dict[str, Any]:
    c: dict[str, Any] = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule"}
    if selector is not None:
        c["labelSelector"] = selector
    if min_domains is not None:
        c["minDomains"] = min_domains
    if affinity:
        c["nodeAffinityPolicy"] = affinity
    if taints:
        c["nodeTaintsPolicy"] = taints
    return c


def _pod(labels: tuple[str, ...], *constraints: dict[str, Any], **spec: Any) -> Any:
    return api_pod("p", labels=dict.fromkeys(labels, ""), topologySpreadConstraints=list(constraints), **spec)


def _zoned(*names: str) -> list[Any]:
    return [_node(n, zone=z) for n, z in ZONED if not names or n in names]


def _node(name: str, zone: str | None = None, zone_key: str = "zone", taints: Any = (), **labels: str) -> Any:
    all_labels = {"node": name, **labels}
    if zone:
        all_labels[zone_key] = zone
    return api_node(name, {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels=all_labels, taints=taints)


_seq = iter(range(10**6))


def _on(node: str, *labels: str, namespace: str = "default", terminating: bool = False) -> Any:
    return api_pod(
        f"e{next(_seq)}",
        labels=dict.fromkeys(labels, ""),
        namespace=namespace,
        node=node,
        terminating=terminating,
    )


def _spread(*counts: tuple[str, int], label: str = "foo") -> list[Any]:
    return [_on(node, label) for node, n in counts for _ in range(n)]


def _codes(algo: Any, pod: Any) -> dict[str, Any]:
    return {name: (None if got is None else got[0]) for name, got in filter_reasons(algo, pod, PTS).items()}


NODE_AFFINITY_AY = {
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "node", "operator": "In", "values": ["node-a", "node-y"]}]}
                ]
            }
        }
    }
}
NODE_AFFINITY_NOT_B = {
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "node", "operator": "NotIn", "values": ["node-b"]}]}
                ]
            }
        }
    }
}
NODE_AFFINITY_FOO = {
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "foo", "operator": "In", "values": [""]}]}
                ]
            }
        }
    }
}
FOO_NODES = [_node("node-a", foo=""), _node("node-b", foo=""), _node("node-x", foo=""), _node("node-y")]
TAINTED_Y = [
    _node("node-a", foo=""),
    _node("node-b", foo=""),
    _node("node-x", foo=""),
    _node("node-y", taints=UNSCHEDULABLE_TAINT),
]
ABC = [_node("node-a"), _node("node-b"), _node("node-c")]
SPREAD_2103 = (("node-a", 2), ("node-b", 1), ("node-y", 3))

SINGLE = [
    ("no existing pods", _pod(("foo",), _constraint(1, "zone", FOO)), _zoned(), [], [OK, OK, OK, OK]),
    (
        "no existing pods, incoming pod doesn't match itself",
        _pod(("foo",), _constraint(1, "zone", BAR)),
        _zoned(),
        [],
        [OK, OK, OK, OK],
    ),
    (
        "existing pods in a different namespace do not count",
        _pod(("foo",), _constraint(1, "zone", FOO)),
        _zoned(),
        [
            _on("node-a", "foo", namespace="ns1"),
            _on("node-a", "foo", namespace="ns2"),
            _on("node-x", "foo"),
            _on("node-y", "foo"),
        ],
        [OK, OK, UNSCHED, UNSCHED],
    ),
    (
        "existing pods do not match null selector",
        _pod(("foo",), _constraint(1, "zone", None)),
        _zoned(),
        [_on("node-x", "foo"), _on("node-y", "foo")],
        [OK, OK, OK, OK],
    ),
    (
        "pods spread across zones as 3/3, all nodes fit",
        _pod(("foo",), _constraint(1, "zone", FOO)),
        _zoned(),
        _spread(*SPREAD_2103),
        [OK, OK, OK, OK],
    ),
    (
        "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        _pod(("foo",), _constraint(1, "zone", FOO)),
        [
            _node("node-a", "zone1"),
            _node("node-b", "zone1", zone_key="zon"),
            _node("node-x", "zone2"),
            _node("node-y", "zone2"),
        ],
        _spread(("node-a", 1), ("node-b", 1), ("node-x", 1), ("node-y", 1)),
        [OK, UNRES, UNSCHED, UNSCHED],
    ),
    (
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        _pod(("foo",), _constraint(1, "node", FOO)),
        _zoned(),
        _spread(*SPREAD_2103),
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
    (
        "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        _pod(("foo",), _constraint(2, "node", FOO)),
        _zoned(),
        _spread(*SPREAD_2103),
        [UNSCHED, OK, OK, UNSCHED],
    ),
    (
        "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        _pod(("bar",), _constraint(1, "node", FOO)),
        _zoned(),
        _spread(*SPREAD_2103),
        [UNSCHED, OK, OK, UNSCHED],
    ),
    (
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        _pod(("foo",), _constraint(1, "node", FOO), **NODE_AFFINITY_AY),
        _zoned(),
        _spread(*SPREAD_2103),
        [OK, OK, OK, UNSCHED],
    ),
    (
        "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
        _pod(("foo",), _constraint(1, "zone", FOO), **NODE_AFFINITY_NOT_B),
        _zoned(),
        _spread(("node-b", 2), ("node-y", 1)),
        [OK, OK, UNSCHED, UNSCHED],
    ),
    (
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the"
        " third node fits",
        _pod(("foo",), _constraint(2, "node", FOO, min_domains=4)),
        ABC,
        _spread(("node-a", 2), ("node-b", 2), ("node-c", 1)),
        [UNSCHED, UNSCHED, OK],
    ),
    (
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the"
        " all nodes fit",
        _pod(("foo",), _constraint(2, "node", FOO, min_domains=2)),
        ABC,
        _spread(("node-a", 2), ("node-b", 2), ("node-c", 1)),
        [OK, OK, OK],
    ),
    (
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains,"
        " then the third and fourth nodes fit",
        _pod(("foo",), _constraint(2, "zone", FOO, min_domains=3)),
        _zoned(),
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [UNSCHED, UNSCHED, OK, OK],
    ),
    (
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all"
        " nodes fit",
        _pod(("foo",), _constraint(2, "zone", FOO, min_domains=1)),
        _zoned(),
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [OK, OK, OK, OK],
    ),
    (
        "NodeAffinityPolicy honored with labelSelectors",
        _pod(("foo",), _constraint(1, "node", FOO), nodeSelector={"foo": ""}),
        FOO_NODES,
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [UNSCHED, UNSCHED, OK, OK],
    ),
    (
        "NodeAffinityPolicy ignored with labelSelectors",
        _pod(("foo",), _constraint(1, "node", FOO, affinity="Ignore"), nodeSelector={"foo": ""}),
        FOO_NODES,
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
    (
        "NodeAffinityPolicy honored with nodeAffinity",
        _pod(("foo",), _constraint(1, "node", FOO), **NODE_AFFINITY_FOO),
        FOO_NODES,
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [UNSCHED, UNSCHED, OK, OK],
    ),
    (
        "NodeAffinityPolicy ignored with nodeAffinity",
        _pod(("foo",), _constraint(1, "node", FOO, affinity="Ignore"), **NODE_AFFINITY_FOO),
        FOO_NODES,
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
    (
        "NodeTaintsPolicy honored",
        _pod(("foo",), _constraint(1, "node", FOO, taints="Honor")),
        TAINTED_Y,
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [UNSCHED, UNSCHED, OK, OK],
    ),
    (
        "NodeTaintsPolicy ignored",
        _pod(("foo",), _constraint(1, "node", FOO)),
        TAINTED_Y,
        _spread(("node-a", 1), ("node-b", 1), ("node-y", 1)),
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "pods", "want"), [c[1:] for c in SINGLE], ids=[c[0] for c in SINGLE]
)
def test_single_constraint(pod: Any, nodes: list[Any], pods: list[Any], want: list[Any]) -> None:
    assert _codes(world(nodes, pods), pod) == dict(zip([n.name for n in nodes], want, strict=True))


def test_single_constraint_pod_cannot_be_scheduled_as_all_nodes_dont_have_label_rack() -> None:
    pod = _pod(("foo",), _constraint(1, "rack", FOO))
    assert _codes(world(_zoned("node-a", "node-x")), pod) == {"node-a": UNRES, "node-x": UNRES}


def test_single_constraint_terminating_pods_should_be_excluded() -> None:
    pod = _pod(("foo",), _constraint(1, "node", FOO))
    pods = [_on("node-a", "foo", terminating=True), _on("node-b", "foo")]
    assert _codes(world([_node("node-a"), _node("node-b")], pods), pod) == {"node-a": OK, "node-b": UNSCHED}


MULTIPLE = [
    (
        "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        ("foo",),
        FOO,
        FOO,
        _spread(*SPREAD_2103),
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
    (
        "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        ("foo",),
        FOO,
        FOO,
        _spread(("node-a", 2), ("node-b", 1), ("node-y", 4)),
        [UNSCHED, UNSCHED, UNSCHED, UNSCHED],
    ),
    (
        "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        ("foo", "bar"),
        FOO,
        BAR,
        [_on("node-a", "foo"), _on("node-y", "bar")],
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
]


@pytest.mark.parametrize(
    ("labels", "zone_sel", "node_sel", "pods", "want"),
    [c[1:] for c in MULTIPLE],
    ids=[c[0] for c in MULTIPLE],
)
def test_multiple_constraints(
    labels: tuple[str, ...], zone_sel: Any, node_sel: Any, pods: list[Any], want: list[Any]
) -> None:
    pod = _pod(labels, _constraint(1, "zone", zone_sel), _constraint(1, "node", node_sel))
    nodes = _zoned()
    assert _codes(world(nodes, pods), pod) == dict(zip([n.name for n in nodes], want, strict=True))


def _zoned_foo(y_foo: bool = False, b_foo: bool = True, y_taint: bool = False) -> list[Any]:
    """node-a/node-b in zone1, node-x/node-y in zone2, with label foo="" where upstream's case sets it."""
    out = []
    for name, zone in ZONED:
        foo = (
            {"foo": ""}
            if name in ("node-a", "node-x") or (name == "node-b" and b_foo) or (name == "node-y" and y_foo)
            else {}
        )
        out.append(
            _node(name, zone, taints=UNSCHEDULABLE_TAINT if name == "node-y" and y_taint else (), **foo)
        )
    return out


def _labelled(node: str, *labels: str) -> Any:
    return _on(node, *labels)


HONOR_TAINTS = {"taints": "Honor"}
MORE_MULTIPLE = [
    (
        "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        _pod(("foo", "bar"), _constraint(1, "zone", FOO), _constraint(1, "node", BAR)),
        _zoned(),
        [_labelled("node-a", "foo"), _labelled("node-x", "bar"), _labelled("node-y", "bar")],
        [UNSCHED, UNSCHED, UNSCHED, UNSCHED],
    ),
    (
        "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        _pod(("foo", "bar"), _constraint(1, "zone", FOO), _constraint(1, "node", BAR)),
        _zoned(),
        [
            _labelled("node-a", "foo"),
            _labelled("node-a", "foo", "bar"),
            _labelled("node-y", "foo"),
            _labelled("node-y", "foo", "bar"),
            _labelled("node-y", "foo"),
        ],
        [UNSCHED, OK, UNSCHED, UNSCHED],
    ),
    (
        "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
        _pod(("bar",), _constraint(1, "zone", FOO), _constraint(1, "node", BAR)),
        _zoned(),
        [_labelled("node-a", "foo"), _labelled("node-x", "bar"), _labelled("node-y", "bar")],
        [OK, OK, UNSCHED, UNSCHED],
    ),
    (
        "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
        _pod(("foo",), _constraint(1, "zone", FOO), _constraint(1, "node", FOO)),
        [
            _node("node-a", "zone1"),
            _node("node-b", "zone1"),
            api_node("node-x", {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels={"zone": "zone2"}),
            _node("node-y", "zone2"),
        ],
        [_labelled("node-a", "foo"), _labelled("node-y", "foo")],
        [UNSCHED, OK, UNRES, UNSCHED],
    ),
    (
        "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        _pod(
            ("foo",),
            _constraint(1, "zone", FOO),
            _constraint(1, "node", FOO, affinity="Ignore"),
            nodeSelector={"foo": ""},
        ),
        _zoned_foo(),
        [_labelled("node-a", "foo"), _labelled("node-b", "foo"), _labelled("node-y", "foo")],
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
    (
        "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        _pod(("foo",), _constraint(1, "zone", FOO, taints="Honor"), _constraint(1, "node", FOO)),
        _zoned_foo(y_taint=True),
        [_labelled("node-a", "foo"), _labelled("node-b", "foo"), _labelled("node-y", "foo")],
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
    (
        "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        _pod(("foo",), _constraint(1, "zone", FOO), _constraint(1, "node", FOO), nodeSelector={"foo": ""}),
        _zoned_foo(y_foo=True, b_foo=False, y_taint=True),
        [_labelled("node-a", "foo"), _labelled("node-b", "foo"), _labelled("node-y", "foo")],
        [UNSCHED, OK, OK, UNSCHED],
    ),
    (
        "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
        _pod(
            ("foo",),
            _constraint(1, "zone", FOO, taints="Honor"),
            _constraint(1, "node", FOO, affinity="Ignore"),
            nodeSelector={"foo": ""},
        ),
        _zoned_foo(y_foo=True, b_foo=False, y_taint=True),
        [_labelled("node-a", "foo"), _labelled("node-b", "foo"), _labelled("node-y", "foo")],
        [UNSCHED, UNSCHED, OK, UNSCHED],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "pods", "want"), [c[1:] for c in MORE_MULTIPLE], ids=[c[0] for c in MORE_MULTIPLE]
)
def test_multiple_constraints_more(pod: Any, nodes: list[Any], pods: list[Any], want: list[Any]) -> None:
    assert _codes(world(nodes, pods), pod) == dict(zip([n.name for n in nodes], want, strict=True))
