"""Upstream's GangScheduling plugin tables (Kubernetes 1.37-dev), through kbatch's API and scheduler.

Source: kubernetes/kubernetes ``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go``
(the stored 1.37-dev version with scheduling.k8s.io/v1beta1 PodGroups, v1alpha3 CompositePodGroups
and ``TestPlacementFeasible``; 84,959 characters), read beside that era's ``gangscheduling.go``:

* ``Test_isSchedulableAfterPodAdded``, ``Test_isSchedulableAfterPodGroupAdded``,
  ``Test_isSchedulableAfterPodGroupUpdated``: each hint as what it decides for a user — whether the
  event lets a gang held at PreEnqueue go on (the ``CPG=false`` variants; the CompositePodGroup ones
  are in ``test_composite_upstream_gangscheduling.py``);
* ``TestGangSchedulingFlow``: its PreEnqueue statuses (read from the scheduling queue's gate, where
  upstream keeps them too: they are no pod condition) and the gang's outcome;
* ``TestPlacementFeasible``: each sequence of pod outcomes as pods that fit or fit nowhere, in the
  order the workload scheduling cycle takes them (upstream calls ``PlacementFeasible`` after each
  pod; kbatch's cycle does the same, ``kbatch/controllers/scheduler/group_cycle.py``). Upstream's
  "initially scheduled" pods are members created with ``spec.nodeName``.
"""

from __future__ import annotations

from typing import Any

import pytest

from gang.builders import NATIVE, bound, gpu_cluster, gpu_pod, native_group, node_of, scheduled_message
from kbatch.api.core_v1 import Pod
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.runtime.controlplane import ControlPlane


def _cluster(nodes: int = 4) -> ControlPlane:
    cp = gpu_cluster(nodes, gates=NATIVE)
    cp.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in ("ns1", "ns2")])
    return cp


def _group(name: str, min_count: int | None, ns: str = "default") -> dict[str, Any]:
    doc = native_group(name, min_count)
    doc["metadata"]["namespace"] = ns
    return doc


def _pod(name: str, group: str | None = None, *, ns: str = "default", gpus: int = 8,
         node: str | None = None) -> dict[str, Any]:
    doc = gpu_pod(name, group=group, gpus=gpus, namespace=ns)
    if node:
        doc["spec"]["nodeName"] = node
    return doc


def _gate(cp: ControlPlane, ns: str, name: str) -> tuple[str, str] | None:
    """(plugin, message) of the PreEnqueue status holding the pod, None when it is not held."""
    entry = cp.manager.get("scheduler").reconciler.queue.entry(f"{ns}/{name}")
    if entry is None or entry.gate is None:
        return None
    return entry.gating, entry.gate.message


def node_of_ns(cp: ControlPlane, ns: str, name: str) -> str | None:
    return cp.client.get(Pod, name, ns).spec.node_name


def _condition(cp: ControlPlane, name: str) -> tuple[str, str, str] | None:
    pg = cp.client.get(PodGroup, name, "default")
    for c in (pg.status.conditions if pg.status else None) or ():
        if c.type == "PodGroupInitiallyScheduled":
            return c.status, c.reason or "", c.message or ""
    return None


QUORUM = ("GangScheduling", "waiting for minCount pods from a gang to appear in scheduling queue")


# -- Test_isSchedulableAfterPodAdded ------------------------------------------------------------------


def test_pod_added_which_matches_the_pods_scheduling_group() -> None:
    """"add a newPod which matches the pod's scheduling group" (CPG=true and CPG=false): Queue."""
    cp = _cluster()
    cp.apply([_group("pg", 2), _pod("p", "pg")])
    assert _gate(cp, "default", "p") == QUORUM
    cp.apply(_pod("new", "pg"))
    assert bound(cp, ["p", "new"]) == ["p", "new"]


def test_pod_added_with_node_name_set_which_matches_the_pods_scheduling_group() -> None:
    """"add a newPod with NodeName set which matches the pod's scheduling group": Queue (an assigned
    member counts toward the gang's pods)."""
    cp = _cluster()
    cp.apply([_group("pg", 2), _pod("p", "pg")])
    cp.apply(_pod("new", "pg", node="node-3"))
    assert node_of(cp, "p") is not None and node_of(cp, "new") == "node-3"


@pytest.mark.parametrize(("name", "new"), [
    ("add a newPod which doesn't match the pod's namespace", ("foo", "pg")),
    ("add a newPod which doesn't match the pod's pod group name", ("default", "pg2")),
])
def test_pod_added_which_does_not_match(name: str, new: tuple[str, str]) -> None:
    """QueueSkip: the held pod stays held."""
    cp = _cluster()
    cp.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "foo"}})
    ns, group = new
    cp.apply([_group("pg", 2), _group(group, 2, ns=ns), _pod("p", "pg")])
    cp.apply(_pod("new", group, ns=ns))
    assert _gate(cp, "default", "p") == QUORUM and node_of(cp, "p") is None


