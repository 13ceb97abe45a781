"""Upstream's pod integration reconciler table (``TestReconciler``), through a whole control plane.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_controller_test.go``
``TestReconciler`` (case names quoted per test) against ``pkg/controller/jobs/pod/pod_controller.go``
and ``pkg/controller/jobframework/reconciler.go``. Upstream runs one reconcile over a fake client
holding pods and Workloads in a given state; here the pods are created through the API (the pod
webhook labels, finalizes and gates them) and the scheduler and kubelet run in virtual time, so each
case reaches its state the way a cluster would. Upstream's pods run with
``WorkloadIdentifierAnnotations`` off (group name as a label), as here.

Not translated (not modelled, ``docs/kueue.md``): TopologyAwareScheduling and pod-index rows,
prebuilt workloads, ``objectRetentionPolicies``, admission-check messages as events and the
owner-kind tables (RayCluster, ReplicaSet). The WaitForPodsReady condition rows, reclaimable pods,
preemption events to every member and ``TestPod_IsActive`` (the ``FastQuotaReleaseInPodIntegration``
rows) are in ``test_upstream_pod_pods_ready.py``, the ``CustomMetricLabels`` annotation rows in
``test_upstream_pod_custom_annotations.py``. Not yet translated (time): the expectations rows. Rows
whose input is a stored state no API path produces (a Workload already missing for pods that are
gated and failed at once, a deleting pod of a group that still has no Workload) are left out; others
are reached by the nearest user steps, said per test.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload

from .helpers import World, local_queue
from .test_jobs import _world
from .test_pod_groups import member, pods_of
from .test_pods import gates, get_pod, pod, pod_workload

COPY = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "integrations": {"frameworks": ["batch/job", "pod"], "labelKeysToCopy": ["toCopyKey1", "toCopyKey2"]}}


def _labelled(name: str, labels: dict[str, str], group: bool = True) -> dict[str, Any]:
    doc = member(name) if group else pod(name)
    doc["metadata"]["labels"].update(labels)
    return doc


def _workloads(w: World) -> list[Workload]:
    return w.cp.client.list(Workload, "default").items


def test_workload_is_created_with_correct_labels_for_a_single_pod() -> None:
    """"workload is created with correct labels for a single pod"."""
    w = _world(nominal="0", kueue_config=COPY)
    w.apply(_labelled("p", {"toCopyKey1": "toCopyValue1", "dontCopyKey": "dontCopyValue"}, group=False))
    w.cp.run_until_idle()
    p = get_pod(w, "p")
    assert pod_workload(w, "p").metadata.labels == {"kueue.x-k8s.io/job-uid": p.metadata.uid,
                                                    "toCopyKey1": "toCopyValue1"}


def test_workload_is_created_with_correct_labels_for_pod_group() -> None:
    """"workload is created with correct labels for pod group": the labels of every member merged,
    and no ``job-uid`` label (the group's Workload is no single pod's)."""
    w = _world(nominal="0", kueue_config=COPY)
    w.apply(_labelled("a", {"toCopyKey1": "toCopyValue1", "dontCopyKey": "dontCopyValue"}),
            _labelled("b", {"toCopyKey1": "toCopyValue1", "toCopyKey2": "toCopyValue2",
                            "dontCopyKey": "dontCopyValue"}))
    w.cp.run_until_idle()
    assert w.wl("g").metadata.labels == {"toCopyKey1": "toCopyValue1", "toCopyKey2": "toCopyValue2"}
    assert ("Normal", "CreatedWorkload", "Created Workload: default/g") in w.events("a")


def test_reconciler_returns_error_in_case_of_label_mismatch_in_pod_group() -> None:
    """"reconciler returns error in case of label mismatch in pod group": no Workload, pods kept
    gated (upstream: ``errPodGroupLabelsMismatch``, retried)."""
    w = _world(kueue_config=COPY)
    w.apply(_labelled("a", {"toCopyKey1": "toCopyValue1"}),
            _labelled("b", {"toCopyKey1": "otherValue", "toCopyKey2": "toCopyValue2"}))
    w.cp.run_until_idle()
    w.cp.advance(30)
    w.cp.run_until_idle()
    assert _workloads(w) == []
    assert all("kueue.x-k8s.io/admission" in gates(get_pod(w, n)) for n in ("a", "b"))


def test_workload_for_pod_group_with_different_queue_names_shouldnt_be_created() -> None:
    """"workload for pod group with different queue names shouldn't be created"."""
    w = _world()
    w.apply(local_queue("lq2", "cq"))
    other = member("b")
    other["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "lq2"
    w.apply(member("a"), other)
    w.cp.run_until_idle()
    assert _workloads(w) == []
    assert all("kueue.x-k8s.io/admission" in gates(get_pod(w, n)) for n in ("a", "b"))


def test_pod_without_scheduling_gate_is_terminated_if_workload_is_not_admitted() -> None:
    """"pod without scheduling gate is terminated if workload is not admitted": here the user
    removes the gate of a pod whose Workload waits for quota."""
    w = _world(nominal="0")
    w.apply(pod("p"))
    w.cp.run_until_idle()
    w.cp.client.patch(Pod, "p", {"spec": {"schedulingGates": []}}, "default")
    w.cp.run_until_idle()
    p = get_pod(w, "p")
    assert [(c.type, c.status, c.reason, c.message) for c in p.status.conditions
            if c.type == "TerminationTarget"] == [
        ("TerminationTarget", "True", "NotAdmitted", "Not admitted by cluster queue")]
    assert ("Normal", "Stopped", "Not admitted by cluster queue") in w.events("p")
    assert len(_workloads(w)) == 1  # the Workload is kept


def test_deleted_pods_in_incomplete_group_are_finalized() -> None:
    """"deleted pods in incomplete group are finalized"."""
    w = _world()
    w.apply(member("p1", total=3), member("p2", total=3))
    w.cp.run_until_idle()
    for name in ("p1", "p2"):
        w.cp.client.delete(Pod, name, "default")
    w.cp.run_until_idle()
    assert w.cp.client.list(Pod, "default").items == []
    fewer = ("Warning", "ErrWorkloadCompose", "'g' group has fewer runnable pods than expected")
    assert fewer in w.events("p1")


def test_all_pods_in_group_should_be_removed_if_workload_is_deleted() -> None:
    """"all pods in group should be removed if workload is deleted": a running and a succeeded
    member, the Workload deleted: both get "Stopped" / "Workload is deleted" and are gone
    (``Pod.Stop`` then ``Finalize``, whose ``removePodFinalizers`` retries on conflict)."""
    w = _world()
    w.apply(member("a", script="sleep 100"), member("b", script="exit 0"))
    w.cp.run_until_idle()
    w.cp.advance(5)
    w.cp.run_until_idle()
    assert sorted(str(p.status.phase) for p in pods_of(w)) == ["Running", "Succeeded"]
    w.cp.client.delete(Workload, "g", "default")
    w.cp.run_until_idle()
    for name in ("a", "b"):
        assert ("Normal", "Stopped", "Workload is deleted") in w.events(name)
    assert [p.metadata.finalizers for p in pods_of(w)] in ([], [None])
    assert _workloads(w) == []


def test_workload_is_recreated_when_max_exec_time_changes() -> None:
    """"workload is recreated when max exec time changes": despite the name, a gated group whose
    Workload holds no quota gets it updated in place (``ensureOneWorkload``'s ``toUpdate``)."""
    w = _world(nominal="0")
    limit = {"kueue.x-k8s.io/max-exec-time-seconds": "5"}
    w.apply(_labelled("a", limit), _labelled("b", limit))
    w.cp.run_until_idle()
    uid = w.wl("g").metadata.uid
    for name in ("a", "b"):
        w.cp.client.patch(Pod, name, {"metadata": {"labels": {"kueue.x-k8s.io/max-exec-time-seconds": "10"}}},
                          "default")
    w.cp.run_until_idle()
    wl = w.wl("g")
    assert (wl.metadata.uid, wl.spec.maximum_execution_time_seconds) == (uid, 10)
    assert ("Normal", "UpdatedWorkload", "Updated not matching Workload for suspended job: default/g") in \
        w.events("a")


def test_pod_group_of_size_2_is_finished_when_2_pods_has_succeeded_and_1_pod_has_failed() -> None:
    """"pod group of size 2 is finished when 2 pods has succeeded and 1 pod has failed": a failed
    member, its replacement and the other member succeeded."""
    w = _world()
    w.apply(member("a", script="sleep 2; exit 1"), member("b", script="sleep 5"))
    w.cp.run_until_idle()
    w.cp.advance(3)
    w.cp.run_until_idle()
    assert str(get_pod(w, "a").status.phase) == "Failed"
    w.apply(member("c", script="sleep 1"))
    w.cp.run_until_idle()
    w.cp.advance(10)
    w.cp.run_until_idle()
    finished = w.cond("g", "Finished")
    assert (finished.status, finished.reason, finished.message) == (
        "True", "Succeeded", "Pods succeeded: 2/2.")
    assert sorted(str(p.status.phase) for p in pods_of(w)) == ["Failed", "Succeeded", "Succeeded"]
    assert all(not p.metadata.finalizers for p in pods_of(w))
    assert sorted(r.name for r in w.wl("g").metadata.owner_references) == ["a", "b", "c"]
    assert ("Normal", "FinishedWorkload", "Workload 'default/g' is declared finished") in w.events("a")


def test_workload_is_composed_and_created_for_the_pod_group_with_fast_admission() -> None:
    """"workload is composed and created for the pod group with fast admission": one pod of three
    is enough; one pod set of the total count; only ``provreq.kueue.x-k8s.io/`` annotations copied."""
    w = _world(nominal="0")
    w.apply(member("a", total=3, annotations={
        "kueue.x-k8s.io/pod-group-fast-admission": "true",
        "provreq.kueue.x-k8s.io/test-annotation": "test-val",
        "invalid-provreq-prefix/test-annotation-2": "test-val-2"}))
    w.cp.run_until_idle()
    wl = w.wl("g")
    assert [ps.count for ps in wl.spec.pod_sets] == [3]
    assert [r.name for r in wl.metadata.owner_references] == ["a"]
    assert wl.metadata.annotations == {"kueue.x-k8s.io/is-group-workload": "true",
                                       "provreq.kueue.x-k8s.io/test-annotation": "test-val"}
    assert ("Normal", "CreatedWorkload", "Created Workload: default/g") in w.events("a")


def test_workload_is_composed_and_created_for_the_pod_group_with_max_exec_time() -> None:
    """"workload is composed and created for the pod group with max exec time"."""
    w = _world(nominal="0")
    limit = {"kueue.x-k8s.io/max-exec-time-seconds": "10"}
    w.apply(_labelled("a", limit), _labelled("b", limit))
    w.cp.run_until_idle()
    wl = w.wl("g")
    assert (wl.spec.maximum_execution_time_seconds, [ps.count for ps in wl.spec.pod_sets]) == (10, [2])


def test_workload_is_not_deleted_if_one_pod_role_is_absent_from_the_cluster() -> None:
    """"workload is not deleted if one pod role is absent from the cluster": two roles admitted,
    one role's pod gone (its finalizer removed by hand), the other being deleted: the Workload is
    kept (same uid, still admitted) and the deleting pod keeps its finalizer."""
    w = _world()
    w.apply(member("a", script="sleep 100"), member("b", cpu="2", script="sleep 100"))
    w.cp.run_until_idle()
    w.cp.advance(2)
    w.cp.run_until_idle()
    uid = w.wl("g").metadata.uid
    w.cp.client.patch(Pod, "b", {"metadata": {"finalizers": None}}, "default")
    w.cp.client.delete(Pod, "b", "default", grace_period_seconds=0)
    w.cp.client.delete(Pod, "a", "default")
    w.cp.run_until_idle()
    [a] = pods_of(w)
    assert a.metadata.deletion_timestamp is not None and a.metadata.finalizers == ["kueue.x-k8s.io/managed"]
    wl = w.wl("g")
    assert (wl.metadata.uid, wl.metadata.deletion_timestamp, w.admitted("g")) == (uid, None, True)
    waiting = w.cond("g", "WaitingForReplacementPods")
    assert (waiting.status, waiting.reason) == ("True", "PodsFailed")


def test_the_failed_pods_are_finalized_in_order() -> None:
    """"the failed pods are finalized in order": as many failed pods are finalized as replacements
    arrived, the ones that failed first (``sortInactivePods``); the last to fail keeps its
    finalizer. (Upstream's deleted failed pod is left out: a pod deleted without its finalizer
    removed is not a state this row needs.)"""
    w = _world(nominal="8")
    w.apply(member("active-pod", total=4, script="sleep 100"),
            member("finished-with-error", total=4, script="sleep 1; exit 1"),
            member("finished-with-error3", total=4, script="sleep 5; exit 1"),
            member("finished-with-error2", total=4, script="sleep 3; exit 1"))
    w.cp.run_until_idle()
    w.cp.advance(8)
    w.cp.run_until_idle()
    w.apply(member("replacement1", total=4, script="sleep 100"),
            member("replacement2", total=4, script="sleep 100"))
    w.cp.run_until_idle()
    kept = sorted(p.metadata.name for p in pods_of(w) if p.metadata.finalizers)
    assert kept == ["active-pod", "finished-with-error3", "replacement1", "replacement2"]


def test_excess_pods_before_admission_youngest_pods_are_deleted() -> None:
    """"excess pods before admission, youngest pods are deleted": a third pod joins a group of two
    whose Workload waits for quota; it is the youngest, so it goes ("ExcessPodDeleted")."""
    w = _world(nominal="0")
    w.apply(member("pod"))
    w.cp.advance(60)
    w.apply(member("pod2"))
    w.cp.run_until_idle()
    uid = w.wl("g").metadata.uid
    w.cp.advance(60)
    w.apply(member("pod3"))
    w.cp.run_until_idle()
    assert sorted(p.metadata.name for p in pods_of(w)) == ["pod", "pod2"]
    assert ("Normal", "ExcessPodDeleted", "Excess pod deleted") in w.events("pod3")
    wl = w.wl("g")
    assert (wl.metadata.uid, [ps.count for ps in wl.spec.pod_sets]) == (uid, [2])


def test_the_pod_reconciliation_is_skipped_when_managed_label_is_not_set() -> None:
    """"the pod reconciliation is skipped when 'kueue.x-k8s.io/managed' label is not set": a pod
    without a queue (no default LocalQueue) is not Kueue's: no label, gate or Workload."""
    w = _world()
    w.apply(pod("p", queue=None))
    w.cp.run_until_idle()
    p = get_pod(w, "p")
    assert "kueue.x-k8s.io/managed" not in (p.metadata.labels or {})
    assert "kueue.x-k8s.io/admission" not in gates(p)
    assert _workloads(w) == []
