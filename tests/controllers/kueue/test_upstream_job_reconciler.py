"""Upstream's batch/v1 Job reconciler table (``TestReconciler``), through a whole control plane.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/job/job_controller_test.go``
``TestReconciler`` (case names quoted per test) against ``pkg/controller/jobframework/reconciler.go``
and ``job_controller.go``. Upstream runs one reconcile over a fake client holding a Job and its
Workload in a given state; here the Job is created through the API and the Job controller,
scheduler and kubelet run in virtual time, so each case reaches its state the way a cluster
would, and the settled Job, Workload and events are compared with upstream's expectations.

Which rows are not translated, and why, is in the report of this audit and ``docs/kueue.md``:
TopologyAwareScheduling, prebuilt workloads, workload slices (elastic jobs), admission-check
controllers (PodSetUpdates from checks, ProvisioningRequest annotations), the objectRetentionPolicies
deactivation rows and the rows whose input is a state a running control plane does not produce
(a Job with a UID longer than 63 characters). The pre-v0.11 PodsReady reason rows are in
``test_upstream_job_pods_ready.py``, the old reason written through the status subresource.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.jobframework.names import workload_name

from .helpers import World, cluster_queue, flavor, local_queue, quota
from .test_jobs import node

QUEUE = "kueue.x-k8s.io/queue-name"
KUEUE_CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}


def make_job(name: str = "job", *, queue: str | None = "lq", parallelism: int = 10, seconds: int = 30,
             labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
             priority_class: str | None = None) -> dict[str, Any]:
    """``baseJobWrapper``: parallelism 10, 1 cpu per pod."""
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": dict(labels or {}),
                            "annotations": dict(annotations or {})}
    if queue:
        meta["labels"][QUEUE] = queue
    container = {"name": "c", "image": "busybox", "args": ["sleep", str(seconds)],
                 "resources": {"requests": {"cpu": "1"}}}
    pod: dict[str, Any] = {"restartPolicy": "Never", "containers": [container]}
    if priority_class:
        pod["priorityClassName"] = priority_class
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"parallelism": parallelism, "completions": parallelism, "template": {"spec": pod}}}


def world(nominal: str = "16", config: dict[str, Any] | None = None, **cq: Any) -> World:
    return World(node("n-a", "a", cpu="16"), flavor("fa", labels={"pool": "a"}),
                 cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", nominal)])]), **cq),
                 local_queue("lq", "cq"), controllers="*", kueue_config=config)


def workload_of(w: World, name: str = "job") -> Workload:
    job = w.cp.client.get(Job, name, "default")
    return w.wl(workload_name(name, job.metadata.uid, "Job", "batch"))


def test_the_workload_is_created_when_queue_name_is_set() -> None:
    """"the workload is created when queue name is set" (and the CreatedWorkload event)."""
    w = world(nominal="0")
    w.apply(make_job())
    w.cp.run_until_idle()
    job = w.cp.client.get(Job, "job", "default")
    wl = workload_of(w)
    assert job.spec.suspend is True
    assert [(ps.name, ps.count, str(ps.template.spec.containers[0].resources.requests["cpu"]))
            for ps in wl.spec.pod_sets] == [("main", 10, "1")]
    assert (wl.spec.queue_name, wl.spec.priority) == ("lq", 0)
    assert "kueue.x-k8s.io/resource-in-use" in (wl.metadata.finalizers or ())
    assert wl.metadata.labels["kueue.x-k8s.io/job-uid"] == job.metadata.uid
    assert ("Normal", "CreatedWorkload", f"Created Workload: default/{wl.metadata.name}") in w.events("job")


def test_when_workload_is_created_it_has_correct_labels_set() -> None:
    """"when workload is created, it has correct labels set": labelKeysToCopy."""
    config = {**KUEUE_CONFIG, "integrations": {"frameworks": ["batch/job"],
                                               "labelKeysToCopy": ["toCopyKey", "redundantToCopyKey"]}}
    w = world(nominal="0", config=config)
    w.apply(make_job(labels={"toCopyKey": "toCopyValue", "dontCopyKey": "dontCopyValue"}))
    w.cp.run_until_idle()
    job = w.cp.client.get(Job, "job", "default")
    assert workload_of(w).metadata.labels == {"kueue.x-k8s.io/job-uid": job.metadata.uid,
                                              "toCopyKey": "toCopyValue"}


def test_the_workload_is_not_created_when_queue_name_is_not_set() -> None:
    w = world()
    w.apply(make_job(queue=None))
    w.cp.run_until_idle()
    assert w.cp.client.list(Workload, "default").items == []


def _priority(w: World, **job: Any) -> tuple[Any, int | None, str | None]:
    w.apply(make_job(**job))
    w.cp.run_until_idle()
    wl = workload_of(w)
    ref = wl.spec.priority_class_ref
    pod_class = wl.spec.pod_sets[0].template.spec.priority_class_name
    return ((ref.group, ref.kind, ref.name) if ref else None), wl.spec.priority, pod_class


WPC = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
       "metadata": {"name": "test-wpc"}, "value": 100}
PC = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
      "metadata": {"name": "test-pc"}, "value": 200}


def test_the_workload_is_created_with_workload_priority_class() -> None:
    """"the workload is created when queue name is set, with workloadPriorityClass"."""
    w = world(nominal="0")
    w.apply(WPC)
    assert _priority(w, labels={"kueue.x-k8s.io/priority-class": "test-wpc"}) == (
        ("kueue.x-k8s.io", "WorkloadPriorityClass", "test-wpc"), 100, None)


def test_the_workload_is_created_with_priority_class() -> None:
    """"the workload is created when queue name is set, with PriorityClass"."""
    w = world(nominal="0")
    w.apply(PC)
    assert _priority(w, priority_class="test-pc") == (
        ("scheduling.k8s.io", "PriorityClass", "test-pc"), 200, "test-pc")


def test_the_workload_is_created_with_workload_priority_class_and_priority_class() -> None:
    """"... with workloadPriorityClass and PriorityClass": the WorkloadPriorityClass wins."""
    w = world(nominal="0")
    w.apply(WPC, PC)
    assert _priority(w, priority_class="test-pc", labels={"kueue.x-k8s.io/priority-class": "test-wpc"}) == (
        ("kueue.x-k8s.io", "WorkloadPriorityClass", "test-wpc"), 100, "test-pc")


def test_the_maximum_execution_time_is_passed_to_and_updated_in_the_workload() -> None:
    """"the maximum execution time is passed to the created workload" and "... is updated in the
    workload" (the Job suspended, waiting for quota)."""
    w = world(nominal="0")
    w.apply(make_job(labels={"kueue.x-k8s.io/max-exec-time-seconds": "10"}))
    w.cp.run_until_idle()
    assert workload_of(w).spec.maximum_execution_time_seconds == 10
    w.cp.client.patch(Job, "job", {"metadata": {"labels": {"kueue.x-k8s.io/max-exec-time-seconds": "20"}}},
                      "default")
    w.cp.run_until_idle()
    assert workload_of(w).spec.maximum_execution_time_seconds == 20