# -- Test_isSchedulableAfterPodGroupAdded ----------------------------------------------------------


def test_pod_group_added_which_matches_the_pods_pod_group_name() -> None:
    cp = _cluster()
    cp.apply(_pod("p", "pg"))
    cp.apply(_group("pg", 1))
    assert node_of(cp, "p") is not None


@pytest.mark.parametrize(("name", "ns", "group"), [
    ("add a pod group which doesn't match the pod's scheduling group name", "default", "pg2"),
    ("add a pod group which doesn't match the pod's scheduling group namespace", "ns2", "pg"),
])
def test_pod_group_added_which_does_not_match(name: str, ns: str, group: str) -> None:
    cp = _cluster()
    cp.apply(_pod("p", "pg", ns="ns1"))
    cp.apply(_group(group, 1, ns=ns))
    gate = _gate(cp, "ns1", "p")
    assert gate is not None and gate[1] == 'waiting for pods\'s pod group "pg" to appear in scheduling queue'


# -- Test_isSchedulableAfterPodGroupUpdated --------------------------------------------------------


def _held_gang(min_count: int, pods: int, ns: str = "ns1") -> ControlPlane:
    cp = _cluster()
    cp.apply(_group("pg", min_count, ns="ns1"))
    cp.apply([_pod(f"p{i}", "pg", ns=ns) for i in range(pods)])
    return cp


def _set_min_count(cp: ControlPlane, value: int) -> None:
    cp.client.patch(PodGroup, "pg", {"spec": {"schedulingPolicy": {"gang": {"minCount": value}}}}, "ns1")
    cp.run_until_idle()


def test_pod_group_updated_min_count_decreased_matches_target_pod() -> None:
    cp = _held_gang(4, 3)
    assert _gate(cp, "ns1", "p0") == QUORUM
    _set_min_count(cp, 3)
    assert all(node_of_ns(cp, "ns1", f"p{i}") for i in range(3))


@pytest.mark.parametrize(("name", "after"), [
    ("minCount increased matches target pod", 4),
    ("minCount unchanged matches target pod", 3),
])
def test_pod_group_updated_without_a_smaller_min_count(name: str, after: int) -> None:
    """QueueSkip: a gang held at 2 pods of minCount 3 stays held when minCount does not shrink."""
    cp = _held_gang(3, 2)
    _set_min_count(cp, after)
    assert _gate(cp, "ns1", "p0") == QUORUM


def test_pod_group_updated_min_count_decreased_but_pod_group_namespace_doesnt_match() -> None:
    """"minCount decreased but pod group namespace doesn't match target pod": the pods in ns2 name
    a group "pg" that only exists in ns1."""
    cp = _held_gang(4, 3, ns="ns2")
    _set_min_count(cp, 1)
    gate = _gate(cp, "ns2", "p0")
    assert gate is not None and gate[1] == 'waiting for pods\'s pod group "pg" to appear in scheduling queue'


# -- TestGangSchedulingFlow (CPG=false variants) -------------------------------------------------------


def test_flow_non_gang_pod_succeeds_immediately() -> None:
    cp = _cluster()
    cp.apply([_group("pg1", 3, ns="ns1"), _group("pg3", None, ns="ns1"), _pod("non-gang", ns="ns1")])
    assert node_of_ns(cp, "ns1", "non-gang") is not None


def test_flow_basic_policy_pod_succeeds_immediately() -> None:
    cp = _cluster()
    cp.apply([_group("pg1", 3, ns="ns1"), _group("pg3", None, ns="ns1")])
    cp.apply(_pod("basic-pod", "pg3", ns="ns1"))
    assert node_of_ns(cp, "ns1", "basic-pod") is not None


def test_flow_gang_pod_fails_pre_enqueue_when_pod_group_is_not_yet_created() -> None:
    """UnschedulableAndUnresolvable ``waiting for pods's pod group "pg1" to appear in scheduling
    queue`` (upstream's spelling, "pods's", in every stored version of gangscheduling.go)."""
    cp = _cluster()
    cp.apply([_pod(n, "pg1", ns="ns1") for n in ("p2", "p3", "p1")])
    cp.apply([_pod(n, "pg2", ns="ns1") for n in ("p4", "p5")])
    assert _gate(cp, "ns1", "p1") == (
        "GangScheduling", 'waiting for pods\'s pod group "pg1" to appear in scheduling queue')


