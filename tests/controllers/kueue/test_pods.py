"""Kueue's pod integration for plain pods: gated at creation, one Workload per pod, ungated with
the flavor's node selector once admitted, ended (``TerminationTarget`` + delete) on preemption,
finished with the pod, finalizers released.

Upstream: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/controller/jobs/pod/
pod_controller_test.go`` ("Should reconcile the single pod with the queue name", "Should stop the
single pod with the queue name", "Should not requeue the pod-owned workload evicted by preemption
when SkipReassignmentForPodOwnedWorkloads is enabled", "Should schedule pods as they fit in their
ClusterQueue"), ``pkg/controller/jobs/pod/pod_webhook_test.go``, ``pod_controller_test.go``.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.jobframework.names import workload_name
from kbatch.controllers.kueue.podintegration.pods import role_hash

from .test_jobs import _world

QUEUE = "kueue.x-k8s.io/queue-name"


def pod(name: str, cpu: str = "1", script: str = "sleep 30", queue: str | None = "lq",
        namespace: str = "default", labels: dict | None = None, annotations: dict | None = None,
        priority_class: str | None = None) -> dict[str, Any]:
    meta_labels = dict(labels or {})
    if queue:
        meta_labels[QUEUE] = queue
    if priority_class:
        meta_labels["kueue.x-k8s.io/priority-class"] = priority_class
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", script],
                 "resources": {"requests": {"cpu": cpu}}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": meta_labels,
                         "annotations": annotations or {}},
            "spec": {"restartPolicy": "Never", "containers": [container]}}


def get_pod(w: Any, name: str, namespace: str = "default") -> Pod:
    return w.cp.client.get(Pod, name, namespace)


def pod_workload(w: Any, name: str) -> Workload:
    p = get_pod(w, name)
    return w.wl(workload_name(name, p.metadata.uid, "Pod", ""))


def gates(p: Pod) -> list[str]:
    return [g.name for g in p.spec.scheduling_gates or ()]


def test_a_queued_pod_is_gated_gets_a_workload_is_ungated_on_admission_and_finishes() -> None:
    w = _world()
    w.apply(pod("p", annotations={"provreq.kueue.x-k8s.io/ValidUntilSeconds": "0", "other/x": "y"}))
    created = get_pod(w, "p")
    # the webhook's marks (mpod.kb.io): managed label, finalizer, the admission gate (and the
    # topology gate: TopologyAwareScheduling is on in v0.19), the role hash
    assert created.metadata.labels["kueue.x-k8s.io/managed"] == "true"
    assert "kueue.x-k8s.io/managed" in created.metadata.finalizers
    assert created.metadata.annotations["kueue.x-k8s.io/role-hash"] == role_hash(created)
    w.cp.run_until_idle()
    wl = pod_workload(w, "p")
    assert wl.metadata.name.startswith("pod-p-") and len(wl.metadata.name) == len("pod-p-") + 5
    assert [(ps.name, ps.count) for ps in wl.spec.pod_sets] == [("main", 1)]
    assert wl.spec.queue_name == "lq"
    assert wl.metadata.annotations == {"provreq.kueue.x-k8s.io/ValidUntilSeconds": "0"}
    owner = wl.metadata.owner_references[0]
    assert (owner.api_version, owner.kind, owner.name, owner.controller) == ("v1", "Pod", "p", True)
    assert w.admitted(wl.metadata.name)
    running = get_pod(w, "p")
    assert gates(running) == []
    assert running.spec.node_selector == {"pool": "a"} and running.spec.node_name == "n-a"
    assert running.metadata.labels["kueue.x-k8s.io/podset"] == "main"
    assert ("Normal", "Started", "Admitted by clusterQueue cq") in w.events("p")

    w.cp.advance(40)
    done = get_pod(w, "p")
    assert done.status.phase == "Succeeded"
    assert not done.metadata.finalizers  # ExpectPodsJustFinalized
    assert w.cond(wl.metadata.name, "Finished").reason == "Succeeded"
    assert w.usage("fa") == {}


def test_a_pod_waits_gated_for_quota_and_starts_when_the_first_one_ends() -> None:
    """"Should schedule pods as they fit in their ClusterQueue"."""
    w = _world(nominal="4")
    w.apply(pod("first", cpu="3", script="sleep 20"))
    w.cp.run_until_idle()
    w.apply(pod("second", cpu="3", script="sleep 20"))
    w.cp.run_until_idle()
    assert gates(get_pod(w, "second")) == ["kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology"]
    assert get_pod(w, "second").spec.node_name is None
    assert not w.reserved(pod_workload(w, "second").metadata.name)
    w.cp.advance(25)
    assert get_pod(w, "first").status.phase == "Succeeded"
    assert gates(get_pod(w, "second")) == []
    assert w.admitted(pod_workload(w, "second").metadata.name)
    w.cp.advance(25)
    assert get_pod(w, "second").status.phase == "Succeeded"


def test_pods_without_a_queue_or_outside_the_managed_namespaces_are_left_alone() -> None:
    w = _world()
    w.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}})
    w.apply(pod("plain", queue=None), pod("system", namespace="kueue-system"))
    w.cp.run_until_idle()
    for name, ns in (("plain", "default"), ("system", "kueue-system")):
        p = get_pod(w, name, ns)
        assert "kueue.x-k8s.io/managed" not in (p.metadata.labels or {})
        assert not p.metadata.finalizers and gates(p) == []
        assert p.spec.node_name is not None
    assert w.cp.client.list(Workload).items == []


def test_a_preempted_pod_is_marked_termination_target_and_deleted_and_not_requeued() -> None:
    """"Should stop the single pod with the queue name" and "Should not requeue the pod-owned
    workload evicted by preemption when SkipReassignmentForPodOwnedWorkloads is enabled"."""
    w = _world(nominal="2", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
             "metadata": {"name": "urgent"}, "value": 1000})
    w.apply(pod("low", cpu="2", script="sleep 300"))
    w.cp.run_until_idle()
    low_wl = pod_workload(w, "low").metadata.name
    assert w.admitted(low_wl)
    w.apply(pod("high", cpu="2", script="sleep 30", priority_class="urgent"))
    w.cp.run_until_idle()

    evicted = w.cond(low_wl, "Evicted")
    assert (evicted.status, evicted.reason) == ("True", "Preempted")
    requeued = w.cond(low_wl, "Requeued")
    assert requeued is None or requeued.status == "False"
    # the pod got its TerminationTarget condition before its deletion, and is gone
    assert any(e[1] == "Stopped" and e[2] == evicted.message for e in w.events("low"))
    low = get_pod(w, "low")
    assert low.metadata.deletion_timestamp is not None
    assert not low.metadata.finalizers  # finalized by Kueue once deleting; the kubelet ends it
    w.cp.advance(35)  # the grace period
    with pytest.raises(StatusError):
        get_pod(w, "low")
    # the orphaned Workload is finished (FinishOrphanedWorkloads) and released
    gone = w.cp.client.list(Workload).items
    assert all(x.metadata.name != low_wl or w.cond(low_wl, "Finished") is not None for x in gone)
    high = get_pod(w, "high")
    assert gates(high) == [] and high.spec.node_name == "n-a"


