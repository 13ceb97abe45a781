"""Upstream's PodGC tables, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/podgc/gc_controller_test.go`` (``TestGCTerminated``,
``TestGCOrphaned``, ``TestGCUnscheduledTerminating``, ``TestGCTerminating``,
``TestGCInspectingPatchedPodBeforeDeletion``) against ``gc_controller.go`` (the version with
``gcTerminating`` unconditional, NodeOutOfServiceVolumeDetach GA, and ``TypedDelayingQueue``).
Upstream calls ``gc`` once on a fake client; here the objects go through the API server and the
``podgc`` controller's sweeps (t=0, then every 20 s of virtual time) do the work. A pod counts as
*deleted* when it is gone or its deletion was forced (grace 0, a finalizer holding it), *patched* when
PodGC set its phase to ``Failed``. Upstream's ``deletionTimestamp`` pods are made by a delete that a
finalizer (``example.com/hold``) or the absent kubelet keeps pending.

The cases upstream added later about pods "only waiting for their finalizers" (``isPodBlockedOnFinalizers``)
are not translated: the stored upstream controller source does not have that function.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import NotFound
from kbatch.api.frozen import edit
from kbatch.runtime.controlplane import ControlPlane

HOLD = "example.com/hold"
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"


def _plane(threshold: int = -1) -> ControlPlane:
    """``podgc`` alone; threshold -1 (as upstream's tests pass) disables ``gcTerminated``."""
    cp = ControlPlane(controllers="podgc", options={"podgc": {"terminated_pod_gc_threshold": threshold}})
    cp.run_until_idle()  # the sweep at t=0
    return cp


def _node(cp: ControlPlane, name: str, ready: str = "True",
          taints: list[dict[str, Any]] | None = None) -> None:
    cp.client.create(Node.model_validate({
        "metadata": {"name": name}, "spec": {"taints": taints},
        "status": {"conditions": [{"type": "Ready", "status": ready}]}}))


def _pod(cp: ControlPlane, name: str, node: str = "", phase: str = "Pending", *, terminating: bool = False,
         reason: str = "") -> None:
    """A pod created (one per virtual second, so creation order is age order), its phase set, then,
    when ``terminating``, deleted gracefully with a finalizer holding it."""
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}], "restartPolicy": "Never"}
    if node:
        spec["nodeName"] = node
    cp.client.create(Pod.model_validate({
        "metadata": {"name": name, "namespace": "default", "finalizers": [HOLD]}, "spec": spec}))
    if phase != "Pending" or reason:
        pod = edit(cp.client.get(Pod, name, "default"))
        pod.status.phase = phase
        pod.status.reason = reason or None
        cp.client.update_status(pod)
    if terminating:
        cp.client.delete(Pod, name, "default", grace_period_seconds=30)
    cp.advance(0.001)


def _deleted(cp: ControlPlane) -> set[str]:
    out = set()
    for pod in cp.client.list(Pod, "default").items:
        if pod.metadata.deletion_grace_period_seconds == 0:
            out.add(pod.metadata.name)
    return out


def _patched(cp: ControlPlane, names: list[str]) -> set[str]:
    """Of ``names`` (pods that were not terminal), the ones now ``Failed``."""
    return {p.metadata.name for p in cp.client.list(Pod, "default").items
            if p.metadata.name in names and p.status.phase == "Failed"}


def _sweep(cp: ControlPlane, until: float = 20.0) -> None:
    cp.advance(until - cp.clock.now())


# --- TestGCTerminated ---------------------------------------------------------------------------

TERMINATED = [
    ("delete pod a which is PodFailed and pod b which is PodSucceeded",
     [("a", "Failed", ""), ("b", "Succeeded", ""), ("c", "Failed", "")], 1, {"a", "b"}),
    ("threshold = 0, disables terminated pod deletion",
     [("a", "Failed", ""), ("b", "Succeeded", "")], 0, set()),
    ("threshold = 1, delete pod b which is PodSucceeded",
     [("a", "Running", ""), ("b", "Succeeded", ""), ("c", "Failed", "")], 1, {"b"}),
    ("threshold = 1, delete pod a which is PodFailed",
     [("a", "Failed", ""), ("b", "Succeeded", "")], 1, {"a"}),
    ("threshold = 5, don't delete pod", [("a", "Failed", ""), ("b", "Succeeded", "")], 5, set()),
    ("(unnamed) evicted pod c goes first, then the oldest",
     [("a", "Failed", ""), ("b", "Succeeded", ""), ("c", "Failed", "Evicted")], 1, {"c", "a"}),
    ("(unnamed) evicted pod c goes first, running a does not count",
     [("a", "Running", ""), ("b", "Succeeded", ""), ("c", "Failed", "Evicted")], 1, {"c"}),
]


