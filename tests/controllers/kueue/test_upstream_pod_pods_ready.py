"""Upstream's pod integration rows on readiness, replacement, reclaimable pods and stopping.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_controller_test.go``:
``TestPodsReady``, ``TestPod_IsActive`` and the ``TestReconciler`` rows named per test (the
WaitingForReplacementPods rows, "reclaimable pods updated for pod group", "reclaimablePods field is
not updated for a serving pod group", "all pods in a group should receive the event about
preemption, unless already terminating", "preemption reason should be propagated to termination
target"), against ``pod_controller.go`` (``PodsReady``, ``IsActive``, ``ReclaimablePods``,
``waitingForReplacementPodsCondition``, ``Stop``). Upstream runs one reconcile over pods and a
Workload in a given state; here the pods are created through the API and the scheduler and kubelet
run in virtual time, so each row's state is reached as a cluster reaches it (said per test).

Not translated: "pod group with fewer pods than expected" (no group Workload exists before every
member does, so nothing reads PodsReady: ``test_pod_groups.py`` checks the missing Workload), and
the ``TestPod_IsActive`` rows are checked through what ``IsActive`` decides, the release of an
evicted group's quota while its pods terminate (``FastQuotaReleaseInPodIntegration``, alpha and off
in v0.19.2, ``pkg/features/kube_features.go``). Of those, "PodGroup_NotActive"/"PodGroup_Active"
(a Running pod past its grace period) need a pod stuck terminating, which kbatch's kubelet does not
leave, and "FastQuotaRelease_MixedGroup_SomeTerminating_SomeRunning" is never observed under an
eviction (``Stop`` deletes every running member in the same reconcile). "shouldn't change waiting
for pods ready condition when it's true and workload was readmitted" is not reachable: a workload
with WaitingForReplacementPods=True is not admissible (``workload.IsAdmissible``), so it is not
readmitted until its replacements clear the condition.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import StatusError
from kbatch.controllers.kueue.podintegration.pods import role_hash

from .helpers import World, cluster_queue, flavor, local_queue, quota
from .test_jobs import node
from .test_pod_groups import member, pods_of
from .test_pods import get_pod, pod, pod_workload

CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "integrations": {"frameworks": ["batch/job", "pod"]}}
STARTED = ("True", "Started", "All pods reached readiness and the workload is running")
NOT_READY = ("False", "WaitForStart", "Not all pods are ready or succeeded")
URGENT = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
          "metadata": {"name": "urgent"}, "value": 1000}


def _world(nominal: str = "4", wait: dict[str, Any] | None = None, gates: str | None = None,
           **spec: Any) -> World:
    config = dict(CONFIG)
    if wait is not None:
        config["waitForPodsReady"] = {"blockAdmission": False, **wait}
    kwargs: dict[str, Any] = {"feature_gates": gates} if gates else {}
    w = World(node("n-a", "a", cpu="16"), flavor("fa", labels={"pool": "a"}),
              cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", nominal)])]), **spec),
              local_queue("lq", "cq"), URGENT, controllers="*", kueue_config=config, **kwargs)
    return w


def _cond(w: World, name: str, kind: str) -> tuple[str, str, str] | None:
    c = w.cond(name, kind)
    return (c.status, c.reason, c.message) if c is not None else None


def _unschedulable(doc: dict[str, Any]) -> dict[str, Any]:
    doc["spec"]["nodeSelector"] = {"zone": "nowhere"}
    return doc


# --- TestPodsReady -------------------------------------------------------------------------------

def test_single_pod_is_ready() -> None:
    """"single pod is ready": the pod runs, ready, so the Workload's PodsReady is True."""
    w = _world(wait={"timeout": "10m"})
    w.apply(pod("p", script="sleep 100"))
    w.cp.advance(5)
    assert _cond(w, pod_workload(w, "p").metadata.name, "PodsReady") == STARTED


