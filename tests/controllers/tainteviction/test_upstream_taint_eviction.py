"""Upstream's taint-eviction tables, through kbatch's control plane and decision functions.

Source: kubernetes/kubernetes ``pkg/controller/tainteviction/taint_eviction_test.go`` (``TestCreatePod``,
``TestUpdatePod``, ``TestCreateNode``, ``TestDeleteNode``, ``TestUpdateNode``,
``TestUpdateNodeWithMultipleTaints``, ``TestUpdateNodeWithMultiplePods``, ``TestGetMinTolerationTime``,
``TestEventualConsistency``, ``TestPodDeletionEvent``) against ``taint_eviction.go``
(``processPodOnNode``, ``getMinTolerationTime``, ``handleNodeUpdate``, ``handlePodUpdate``). Upstream
waits real seconds; here virtual time is advanced. A pod is *evicted* when it carries
``DisruptionTarget`` reason ``DeletionByTaintManager`` (upstream's patch) and a ``deletionTimestamp``
(upstream's delete; no kubelet runs, so the graceful delete stays pending).

Not translated: ``TestUpdatePod`` "removing toleration" (the API server refuses removing a pod's
toleration, so no user can make that update; the decision is checked on :func:`plan_eviction`),
``TestDeletePod`` (only that nothing panics), ``TestFilterNoExecuteTaints`` (a helper).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Node, Pod
from kbatch.controllers.nodelifecycle import plan_eviction
from kbatch.controllers.nodelifecycle.taints import matching_tolerations, min_toleration_seconds
from kbatch.controllers.scheduler.types import Taint, Toleration
from kbatch.runtime.controlplane import ControlPlane


def _taint(i: int) -> dict[str, Any]:
    """Upstream ``createNoExecuteTaint`` (here without ``timeAdded``: upstream ignores it)."""
    return {"key": f"testTaint{i}", "value": f"test{i}", "effect": "NoExecute"}


def _toleration(i: int, seconds: int) -> dict[str, Any]:
    """Upstream ``addToleration``: seconds < 0 means no ``tolerationSeconds`` (forever)."""
    out: dict[str, Any] = {"key": f"testTaint{i}", "value": f"test{i}", "effect": "NoExecute"}
    if seconds >= 0:
        out["tolerationSeconds"] = seconds
    return out


def _plane() -> ControlPlane:
    cp = ControlPlane(controllers="taint-eviction-controller")
    cp.run_until_idle()
    return cp


def _node(cp: ControlPlane, taints: list[int], name: str = "node1") -> None:
    cp.client.create(Node.model_validate({"metadata": {"name": name},
                                          "spec": {"taints": [_taint(i) for i in taints] or None}}))
    cp.run_until_idle()


def _set_taints(cp: ControlPlane, taints: list[int], name: str = "node1") -> None:
    cp.client.patch(Node, name, {"spec": {"taints": [_taint(i) for i in taints] or None}})
    cp.run_until_idle()


def _pod(cp: ControlPlane, name: str, node: str = "node1",
         tolerations: list[dict[str, Any]] | None = None) -> None:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}], "tolerations": tolerations}
    if node:
        spec["nodeName"] = node
    cp.client.create(Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec}))
    cp.run_until_idle()


def _evicted(cp: ControlPlane, name: str = "pod1") -> bool:
    pod = cp.client.get(Pod, name, "default")
    target = pod.status.condition("DisruptionTarget") if pod.status else None
    patched = target is not None and target.reason == "DeletionByTaintManager"
    assert patched == (pod.metadata.deletion_timestamp is not None), "patch and delete go together"
    return patched


def _events(cp: ControlPlane) -> list[tuple[str, str, str]]:
    from kbatch.api.core_v1 import Event

    items = cp.client.list(Event, "default").items
    return [(e.type, e.reason, e.message) for e in sorted(items, key=lambda e: e.metadata.creation_timestamp)
            if e.reason == "TaintManagerEviction"]


# --- TestCreatePod: the node's taints are known, then the pod appears ------------------------------

CREATE_POD = [
    ("not scheduled - ignore", "", [], None, False),
    ("scheduled on untainted Node", "node1", [], None, False),
    ("schedule on tainted Node", "node1", [1], None, True),
    ("schedule on tainted Node with finite toleration", "node1", [1], (1, 100), False),
    ("schedule on tainted Node with infinite toleration", "node1", [1], (1, -1), False),
    ("schedule on tainted Node with infinite invalid toleration", "node1", [1], (2, -1), True),
]


@pytest.mark.parametrize(("node", "taints", "toleration", "evicted"), [c[1:] for c in CREATE_POD],
                         ids=[c[0] for c in CREATE_POD])
def test_create_pod(node: str, taints: list[int], toleration: tuple[int, int] | None, evicted: bool) -> None:
    cp = _plane()
    _node(cp, taints)
    _pod(cp, "pod1", node, [_toleration(*toleration)] if toleration else None)
    assert _evicted(cp) == evicted


def test_create_pod_finite_toleration_runs_from_when_the_pod_is_seen() -> None:
    """TestCreatePod "schedule on tainted Node with finite toleration", carried on: the node was
    tainted 500 s before the pod arrived; the 100 s run from the pod's arrival (``processPodOnNode``
    starts at ``now``), not from the taint."""
    cp = _plane()
    _node(cp, [1])
    cp.advance(500)
    _pod(cp, "pod1", "node1", [_toleration(1, 100)])
    cp.advance(99)
    assert not _evicted(cp)
    cp.advance(1)
    assert _evicted(cp)


# --- TestUpdatePod ---------------------------------------------------------------------------------

def test_update_pod_scheduling_onto_tainted_node() -> None:
    """TestUpdatePod "scheduling onto tainted Node" (and TestEventualConsistency "existing pod2
    scheduled onto tainted Node"): the binding makes it evictable at once."""
    cp = _plane()
    _node(cp, [1])
    _pod(cp, "pod1", "")
    assert not _evicted(cp)
    cp.client.bind("pod1", "default", "node1")
    cp.run_until_idle()
    assert _evicted(cp)


def test_update_pod_scheduling_onto_tainted_node_with_toleration() -> None:
    """TestUpdatePod "scheduling onto tainted Node with toleration"."""
    cp = _plane()
    _node(cp, [1])
    _pod(cp, "pod1", "", [_toleration(1, -1)])
    cp.client.bind("pod1", "default", "node1")
    cp.advance(3600)
    assert not _evicted(cp)


def test_update_pod_lengthening_toleration_should_not_work() -> None:
    """TestUpdatePod "lengthening toleration shouldn't work": work scheduled for 1 s keeps its time
    when a longer toleration is added (upstream keeps work whose start plus the new minimum is
    earlier than now plus it)."""
    cp = _plane()
    _node(cp, [1])
    _pod(cp, "pod1", "node1", [_toleration(1, 10)])
    cp.advance(5)
    plan = plan_eviction([Taint("testTaint1", "NoExecute", "test1")],
                         (Toleration("testTaint1", "Equal", "test1", "NoExecute", 100),), 5.0, (0.0, 10.0))
    assert plan == (0.0, 10.0)
    cp.advance(5)
    assert _evicted(cp)


def test_update_pod_removing_toleration_decision() -> None:
    """TestUpdatePod "removing toleration" on the decision (the API forbids the update)."""
    assert plan_eviction([Taint("testTaint1", "NoExecute", "test1")], (), 5.0, (0.0, 100.0)) == (5.0, 5.0)


# --- TestCreateNode / TestDeleteNode ---------------------------------------------------------------

CREATE_NODE = [
    ("Creating Node matching already assigned Pod", [], None, False),
    ("Creating tainted Node matching already assigned Pod", [1], None, True),
    ("Creating tainted Node matching already assigned tolerating Pod", [1], (1, -1), False),
]


@pytest.mark.parametrize(("taints", "toleration", "evicted"), [c[1:] for c in CREATE_NODE],
                         ids=[c[0] for c in CREATE_NODE])
def test_create_node(taints: list[int], toleration: tuple[int, int] | None, evicted: bool) -> None:
    cp = _plane()
    _pod(cp, "pod1", "node1", [_toleration(*toleration)] if toleration else None)
    _node(cp, taints)
    assert _evicted(cp) == evicted


def test_delete_node_keeps_the_scheduled_eviction() -> None:
    """TestDeleteNode: the node's taints are forgotten, but ``handleNodeUpdate`` does not cancel the
    pods' scheduled work, so a pod of the deleted node is still evicted when its time comes."""
    cp = _plane()
    _node(cp, [1])
    _pod(cp, "pod1", "node1", [_toleration(1, 30)])
    cp.advance(10)
    cp.client.delete(Node, "node1")
    cp.advance(19)
    assert not _evicted(cp)
    cp.advance(1)
    assert _evicted(cp)


# --- TestUpdateNode --------------------------------------------------------------------------------

UPDATE_NODE: list[tuple[str, list[int], list[int], list[tuple[int, int]], float, bool]] = [
    ("Added taint, expect node patched and deleted", [], [1], [], 0, True),
    ("Added tolerated taint", [], [1], [(1, 100)], 99, False),
    ("Only one added taint tolerated", [], [1, 2], [(1, 100)], 0, True),
    ("Taint removed", [1], [], [(1, 1)], 1.5, False),
    ("Pod with multiple tolerations are evicted when first one runs out",
     [], [1, 2], [(1, 1), (2, 100)], 1, True),
]


@pytest.mark.parametrize(("old", "new", "tolerations", "wait", "evicted"), [c[1:] for c in UPDATE_NODE],
                         ids=[c[0] for c in UPDATE_NODE])
def test_update_node(old: list[int], new: list[int], tolerations: list[tuple[int, int]], wait: float,
                     evicted: bool) -> None:
    cp = _plane()
    _node(cp, old)
    _pod(cp, "pod1", "node1", [_toleration(*t) for t in tolerations] or None)
    _set_taints(cp, new)
    cp.advance(wait)
    assert _evicted(cp) == evicted


def test_taint_removed_cancels_with_an_event() -> None:
    """TestUpdateNode "Taint removed" and TestPodDeletionEvent "emitCancelPodDeletionEvent": the
    pending eviction is cancelled with a ``Normal`` ``TaintManagerEviction`` "Cancelling deletion of
    Pod NS/NAME" event."""
    cp = _plane()
    _node(cp, [1])
    _pod(cp, "pod1", "node1", [_toleration(1, 1)])
    _set_taints(cp, [])
    cp.advance(5)
    assert not _evicted(cp)
    assert _events(cp) == [("Normal", "TaintManagerEviction", "Cancelling deletion of Pod default/pod1")]


def test_pod_deletion_event() -> None:
    """TestPodDeletionEvent "emitPodDeletionEvent": "Marking for deletion Pod NS/NAME"."""
    cp = _plane()
    _node(cp, [1])
    _pod(cp, "pod1", "node1")
    assert _events(cp) == [("Normal", "TaintManagerEviction", "Marking for deletion Pod default/pod1")]


def test_update_node_with_multiple_taints() -> None:
    """TestUpdateNodeWithMultipleTaints: no taint, then a forever-tolerated taint, then a second
    one tolerated 60 s (queued), then back to the first only (cancelled): never deleted."""
    cp = _plane()
    forever = {"key": "testTaint1", "operator": "Exists", "effect": "NoExecute"}
    minute = {"key": "testTaint2", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    _node(cp, [])
    _pod(cp, "pod1", "node1", [forever, minute])
    _set_taints(cp, [1])
    cp.advance(30)
    _set_taints(cp, [1, 2])
    cp.advance(59)
    _set_taints(cp, [1])
    cp.advance(600)  # (within the events' 1 h TTL)
    assert not _evicted(cp)
    assert _events(cp) == [("Normal", "TaintManagerEviction", "Cancelling deletion of Pod default/pod1")]


@pytest.mark.parametrize(("taints", "at_once", "after_1s"), [([1], {"pod1"}, {"pod1", "pod2"}),
                                                             ([1, 2], {"pod1", "pod2", "pod3"}, None)],
                         ids=["Pods with different toleration times are evicted appropriately",
                              "Evict all pods not matching all taints instantly"])
def test_update_node_with_multiple_pods(taints: list[int], at_once: set[str],
                                        after_1s: set[str] | None) -> None:
    """TestUpdateNodeWithMultiplePods."""
    cp = _plane()
    _node(cp, [])
    _pod(cp, "pod1")
    _pod(cp, "pod2", tolerations=[_toleration(1, 1)])
    _pod(cp, "pod3", tolerations=[_toleration(1, -1)])
    _set_taints(cp, taints)
    assert {p for p in ("pod1", "pod2", "pod3") if _evicted(cp, p)} == at_once
    cp.advance(1)
    assert {p for p in ("pod1", "pod2", "pod3") if _evicted(cp, p)} == (after_1s or at_once)
    cp.advance(3600)
    assert {p for p in ("pod1", "pod2", "pod3") if _evicted(cp, p)} == (after_1s or at_once)


# --- TestGetMinTolerationTime, GetMatchingTolerations ----------------------------------------------

@pytest.mark.parametrize(("seconds", "expected"), [([], None), ([None], None), ([1, 2], 1.0),
                                                   ([1, None], 1.0), ([None, 1], 1.0), ([0, 5], 0.0),
                                                   ([-3], 0.0)])
def test_get_min_toleration_time(seconds: list[int | None], expected: float | None) -> None:
    """TestGetMinTolerationTime (upstream's empty list gives 0, but it is never reached: no taints
    means no eviction, and a taint always has a used toleration; kbatch answers None)."""
    used = [Toleration(operator="Exists", toleration_seconds=s) for s in seconds]
    assert min_toleration_seconds(used) == expected


def test_matching_tolerations_use_the_first_match_per_taint() -> None:
    """``GetMatchingTolerations`` takes the first toleration matching each taint: a forever
    toleration listed first hides a later timed one for the same taint."""
    taint = Taint("k", "NoExecute")
    forever = Toleration("k", "Exists", "", "NoExecute")
    timed = Toleration("k", "Exists", "", "NoExecute", 60)
    assert matching_tolerations([taint], [forever, timed]) == [forever]
    assert plan_eviction([taint], (forever, timed), 0.0, None) is None
    assert plan_eviction([taint], (timed, forever), 0.0, None) == (0.0, 60.0)


# --- TestEventualConsistency -----------------------------------------------------------------------

@pytest.mark.parametrize(("tolerations", "wait"), [(None, 0), ([_toleration(1, 100)], 100)],
                         ids=["new pod2 created on tainted Node",
                              "new pod2 with tait toleration created on tainted Node"])
def test_eventual_consistency_new_pod(tolerations: list[dict[str, Any]] | None, wait: float) -> None:
    """TestEventualConsistency: the node update evicts pod1; pod2, created after, is evicted too
    (at once, or once its toleration runs out)."""
    cp = _plane()
    _node(cp, [])
    _pod(cp, "pod1")
    _set_taints(cp, [1])
    assert _evicted(cp, "pod1")
    _pod(cp, "pod2", tolerations=tolerations)
    cp.advance(wait)
    assert _evicted(cp, "pod2")


# --- phases: upstream's handlers and processPodOnNode look at no pod phase -------------------------

@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_a_finished_pod_on_a_tainted_node_is_evicted_too(phase: str) -> None:
    """``handleNodeUpdate`` lists every pod bound to the node and ``addConditionAndDeletePod``
    patches and deletes whatever its phase: a finished pod gets ``DisruptionTarget`` and is deleted
    (at once: a terminal pod's deletion needs no grace period)."""
    from kbatch.api.errors import NotFound
    from kbatch.api.frozen import edit

    cp = _plane()
    _node(cp, [])
    _pod(cp, "pod1")
    pod = edit(cp.client.get(Pod, "pod1", "default"))
    pod.status.phase = phase
    cp.client.update_status(pod)
    watch = cp.client.watch(Pod, "default")
    _set_taints(cp, [1])
    events = watch.poll()
    patched = [e.object for e in events
               if e.type == "MODIFIED" and e.object.status.condition("DisruptionTarget")]
    assert patched and patched[0].status.condition("DisruptionTarget").reason == "DeletionByTaintManager"
    assert events[-1].type == "DELETED"
    with pytest.raises(NotFound):
        cp.client.get(Pod, "pod1", "default")


# --- timed_workers_test.go: TestCancelAndReadd, through taints removed and added again ---------------

def test_cancel_and_readd_restarts_the_toleration() -> None:
    """``timed_workers_test.go`` ``TestCancelAndReadd`` (work cancelled, then added again, runs from
    its new start) as a user meets it: a taint tolerated for 60 s is removed at t=30 (the work is
    cancelled) and added again at t=40, so the pod goes at t=100, not at t=60."""
    cp = _plane()
    _node(cp, [1])
    _pod(cp, "pod1", "node1", [_toleration(1, 60)])
    cp.advance(30)
    _set_taints(cp, [])
    cp.advance(10)
    _set_taints(cp, [1])
    cp.advance(59)
    assert not _evicted(cp)
    cp.advance(1)
    assert _evicted(cp)
    assert [m for _, _, m in _events(cp)] == ["Cancelling deletion of Pod default/pod1",
                                              "Marking for deletion Pod default/pod1"]