@pytest.mark.parametrize(("pods", "threshold", "deleted"), [c[1:] for c in TERMINATED],
                         ids=[c[0] for c in TERMINATED])
def test_gc_terminated(pods: list[tuple[str, str, str]], threshold: int, deleted: set[str]) -> None:
    """TestGCTerminated: all pods on an existing node; nothing is patched (all terminal or kept)."""
    cp = _plane(threshold)
    _node(cp, "node")
    for name, phase, reason in pods:
        _pod(cp, name, "node", phase, reason=reason)
    _sweep(cp)
    assert _deleted(cp) == deleted
    assert _patched(cp, [n for n, phase, _ in pods if phase == "Running"]) == set()


# --- TestGCOrphaned -----------------------------------------------------------------------------

ORPHANED = [
    ("nodes present", ["existing1", "existing2"],
     [("a", "existing1", "Running"), ("b", "existing2", "Failed"), ("c", "existing2", "Succeeded")],
     set(), set()),
    ("no nodes", [], [("a", "deleted", "Failed"), ("b", "deleted", "Succeeded")], {"a", "b"}, set()),
    ("no nodes, one running pod", [],
     [("a", "deleted", "Failed"), ("b", "deleted", "Succeeded"), ("c", "deleted", "Running")],
     {"a", "b", "c"}, {"c"}),
    ("wrong nodes", ["existing"], [("a", "deleted", "Running")], {"a"}, {"a"}),
    ("some nodes missing", ["existing"],
     [("a", "deleted", "Failed"), ("b", "existing", "Failed"), ("c", "deleted", "Succeeded"),
      ("d", "deleted", "Running")], {"a", "c", "d"}, {"d"}),
]


@pytest.mark.parametrize(("nodes", "pods", "deleted", "patched"), [c[1:] for c in ORPHANED],
                         ids=[c[0] for c in ORPHANED])
def test_gc_orphaned(nodes: list[str], pods: list[tuple[str, str, str]], deleted: set[str],
                     patched: set[str]) -> None:
    """TestGCOrphaned: the first sweep that sees the missing node (t=20) deletes nothing; once the
    quarantine (40 s) has passed (the sweep at t=60) the pods of nodes still absent go."""
    cp = _plane()
    for name in nodes:
        _node(cp, name)
    for name, node, phase in pods:
        _pod(cp, name, node, phase)
    _sweep(cp, 20.0)
    assert _deleted(cp) == set()
    _sweep(cp, 60.0)
    assert _deleted(cp) == deleted
    assert _patched(cp, [n for n, _, phase in pods if phase == "Running"]) == patched


def test_gc_orphaned_quarantine_not_finished() -> None:
    """TestGCOrphaned "quarantine not finished": half the quarantine later, nothing is deleted."""
    cp = _plane()
    _pod(cp, "a", "deleted", "Failed")
    _sweep(cp, 20.0)  # first seen missing
    _sweep(cp, 40.0)  # 20 s of the 40 s quarantine
    assert _deleted(cp) == set()


def test_gc_orphaned_node_added_after_quarantine() -> None:
    """TestGCOrphaned "node added to client/informer after quarantine": the node exists by the time
    the quarantine ends, so its pod stays."""
    cp = _plane()
    _pod(cp, "a", "node", "Running")
    _sweep(cp, 20.0)
    _node(cp, "node")
    _sweep(cp, 60.0)
    assert _deleted(cp) == set() and _patched(cp, ["a"]) == set()


def test_gc_orphaned_node_deleted_after_quarantine_started() -> None:
    """TestGCOrphaned "node deleted from informer after quarantine": a node present at the first
    sweep and deleted later starts its own quarantine then; its pod is deleted a quarantine later."""
    cp = _plane()
    _node(cp, "node")
    _pod(cp, "a", "node", "Succeeded")
    _sweep(cp, 20.0)
    cp.client.delete(Node, "node")
    _sweep(cp, 40.0)  # first seen missing
    assert _deleted(cp) == set()
    _sweep(cp, 80.0)
    assert _deleted(cp) == {"a"}


def test_gc_inspecting_patched_pod_before_deletion_orphaned() -> None:
    """TestGCInspectingPatchedPodBeforeDeletion "orphaned pod should have DisruptionTarget condition
    added before deletion": phase Failed, the pod's other conditions kept, DisruptionTarget added."""
    cp = _plane()
    _pod(cp, "testPod".lower(), "deletedNode".lower(), "Running")
    pod = edit(cp.client.get(Pod, "testpod", "default"))
    pod.status.conditions = [{"type": "Ready", "status": "True"}]  # type: ignore[list-item]
    cp.client.update_status(pod)
    _sweep(cp, 60.0)
    got = cp.client.get(Pod, "testpod", "default")
    assert got.status.phase == "Failed" and got.metadata.deletion_grace_period_seconds == 0
    assert got.status.condition("Ready").status == "True"
    target = got.status.condition("DisruptionTarget")
    assert (target.status, target.reason) == ("True", "DeletionByPodGC")
    assert target.message == "PodGC: node no longer exists"


