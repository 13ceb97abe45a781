"""Cases of upstream's NodeAffinity tables, ported one by one
(``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go`` at the stored commit 022462c:
``TestNodeAffinity`` and ``TestNodeAffinityPriority``). Each test names the upstream case it follows.
Upstream calls the plugin's PreFilter and Filter on one node; here the pod goes through the profile's
PreFilter and the plugin's Filter on that node, and where upstream checks a ``PreFilterResult`` the
whole attempt is run on a cluster of node1 and node2, whose FitError shows which nodes were tried.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.scheduler import SchedulerConfigError

from .upstream_harness import api_node, api_pod, filter_reasons, plugin_scores, world

NA = "NodeAffinity"
POD = ("UNRESOLVABLE", ("node(s) didn't match Pod's node affinity/selector",))
ENFORCED = ("UNRESOLVABLE", ("node(s) didn't match scheduler-enforced node affinity",))


def _req(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def _name_in(*names: str) -> dict[str, Any]:
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def _term(*exprs: dict[str, Any], fields: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    term: dict[str, Any] = {}
    if exprs:
        term["matchExpressions"] = list(exprs)
    if fields:
        term["matchFields"] = list(fields)
    return term


def _required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def _pod(selector: dict[str, str] | None = None, node_affinity: dict[str, Any] | None = None) -> Any:
    spec: dict[str, Any] = {}
    if selector:
        spec["nodeSelector"] = selector
    if node_affinity is not None:
        spec["affinity"] = {"nodeAffinity": node_affinity}
    return api_pod("p", **spec)


def _node(name: str, labels: dict[str, str] | None = None) -> Any:
    return api_node(name, {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels=labels or {})


def _config(added: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if added is None else {"pluginConfig": [{"name": NA, "args": {"addedAffinity": added}}]}


GPU_NVIDIA = {"GPU": "NVIDIA-GRID-K1"}
FILTER = [
    ("missing labels", _pod({"foo": "bar"}), {}, "node1", None, POD),
    ("same labels", _pod({"foo": "bar"}), {"foo": "bar"}, "node1", None, None),
    ("node labels are superset", _pod({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "node1", None, None),
    ("node labels are subset", _pod({"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "node1", None, POD),
    (
        "Pod with matchExpressions using In operator that matches the existing node",
        _pod(node_affinity=_required(_term(_req("foo", "In", "bar", "value2")))),
        {"foo": "bar"},
        "node1",
        None,
        None,
    ),
    (
        "Pod with matchExpressions using Gt operator that matches the existing node",
        _pod(node_affinity=_required(_term(_req("kernel-version", "Gt", "0204")))),
        {"kernel-version": "0206"},
        "node1",
        None,
        None,
    ),
    (
        "Pod with matchExpressions using NotIn operator that matches the existing node",
        _pod(node_affinity=_required(_term(_req("mem-type", "NotIn", "DDR", "DDR2")))),
        {"mem-type": "DDR3"},
        "node1",
        None,
        None,
    ),
    (
        "Pod with matchExpressions using Exists operator that matches the existing node",
        _pod(node_affinity=_required(_term(_req("GPU", "Exists")))),
        GPU_NVIDIA,
        "node1",
        None,
        None,
    ),
    (
        "Pod with affinity that don't match node's labels won't schedule onto the node",
        _pod(node_affinity=_required(_term(_req("foo", "In", "value1", "value2")))),
        {"foo": "bar"},
        "node1",
        None,
        POD,
    ),
    ("Pod with no Affinity will schedule onto a node", _pod(), {"foo": "bar"}, "node1", None, None),
    (
        "Pod with Affinity but nil NodeSelector will schedule onto a node",
        _pod(node_affinity={}),
        {"foo": "bar"},
        "node1",
        None,
        None,
    ),
    (
        "Pod with multiple matchExpressions ANDed that matches the existing node",
        _pod(node_affinity=_required(_term(_req("GPU", "Exists"), _req("GPU", "NotIn", "AMD", "INTER")))),
        GPU_NVIDIA,
        "node1",
        None,
        None,
    ),
    (
        "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
        _pod(node_affinity=_required(_term(_req("GPU", "Exists"), _req("GPU", "In", "AMD", "INTER")))),
        GPU_NVIDIA,
        "node1",
        None,
        POD,
    ),
    (
        "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels",
        _pod(
            node_affinity=_required(
                _term(_req("foo", "In", "bar", "value2")), _term(_req("diffkey", "In", "wrong", "value2"))
            )
        ),
        {"foo": "bar"},
        "node1",
        None,
        None,
    ),
    (
        "Pod with an Affinity and a PodSpec.NodeSelector both are satisfied, will schedule onto the node",
        _pod({"foo": "bar"}, _required(_term(_req("foo", "Exists")))),
        {"foo": "bar"},
        "node1",
        None,
        None,
    ),
    (
        "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector is not satisfied",
        _pod({"foo": "bar"}, _required(_term(_req("foo", "Exists")))),
        {"foo": "barrrrrr"},
        "node1",
        None,
        POD,
    ),
    (
        "Pod with matchFields using In operator that matches the existing node",
        _pod(node_affinity=_required(_term(fields=(_name_in("node1"),)))),
        {},
        "node1",
        None,
        None,
    ),
    (
        "Pod with matchFields using In operator that does not match the existing node",
        _pod(node_affinity=_required(_term(fields=(_name_in("node1"),)))),
        {},
        "node2",
        None,
        POD,
    ),
    (
        "Pod with two terms: matchFields does not match, but matchExpressions matches",
        _pod(node_affinity=_required(_term(fields=(_name_in("node1"),)), _term(_req("foo", "In", "bar")))),
        {"foo": "bar"},
        "node2",
        None,
        None,
    ),
    (
        "Pod with one term: matchFields does not match, but matchExpressions matches",
        _pod(node_affinity=_required(_term(_req("foo", "In", "bar"), fields=(_name_in("node1"),)))),
        {"foo": "bar"},
        "node2",
        None,
        POD,
    ),
    (
        "Pod with one term: both matchFields and matchExpressions match",
        _pod(node_affinity=_required(_term(_req("foo", "In", "bar"), fields=(_name_in("node1"),)))),
        {"foo": "bar"},
        "node1",
        None,
        None,
    ),
    (
        "Pod with two terms: both matchFields and matchExpressions do not match",
        _pod(
            node_affinity=_required(
                _term(fields=(_name_in("node1"),)), _term(_req("foo", "In", "not-match-to-bar"))
            )
        ),
        {"foo": "bar"},
        "node2",
        None,
        POD,
    ),
    (
        "Pod with two terms of node.Name affinity",
        _pod(node_affinity=_required(_term(fields=(_name_in("node1"),)), _term(fields=(_name_in("node2"),)))),
        {},
        "node2",
        None,
        None,
    ),
    (
        "Matches added affinity and Pod's node affinity",
        _pod(node_affinity=_required(_term(_req("zone", "In", "foo")))),
        {"zone": "foo"},
        "node2",
        _required(_term(fields=(_name_in("node2"),))),
        None,
    ),
    (
        "Matches added affinity but not Pod's node affinity",
        _pod(node_affinity=_required(_term(_req("zone", "In", "bar")))),
        {"zone": "foo"},
        "node2",
        _required(_term(fields=(_name_in("node2"),))),
        POD,
    ),
    (
        "Doesn't match added affinity",
        _pod(),
        {"zone": "foo"},
        "node2",
        _required(_term(_req("zone", "In", "bar"))),
        ENFORCED,
    ),
]


@pytest.mark.parametrize(
    ("pod", "labels", "name", "added", "want"), [c[1:] for c in FILTER], ids=[c[0] for c in FILTER]
)
def test_node_affinity_filter(pod: Any, labels: dict[str, str], name: str, added: Any, want: Any) -> None:
    algo = world([_node(name, labels)], config=_config(added))
    assert filter_reasons(algo, pod, NA) == {name: want}


def _message(pod: Any, *nodes: Any) -> str:
    decision = world(nodes).schedule(pod)
    assert decision.node is None and decision.diagnosis is not None
    return decision.diagnosis.message().split(" preemption:")[0]


def test_pre_filter_result_names_the_nodes_tried() -> None:
    """ "Pod with matchFields using In operator that does not match the existing node": upstream's
    PreFilterResult is {node1}; the nodes it leaves out are "node(s) didn't satisfy plugin(s)
    [NodeAffinity]" (``findNodesThatFitPod``), node1 itself fails its labels."""
    pod = _pod(node_affinity=_required(_term(_req("foo", "In", "bar"), fields=(_name_in("node1"),))))
    got = _message(pod, _node("node1"), _node("node2", {"foo": "bar"}), _node("node3", {"foo": "bar"}))
    assert got == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )


