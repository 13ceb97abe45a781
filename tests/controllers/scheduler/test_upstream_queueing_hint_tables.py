"""Cases of upstream's queueing-hint tests (KEP-4247), one plugin at a time, ported through kbatch's
hint functions (the ``hint(pod, old, new)`` each plugin registers in ``events_to_register``).

Sources (kubernetes/kubernetes, stored 1.36/1.37-era commits, ``pkg/scheduler/framework/plugins/``):
``tainttoleration/taint_toleration_test.go`` ``TestIsSchedulableAfterNodeChange`` and
``Test_isSchedulableAfterTargetPodTolerationChange``; ``nodeunschedulable/node_unschedulable_test.go``
``TestIsSchedulableAfterNodeChange``; ``nodeports/node_ports_test.go`` ``Test_isSchedulableAfterPodDeleted``;
``nodeaffinity/node_affinity_test.go`` ``Test_isSchedulableAfterNodeChange``;
``schedulinggates/scheduling_gates_test.go`` ``TestPreEnqueue`` (the PreEnqueue table);
``noderesources/fit_test.go`` ``Test_isSchedulableAfterPodChange`` and ``Test_isSchedulableAfterNodeChange``
(the ``fwk`` layout, with ``DRAExtendedResource``: 1.35+); ``podtopologyspread/plugin_test.go``
``Test_isSchedulableAfterNodeChange`` and ``Test_isSchedulableAfterPodChange``;
``interpodaffinity/plugin_test.go`` ``Test_isSchedulableAfterPodChange`` and
``Test_isSchedulableAfterNodeChange``
(one node case differs deliberately: see its test).

Not translated: the ``backoff-wrong-*-object`` cases (a hint given something that is not a Node or a
Pod: kbatch's hints are typed, and a hint that raises counts as Queue, tested in
test_queueing_hints.py ``test_requeue_strategy``); fit's "skip-queue-on-disable-inplace-pod-vertical-scaling"
(kbatch models InPlacePodVerticalScaling on, as upstream's default) and its ``pod-level-resource`` twins of
the scale-down cases (kbatch's hint sees the effective requests, the same numbers; pod-level requests are
covered in test_pod_level_resources.py); ``Test_isSchedulableAfterDeviceClassChange`` (DRA extended
resources are not mapped, docs/dra.md).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kbatch.controllers.scheduler.events import QUEUE, QUEUE_SKIP
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.plugins import (
    node_affinity,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    scheduling_gates,
    taint_toleration,
)
from kbatch.controllers.scheduler.plugins.pod_hints import (
    affinity_after_node_change,
    affinity_after_pod_change,
    spread_after_node_change,
    spread_after_pod_change,
)
from kbatch.controllers.scheduler.types import (
    HostPort,
    LabelSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    NodeShape,
    PodAffinityTerm,
    PodInfo,
    SpreadConstraint,
    Taint,
    Toleration,
)

from .sched_builders import node, pod


# -- TaintToleration: TestIsSchedulableAfterNodeChange ----------------------------------------------
def _user(value: str) -> Taint:
    return Taint("dedicated", "NoSchedule", value)


_TOLERATES_USER2 = pod("pod1", tolerations=(Toleration("dedicated", "Equal", "user2", "NoSchedule"),))

TAINT_NODE_CASES = [
    ("skip-queue-on-untoleratedtaint-node-added", None, (_user("user1"),), QUEUE_SKIP),
    ("queue-on-toleratedtaint-node-added", None, (_user("user2"),), QUEUE),
    ("skip-unrelated-change", (_user("user1"),), (_user("user1"), _user("user3")), QUEUE_SKIP),
    ("queue-on-taint-change", (_user("user1"),), (_user("user2"),), QUEUE),
]


@pytest.mark.parametrize(("name", "old", "new", "want"), TAINT_NODE_CASES,
                         ids=[c[0] for c in TAINT_NODE_CASES])
def test_taint_toleration_after_node_change(name: str, old: tuple[Taint, ...] | None, new: tuple[Taint, ...],
                                            want: object) -> None:
    old_node = None if old is None else node("nodeA", taints=old)
    assert taint_toleration.after_node_change(_TOLERATES_USER2, old_node, node("nodeA", taints=new)) == want


def test_taint_toleration_queue_on_toleration_added() -> None:
    """``Test_isSchedulableAfterTargetPodTolerationChange`` "queue-on-toleration-added"."""
    target = pod("pod-1", namespace="ns-1")
    added = replace(target, tolerations=(Toleration("foo", "Equal", "", "NoSchedule"),))
    assert taint_toleration.after_toleration_added(target, target, added) == QUEUE


# -- NodeUnschedulable: TestIsSchedulableAfterNodeChange --------------------------------------------
_NOT_READY = Taint("node.kubernetes.io/not-ready", "NoExecute")

UNSCHEDULABLE_CASES = [
    ("skip-queue-on-unschedulable-node-added", None, node("n", unschedulable=True), QUEUE_SKIP),
    ("queue-on-schedulable-node-added", None, node("n"), QUEUE),
    ("skip-unrelated-change", node("n", unschedulable=True),
     node("n", unschedulable=True, taints=(_NOT_READY,)), QUEUE_SKIP),
    ("queue-on-unschedulable-field-change", node("n", unschedulable=True), node("n"), QUEUE),
]


@pytest.mark.parametrize(("name", "old", "new", "want"), UNSCHEDULABLE_CASES,
                         ids=[c[0] for c in UNSCHEDULABLE_CASES])
def test_node_unschedulable_after_node_change(name: str, old: object, new: object, want: object) -> None:
    assert node_unschedulable.after_node_change(pod("p"), old, new) == want  # type: ignore[arg-type]


# -- NodePorts: Test_isSchedulableAfterPodDeleted ---------------------------------------------------
def _ports(*numbers: int) -> tuple[HostPort, ...]:
    """``st.MakePod().HostPort(n)``: empty hostIP and protocol, i.e. 0.0.0.0 and TCP."""
    return tuple(HostPort("0.0.0.0", "TCP", n) for n in numbers)


_WITH_8080 = pod("p", host_ports=_ports(8080))

PORT_CASES = [
    ("skip-queue-on-unscheduled", pod("o"), QUEUE_SKIP),
    ("skip-queue-on-non-hostport", pod("o", node_name="fake-node"), QUEUE_SKIP),
    ("skip-queue-on-unrelated-hostport", pod("o", node_name="fake-node", host_ports=_ports(8081)),
     QUEUE_SKIP),
    ("queue-on-released-hostport", pod("o", node_name="fake-node", host_ports=_ports(8080)), QUEUE),
]


@pytest.mark.parametrize(("name", "old", "want"), PORT_CASES, ids=[c[0] for c in PORT_CASES])
def test_node_ports_after_pod_deleted(name: str, old: object, want: object) -> None:
    assert node_ports.after_pod_deleted(_WITH_8080, old, None) == want  # type: ignore[arg-type]


# -- NodeAffinity: Test_isSchedulableAfterNodeChange ------------------------------------------------
_FOO_BAR = (NodeSelectorTerm((NodeSelectorRequirement("foo", "In", ("bar",)),)),)
_WANTS_FOO_BAR = pod("p", required_terms=_FOO_BAR)  # st.MakePod().NodeAffinityIn("foo", ["bar"], …)

AFFINITY_CASES = [
    ("skip-queue-on-add", None, None, {}, QUEUE_SKIP),
    ("queue-on-add", None, None, {"foo": "bar"}, QUEUE),
    ("skip-unrelated-changes", None, {}, {}, QUEUE_SKIP),
    ("skip-unrelated-changes-on-labels", None, {}, {"k": "v"}, QUEUE_SKIP),
    ("skip-labels-changes-on-node-from-suitable-to-unsuitable", None, {"foo": "bar"}, {"k": "v"},
     QUEUE_SKIP),
    ("queue-on-labels-change-makes-pod-schedulable", None, {}, {"foo": "bar"}, QUEUE),
    ("skip-queue-on-add-scheduler-enforced-node-affinity", _FOO_BAR, None, {}, QUEUE_SKIP),
    ("queue-on-add-scheduler-enforced-node-affinity", _FOO_BAR, None, {"foo": "bar"}, QUEUE),
]


@pytest.mark.parametrize(("name", "added", "old", "new", "want"), AFFINITY_CASES,
                         ids=[c[0] for c in AFFINITY_CASES])
def test_node_affinity_after_node_change(name: str, added: tuple[NodeSelectorTerm, ...] | None,
                                         old: dict[str, str] | None, new: dict[str, str],
                                         want: object) -> None:
    old_node = None if old is None else node("n", labels=old)
    got = node_affinity.added_after_node_change(added, _WANTS_FOO_BAR, old_node, node("n", labels=new))
    assert got == want


# -- SchedulingGates: TestPreEnqueue ----------------------------------------------------------------
def test_scheduling_gates_pre_enqueue() -> None:
    """ "pod does not carry scheduling gates": nil; "pod carries scheduling gates":
    UnschedulableAndUnresolvable "waiting for scheduling gates: [foo bar]" (the gates in spec order)."""
    plugin = scheduling_gates.SchedulingGates()
    assert plugin.pre_enqueue(pod("p")) is None
    status = plugin.pre_enqueue(pod("p", scheduling_gates=("foo", "bar")))
    assert status is not None
    assert (status.code, status.message) == (Code.UNRESOLVABLE, "waiting for scheduling gates: [foo bar]")


# -- NodeResourcesFit: Test_isSchedulableAfterPodChange ---------------------------------------------
def _req(name: str, uid: str = "", node_name: str = "", **requests: int) -> PodInfo:
    """``st.MakePod().Name(n).UID(u).Req(…).Node(…)``; ``memory``/``cpu`` in bytes/millicores."""
    made = pod(name, node_name=node_name)
    return replace(made, uid=uid or made.uid, requests=dict(requests), nonzero_requests=dict(requests))


FIT_POD_CASES = [
    ("queue-on-other-pod-deleted", _req("pod1", cpu=1000), _req("pod2", node_name="fake", cpu=1000), None,
     QUEUE),
    ("skip-queue-on-unscheduled-pod-deleted", _req("p"), _req("o"), None, QUEUE_SKIP),
    ("skip-queue-on-other-unscheduled-pod", _req("pod1", "uid0", cpu=1000), _req("pod2", "uid1", cpu=2000),
     _req("pod2", "uid1", cpu=1000), QUEUE_SKIP),
    ("skip-queue-on-other-pod-unrelated-resource-scaled-down", _req("pod1", "pod1", cpu=1000),
     _req("pod2", "pod2", "fake", memory=2), _req("pod2", "pod2", "fake", memory=1), QUEUE_SKIP),
    ("queue-on-other-pod-some-resource-scale-down", _req("pod1", "pod1", cpu=1000),
     _req("pod2", "pod2", "fake", cpu=2000), _req("pod2", "pod2", "fake", cpu=1000), QUEUE),
    ("queue-on-target-pod-some-resource-scale-down", _req("pod1", "pod1", cpu=1000),
     _req("pod1", "pod1", cpu=2000), _req("pod1", "pod1", cpu=1000), QUEUE),
]


@pytest.mark.parametrize(("name", "target", "old", "new", "want"), FIT_POD_CASES,
                         ids=[c[0] for c in FIT_POD_CASES])
def test_fit_after_pod_event(name: str, target: PodInfo, old: PodInfo, new: PodInfo | None,
                             want: object) -> None:
    assert node_resources_fit.after_pod_event(target, old, new) == want


# -- NodeResourcesFit: Test_isSchedulableAfterNodeChange --------------------------------------------
A, B = "example.com/aaa", "example.com/bbb"  # upstream extendedResourceA/B


def _capacity(**resources: int) -> NodeShape:
    """``st.MakeNode().Capacity(…)``: capacity and allocatable, with ``pods: 32`` by default."""
    alloc = {"pods": 32, **{(A if k == "a" else B if k == "b" else k): v for k, v in resources.items()}}
    return NodeShape("n", {}, (), False, alloc)


_MEM2_A1 = _req("p", memory=2, **{A: 1})

FIT_NODE_CASES = [
    ("skip-queue-on-node-add-without-sufficient-resources", _req("p", memory=2), None, _capacity(memory=1),
     QUEUE_SKIP),
    ("skip-queue-on-node-add-without-required-resource-type", _req("p", **{A: 1}), None, _capacity(b=1),
     QUEUE_SKIP),
    ("queue-on-node-add-with-sufficient-resources", _MEM2_A1, None, _capacity(memory=4, a=2), QUEUE),
    ("skip-queue-on-node-unrelated-changes", _MEM2_A1, _capacity(memory=2, a=2),
     _capacity(memory=2, a=1, b=2), QUEUE_SKIP),
    ("queue-on-pod-requested-resources-increase", _MEM2_A1, _capacity(memory=2, a=1),
     _capacity(memory=2, a=2), QUEUE),
    ("skip-queue-on-node-changes-from-suitable-to-unsuitable", _MEM2_A1, _capacity(memory=4, a=2),
     _capacity(memory=1, a=2), QUEUE_SKIP),
    ("queue-on-node-changes-from-unsuitable-to-suitable", _MEM2_A1, _capacity(memory=1, a=2),
     _capacity(memory=4, a=2), QUEUE),
]


@pytest.mark.parametrize(("name", "target", "old", "new", "want"), FIT_NODE_CASES,
                         ids=[c[0] for c in FIT_NODE_CASES])
def test_fit_after_node_change(name: str, target: PodInfo, old: NodeShape | None, new: NodeShape,
                               want: object) -> None:
    assert node_resources_fit.after_node_change(target, old, new) == want


# -- PodTopologySpread: Test_isSchedulableAfterNodeChange / Test_isSchedulableAfterPodChange --------
# (``podtopologyspread/plugin_test.go``; fooSelector / barSelector: ``Exists`` on foo / bar)
def _exists(key: str) -> LabelSelector:
    return LabelSelector((), (NodeSelectorRequirement(key, "Exists", ()),))


def _spread(key: str, selector: str = "foo", taints: str = "Ignore") -> SpreadConstraint:
    return SpreadConstraint(1, key, "DoNotSchedule", _exists(selector), node_taints_policy=taints)


_ZONE, _ZONE_NODE = (_spread("zone"),), (_spread("zone"), _spread("node"))
_T_AAA, _T_CCC = Taint("aaa", "NoSchedule", "bbb"), Taint("ccc", "NoSchedule", "bbb")


def _n(taints: tuple[Taint, ...] = (), **labels: str) -> NodeShape:
    return NodeShape("node-a", dict(labels), taints, False, {"pods": 110})


SPREAD_NODE_CASES = [
    ("node updates label which matches topologyKey", _ZONE, _n(zone="zone1"), _n(zone="zone2"), QUEUE),
    ("node that doesn't match topologySpreadConstraints updates non-related label", _ZONE, _n(foo="bar1"),
     _n(foo="bar2"), QUEUE_SKIP),
    ("node that match topologySpreadConstraints adds non-related label", _ZONE_NODE,
     _n(zone="zone1", node="node1", foo="bar"), _n(zone="zone1", node="node1"), QUEUE_SKIP),
    ("create node with non-related labels", _ZONE, None, _n(foo="bar"), QUEUE_SKIP),
    ("create node with related labels", _ZONE, None, _n(zone="zone1"), QUEUE),
    ("delete node with non-related labels", _ZONE, _n(foo="bar"), None, QUEUE_SKIP),
    ("delete node with related labels", _ZONE, _n(zone="zone1"), None, QUEUE),
    ("add node with related labels that only match one of topologySpreadConstraints", _ZONE_NODE, None,
     _n(zone="zone1"), QUEUE_SKIP),
    ("add node with related labels that match all topologySpreadConstraints", _ZONE_NODE, None,
     _n(zone="zone1", node="node1"), QUEUE),
    ("update node with related labels that only match one of topologySpreadConstraints", _ZONE_NODE,
     _n(zone="zone1"), _n(zone="zone1"), QUEUE_SKIP),
    ("update node with related labels that match all topologySpreadConstraints", _ZONE_NODE,
     _n(zone="zone1", node="node1"), _n(zone="zone1", node="node2"), QUEUE),
    ("update node with different taints that match all topologySpreadConstraints", _ZONE_NODE,
     _n((_T_AAA,), zone="zone1", node="node1"), _n((_T_CCC,), zone="zone1", node="node1"), QUEUE),
    ("update node with different taints that only match one of topologySpreadConstraints", _ZONE_NODE,
     _n((_T_AAA,), node="node1"), _n((_T_CCC,), node="node1"), QUEUE_SKIP),
]


@pytest.mark.parametrize(("name", "constraints", "old", "new", "want"), SPREAD_NODE_CASES,
                         ids=[c[0] for c in SPREAD_NODE_CASES])
def test_spread_after_node_change(name: str, constraints: tuple[SpreadConstraint, ...],
                                  old: NodeShape | None, new: NodeShape | None, want: object) -> None:
    target = pod("p", spread_constraints=constraints)
    assert spread_after_node_change(target, old, new) == want  # type: ignore[arg-type]


def _other(node_name: str = "fake-node", namespace: str = "default", **labels: str) -> PodInfo:
    return replace(pod("p2", namespace=namespace, node_name=node_name), uid="p2", labels=dict(labels))


_P = pod("p", labels={"foo": ""}, spread_constraints=_ZONE)
_P2 = replace(_P, spread_constraints=(_spread("zone"), _spread("node", "bar")))
_P_HONOR = replace(_P, spread_constraints=(_spread("zone", taints="Honor"), _spread("node", "bar")))
_P_IGNORE = _P2
_UNSCHEDULABLE_TOLERATION = Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")


def _self(target: PodInfo, **labels: str) -> PodInfo:
    return replace(target, labels=dict(labels))


SPREAD_POD_CASES = [
    ("add pod with labels match topologySpreadConstraints selector", _P, None, _other(foo=""), QUEUE),
    ("add un-scheduled pod", _P, None, _other("", foo=""), QUEUE_SKIP),
    ("update un-scheduled pod", _P, _other("", bar=""), _other("", foo=""), QUEUE_SKIP),
    ("delete un-scheduled pod", _P, _other("", foo=""), None, QUEUE_SKIP),
    ("add pod with different namespace", _P, None, _other(namespace="fake-namespace", foo=""), QUEUE_SKIP),
    ("add pod with labels don't match topologySpreadConstraints selector", _P, None, _other(bar=""),
     QUEUE_SKIP),
    ("delete pod with labels that match topologySpreadConstraints selector", _P, _other(foo=""), None, QUEUE),
    ("delete pod with labels that don't match topologySpreadConstraints selector", _P, _other(bar=""), None,
     QUEUE_SKIP),
    ("update pod's non-related label", _P, _other(foo="", bar="bar1"), _other(foo="", bar="bar2"),
     QUEUE_SKIP),
    ("add pod's label that matches topologySpreadConstraints selector", _P, _other(), _other(foo=""), QUEUE),
    ("delete pod label that matches topologySpreadConstraints selector", _P, _other(foo=""), _other(), QUEUE),
    ("change pod's label that matches topologySpreadConstraints selector", _P, _other(foo="foo1"),
     _other(foo="foo2"), QUEUE_SKIP),
    ("change pod's label that doesn't match topologySpreadConstraints selector", _P,
     _other(foo="", bar="bar1"), _other(foo="", bar="bar2"), QUEUE_SKIP),
    ("add pod's label that matches topologySpreadConstraints selector with multi topologySpreadConstraints",
     _P2, _other(foo=""), _other(foo="", bar="bar2"), QUEUE),
    ("change pod's label that doesn't match topologySpreadConstraints selector with multi "
     "topologySpreadConstraints", _P2, _other(foo=""), _other(foo="", baz=""), QUEUE_SKIP),
    ("change pod's label that match topologySpreadConstraints selector with multi topologySpreadConstraints",
     _P2, _other(foo="", bar=""), _other(foo="", bar="bar2"), QUEUE_SKIP),
    ("the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has got a new "
     "toleration", _P_HONOR, _self(_P_HONOR, foo=""),
     replace(_self(_P_HONOR, foo=""), tolerations=(_UNSCHEDULABLE_TOLERATION,)), QUEUE),
    ("the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has got a new "
     "toleration", _P_IGNORE, _self(_P_IGNORE, foo=""),
     replace(_self(_P_IGNORE, foo=""), tolerations=(_UNSCHEDULABLE_TOLERATION,)), QUEUE_SKIP),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new label matching the selector of "
     "the constraint", _P_IGNORE, _self(_P_IGNORE), _self(_P_IGNORE, foo=""), QUEUE),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label", _P_IGNORE,
     _self(_P_IGNORE), _self(_P_IGNORE, unrelated=""), QUEUE_SKIP),
]


@pytest.mark.parametrize(("name", "target", "old", "new", "want"), SPREAD_POD_CASES,
                         ids=[c[0] for c in SPREAD_POD_CASES])
def test_spread_after_pod_change(name: str, target: PodInfo, old: PodInfo | None, new: PodInfo | None,
                                 want: object) -> None:
    assert spread_after_pod_change(target, old, new) == want


# -- InterPodAffinity: Test_isSchedulableAfterPodChange / Test_isSchedulableAfterNodeChange ---------
# (``interpodaffinity/plugin_test.go``, the ``fwk`` layout with ``TestPodAffinitySignature``: 1.35+)
def _in(key: str, topology: str, *values: str) -> PodAffinityTerm:
    """``PodAffinityIn(key, topologyKey, values, …Required…)``."""
    return PodAffinityTerm(LabelSelector((), (NodeSelectorRequirement(key, "In", values),)), topology)


def _has(key: str, topology: str) -> PodAffinityTerm:
    return PodAffinityTerm(LabelSelector((), (NodeSelectorRequirement(key, "Exists", ()),)), topology)


_SCAN = _in("service", "region", "securityscan", "value2")
_AFF = pod("p", affinity=(_SCAN,))
_AFF2 = pod("p", affinity=(_has("aaa", "hostname"), _has("bbb", "hostname")))
_ANTI = pod("p", anti_affinity=(_SCAN,))


def _o(node_name: str = "fake-node", **labels: str) -> PodInfo:
    return replace(pod("other", node_name=node_name), uid="other", labels=dict(labels))


_SELF_OLD = replace(pod("p"), uid="p", labels={"foo": "bar"})

AFFINITY_POD_CASES = [
    ("add a pod which matches the pod affinity", _AFF, None, _o(service="securityscan"), QUEUE),
    ("add an un-scheduled pod", _AFF, None, _o("", service="securityscan"), QUEUE_SKIP),
    ("add a pod which doesn't match the pod affinity", _AFF, None, _o(aaa="a"), QUEUE_SKIP),
    ("update a pod from non-match to match pod affinity", _AFF, _o(aaa="a"), _o(service="securityscan"),
     QUEUE),
    ("the updating pod matches target pod's affinity both before and after label changes", _AFF,
     _o(service="value2"), _o(service="securityscan"), QUEUE_SKIP),
    ("update an un-scheduled pod", _AFF, _o("", aaa="a"), _o("", service="securityscan"), QUEUE_SKIP),
    ("update a pod from match to non-match the pod affinity", _AFF, _o(service="securityscan"), _o(aaa="a"),
     QUEUE_SKIP),
    ("update a pod from match to non-match pod's affinity - multiple terms case", _AFF2, _o(aaa="a"),
     _o(service="securityscan"), QUEUE_SKIP),
    ("update a pod from non-match to match pod's affinity - multiple terms case", _AFF2, _o(aaa="a"),
     _o(aaa="", bbb=""), QUEUE),
    ("updated pod is the target pod", _SELF_OLD, _SELF_OLD, replace(_SELF_OLD, labels={"foo": "baz"}), QUEUE),
    ("modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity", _ANTI,
     _o(service="securityscan"), _o(service="aaaa"), QUEUE),
    ("modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity", _ANTI,
     _o(service="bbb"), _o(service="securityscan"), QUEUE_SKIP),
    ("delete a pod which doesn't match pod's anti-affinity", _ANTI, _o(aaa="a"), None, QUEUE_SKIP),
    ("delete a pod which matches pod's anti-affinity", _ANTI, _o(service="securityscan"), None, QUEUE),
    ("delete a pod with anti-affinity that matches pending pod",
     replace(pod("p"), labels={"service": "securityscan"}),
     replace(_o(), anti_affinity=(_SCAN,)), None, QUEUE),
    ("delete a pod with anti-affinity that doesn't match pending pod",
     replace(pod("p"), labels={"service": "foo"}),
     replace(_o(), anti_affinity=(_SCAN,)), None, QUEUE_SKIP),
    ("delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't match "
     "pending pod", replace(_ANTI, labels={"service": "foo"}),
     replace(_o(service="foo"), anti_affinity=(_SCAN,)), None, QUEUE_SKIP),
]


@pytest.mark.parametrize(("name", "target", "old", "new", "want"), AFFINITY_POD_CASES,
                         ids=[c[0] for c in AFFINITY_POD_CASES])
def test_inter_pod_affinity_after_pod_change(name: str, target: PodInfo, old: PodInfo | None,
                                             new: PodInfo | None, want: object) -> None:
    assert affinity_after_pod_change(target, old, new) == want


_ZONE_AFF = pod("p", affinity=(_in("service", "zone", "securityscan", "value2"),))
_REGION_AFF = _AFF
_ZONE_ANTI = pod("p", anti_affinity=(PodAffinityTerm(LabelSelector((("another", "label"),)), "zone"),))


def _labels(**labels: str) -> NodeShape:
    return NodeShape("node-a", dict(labels), (), False, {"pods": 110})


AFFINITY_NODE_CASES = [
    ("add a new node with matched pod affinity topologyKey", _ZONE_AFF, None, _labels(zone="zone1"), QUEUE),
    ("add a new node without matched topologyKey", _REGION_AFF, None, _labels(zone="zone1"), QUEUE_SKIP),
    ("update node label that isn't related to the pod affinity", _ZONE_AFF, _labels(zone="zone1"),
     _labels(zone="zone1", **{"unrelated-label": "unrelated"}), QUEUE_SKIP),
    ("update node with different affinity topologyKey value", _ZONE_AFF, _labels(zone="zone1"),
     _labels(zone="zone2"), QUEUE),
    ("update node to have the affinity topology label", _ZONE_AFF, _labels(aaa="a"), _labels(zone="zone1"),
     QUEUE),
    ("add a new node with matched pod anti-affinity topologyKey", _ZONE_ANTI, None, _labels(zone="zone1"),
     QUEUE),
    ("add a new node without matched pod anti-affinity topologyKey", _ZONE_ANTI, None, _labels(), QUEUE),
    ("update node label that isn't related to the pod anti-affinity", _ZONE_ANTI, _labels(zone="zone1"),
     _labels(zone="zone1", **{"unrelated-label": "unrelated"}), QUEUE_SKIP),
    ("update node with different anti-affinity topologyKey value", _ZONE_ANTI, _labels(zone="zone1"),
     _labels(zone="zone2"), QUEUE),
    ("update node label not to have anti-affinity topology label", _ZONE_ANTI, _labels(zone="zone1"),
     _labels(aaa="a"), QUEUE),
]


@pytest.mark.parametrize(("name", "target", "old", "new", "want"), AFFINITY_NODE_CASES,
                         ids=[c[0] for c in AFFINITY_NODE_CASES])
def test_inter_pod_affinity_after_node_change(name: str, target: PodInfo, old: NodeShape | None,
                                              new: NodeShape, want: object) -> None:
    assert affinity_after_node_change(target, old, new) == want


def test_inter_pod_affinity_node_label_removed_or_changed_differs_from_upstream() -> None:
    """ "update node to have the anti-affinity topology label" ({aaa: a} -> {zone: zone1}) and "update
    node label but not topologyKey" ({aaa: a} -> {aaa: b}): upstream QueueSkip. kbatch queues
    (docs/simulation.md, the InterPodAffinity hint row): the node left the domain ``aaa=a``, and an
    existing pod's anti-affinity on ``aaa`` may have been what repelled the pod (the rest of
    kubernetes#134393, which upstream leaves to the 5-minute flush)."""
    assert affinity_after_node_change(_ZONE_ANTI, _labels(aaa="a"), _labels(zone="zone1")) == QUEUE
    assert affinity_after_node_change(_ZONE_AFF, _labels(aaa="a"), _labels(aaa="b")) == QUEUE