def test_the_workload_is_updated_when_queue_name_has_changed_for_suspended_job() -> None:
    w = world(nominal="0")
    w.apply(local_queue("lq2", "cq"))
    w.apply(make_job())
    w.cp.run_until_idle()
    name = workload_of(w).metadata.name
    w.cp.client.patch(Job, "job", {"metadata": {"labels": {QUEUE: "lq2"}}}, "default")
    w.cp.run_until_idle()
    assert (workload_of(w).metadata.name, workload_of(w).spec.queue_name) == (name, "lq2")


def test_the_workload_is_updated_when_priority_class_has_changed_for_suspended_job() -> None:
    w = world(nominal="0")
    w.apply(WPC, {**WPC, "metadata": {"name": "new-wpc"}, "value": 300})
    w.apply(make_job(labels={"kueue.x-k8s.io/priority-class": "test-wpc"}))
    w.cp.run_until_idle()
    w.cp.client.patch(Job, "job", {"metadata": {"labels": {"kueue.x-k8s.io/priority-class": "new-wpc"}}},
                      "default")
    w.cp.run_until_idle()
    wl = workload_of(w)
    assert (wl.spec.priority_class_ref.name, wl.spec.priority) == ("new-wpc", 300)
    # ``updateWorkloadPriorities``' event on the job, once per write
    updated = [e for e in w.events("job") if e[1] == "UpdatedWorkload"]
    message = f"Updated workload priority class: default/{wl.metadata.name}"
    assert updated == [("Normal", "UpdatedWorkload", message)]


def test_when_job_completes_workload_is_marked_as_finished() -> None:
    w = world()
    w.apply(make_job(parallelism=2, seconds=5))
    w.cp.advance(30)
    job = w.cp.client.get(Job, "job", "default")
    complete = next(c for c in job.status.conditions if c.type == "Complete")
    wl = workload_of(w)
    finished = w.cond(wl.metadata.name, "Finished")
    assert (finished.status, finished.reason, finished.message) == ("True", "Succeeded", complete.message)
    assert ("Normal", "FinishedWorkload", f"Workload 'default/{wl.metadata.name}' is declared finished") in (
        w.events("job"))