def test_the_stop_condition_carries_the_eviction_reason_and_message() -> None:
    """The pod condition as upstream's integration test expects it: ``TerminationTarget``,
    ``WorkloadEvictedDueToPreempted``, the eviction's message."""
    from kbatch.controllers.kueue.podintegration.single import SinglePod

    w = _world()
    w.apply(pod("p", script="sleep 300"))
    w.cp.run_until_idle()
    seen: list[Any] = []
    client = w.cp.client

    class Recorder:
        def update_status(self, obj: Any) -> Any:
            seen.append(obj)
            return client.update_status(obj)

        def delete(self, *args: Any) -> Any:
            return client.delete(*args)

    SinglePod(get_pod(w, "p")).stop_for(Recorder(), "WorkloadEvictedDueToPreempted", "By test", w.cp.now())
    cond = next(c for c in seen[0].status.conditions if c.type == "TerminationTarget")
    assert (cond.status, cond.reason, cond.message) == ("True", "WorkloadEvictedDueToPreempted", "By test")
    assert get_pod(w, "p").metadata.deletion_timestamp is not None


def test_a_failed_pod_finishes_its_workload_as_failed_with_the_pod_message() -> None:
    w = _world()
    w.apply(pod("bad", script="sleep 2; exit 3"))
    w.cp.advance(10)
    wl = pod_workload(w, "bad")
    assert w.cond(wl.metadata.name, "Finished").reason == "Failed"
    assert not get_pod(w, "bad").metadata.finalizers


@pytest.mark.parametrize(
    ("labels", "annotations", "message"),
    [
        ({"kueue.x-k8s.io/managed": "false", QUEUE: ""}, {},
         "metadata.labels[kueue.x-k8s.io/managed]: Forbidden: managed label value can only be 'true'"),
        ({"kueue.x-k8s.io/pod-group-name": "g"}, {},
         "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value: both the "
         "'kueue.x-k8s.io/pod-group-total-count' annotation and the 'kueue.x-k8s.io/pod-group-name' "
         "label should be set"),
        ({}, {"kueue.x-k8s.io/pod-group-total-count": "2"},
         "metadata.labels[kueue.x-k8s.io/pod-group-name]: Required value: both the "
         "'kueue.x-k8s.io/pod-group-total-count' annotation and the 'kueue.x-k8s.io/pod-group-name' "
         "label should be set"),
        ({"kueue.x-k8s.io/pod-group-name": "g"}, {"kueue.x-k8s.io/pod-group-total-count": "0"},
         "incorrect annotation value 'kueue.x-k8s.io/pod-group-total-count=0': group total count "
         "should be greater than zero"),
    ],
)
def test_the_pod_webhook_denies_bad_kueue_metadata(labels: dict, annotations: dict, message: str) -> None:
    """``pod_webhook_test.go`` ``TestValidateCreate`` (a queued pod's managed label is set to
    ``true`` by the defaulting webhook first, so the bad value shows on a pod without a queue)."""
    w = _world()
    with pytest.raises(StatusError) as err:
        w.apply(pod("p", labels=labels, annotations=annotations, queue=labels.get(QUEUE, "lq")))
    assert 'admission webhook "vpod.kb.io" denied the request' in str(err.value)
    assert message in str(err.value)
    with pytest.raises(StatusError):
        get_pod(w, "p")