def test_flow_gang_pod_fails_pre_enqueue_when_quorum_is_not_met() -> None:
    cp = _cluster()
    cp.apply([_group("pg1", 3, ns="ns1"), _group("pg2", 4, ns="ns1")])
    cp.apply([_pod(n, "pg1", ns="ns1") for n in ("p2", "p1")])
    cp.apply([_pod(n, "pg2", ns="ns1") for n in ("p4", "p5")])
    assert _gate(cp, "ns1", "p1") == QUORUM


@pytest.mark.parametrize("name", ["gang pod passes PreEnqueue, but waits at Permit",
                                  "final gang pod arrives at Permit and allows all waiting pods from a gang"])
def test_flow_gang_passes_pre_enqueue_and_binds_whole(name: str) -> None:
    """Upstream drives Permit pod by pod (the first members wait, the minCount-th allows them); in
    the workload cycle kbatch runs for every PodGroup the three are placed together and bind together,
    and pg2 (2 of minCount 4) stays held."""
    cp = _cluster()
    cp.apply([_group("pg1", 3, ns="ns1"), _group("pg2", 4, ns="ns1")])
    cp.apply([_pod(n, "pg1", ns="ns1") for n in ("p2", "p3", "p1")])
    cp.apply([_pod(n, "pg2", ns="ns1") for n in ("p4", "p5")])
    assert all(node_of_ns(cp, "ns1", n) for n in ("p1", "p2", "p3"))
    assert _gate(cp, "ns1", "p4") == QUORUM


# -- TestPlacementFeasible (isCPG=false, cpgFeatureGate=false variants) --------------------------------
# (case name, minCount (None: basic), initially scheduled, the unscheduled pods' fits in cycle order,
#  the pods bound at the end, the message of the pods the cycle never tried or placed-and-reverted)
PLACEMENT_CASES = [
    ("All pods succeed, minCount met at end", 2, 0, [True, True], ["p1", "p2"], None),
    ("First pod fails, minCount not satisfiable", 3, 0, [False, True, True], [],
     "minCount (3) cannot be satisfied: 0 scheduled, 2 remaining"),
    ("Second pod fails, minCount not satisfiable", 2, 0, [True, False], [],
     "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"),
    ("Non-gang pod group with 0 scheduled pods fails", None, 0, [False], [], None),
    ("Non-gang pod group with succeeds once 1 pod is scheduled", None, 0, [True], ["p1"], None),
    ("Non-gang pod group with 1 initially scheduled pod succeeds", None, 1, [False], [], None),
    ("More than minCount pods, all succeed", 2, 0, [True, True, True], ["p1", "p2", "p3"], None),
    ("More than minCount pods, first fails", 2, 0, [False, True, True], ["p2", "p3"], None),
    ("More than minCount pods, minCount not satisfiable", 2, 0, [False, False, True], [],
     "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining"),
    ("1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met", 3, 1, [True, True], ["p1", "p2"], None),
    ("minCount already met by scheduled pods", 2, 2, [False], [], None),
    ("1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining", 3, 1, [False, True], [],
     "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"),
]


@pytest.mark.parametrize(("name", "min_count", "scheduled", "fits", "want_bound", "group_message"),
                         PLACEMENT_CASES, ids=[c[0] for c in PLACEMENT_CASES])
def test_placement_feasible(name: str, min_count: int | None, scheduled: int, fits: list[bool],
                            want_bound: list[str], group_message: str | None) -> None:
    """A pod that fits asks for one node's 8 GPUs, one that fails for 9; the already scheduled
    members hold nodes of their own."""
    cp = _cluster(nodes=len(fits) + scheduled)
    cp.apply(_group("test-pg", min_count))
    cp.apply([_pod(f"s{i}", "test-pg", node=f"node-{len(fits) + i}") for i in range(scheduled)])
    cp.run_until_idle()
    names = [f"p{i + 1}" for i in range(len(fits))]
    cp.apply([_pod(n, "test-pg", gpus=8 if fit else 9) for n, fit in zip(names, fits, strict=True)])
    assert bound(cp, names) == want_bound
    for n, fit in zip(names, fits, strict=True):
        reason, message = scheduled_message(cp, n)
        if n in want_bound:
            continue
        assert reason == "Unschedulable"
        if not fit:  # it fit nowhere: its own reasons
            assert message is not None and "Insufficient nvidia.com/gpu" in message
        elif group_message is not None:
            assert message is not None and message.endswith(group_message)
    if group_message is not None:
        want = ("False", "Unschedulable", f"pod group is unschedulable, {group_message}")
        assert _condition(cp, "test-pg") == want