def test_when_the_workload_is_finished_its_finalizer_is_removed() -> None:
    w = world()
    w.apply(make_job(parallelism=2, seconds=5))
    w.cp.advance(30)
    assert "kueue.x-k8s.io/resource-in-use" not in (workload_of(w).metadata.finalizers or ())


def _stopped(kind: str) -> tuple[World, str]:
    w = world()
    w.apply(make_job(parallelism=2, seconds=600))
    w.cp.advance(5)
    assert w.cp.client.get(Job, "job", "default").spec.suspend is False
    if kind == "cq":
        w.apply(cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "16")])]), stopPolicy="HoldAndDrain"))
    else:
        w.apply(local_queue("lq", "cq", stopPolicy="HoldAndDrain"))
    w.cp.advance(5)
    return w, workload_of(w).metadata.name


def test_when_workload_is_evicted_due_to_cluster_queue_stopped_job_gets_suspended() -> None:
    w, name = _stopped("cq")
    assert w.cp.client.get(Job, "job", "default").spec.suspend is True
    msg = "The ClusterQueue is stopped"
    ev, rq = w.cond(name, "Evicted"), w.cond(name, "Requeued")
    assert (ev.status, ev.reason, ev.message) == ("True", "ClusterQueueStopped", msg)
    assert (rq.status, rq.reason, rq.message) == ("False", "ClusterQueueStopped", msg)
    assert w.cond(name, "QuotaReserved").status == "False"
    assert ("Normal", "Stopped", msg) in w.events("job")


def test_when_workload_is_evicted_due_to_local_queue_stopped_job_gets_suspended() -> None:
    w, name = _stopped("lq")
    assert w.cp.client.get(Job, "job", "default").spec.suspend is True
    msg = "The LocalQueue is stopped"
    ev, rq = w.cond(name, "Evicted"), w.cond(name, "Requeued")
    assert (ev.status, ev.reason, ev.message) == ("True", "LocalQueueStopped", msg)
    assert (rq.status, rq.reason, rq.message) == ("False", "LocalQueueStopped", msg)
    assert ("Normal", "Stopped", msg) in w.events("job")


def test_suspended_job_with_partial_admission_and_admitted_workload_is_unsuspended() -> None:
    """"suspended job with partial admission and admitted workload is unsuspended": 8 of 10 pods
    admitted, parallelism 8, the pod template labelled with its pod set and queues
    (AssignQueueLabelsForPods), event Started "Admitted by clusterQueue cq"; then, evicted, the
    Job's own parallelism is restored."""
    w = world(nominal="8")
    w.apply(make_job(parallelism=10, seconds=600, annotations={"kueue.x-k8s.io/job-min-parallelism": "5"}))
    w.cp.advance(2)
    job = w.cp.client.get(Job, "job", "default")
    assert (job.spec.suspend, job.spec.parallelism) == (False, 8)
    labels = job.spec.template.metadata.labels
    assert {k: labels[k] for k in labels if k.startswith("kueue.x-k8s.io/")} == {
        "kueue.x-k8s.io/podset": "main", "kueue.x-k8s.io/local-queue-name": "lq",
        "kueue.x-k8s.io/cluster-queue-name": "cq"}
    assert workload_of(w).status.admission.pod_set_assignments[0].count == 8
    assert ("Normal", "Started", "Admitted by clusterQueue cq") in w.events("job")
    w.apply(local_queue("lq", "cq", stopPolicy="HoldAndDrain"))
    w.cp.advance(2)
    job = w.cp.client.get(Job, "job", "default")
    assert (job.spec.suspend, job.spec.parallelism) == (True, 10)


def test_job_with_queue_name_is_not_reconciled_in_unlabelled_namespace_when_always_respected() -> None:
    """"job with queue name is not reconciled in unlabelled namespace when AlwaysRespected is
    enabled" (and "... is reconciled in labelled namespace ..." for the labelled one)."""
    config = {**KUEUE_CONFIG, "managedJobsNamespaceSelector": {"matchLabels": {"managed-by-kueue": "true"}}}
    w = world(nominal="0", config=config)
    w.apply({"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": "labelled-ns", "labels": {"managed-by-kueue": "true"}}},
            local_queue("lq", "cq", namespace="labelled-ns"))
    w.apply(make_job())
    labelled = make_job()
    labelled["metadata"]["namespace"] = "labelled-ns"
    w.apply(labelled)
    w.cp.run_until_idle()
    assert w.cp.client.list(Workload, "default").items == []
    assert [wl.spec.queue_name for wl in w.cp.client.list(Workload, "labelled-ns").items] == ["lq"]


