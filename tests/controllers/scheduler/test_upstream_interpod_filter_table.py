"""Cases of upstream's InterPodAffinity Filter tables, ported one by one
(``pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go`` at the stored commit 072825f:
``TestRequiredAffinitySingleNode`` and ``TestRequiredAffinityMultipleNodes``). Each test names the
upstream case it follows. Upstream's empty namespace is "default" here, and names the API would
refuse (upper case, dots) are spelled as valid names (node "nodeA" is "node-a"); a term without a
topologyKey (refused by the API) gets "region". Not ported: the cases whose
namespaceSelector selects namespaces by their labels (kbatch has no Namespace labels in the
snapshot: docs/simulation.md, "Deliberate differences"), and the PreFilter parse errors of label
values the API server already refuses.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_harness import api_node, api_pod, filter_reasons, world

IPA = "InterPodAffinity"
AFFINITY = ("UNRESOLVABLE", ("node(s) didn't match pod affinity rules",))
ANTI = ("UNSCHEDULABLE", ("node(s) didn't match pod anti-affinity rules",))
EXISTING_ANTI = ("UNSCHEDULABLE", ("node(s) didn't satisfy existing pods anti-affinity rules",))
SECURITYSCAN = {"service": "securityscan"}
S1 = {"security": "S1"}


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def _term(
    topology: str, *exprs: dict[str, Any], namespaces: tuple[str, ...] = (), ns_selector: Any = None
) -> Any:
    term: dict[str, Any] = {"labelSelector": {"matchExpressions": list(exprs)}, "topologyKey": topology}
    if namespaces:
        term["namespaces"] = list(namespaces)
    if ns_selector is not None:
        term["namespaceSelector"] = ns_selector
    return term


def _in(key: str, topology: str, *values: str) -> Any:
    return _term(topology, _expr(key, "In", *values))


def _not_in(key: str, topology: str, *values: str) -> Any:
    return _term(topology, _expr(key, "NotIn", *values))


def _exists(key: str, topology: str) -> Any:
    return _term(topology, _expr(key, "Exists"))


_seq = iter(range(10**6))


def _pod(
    labels: dict[str, str] | None = None,
    affinity: list[Any] = (),
    anti: list[Any] = (),  # type: ignore[assignment]
    node: str = "",
    namespace: str = "default",
) -> Any:
    spec: dict[str, Any] = {}
    aff: dict[str, Any] = {}
    if affinity:
        aff["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": list(affinity)}
    if anti:
        aff["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": list(anti)}
    if aff:
        spec["affinity"] = aff
    return api_pod(f"p{next(_seq)}", labels=labels or {}, node=node, namespace=namespace, **spec)


def _node(name: str, labels: dict[str, str]) -> Any:
    return api_node(name, {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels=labels)


NODE1 = _node("node1", {"region": "r1", "zone": "z11"})


def _on1(labels: dict[str, str] = SECURITYSCAN, **kw: Any) -> Any:
    return _pod(labels, node="node1", **kw)


SINGLE = [
    (
        "A pod that has no required pod affinity scheduling rules can schedule onto a node with no"
        " existing pods",
        _pod(),
        [],
        None,
    ),
    (
        "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator"
        " that matches the "
        "existing pod",
        _pod(S1, [_in("service", "region", "securityscan", "value2")]),
        [_on1()],
        None,
    ),
    (
        "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in"
        " operator in "
        "labelSelector that matches the existing pod",
        _pod(S1, [_not_in("service", "region", "securityscan3", "value3")]),
        [_on1()],
        None,
    ),
    (
        "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
        _pod(
            S1,
            [
                _term(
                    "region", _expr("service", "In", "securityscan", "value2"), namespaces=("diffnamespace",)
                )
            ],
        ),
        [_on1(namespace="ns")],
        AFFINITY,
    ),
    (
        "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
        _pod(SECURITYSCAN, [_in("service", "region", "antivirusscan", "value2")]),
        [_on1()],
        AFFINITY,
    ),
    (
        "satisfies the PodAffinity with different label Operators in multiple"
        " RequiredDuringSchedulingIgnoredDuringExecution",
        _pod(
            S1,
            [
                _term("region", _expr("service", "Exists"), _expr("wrongkey", "DoesNotExist")),
                _term(
                    "region", _expr("service", "In", "securityscan"), _expr("service", "NotIn", "WrongValue")
                ),
            ],
        ),
        [_on1()],
        None,
    ),
    (
        "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto"
        " the node because "
        "one of the matchExpression item don't match.",
        _pod(
            S1,
            [
                _term("region", _expr("service", "Exists"), _expr("wrongkey", "DoesNotExist")),
                _term(
                    "region", _expr("service", "In", "securityscan2"), _expr("service", "NotIn", "WrongValue")
                ),
            ],
        ),
        [_on1()],
        AFFINITY,
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
        _pod(
            S1,
            [_in("service", "region", "securityscan", "value2")],
            [_in("service", "node", "antivirusscan", "value2")],
        ),
        [_on1()],
        None,
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
        _pod(
            S1,
            [_in("service", "region", "securityscan", "value2")],
            [_in("service", "node", "antivirusscan", "value2")],
        ),
        [_on1(anti=[_in("service", "node", "antivirusscan", "value2")])],
        None,
    ),
    (
        "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
        _pod(
            S1,
            [_in("service", "region", "securityscan", "value2")],
            [_in("service", "zone", "securityscan", "value2")],
        ),
        [_on1()],
        ANTI,
    ),
    (
        "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with"
        " the existing pod",
        _pod(
            SECURITYSCAN,
            [_in("service", "region", "securityscan", "value2")],
            [_in("service", "node", "antivirusscan", "value2")],
        ),
        [_on1(anti=[_in("service", "zone", "securityscan", "value2")])],
        EXISTING_ANTI,
    ),
    (
        "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
        _pod(SECURITYSCAN, [_not_in("service", "region", "securityscan", "value2")]),
        [_pod(SECURITYSCAN, node="node2")],
        AFFINITY,
    ),
    (
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity"
        " constraints. doesn't "
        "satisfy PodAntiAffinity symmetry with the existing pod",
        _pod(SECURITYSCAN),
        [_on1(anti=[_in("service", "zone", "securityscan", "value2")])],
        EXISTING_ANTI,
    ),
    (
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity"
        " constraints. satisfy "
        "PodAntiAffinity symmetry with the existing pod",
        _pod(SECURITYSCAN),
        [_on1(anti=[_not_in("service", "zone", "securityscan", "value2")])],
        None,
    ),
    (
        "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with"
        " incoming pod",
        _pod(SECURITYSCAN, anti=[_exists("service", "region"), _exists("security", "region")]),
        [_on1(S1, anti=[_exists("security", "zone")])],
        ANTI,
    ),
    (
        "PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on"
        " AffinityTerms",
        _pod(SECURITYSCAN, anti=[_exists("service", "zone"), _exists("security", "zone")]),
        [_on1(S1, anti=[_exists("security", "zone")])],
        ANTI,
    ),
    (
        "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on"
        " AffinityTerms",
        _pod(S1, anti=[_exists("security", "zone")]),
        [_on1(SECURITYSCAN, anti=[_exists("service", "zone"), _exists("security", "zone")])],
        EXISTING_ANTI,
    ),
    (
        "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on"
        " AffinityTerms",
        _pod({"abc": "", "xyz": ""}, anti=[_exists("abc", "zone"), _exists("def", "zone")]),
        [_on1({"def": "", "xyz": ""}, anti=[_exists("abc", "zone"), _exists("def", "zone")])],
        ANTI,
    ),
    (
        "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on"
        " AffinityTerms",
        _pod({"def": "", "xyz": ""}, anti=[_exists("abc", "zone"), _exists("def", "zone")]),
        [_on1({"abc": "", "xyz": ""}, anti=[_exists("abc", "zone"), _exists("def", "zone")])],
        ANTI,
    ),
    (
        "anti-affinity with matching all NamespaceSelector",
        _pod(
            S1,
            anti=[_term("zone", _expr("service", "In", "securityscan", "value2"), ns_selector={})],
            namespace="subteam1-team1",
        ),
        [_on1(namespace="subteam2-team1")],
        ANTI,
    ),
]


@pytest.mark.parametrize(("pod", "pods", "want"), [c[1:] for c in SINGLE], ids=[c[0] for c in SINGLE])
def test_required_affinity_single_node(pod: Any, pods: list[Any], want: Any) -> None:
    assert filter_reasons(world([NODE1], pods), pod, IPA) == {"node1": want}


CHINA, CHINA_AZ1, INDIA = {"region": "China"}, {"region": "China", "az": "az1"}, {"region": "India"}
MULTIPLE = [
    (
        "A pod can be scheduled onto all the nodes that have the same topology key & label value with one"
        " of them has an "
        "existing pod that matches the affinity rules",
        _pod(affinity=[_in("foo", "region", "bar")]),
        [_pod({"foo": "bar"}, node="node1")],
        [("node1", CHINA), ("node2", CHINA_AZ1), ("node3", INDIA)],
        [None, None, AFFINITY],
    ),
    (
        "The affinity rule is to schedule all of the pods of this collection to the same zone. The first"
        " pod of the "
        "collection should not be blocked from being scheduled onto any node",
        _pod(
            {"foo": "bar", "service": "securityscan"},
            [_in("foo", "zone", "bar"), _in("service", "zone", "securityscan")],
        ),
        [_pod({"foo": "bar"}, node="node-a")],
        [("node-a", {"zone": "az1", "hostname": "h1"}), ("node-b", {"zone": "az2", "hostname": "h2"})],
        [None, None],
    ),
    (
        "The first pod of the collection can only be scheduled on nodes labelled with the requested"
        " topology keys",
        _pod(
            {"foo": "bar", "service": "securityscan"},
            [_in("foo", "zone", "bar"), _in("service", "zone", "securityscan")],
        ),
        [_pod({"foo": "bar"}, node="node-a")],
        [
            ("node-a", {"zoneLabel": "az1", "hostname": "h1"}),
            ("node-b", {"zoneLabel": "az2", "hostname": "h2"}),
        ],
        [AFFINITY, AFFINITY],
    ),
    (
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the"
        " inter pod "
        "affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
        _pod(anti=[_in("foo", "region", "abc")]),
        [_pod({"foo": "abc"}, node="node-a")],
        [
            ("node-a", {"region": "r1", "hostname": "node-a"}),
            ("node-b", {"region": "r1", "hostname": "node-b"}),
        ],
        [ANTI, ANTI],
    ),
    (
        "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule"
        " matches a pod.",
        _pod(anti=[_in("foo", "region", "abc"), _in("service", "zone", "securityscan")]),
        [_pod({"foo": "abc", "service": "securityscan"}, node="node-a")],
        [
            ("node-a", {"region": "r1", "zone": "z1", "hostname": "node-a"}),
            ("node-b", {"region": "r1", "zone": "z2", "hostname": "node-b"}),
        ],
        [ANTI, ANTI],
    ),
    (
        "The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
        _pod(anti=[_in("foo", "region", "abc")]),
        [_pod({"foo": "abc"}, node="node-a")],
        [("node-a", CHINA), ("node-b", CHINA_AZ1), ("node-c", INDIA)],
        [ANTI, ANTI, None],
    ),
    (
        "The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an"
        " existing pod that "
        "match the inter pod affinity rule but in different namespace)",
        _pod({"foo": "123"}, anti=[_in("foo", "region", "bar")], namespace="ns1"),
        [
            _pod({"foo": "bar"}, node="node-a", namespace="ns1"),
            _pod(anti=[_in("foo", "region", "123")], node="node-c", namespace="ns2"),
        ],
        [("node-a", CHINA), ("node-b", CHINA_AZ1), ("node-c", INDIA)],
        [ANTI, ANTI, None],
    ),
    (
        "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey,"
        " labelSelector of the "
        "term is firstly checked, and then topologyKey of the term is also checked",
        _pod({"foo": ""}),
        [_pod(anti=[_exists("foo", "invalid-node-label")], node="node-a")],
        [
            ("node-a", {"region": "r1", "zone": "z1", "hostname": "node-a"}),
            ("node-b", {"region": "r1", "zone": "z1", "hostname": "node-b"}),
        ],
        [None, None],
    ),
    (
        "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey"
        " matches",
        _pod(anti=[_exists("foo", "invalid-node-label")]),
        [_pod({"foo": ""}, node="node-a")],
        [
            ("node-a", {"region": "r1", "zone": "z1", "hostname": "node-a"}),
            ("node-b", {"region": "r1", "zone": "z1", "hostname": "node-b"}),
        ],
        [None, None],
    ),
]


@pytest.mark.parametrize(
    ("pod", "pods", "nodes", "want"), [c[1:] for c in MULTIPLE], ids=[c[0] for c in MULTIPLE]
)
def test_required_affinity_multiple_nodes(
    pod: Any, pods: list[Any], nodes: list[Any], want: list[Any]
) -> None:
    algo = world([_node(n, labels) for n, labels in nodes], pods)
    assert filter_reasons(algo, pod, IPA) == dict(zip([n for n, _ in nodes], want, strict=True))