def test_a_wrong_managed_label_is_reported_with_the_other_errors() -> None:
    """``validateCommon`` (``pod_webhook.go``) appends the group metadata errors after the managed
    label's instead of returning it alone: one denial names both fields."""
    w = _world()
    labels = {"kueue.x-k8s.io/managed": "false", QUEUE: "", "kueue.x-k8s.io/pod-group-name": "g"}
    with pytest.raises(StatusError) as err:
        w.apply(pod("p", labels=labels, queue=""))
    text = str(err.value)
    assert "metadata.labels[kueue.x-k8s.io/managed]: Forbidden: managed label value can only be 'true'" \
        in text
    assert "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value" in text


def test_the_role_hash_matches_upstreams_example() -> None:
    """``pod_controller_test.go``: a pod of one container requesting 1 cpu has role ``dc85db45``."""
    p = Pod.model_validate(pod("p", queue=None))
    p.spec.containers[0].image, p.spec.containers[0].command = "", None
    assert role_hash(p) == "dc85db45"
    p.spec.containers[0].resources.requests = {"cpu": "2"}  # type: ignore[assignment,union-attr]
    assert role_hash(Pod.model_validate(p.to_dict())) != "dc85db45"


def test_a_pod_without_a_queue_gets_the_namespaces_default_local_queue() -> None:
    """``pod_webhook.go`` ``Default``: with a LocalQueue named ``default`` in the namespace, a pod
    without a queue name gets ``kueue.x-k8s.io/queue-name: default`` and is managed; a pod whose
    owner Kueue manages (a queued Job's pod) is left to its owner."""
    from .helpers import local_queue
    from .test_jobs import job

    w = _world()
    w.apply(local_queue("default", "cq"))
    w.apply(pod("p", queue=None))
    created = get_pod(w, "p")
    assert created.metadata.labels[QUEUE] == "default"
    assert created.metadata.labels["kueue.x-k8s.io/managed"] == "true"
    w.cp.run_until_idle()
    assert pod_workload(w, "p").spec.queue_name == "default"
    assert gates(get_pod(w, "p")) == []
    w.apply(job("j", queue="lq", parallelism=1))
    w.cp.run_until_idle()
    job_pods = [p for p in w.cp.client.list(Pod, "default").items
                if (p.metadata.labels or {}).get("batch.kubernetes.io/job-name") == "j"]
    assert len(job_pods) == 1
    assert "kueue.x-k8s.io/managed" not in (job_pods[0].metadata.labels or {}) and gates(job_pods[0]) == []


GROUP = {"kueue.x-k8s.io/pod-group-name": "g"}
TOTAL = "kueue.x-k8s.io/pod-group-total-count"


@pytest.mark.parametrize(("value", "reason"), [
    (" 2", 'strconv.Atoi: parsing " 2": invalid syntax'),  # upstream does not trim
    ("2\n", 'strconv.Atoi: parsing "2\\n": invalid syntax'),
    ("٢", 'strconv.Atoi: parsing "٢": invalid syntax'),
    ("1_0", 'strconv.Atoi: parsing "1_0": invalid syntax'),
    ("99999999999999999999", 'strconv.Atoi: parsing "99999999999999999999": value out of range'),
])
def test_the_pod_webhook_reads_the_group_total_count_with_go_atoi(value: str, reason: str) -> None:
    """``groupTotalCount`` (``pod_controller.go``) through ``validatePodGroupMetadata``: Go's
    ``strconv.Atoi`` error is the field error's detail."""
    w = _world()
    with pytest.raises(StatusError) as err:
        w.apply(pod("p", labels=GROUP, annotations={TOTAL: value}))
    assert f"metadata.annotations[{TOTAL}]: Invalid value: " in str(err.value)
    assert str(err.value).endswith(reason)


def test_the_pod_webhook_takes_a_signed_group_total_count() -> None:
    w = _world()
    w.apply(pod("p", labels=GROUP, annotations={TOTAL: "+1"}))
    assert get_pod(w, "p").metadata.annotations[TOTAL] == "+1"