# --- TestGCUnscheduledTerminating ---------------------------------------------------------------

def test_gc_unscheduled_pod_in_any_phase_must_be_deleted() -> None:
    """TestGCUnscheduledTerminating "Unscheduled pod in any phase must be deleted"."""
    cp = _plane()
    for name, phase in (("a", "Failed"), ("b", "Succeeded"), ("c", "Running")):
        _pod(cp, name, "", phase, terminating=True)
    _sweep(cp)
    assert _deleted(cp) == {"a", "b", "c"}
    assert _patched(cp, ["c"]) == {"c"}


def test_gc_scheduled_pod_in_any_phase_must_not_be_deleted() -> None:
    """TestGCUnscheduledTerminating "Scheduled pod in any phase must not be deleted"."""
    cp = _plane()
    _node(cp, "node")
    _pod(cp, "a", "", "Failed")
    _pod(cp, "b", "node", "Succeeded")
    _pod(cp, "c", "node", "Running", terminating=True)
    _sweep(cp)
    assert _deleted(cp) == set() and _patched(cp, ["c"]) == set()


# --- TestGCTerminating (out-of-service taint) ---------------------------------------------------

def _oos(effect: str, value: str = "") -> list[dict[str, Any]]:
    taint = {"key": OUT_OF_SERVICE, "effect": effect}
    return [{**taint, "value": value}] if value else [taint]


def test_gc_terminating_pods_on_not_ready_nodes_without_the_taint_are_kept() -> None:
    """TestGCTerminating "pods have deletion timestamp set and the corresponding nodes are not ready"."""
    cp = _plane()
    _node(cp, "worker-0", "False")
    _node(cp, "worker-1", "False")
    _pod(cp, "a", "worker-0", terminating=True)
    _pod(cp, "b", "worker-1", terminating=True)
    _sweep(cp)
    assert _deleted(cp) == set()


def test_gc_terminating_out_of_service_any_effect_or_value_on_a_not_ready_node() -> None:
    """TestGCTerminating "some pods have deletion timestamp and/or phase set and some of the
    corresponding nodes have an outofservice taint that are not ready": only the terminating pod
    (bN) on a not-ready node with the taint (any effect, any value) goes, patched to Failed."""
    cp = _plane()
    nodes = [("worker-0", "False", _oos("NoExecute")), ("worker-1", "False", None),
             ("worker-2", "True", None),
             ("worker-3", "False", _oos("NoSchedule")), ("worker-4", "False", _oos("PreferNoSchedule")),
             ("worker-5", "False", _oos("NoExecute", "any-value"))]
    for name, ready, taints in nodes:
        _node(cp, name, ready, taints)
    for i, (node, _, _) in enumerate(nodes, start=1):
        _pod(cp, f"a{i}", node, "Pending")
        _pod(cp, f"b{i}", node, "Pending", terminating=True)
        _pod(cp, f"c{i}", node, "Pending")
        _pod(cp, f"d{i}", node, "Running")
        _pod(cp, f"e{i}", node, "Unknown")
    _sweep(cp)
    assert _deleted(cp) == {"b1", "b4", "b5", "b6"}
    every = [p.metadata.name for p in cp.client.list(Pod, "default").items]
    assert _patched(cp, every) == {"b1", "b4", "b5", "b6"}


def test_gc_terminating_pods_deleted_from_node_tainted_out_of_service() -> None:
    """TestGCTerminating "pods deleted from node tainted out-of-service": every terminating pod goes;
    only the running one is patched."""
    cp = _plane()
    _node(cp, "worker", "False", _oos("NoExecute"))
    for name, phase in (("a", "Running"), ("b", "Failed"), ("c", "Succeeded")):
        _pod(cp, name, "worker", phase, terminating=True)
    _sweep(cp)
    assert _deleted(cp) == {"a", "b", "c"}
    assert _patched(cp, ["a"]) == {"a"}


def test_gc_terminating_pod_without_finalizer_is_gone() -> None:
    """The force delete of ``gcTerminating`` removes a pod nothing else holds."""
    cp = _plane()
    _node(cp, "worker", "False", _oos("NoExecute"))
    _pod(cp, "a", "worker", "Running", terminating=True)
    cp.client.patch(Pod, "a", {"metadata": {"finalizers": None}}, "default")
    assert cp.client.get(Pod, "a", "default").metadata.deletion_grace_period_seconds == 30
    _sweep(cp)
    with pytest.raises(NotFound):
        cp.client.get(Pod, "a", "default")
