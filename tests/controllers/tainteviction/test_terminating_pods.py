"""A pod the taint manager already evicted (terminating: no kubelet finishes it) and what later events
do to it, as upstream ``pkg/controller/tainteviction/taint_eviction.go`` (kubernetes/kubernetes, stored
commits 003e8629 and 5ce22905) has it:

* ``NodeUpdated`` enqueues the node only when its ``NoExecute`` taints changed, and ``handleNodeUpdate``
  runs ``processPodOnNode`` for every pod bound to it, terminating or not (no check of
  ``deletionTimestamp``); the fired work left the ``TimedWorkerQueue`` (``timed_workers.go``
  ``getWrappedWorkerFunc`` deletes it), so the pod is evicted again: another "Marking for deletion"
  event and another delete; ``UpdatePodCondition`` finds ``DisruptionTarget`` unchanged, so no status
  patch (its ``lastTransitionTime`` stays);
* ``PodUpdated`` enqueues the pod only when its tolerations or ``nodeName`` changed, so the pod's own
  status writes do not re-run it; neither does a node update that leaves the ``NoExecute`` taints as
  they were.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Event, Node, Pod
from kbatch.runtime.controlplane import ControlPlane

MARKING = "Marking for deletion Pod default/pod1"


def _taint(i: int) -> dict[str, Any]:
    return {"key": f"testTaint{i}", "value": f"test{i}", "effect": "NoExecute"}


def _evicted_pod() -> ControlPlane:
    cp = ControlPlane(controllers="taint-eviction-controller")
    cp.client.create(Node.model_validate({"metadata": {"name": "node1"}, "spec": {"taints": [_taint(1)]}}))
    cp.client.create(Pod.model_validate({"metadata": {"name": "pod1", "namespace": "default"}, "spec": {
        "nodeName": "node1", "containers": [{"name": "c", "image": "busybox"}]}}))
    cp.run_until_idle()
    assert cp.client.get(Pod, "pod1", "default").metadata.deletion_timestamp is not None
    assert _marking(cp) == 1
    cp.advance(5)
    return cp


def _marking(cp: ControlPlane) -> int:
    return sum(e.count or 1 for e in cp.client.list(Event, "default").items if e.message == MARKING)


def _target_time(cp: ControlPlane) -> Any:
    return cp.client.get(Pod, "pod1", "default").status.condition("DisruptionTarget").last_transition_time


def test_a_noexecute_taint_change_evicts_a_terminating_pod_again() -> None:
    cp = _evicted_pod()
    stamp = _target_time(cp)
    cp.client.patch(Node, "node1", {"spec": {"taints": [_taint(1), _taint(2)]}})
    cp.run_until_idle()
    assert _marking(cp) == 2
    assert _target_time(cp) == stamp  # the condition was already there: no status patch


def test_a_status_write_of_the_terminating_pod_does_not_evict_it_again() -> None:
    cp = _evicted_pod()
    cp.client.patch_status(Pod, "pod1", {"status": {"conditions": [{"type": "Ready", "status": "False"}]}},
                           "default", patch_type="strategic")
    cp.run_until_idle()
    assert _marking(cp) == 1


def test_a_node_update_that_keeps_the_noexecute_taints_does_not_evict_it_again() -> None:
    cp = _evicted_pod()
    cp.client.patch(Node, "node1", {"metadata": {"labels": {"x": "1"}},
                                    "spec": {"taints": [_taint(1), {"key": "k", "effect": "NoSchedule"}]}})
    cp.run_until_idle()
    assert _marking(cp) == 1