def test_pre_filter_result_is_honoured_when_a_named_node_fits() -> None:
    # "Pod with two terms of node.Name affinity": PreFilterResult {node1, node2}
    pod = _pod(
        node_affinity=_required(_term(fields=(_name_in("node1"),)), _term(fields=(_name_in("node2"),)))
    )
    assert world([_node("node2"), _node("node3")]).schedule(pod).node == "node2"


def test_two_conflicting_match_field_requirements() -> None:
    """ "Pod with two conflicting mach field requirements": PreFilter is unresolvable with
    errReasonConflict "pod affinity terms conflict", which is the whole FitError."""
    pod = _pod(node_affinity=_required(_term(fields=(_name_in("node1"), _name_in("node2")))))
    assert filter_reasons(world([_node("node2", {"foo": "bar"})]), pod, NA) == {
        "<prefilter>": ("UNRESOLVABLE", ("pod affinity terms conflict",))
    }
    assert (
        _message(pod, _node("node1"), _node("node2"))
        == "0/2 nodes are available: pod affinity terms conflict."
    )


# -- TestNodeAffinityPriority -----------------------------------------------------------------------
LABEL1, LABEL2, LABEL3 = {"foo": "bar"}, {"key": "value"}, {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = {
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 2, "preference": _term(_req("foo", "In", "bar"))}
    ]
}
AFFINITY2 = {
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 2, "preference": _term(_req("foo", "In", "bar"))},
        {"weight": 4, "preference": _term(_req("key", "In", "value"))},
        {
            "weight": 5,
            "preference": _term(
                _req("foo", "In", "bar"), _req("key", "In", "value"), _req("az", "In", "az1")
            ),
        },
    ]
}
ADDED_KEY = {
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 3, "preference": _term(_req("key", "In", "value"))}
    ]
}
SCORE = [
    (
        "all nodes are same priority as NodeAffinity is nil",
        None,
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        None,
        [0, 0, 0],
    ),
    (
        "no node matches preferred scheduling requirements in NodeAffinity of pod"
        " so all nodes' priority is zero",
        AFFINITY1,
        [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
        None,
        [0, 0, 0],
    ),
    (
        "only node1 matches the preferred scheduling requirements of pod",
        AFFINITY1,
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        None,
        [100, 0, 0],
    ),
    (
        "all nodes matches the preferred scheduling requirements of pod but with different priorities",
        AFFINITY2,
        [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
        None,
        [18, 100, 36],
    ),
    ("added affinity", None, [("node1", LABEL1), ("node2", LABEL2)], AFFINITY1, [100, 0]),
    (
        "added affinity and pod has default affinity",
        AFFINITY1,
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)],
        ADDED_KEY,
        [40, 60, 100],
    ),
]