def test_single_pod_is_not_ready() -> None:
    """"single pod is not ready": admitted, but no node takes it."""
    w = _world(wait={"timeout": "10m"})
    w.apply(_unschedulable(pod("p", script="sleep 100")))
    w.cp.advance(5)
    name = pod_workload(w, "p").metadata.name
    assert w.admitted(name) and _cond(w, name, "PodsReady") == NOT_READY


def test_pod_group_with_all_pods_ready() -> None:
    """"pod group with all pods ready"."""
    w = _world(wait={"timeout": "10m"})
    w.apply(*(member(n, total=3, script="sleep 100") for n in ("driver", "worker-1", "worker-2")))
    w.cp.advance(5)
    assert _cond(w, "g", "PodsReady") == STARTED


def test_pod_group_with_all_pods_present_but_not_all_ready() -> None:
    """"pod group with all pods present but not all ready": the workers find no node."""
    w = _world(wait={"timeout": "10m"})
    w.apply(member("driver", total=3, script="sleep 100"),
            *(_unschedulable(member(n, total=3, script="sleep 100")) for n in ("worker-1", "worker-2")))
    w.cp.advance(5)
    assert w.admitted("g") and get_pod(w, "driver").status.phase == "Running"
    assert _cond(w, "g", "PodsReady") == NOT_READY