def _child(w: World, parent: dict[str, Any]) -> Job:
    """A running child Job (parallelism 1) controlled by ``parent`` (a Job created already)."""
    uid = w.cp.client.get(Job, parent["metadata"]["name"], "default").metadata.uid
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": parent["metadata"]["name"], "uid": uid,
             "controller": True}
    child = make_job("child", queue=None, parallelism=1, seconds=600)
    child["metadata"]["ownerReferences"] = [owner]
    child["spec"]["suspend"] = False
    w.apply(child)
    w.cp.advance(2)
    return w.cp.client.get(Job, "child", "default")


def test_non_standalone_job_is_suspended_if_its_parent_workload_is_found_and_not_admitted() -> None:
    """"non-standalone job is suspended if its parent workload is found and not admitted" (the
    parent Job queued, no quota for it); the event is upstream's."""
    w = world(nominal="0")
    parent = make_job("parent", parallelism=2)
    w.apply(parent)
    w.cp.run_until_idle()
    assert not w.admitted(workload_of(w, "parent").metadata.name)
    child = _child(w, parent)
    assert child.spec.suspend is True
    assert ("Normal", "Suspended", "Kueue managed child job suspended") in w.events("child")
    assert [wl.metadata.name for wl in w.cp.client.list(Workload, "default").items] == [
        workload_of(w, "parent").metadata.name]


def test_non_standalone_job_is_not_suspended_if_its_parent_workload_is_admitted() -> None:
    w = world()
    parent = make_job("parent", parallelism=2, seconds=600)
    w.apply(parent)
    w.cp.advance(2)
    assert w.admitted(workload_of(w, "parent").metadata.name)
    assert _child(w, parent).spec.suspend is False


def test_the_workload_is_not_admitted_tolerations_and_node_selector_change() -> None:
    """"the workload is not admitted, tolerations and node selector change": the suspended Job's
    template changes, its Workload is updated in place (event UpdatedWorkload)."""
    w = world(nominal="0")
    w.apply(make_job())
    w.cp.run_until_idle()
    name = workload_of(w).metadata.name
    toleration = {"key": "tolerationkey2", "operator": "Exists", "effect": "NoSchedule"}
    w.cp.client.patch(Job, "job", {"spec": {"template": {"spec": {
        "tolerations": [toleration], "nodeSelector": {"node-label": "value"}}}}}, "default")
    w.cp.run_until_idle()
    spec = workload_of(w).spec.pod_sets[0].template.spec
    assert workload_of(w).metadata.name == name
    assert spec.node_selector == {"node-label": "value"}
    assert [t.key for t in spec.tolerations] == ["tolerationkey2"]
    message = f"Updated not matching Workload for suspended job: default/{name}"
    assert ("Normal", "UpdatedWorkload", message) in w.events("job")