@pytest.mark.parametrize(
    ("affinity", "nodes", "added", "want"), [c[1:] for c in SCORE], ids=[c[0] for c in SCORE]
)
def test_node_affinity_priority(
    affinity: Any, nodes: list[tuple[str, dict[str, str]]], added: Any, want: list[int]
) -> None:
    algo = world([_node(n, labels) for n, labels in nodes], config=_config(added))
    pod = _pod(node_affinity=affinity) if affinity else _pod()
    assert plugin_scores(algo, pod, NA) == dict(zip([n for n, _ in nodes], want, strict=True))


def test_added_affinity_is_validated_as_a_pods_node_affinity() -> None:
    # upstream ValidateNodeAffinityArgs: field paths under addedAffinity
    bad = _required(_term(_req("zone", "In")))
    with pytest.raises(
        SchedulerConfigError,
        match=r"addedAffinity\.requiredDuringSchedulingIgnoredDuringExecution"
        r"\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.values",
    ):
        world([], config=_config(bad))


def test_a_profile_with_added_affinity_pickles_with_its_queueing_hints() -> None:
    """The CLI's state directory pickles the control plane, the scheduler's plugins and their hints."""
    import pickle

    algo = world(
        [_node("node1", {"zone": "foo"})], config=_config(_required(_term(_req("zone", "In", "foo"))))
    )
    plugin = algo.profile.plugins[NA]
    hints = pickle.loads(pickle.dumps(plugin.events_to_register()))
    node = _node("node1", {"zone": "foo"})
    assert [h.hint(_pod(), None, node) for h in hints] == [
        h.hint(_pod(), None, node) for h in plugin.events_to_register()
    ]
