"""Kueue's ``TestNodeFailureReconciler`` (kubernetes-sigs/kueue v0.19.2
``pkg/controller/tas/node_controller_test.go``), translated: one reconcile of the TAS node
controller (:class:`~kbatch.controllers.kueue.tas.node_failure.NodeFailureController`) over a fake
client holding the node, the Workload and its pods, then the Workload's ``unhealthyNodes``, its
Evicted condition, the requeue and the late pods failed with ``TerminatedByKueue`` /
``UnschedulableOnAssignedNode``; and ``TestGetWorkloadStatus`` (the verdict and the pods to
terminate). Not translated: the admission-check pod set update row (kbatch's node controller reads
the template and flavor tolerations only) and the injected patch error (the row's patch is never
reached: translated without it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta1.topology import domains_to_slices
from kbatch.api.kueue_v1beta2 import ResourceFlavor, Workload
from kbatch.controllers.kueue.tas.node_failure import NodeFailureController, taint_verdict
from kbatch.controllers.scheduler.types import Taint, Toleration
from kbatch.runtime.cache import BY_NODE_NAME
from kbatch.runtime.reconcile import Request

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(seconds=30)  # ``now - NodeFailureDelay``
NODE, NODE2, UNASSIGNED = "test-node-name", "test-node-name-2", "unassigned-node"
HOST = "kubernetes.io/hostname"
DEFAULT_GATES = {
    "TASFailedNodeReplacement": True,
    "TASReplaceNodeOnPodTermination": True,
    "TASReplaceNodeOnNodeTaints": True,
    "TASReplaceNodeDueToNotReadyOverFixedTime": False,
}


class _Store:
    """The fake client: objects by (kind, namespace, name); a status write replaces the object."""

    def __init__(self, objs: list[Any]) -> None:
        self.objs = {(type(o), o.metadata.namespace or "", o.metadata.name or ""): o for o in objs}

    def get(self, kind: type, name: str, namespace: str | None = None) -> Any:
        try:
            return self.objs[(kind, namespace or "", name)]
        except KeyError:
            raise NotFound(f'{kind.__name__} "{name}" not found') from None

    def list(self, kind: type, namespace: str | None = None, index: tuple[str, str] | None = None,
             **_: Any) -> list[Any]:
        assert index is None or index[0] == BY_NODE_NAME
        return [o for (k, ns, _n), o in sorted(self.objs.items(), key=lambda kv: kv[0][1:])
                if k is kind and (namespace is None or ns == namespace)
                and (index is None or o.spec.node_name == index[1])]

    def update_status(self, obj: Any) -> Any:
        self.objs[(type(obj), obj.metadata.namespace or "", obj.metadata.name or "")] = obj
        return obj


@dataclass
class _Settings:
    gates: dict[str, bool]

    def on(self, gate: str) -> bool:
        return self.gates.get(gate, False)


@dataclass
class _Recorder:
    events: list[tuple[str, str, str]] = field(default_factory=list)

    def event(self, obj: Any, kind: str, reason: str, message: str) -> None:
        self.events.append((kind, reason, message))


class _Mgr:
    def __init__(self, store: _Store, gates: dict[str, bool]) -> None:
        self.ctx = type("Ctx", (), {"cache": store, "client": store})()
        self.settings = _Settings({**DEFAULT_GATES, **gates})
        self.recorder = _Recorder()

    def now(self) -> datetime:
        return NOW


def _node(name: str = NODE, ready: str | None = "True", since: datetime = NOW,
          taints: list[dict[str, Any]] | None = None) -> Node:
    conditions = [{"type": "Ready", "status": ready, "lastTransitionTime": since}] if ready else []
    return Node.model_validate({"metadata": {"name": name}, "spec": {"taints": taints},
                                "status": {"conditions": conditions}})


def _workload(*domains: tuple[str, int], unhealthy: tuple[str, ...] = (), count: int | None = None,
              tolerations: list[dict[str, Any]] | None = None, condition: str | None = None,
              level: str = HOST, admitted: bool = True) -> Workload:
    pods = count if count is not None else sum(c for _, c in domains)
    ta = domains_to_slices({"levels": [level], "domains": [{"values": [n], "count": c} for n, c in domains]})
    conditions = [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "m",
                   "lastTransitionTime": NOW},
                  {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "m",
                   "lastTransitionTime": NOW}]
    if condition:
        conditions.append({"type": condition, "status": "True", "reason": condition, "message": "",
                           "lastTransitionTime": NOW})
    return Workload.model_validate({
        "metadata": {"name": "test-workload", "namespace": "default"},
        "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": pods, "template": {"spec": {
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
            "tolerations": tolerations}}}]},
        "status": {
            "conditions": conditions,
            "admission": {"clusterQueue": "cq", "podSetAssignments": [{
                "name": "main", "count": pods, "flavors": {"cpu": "unit-test-flavor"},
                "resourceUsage": {"cpu": str(pods)}, "topologyAssignment": ta}]},
            "unhealthyNodes": [{"name": n} for n in unhealthy] or None,
        } if admitted else None,
    })


def _pod(name: str = "test-pod", node: str = NODE, phase: str = "Running", deleting: bool = False) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": name, "namespace": "default", "deletionTimestamp": NOW if deleting else None,
                     "annotations": {"kueue.x-k8s.io/workload": "test-workload",
                                     "kueue.x-k8s.io/podset-unconstrained-topology": "true"}},
        "spec": {"containers": [{"name": "c", "image": "i"}], "nodeName": node},
        "status": {"phase": phase},
    })


def _pending(name: str, node: str | None = NODE, gated: bool = False, selector: str = HOST,
             tas: bool = True) -> Pod:
    """A pod waiting to schedule: sent to ``node`` by its node selector, or still gated."""
    annotations = {"kueue.x-k8s.io/workload": "test-workload"}
    if tas:
        annotations["kueue.x-k8s.io/podset-unconstrained-topology"] = "true"
    return Pod.model_validate({
        "metadata": {"name": name, "namespace": "default", "annotations": annotations,
                     "labels": {"kueue.x-k8s.io/podset": "main"}},
        "spec": {"containers": [{"name": "c", "image": "i"}],
                 "nodeSelector": {selector: node} if node and not gated else None,
                 "schedulingGates": [{"name": "kueue.x-k8s.io/topology"}] if gated else None},
        "status": {"phase": "Pending"},
    })


FLAVOR = ResourceFlavor.model_validate({"metadata": {"name": "unit-test-flavor"}, "spec": {}})
NO_EXECUTE = [{"key": "maintenance", "value": "true", "effect": "NoExecute"}]
NO_SCHEDULE = [{"key": "maintenance", "value": "true", "effect": "NoSchedule"}]
TOLERATE_FOR_A_WHILE = [{"key": "maintenance", "operator": "Equal", "value": "true", "effect": "NoExecute",
                         "tolerationSeconds": 300}]
TOLERATE = [{"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}]

CASES: dict[str, dict[str, Any]] = {
    "Node Found and Healthy - not marked as unavailable": dict(
        objs=[_node(), _workload((NODE, 1)), _pod()], want=[]),
    "Node becomes healthy, it is removed from the list of nodes to replace": dict(
        objs=[_node(), _workload((NODE, 1), unhealthy=(NODE,)), _pod()], want=[]),
    "Node Found and Unhealthy (NotReady), delay not passed - not marked as unavailable": dict(
        gates={"TASReplaceNodeOnPodTermination": False, "TASReplaceNodeDueToNotReadyOverFixedTime": True},
        objs=[_node(ready="False"), _workload((NODE, 1)), _pod()], want=[], requeue=30.0),
    "Node Found and Unhealthy (NotReady), delay passed - marked as unavailable": dict(
        gates={"TASReplaceNodeOnPodTermination": False, "TASReplaceNodeDueToNotReadyOverFixedTime": True},
        objs=[_node(ready="False", since=EARLIER), _workload((NODE, 1)), _pod()], want=[NODE]),
    "Node NotReady, delay passed, pod running, fixed-time marking disabled - not marked": dict(
        objs=[_node(ready="False", since=EARLIER), _workload((NODE, 1)), _pod()], want=[]),
    "Node NotReady, delay passed, pod running, fixed-time marking enabled - marked": dict(
        gates={"TASReplaceNodeDueToNotReadyOverFixedTime": True},
        objs=[_node(ready="False", since=EARLIER), _workload((NODE, 1)), _pod()], want=[NODE]),
    "Node NotReady, delay passed, pod running, both gates disabled - marked at the fixed time": dict(
        gates={"TASReplaceNodeOnPodTermination": False},
        objs=[_node(ready="False", since=EARLIER), _workload((NODE, 1)), _pod()], want=[NODE]),
    "Node NotReady, pod terminating, both gates disabled - marked": dict(
        gates={"TASReplaceNodeOnPodTermination": False},
        objs=[_node(ready="False", since=EARLIER), _workload((NODE, 1)), _pod(deleting=True)], want=[NODE]),
    "Node NotReady, pod terminating, marked as unavailable": dict(
        objs=[_node(ready="False", since=EARLIER), _workload((NODE, 1)), _pod(deleting=True)], want=[NODE]),
    "Node NotReady, pod failed, marked as unavailable": dict(
        objs=[_node(ready="False"), _workload((NODE, 1)), _pod(phase="Failed")], want=[NODE]),
    "Node NotReady, pod failed, ReplaceNodeOnPodTermination feature gate off, requeued": dict(
        gates={"TASReplaceNodeOnPodTermination": False, "TASReplaceNodeDueToNotReadyOverFixedTime": True},
        objs=[_node(ready="False"), _workload((NODE, 1)), _pod(phase="Failed")], want=[], requeue=30.0),
    "Node NotReady, pod running, not marked as unavailable, requeued": dict(
        objs=[_node(ready="False"), _workload((NODE, 1)), _pod()], want=[]),
    "Node NotReady, 2 succeeded pods, 1 running pod -> waits": dict(
        objs=[_node(ready="False"), _workload((NODE, 2)), _pod("s1", phase="Succeeded"),
              _pod("s2", phase="Succeeded"), _pod("r2")], want=[]),
    "Node NotReady, 2 succeeded pods, 1 pending pod, 1 failed pod -> waits": dict(
        objs=[_node(ready="False"), _workload((NODE, 2)), _pod("s1", phase="Succeeded"),
              _pod("s2", phase="Succeeded"), _pod("p2", phase="Pending"), _pod("f2", phase="Failed")],
        want=[]),
    "Node Deleted - marked as unavailable": dict(objs=[_workload((NODE, 1)), _pod()], want=[NODE]),
    "NodeReady missing - marked as unavailable": dict(
        objs=[_node(ready=None), _workload((NODE, 1)), _pod()], want=[NODE]),
    "Node Deleted, late pod exists for reassigned workload -> UnhealthyNodes not polluted": dict(
        objs=[_workload((NODE2, 1)), _pending("late-pod")], want=[]),
    "NodeReady missing, late pod exists for reassigned workload -> UnhealthyNodes not polluted": dict(
        objs=[_node(ready=None), _workload((NODE2, 1)), _pending("late-pod")], want=[]),
    "Node NotReady, timer expired, patch fails during removal -> UnhealthyNodes not polluted": dict(
        objs=[_node(ready="False", since=EARLIER), _workload((NODE2, 1)), _pending("late-pod")], want=[],
        patched=["late-pod"]),
    "Two Nodes Unhealthy (NotReady), delay passed - workload evicted": dict(
        gates={"TASReplaceNodeOnPodTermination": False, "TASReplaceNodeDueToNotReadyOverFixedTime": True},
        objs=[_node(ready="False", since=EARLIER), _node(NODE2, ready="False", since=EARLIER),
              _workload((NODE, 1), (NODE2, 1)), _pod("pod1"), _pod("pod2", node=NODE2)],
        requests=[NODE, NODE2], want=[],  # the eviction resets unhealthyNodes (``resetUnhealthyNodes``)
        evicted="Workload eviction triggered due to multiple TAS assigned node failures, including: "
                f"{NODE}, {NODE2}"),
    "Node has untolerated NoExecute taint -> Unhealthy": dict(
        objs=[_node(taints=NO_EXECUTE), _workload((NODE, 1))], want=[NODE]),
    "Node has NoExecute taint with TolerationSeconds -> Healthy (wait for eviction)": dict(
        objs=[_node(taints=NO_EXECUTE), _workload((NODE, 1), tolerations=TOLERATE_FOR_A_WHILE), _pod()],
        want=[]),
    "Node has NoExecute taint with TolerationSeconds, pod terminating -> Unhealthy": dict(
        objs=[_node(taints=NO_EXECUTE), _workload((NODE, 1), tolerations=TOLERATE_FOR_A_WHILE),
              _pod(deleting=True)], want=[NODE]),
    "Node has untolerated NoExecute taint, ReplaceNodeOnPodTermination on, pod running -> Healthy": dict(
        objs=[_node(taints=NO_EXECUTE), _workload((NODE, 1)), _pod()], want=[]),
    "Node has untolerated NoExecute taint, ReplaceNodeOnPodTermination on, pod terminating -> Unhealthy": (
        dict(objs=[_node(taints=NO_EXECUTE), _workload((NODE, 1)), _pod(deleting=True)], want=[NODE])),
    "Node has untolerated NoExecute taint, ReplaceNodeOnPodTermination off -> Unhealthy (Immediate)": dict(
        gates={"TASReplaceNodeOnPodTermination": False},
        objs=[_node(taints=NO_EXECUTE), _workload((NODE, 1)), _pod()], want=[NODE]),
    "Node has NoExecute taint with TolerationSeconds, ReplaceNodeOnPodTermination off -> Healthy": dict(
        gates={"TASReplaceNodeOnPodTermination": False},
        objs=[_node(taints=NO_EXECUTE), _workload((NODE, 1), tolerations=TOLERATE_FOR_A_WHILE), _pod()],
        want=[]),
    "Node has NoSchedule taint, ReplaceNodeOnPodTermination on, pod running -> Healthy": dict(
        objs=[_node(taints=NO_SCHEDULE), _workload((NODE, 1)), _pod()], want=[]),
    "Node has NoSchedule taint, ReplaceNodeOnPodTermination off, pod running -> Unhealthy": dict(
        gates={"TASReplaceNodeOnPodTermination": False},
        objs=[_node(taints=NO_SCHEDULE), _workload((NODE, 1)), _pod()], want=[NODE]),
    "Node has NoSchedule taint, tolerated -> Healthy": dict(
        gates={"TASReplaceNodeOnPodTermination": False},
        objs=[_node(taints=NO_SCHEDULE), _workload((NODE, 1), tolerations=TOLERATE), _pod()], want=[]),
    "Node has NoSchedule taint tolerated by assigned ResourceFlavor -> Healthy": dict(
        gates={"TASReplaceNodeOnPodTermination": False},
        objs=[_node(taints=NO_SCHEDULE), _workload((NODE, 1)), _pod(),
              ResourceFlavor.model_validate({"metadata": {"name": "unit-test-flavor"},
                                             "spec": {"tolerations": TOLERATE}})],
        want=[]),
    "Node has untolerated NoSchedule taint, workload has no pods at all -> Unhealthy": dict(
        objs=[_node(taints=NO_SCHEDULE), _workload((NODE, 1))], want=[NODE]),
    "Node NotReady, pod pending (assigned via nodeSelector) -> Unhealthy": dict(
        objs=[_node(ready="False"), _workload((NODE, 1)), _pending("pending-pod-selector")], want=[NODE],
        patched=["pending-pod-selector"]),
    "Node NotReady, pod pending (gated by TopologySchedulingGate) -> Unhealthy (immediate)": dict(
        objs=[_node(ready="False"), _workload((NODE, 1)), _pending("gated-pod", gated=True)], want=[NODE]),
    "Node has untolerated NoExecute taint, pod pending (assigned via nodeSelector) -> Unhealthy": dict(
        objs=[_node(taints=[{"key": "foo", "effect": "NoExecute"}]), _workload((NODE, 1)),
              _pending("pending-pod-selector")], want=[NODE], patched=["pending-pod-selector"]),
    "Node has untolerated NoExecute taint, pod pending (gated by TopologySchedulingGate) -> Unhealthy": dict(
        objs=[_node(taints=[{"key": "foo", "effect": "NoExecute"}]), _workload((NODE, 1)),
              _pending("gated-pod", gated=True)], want=[NODE]),
    "Node NotReady, pod pending, no hostname topology level -> Healthy (ignore)": dict(
        objs=[_node(ready="False"), _workload(("rack-1", 1), level="rack"),
              _pending("pending-pod-rack", "rack-1", selector="rack", tas=False)], want=[]),
    "Node has NoSchedule taint, pod is Pending and on node, ReplaceNodeOnPodTermination on -> Unhealthy": (
        dict(
        objs=[_node(taints=[{"key": "foo", "effect": "NoSchedule"}]), _workload((NODE, 1)),
              _pending("pending-pod")], want=[NODE], patched=["pending-pod"])),
    "Node has NoSchedule taint, multiple pending pods, only matching one patched": dict(
        objs=[_node(taints=[{"key": "foo", "effect": "NoSchedule"}]), _node(NODE2),
              _workload((NODE, 1), (NODE2, 1)), _pending("pending-pod-1"), _pending("pending-pod-2", NODE2)],
        want=[NODE], patched=["pending-pod-1"]),
    "Node has untolerated NoSchedule taint, pod is Gated -> Healthy": dict(
        objs=[_node(taints=[{"key": "foo", "effect": "NoSchedule"}]), _workload((NODE, 1)),
              _pending("gated-pod", gated=True)], want=[NODE]),
    "Workload without admission (nil Admission status) - handled safely": dict(
        objs=[_node(), _workload((NODE, 1), admitted=False), _pending("stray-pod-on-node")], want=[],
        patched=["stray-pod-on-node"]),
    "Node NotReady, workload missing TAS assignment but has late pod -> "
    "Workload marked Healthy, pod patched": (
        dict(objs=[_node(UNASSIGNED, ready="False"), _workload((NODE, 1)), _pending("stray-pod", UNASSIGNED)],
             requests=[UNASSIGNED], want=[], patched=["stray-pod"])),
    "Node NotReady, finished workload on TAS node -> ignored": dict(
        objs=[_node(ready="False"), _workload((NODE, 1), condition="Finished")], want=[]),
    "Node NotReady, evicted workload on TAS node -> ignored": dict(
        objs=[_node(ready="False"), _workload((NODE, 1), condition="Evicted")], want=[]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_node_failure_reconciler(name: str) -> None:
    case = CASES[name]
    objs = list(case["objs"])
    if not any(isinstance(o, ResourceFlavor) for o in objs):
        objs.append(FLAVOR)
    store = _Store(objs)
    mgr = _Mgr(store, case.get("gates", {}))
    controller = NodeFailureController(mgr)
    results = [controller.reconcile(Request("", n)) for n in case.get("requests", [NODE])]
    wl = store.get(Workload, "test-workload", "default")
    status = wl.status
    assert [n.name for n in (status.unhealthy_nodes if status else None) or ()] == case["want"]
    requeue = case.get("requeue")
    assert (results[0].requeue_after if results[0] is not None else None) == requeue
    evicted = next((c for c in (status.conditions if status else None) or () if c.type == "Evicted"), None)
    if "evicted" in case:
        assert evicted is not None and (evicted.status, evicted.reason) == ("True", "NodeFailures")
        assert evicted.message == case["evicted"]
        assert mgr.recorder.events == [("Normal", "EvictedDueToNodeFailures", case["evicted"])]
    else:
        assert evicted is None or evicted.reason != "NodeFailures"
    failed = sorted(p.metadata.name for p in store.list(Pod) if any(
        (c.type, c.status, c.reason, c.message) == (
            "TerminatedByKueue", "True", "UnschedulableOnAssignedNode",
            "Pod terminated by Kueue NodeController due to node taint")
        for c in p.status.conditions or ()) and p.status.phase == "Failed")
    assert failed == sorted(case.get("patched", []))
    assert [e for e in mgr.recorder.events if e[1] == "PodTerminatedByKueue"] == [
        ("Normal", "PodTerminatedByKueue", "Pod terminated by Kueue NodeController due to node taint")
    ] * len(failed)


def test_classify_taints() -> None:
    """``classifyTaints``: untolerated by one pod set, tolerated for a while, or for good."""
    taint = Taint("maintenance", "NoExecute", "true")
    forever = Toleration("maintenance", "Exists", "", "NoExecute")
    for_a_while = Toleration("maintenance", "Exists", "", "NoExecute", toleration_seconds=300)
    assert taint_verdict([taint], [[forever]]) == "healthy"
    assert taint_verdict([taint], [[for_a_while]]) == "check-pods"
    assert taint_verdict([taint], [[forever], []]) == "unhealthy"
    assert taint_verdict([Taint("maintenance", "PreferNoSchedule", "true")], [[]]) == "healthy"


# ``TestGetWorkloadStatus``: name -> (node, objects, gates, want verdict, want pods to terminate)
STATUS_ROWS: dict[str, tuple[Node, list[Any], dict[str, bool], str, list[str]]] = {
    "Healthy pod on assigned node": (_node(), [_pod()], {}, "healthy", []),
    "Node Ready, TASReplaceNodeOnNodeTaints disabled -> Healthy": (
        _node(), [_pod()], {"TASReplaceNodeOnNodeTaints": False}, "healthy", []),
    "Node NotReady, ReplaceNodeOnPodTermination disabled -> Unhealthy immediately": (
        _node(ready="False"), [_pod()],
        {"TASReplaceNodeOnPodTermination": False, "TASReplaceNodeDueToNotReadyOverFixedTime": True},
        "unhealthy", []),
    "Node NotReady, ReplaceNodeOnPodTermination enabled -> Healthy (Waiting for pod termination)": (
        _node(ready="False"), [_pod("valid-pod")], {}, "healthy", []),
    "Stray pending pod on unassigned node gets terminated (expectedOnNode == 0)": (
        _node(UNASSIGNED), [_pending("stray-pod", UNASSIGNED)], {}, "healthy", ["stray-pod"]),
}


@pytest.mark.parametrize("name", sorted(STATUS_ROWS))
def test_get_workload_status(name: str) -> None:
    from kbatch.controllers.kueue.tas import late_pods

    node, pods, gates, want, want_terminated = STATUS_ROWS[name]
    wl = _workload((NODE, 1))
    store = _Store([node, wl, FLAVOR, *pods])
    controller = NodeFailureController(_Mgr(store, gates))
    verdict, checked = controller._verdict(node, wl)
    sent = late_pods.pods_sent_to(store.list(Pod), node.metadata.name or "")
    terminated = late_pods.to_terminate(sent.get(("default", "test-workload"), [])) if checked else []
    assert (verdict, [p.metadata.name for p in terminated]) == (want, want_terminated)


def test_pod_events_reach_the_node_a_late_pod_waits_for() -> None:
    """``nodeFailurePodHandler``: a pending TAS pod sent to a node by its hostname selector
    (whatever its phase: the reconcile decides), and a bound TAS pod that ended; nothing else."""
    from kbatch.controllers.kueue.tas.node_failure import PodNode

    mapper = PodNode()
    assert mapper(_pending("p", NODE2)) == [Request("", NODE2)]
    assert mapper(_pending("p", gated=True)) == []
    assert mapper(_pending("p", "rack-1", selector="rack")) == []
    assert mapper(_pending("p", NODE2, tas=False)) == []
    assert mapper(_pod(phase="Failed")) == [Request("", NODE)]
    assert mapper(_pod()) == []


@pytest.mark.parametrize("running", [True, False])
def test_a_later_workload_slice_is_judged_by_its_chain_pods(running: bool) -> None:
    """``hasProgressingPods`` lists the pods of the Workload's slice chain
    (``ListPodsForWorkloadSlice`` by ``workloadslicing.SliceName``, the pods keyed by
    ``IndexPodWorkloadSliceName``): an elastic Job's scaled slice ``test-workload`` (chain
    ``first-slice``) runs pods that name the chain's first slice, so a NotReady node whose pods still
    run is not failed (kbatch looked for pods naming ``test-workload`` and failed it)."""
    wl = _workload((NODE, 1))
    wl = Workload.model_validate({**wl.to_dict(), "metadata": {
        "name": "test-workload", "namespace": "default",
        "annotations": {"kueue.x-k8s.io/workload-slice-name": "first-slice"}}})
    pod = _pod(phase="Running" if running else "Failed")
    pod = Pod.model_validate({**pod.to_dict(), "metadata": {**pod.to_dict()["metadata"], "annotations": {
        "kueue.x-k8s.io/workload": "first-slice", "kueue.x-k8s.io/podset-unconstrained-topology": "true"}}})
    store = _Store([_node(ready="False"), wl, pod, FLAVOR])
    NodeFailureController(_Mgr(store, {})).reconcile(Request("", NODE))
    status = store.get(Workload, "test-workload", "default").status
    assert [n.name for n in (status.unhealthy_nodes if status else None) or ()] == ([] if running else [NODE])