@pytest.mark.parametrize(
    ("case", "total"),
    [("pod group without total count annotation", None),
     ("pod group with malformed total count annotation", "invalid")],
)
def test_a_group_without_a_usable_total_count_is_refused(case: str, total: str | None) -> None:
    """Upstream's ``PodsReady`` answers false; the pod webhook refuses such a pod on create
    (``pod_webhook.go`` ``validatePodGroupMetadata``), so no group reaches the question."""
    w = _world()
    doc = member("driver")
    if total is None:
        del doc["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"]
    else:
        doc["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] = total
    with pytest.raises(StatusError):
        w.apply(doc)


# --- TestReconciler: WaitingForReplacementPods ----------------------------------------------------

WAITING = "WaitingForReplacementPods"
FAILED = ("True", "PodsFailed", "Some Failed pods need replacement")


def test_shouldnt_set_waiting_for_pods_ready_condition_to_true_when_all_pods_pending() -> None:
    """"shouldn't set waiting for pods ready condition to true when all pods pending": admitted,
    ungated, no node takes them."""
    w = _world()
    w.apply(*(_unschedulable(member(n)) for n in ("pod1", "pod2")))
    w.cp.advance(5)
    assert w.admitted("g") and {p.status.phase for p in pods_of(w)} == {"Pending"}
    assert w.cond("g", WAITING) is None


def test_should_set_waiting_for_pods_ready_condition_to_true_when_at_least_one_pod_failed() -> None:
    """"should set waiting for pods ready condition to true when at least one pod failed"."""
    w = _world()
    w.apply(member("pod1", script="sleep 100"), member("pod2", script="sleep 1; exit 1"))
    w.cp.advance(5)
    assert get_pod(w, "pod2").status.phase == "Failed"
    assert _cond(w, "g", WAITING) == FAILED


def test_should_set_waiting_for_pods_ready_condition_to_true_when_at_least_one_pod_deleted() -> None:
    """"should set waiting for pods ready condition to true when at least one pod deleted": both
    members admitted and pending (no node takes them), one deleted (Kueue's finalizer keeps it)."""
    w = _world()
    w.apply(*(_unschedulable(member(n)) for n in ("pod1", "pod2")))
    w.cp.advance(2)
    w.cp.client.delete(type(get_pod(w, "pod2")), "pod2", "default")
    w.cp.run_until_idle()
    assert get_pod(w, "pod2").metadata.deletion_timestamp is not None
    assert w.admitted("g") and _cond(w, "g", WAITING) == FAILED


def _preempted_group(w: World, script: str = "sleep 300", vip_script: str = "sleep 300") -> None:
    w.apply(member("pod1", script=script), member("pod2", script=script))
    w.cp.advance(2)
    assert w.admitted("g")
    w.apply(pod("vip", cpu="2", priority_class="urgent", script=vip_script))
    w.cp.run_until_idle()


def test_should_set_waiting_for_pods_ready_condition_to_true_when_workload_was_evicted() -> None:
    """"should set waiting for pods ready condition to true when workload was evicted": once the
    preempted members are gone, the condition carries the eviction's reason and message."""
    w = _world(nominal="2", preemption={"withinClusterQueue": "LowerPriority"})
    _preempted_group(w)
    w.cp.advance(40)
    evicted = _cond(w, "g", "Evicted")
    assert evicted is not None and evicted[:2] == ("True", "Preempted")
    assert _cond(w, "g", WAITING) == evicted
    # and the group waits for its replacements: not admissible (``IsAdmissible``), not readmitted
    assert not w.reserved("g") and _cond(w, "g", "Requeued")[:2] == ("True", "Preempted")


def test_should_update_reason_and_message_on_waiting_for_pods_ready_condition_when_evicted_again() -> None:
    """"should update reason and message on waiting for pods ready condition when workload was
    evicted again": a member fails (the condition True, ``PodsFailed``), no replacement comes, and
    the recovery timeout evicts the group (``PodsReadyTimeout``): the condition takes the eviction's
    reason and message. (Upstream's row starts from a condition of an earlier preemption on a
    readmitted workload; a workload waiting for replacements is not admissible, so a live cluster
    reaches the same update from a failed member.)"""
    w = _world(wait={"timeout": "5m", "recoveryTimeout": "10s",
                     "requeuingStrategy": {"backoffBaseSeconds": 600}})
    w.apply(member("pod1", script="sleep 300"), member("pod2", script="sleep 3; exit 1"))
    w.cp.advance(5)
    assert _cond(w, "g", WAITING) == FAILED
    assert _cond(w, "g", "PodsReady")[:2] == ("False", "WaitForRecovery")
    w.cp.advance(12)
    evicted = _cond(w, "g", "Evicted")
    assert evicted is not None and evicted[:2] == ("True", "PodsReadyTimeout")
    assert _cond(w, "g", WAITING) == evicted


def test_should_set_waiting_for_pods_ready_condition_to_false_when_pods_was_replaced() -> None:
    """"should set waiting for pods ready condition to false when pods was replaced"."""
    w = _world()
    w.apply(member("pod1", script="sleep 100"), member("pod2", script="sleep 1; exit 1"))
    w.cp.advance(5)
    assert _cond(w, "g", WAITING) == FAILED
    w.apply(member("pod3", script="sleep 100"))
    w.cp.run_until_idle()
    assert _cond(w, "g", WAITING) == ("False", "PodsReady", "No pods need replacement")


# --- TestReconciler: reclaimable pods ---------------------------------------------------------------

def _three_roles(serving: bool) -> World:
    """A failed and a running pod of one role, a succeeded pod of another (upstream's asks 1Gi more;
    here 1 cpu more, the ClusterQueue covering cpu only)."""
    w = _world(nominal="8")
    extra = {"kueue.x-k8s.io/pod-group-serving": "true"} if serving else {}
    big = member("pod3", total=3, cpu="2", script="sleep 1", annotations=extra)
    w.apply(member("pod", total=3, script="sleep 2; exit 1", annotations=extra),
            member("pod2", total=3, script="sleep 100", annotations=extra), big)
    w.cp.advance(5)
    assert [get_pod(w, n).status.phase for n in ("pod", "pod2", "pod3")] == ["Failed", "Running", "Succeeded"]
    return w


def test_reclaimable_pods_updated_for_pod_group() -> None:
    """"reclaimable pods updated for pod group": the succeeded pod's role is reclaimable."""
    w = _three_roles(serving=False)
    role = role_hash(get_pod(w, "pod3"))
    assert [(r.name, r.count) for r in w.wl("g").status.reclaimable_pods or ()] == [(role, 1)]
    assert _cond(w, "g", WAITING) == FAILED


def test_reclaimable_pods_field_is_not_updated_for_a_serving_pod_group() -> None:
    """"reclaimablePods field is not updated for a serving pod group"."""
    w = _three_roles(serving=True)
    assert not w.wl("g").status.reclaimable_pods


# --- TestReconciler: stopping a group ---------------------------------------------------------------

def _termination(w: World, name: str) -> tuple[str, str] | None:
    for c in get_pod(w, name).status.conditions or ():
        if c.type == "TerminationTarget":
            return (c.reason, c.message)
    return None


def test_all_pods_in_a_group_should_receive_the_event_about_preemption_unless_already_terminating() -> None:
    """"all pods in a group should receive the event about preemption, unless already terminating":
    pod2 is being deleted when the group is preempted; pod1 and pod3 are stopped, each with a
    ``Stopped`` event."""
    w = _world(nominal="3", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(*(member(n, total=3, script="sleep 300") for n in ("pod1", "pod2", "pod3")))
    w.cp.advance(2)
    w.cp.client.delete(type(get_pod(w, "pod2")), "pod2", "default")
    w.apply(pod("vip", cpu="2", priority_class="urgent"))
    w.cp.run_until_idle()
    evicted = w.cond("g", "Evicted")
    assert evicted.reason == "Preempted"
    for name in ("pod1", "pod3"):
        assert _termination(w, name) == ("WorkloadEvictedDueToPreempted", evicted.message)
        assert ("Normal", "Stopped", evicted.message) in w.events(name)
    assert _termination(w, "pod2") is None
    assert not any(e[1] == "Stopped" for e in w.events("pod2"))


def test_preemption_reason_should_be_propagated_to_termination_target() -> None:
    """"preemption reason should be propagated to termination target": a group evicted by the
    PodsReady timeout (a member finds no node) stops its pods with that reason."""
    w = _world(wait={"timeout": "5s", "requeuingStrategy": {"backoffBaseSeconds": 600}})
    w.apply(member("pod1", script="sleep 300"), _unschedulable(member("pod2", script="sleep 300")))
    w.cp.advance(7)
    evicted = w.cond("g", "Evicted")
    assert (evicted.status, evicted.reason) == ("True", "PodsReadyTimeout")
    assert _termination(w, "pod1") == ("WorkloadEvictedDueToPodsReadyTimeout", evicted.message)
    assert ("Normal", "Stopped", evicted.message) in w.events("pod1")


# --- TestPod_IsActive: when an evicted group's quota is released ------------------------------------

@pytest.mark.parametrize(
    ("case", "gate", "released_at_once"),
    [
        # "FastQuotaRelease_Disabled_PodWithDeletionTimestampWithinGrace_Active", then
        # "PodGroup_NotActive" once the pods are gone
        ("FastQuotaRelease_Disabled_PodWithDeletionTimestampWithinGrace_Active", "false", False),
        # "FastQuotaRelease_PodWithDeletionTimestamp_Inactive" / "FastQuotaRelease_AllTerminating"
        ("FastQuotaRelease_AllTerminating", "true", True),
    ],
)
def test_an_evicted_group_releases_its_quota_when_no_member_is_active(
    case: str, gate: str, released_at_once: bool
) -> None:
    """A preempted group's running members are deleted and terminate over their 30 s grace period.
    While one is Running within its grace the group is active (``IsActive``) and keeps its quota;
    with ``FastQuotaReleaseInPodIntegration`` a deleting pod is never active, so the quota goes at
    once and the preemptor is admitted in the same instant."""
    w = _world(nominal="2", preemption={"withinClusterQueue": "LowerPriority"},
               gates=f"FastQuotaReleaseInPodIntegration={gate}")
    _preempted_group(w)
    assert all(p.metadata.deletion_timestamp is not None and p.status.phase == "Running" for p in pods_of(w))
    assert w.reserved("g") is not released_at_once, case
    assert w.admitted(pod_workload(w, "vip").metadata.name) is released_at_once
    w.cp.advance(40)
    assert not w.reserved("g") and w.admitted(pod_workload(w, "vip").metadata.name)