def test_when_workload_is_evicted_due_to_preemption_job_gets_suspended() -> None:
    """"when workload is evicted due to preemption, job gets suspended" (and "when workload is
    evicted, suspend, reset startTime and restore node affinity"): the Job is stopped with the
    eviction's message as the event (upstream's ``Stopped`` event on the Job)."""
    w = world(nominal="2", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply({**WPC, "metadata": {"name": "high"}, "value": 1000})
    w.apply(make_job("low", parallelism=2, seconds=600))
    w.cp.advance(2)
    w.apply(make_job("high", parallelism=2, seconds=600, labels={"kueue.x-k8s.io/priority-class": "high"}))
    w.cp.advance(2)
    low = w.cp.client.get(Job, "low", "default")
    # "when workload is evicted, suspend, reset startTime and restore node affinity"
    assert low.spec.suspend is True and low.spec.template.spec.node_selector is None
    assert low.status.start_time is None
    ev = w.cond(workload_of(w, "low").metadata.name, "Evicted")
    rq = w.cond(workload_of(w, "low").metadata.name, "Requeued")
    assert (ev.status, ev.reason, rq.status, rq.reason) == ("True", "Preempted", "True", "Preempted")
    assert ("Normal", "Stopped", ev.message) in w.events("low")


def _pods_ready_transitions(w: World, name: str) -> list[tuple[str, str, str]]:
    """Each distinct PodsReady condition the Workload's status went through, in order (the trace)."""
    seen: list[tuple[str, str, str]] = []
    for r in w.cp.trace.records:
        if r.kind != "Workload.kueue.x-k8s.io" or r.name != name or r.verb != "update":
            continue
        for c in ((r.diff or {}).get("status") or {}).get("conditions") or ():
            if c.get("type") == "PodsReady":
                entry = (c["status"], c["reason"], c["message"])
                if not seen or seen[-1] != entry:
                    seen.append(entry)
    return seen


def test_pods_ready_through_start_failure_and_recovery() -> None:
    """The PodsReady rows ("PodsReady is set to False after Workload is Admitted but not all Pods
    reached readiness", "... set to True after Workload is Admitted and all Pods reached readiness",
    "... set to False after Workload is running and one pod failed", "... continues to be False
    after a pod failed and workload is still recovering", "... set to True after failing pod
    recovered"), in the order a Job whose pods fail after 5 s and are replaced goes through them."""
    config = {**KUEUE_CONFIG, "waitForPodsReady": {"timeout": "10m", "blockAdmission": False}}
    w = world(config=config)
    doc = make_job(parallelism=2)
    doc["spec"]["template"]["spec"]["containers"][0]["args"] = ["sh", "-c", "sleep 5; exit 1"]
    w.apply(doc)
    w.cp.advance(60)
    start = ("False", "WaitForStart", "Not all pods are ready or succeeded")
    started = ("True", "Started", "All pods reached readiness and the workload is running")
    recovering = ("False", "WaitForRecovery", "At least one pod has failed, waiting for recovery")
    recovered = ("True", "Recovered", "All pods reached readiness and the workload is running")
    got = _pods_ready_transitions(w, workload_of(w).metadata.name)
    assert got[:4] == [start, started, recovering, recovered]
    assert set(got[4:]) <= {recovering, recovered}


def test_when_workload_is_evicted_due_to_pods_ready_timeout_job_gets_suspended() -> None:
    """"when workload is evicted due to pods ready timeout, job gets suspended and quota is unset":
    the Job's pods cannot be scheduled (a node label no node has), so the 5 s timeout evicts it."""
    config = {**KUEUE_CONFIG, "waitForPodsReady": {
        "timeout": "5s", "blockAdmission": False,
        "requeuingStrategy": {"timestamp": "Eviction", "backoffBaseSeconds": 600}}}
    w = world(config=config)
    doc = make_job(parallelism=2)
    doc["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "nowhere"}
    w.apply(doc)
    w.cp.advance(7)
    name = workload_of(w).metadata.name
    assert w.cp.client.get(Job, "job", "default").spec.suspend is True
    ev, rq = w.cond(name, "Evicted"), w.cond(name, "Requeued")
    msg = f"Exceeded the PodsReady timeout default/{name}"
    assert (ev.status, ev.reason, ev.message) == ("True", "PodsReadyTimeout", msg)
    assert (rq.status, rq.reason) == ("False", "PodsReadyTimeout")
    assert w.cond(name, "QuotaReserved").status == "False"
    assert ("Normal", "Stopped", msg) in w.events("job")


def test_a_child_job_is_suspended_when_its_parents_workload_loses_admission() -> None:
    """``parentWorkloadHandler`` (``job_controller.go``): an update of the parent's Workload queues the
    parent's child Jobs, so a running child is suspended once that Workload is no longer admitted
    (here deactivated), without waiting for an event of the child itself."""
    w = world()
    parent = make_job("parent", parallelism=2, seconds=600)
    w.apply(parent)
    w.cp.advance(2)
    assert _child(w, parent).spec.suspend is False
    name = workload_of(w, "parent").metadata.name
    w.cp.client.patch(Workload, name, {"spec": {"active": False}}, "default")
    w.cp.run_until_idle()
    assert not w.admitted(name)
    assert w.cp.client.get(Job, "child", "default").spec.suspend is True
    assert ("Normal", "Suspended", "Kueue managed child job suspended") in w.events("child")


def test_a_maximum_execution_time_beyond_int32_is_not_passed_to_the_workload() -> None:
    """kbatch's own row: the webhook's ``strconv.Atoi`` takes 3000000000, but
    ``MaximumExecutionTimeSecondsForObject`` reads it with ``ParseInt(v, 10, 32)`` and leaves it unset."""
    w = world(nominal="0")
    w.apply(make_job(labels={"kueue.x-k8s.io/max-exec-time-seconds": "3000000000"}))
    w.cp.run_until_idle()
    assert workload_of(w).spec.maximum_execution_time_seconds is None
