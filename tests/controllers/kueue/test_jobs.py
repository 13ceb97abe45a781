"""The job framework for batch/v1 Jobs: suspended on create, a Workload per Job, unsuspended with
the flavor's node selector once admitted, pods run by the simulated scheduler and kubelet, quota
freed when the Job finishes, re-suspended and restored on preemption.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler.go`` and its
tests, ``pkg/controller/jobs/job/job_controller_test.go``, ``pkg/controller/jobframework/
workload_names.go``, ``test/integration/singlecluster/controller/jobs/job``.
"""

from __future__ import annotations

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.jobframework.names import workload_name

from .helpers import World, cluster_queue, flavor, local_queue, quota


def node(name: str, pool: str, cpu: str = "8") -> dict:
    cap = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"pool": pool}},
            "status": {"capacity": cap, "allocatable": cap}}


def job(name: str, queue: str | None = "lq", parallelism: int = 2, cpu: str = "1", seconds: int = 30,
        priority_class: str | None = None) -> dict:
    labels = {}
    if queue:
        labels["kueue.x-k8s.io/queue-name"] = queue
    if priority_class:
        labels["kueue.x-k8s.io/priority-class"] = priority_class
    container = {"name": "c", "image": "busybox", "args": ["sleep", str(seconds)],
                 "resources": {"requests": {"cpu": cpu}}}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default", "labels": labels},
            "spec": {"parallelism": parallelism, "completions": parallelism,
                     "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}


def _world(nominal: str = "4", kueue_config: dict | None = None, **spec) -> World:
    return World(node("n-a", "a"), node("n-b", "b"), flavor("fa", labels={"pool": "a"}),
                 cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", nominal)])]), **spec),
                 local_queue("lq", "cq"), controllers="*", kueue_config=kueue_config)


def _workload_of(w: World, name: str) -> Workload:
    j = w.cp.client.get(Job, name, "default")
    return w.wl(workload_name(name, j.metadata.uid, "Job", "batch"))


def _pods(w: World, name: str) -> list[Pod]:
    return [p for p in w.cp.client.list(Pod, "default").items
            if (p.metadata.labels or {}).get("batch.kubernetes.io/job-name") == name]


def test_a_queued_job_is_admitted_unsuspended_with_its_flavor_and_its_pods_run_to_completion() -> None:
    w = _world()
    w.apply(job("j"))
    w.cp.run_until_idle()
    wl = _workload_of(w, "j")
    assert wl.spec.queue_name == "lq"
    assert [(ps.name, ps.count) for ps in wl.spec.pod_sets] == [("main", 2)]
    assert w.admitted(wl.metadata.name)
    assert wl.metadata.owner_references[0].name == "j"

    j = w.cp.client.get(Job, "j", "default")
    assert j.spec.suspend is False
    assert j.spec.template.spec.node_selector == {"pool": "a"}
    pods = _pods(w, "j")
    assert len(pods) == 2 and {p.spec.node_name for p in pods} == {"n-a"}

    w.cp.advance(60)
    j = w.cp.client.get(Job, "j", "default")
    assert j.status.succeeded == 2
    assert w.cond(wl.metadata.name, "Finished").status == "True"
    assert w.usage("fa") == {}
    assert w.cq("cq").status.admitted_workloads == 0


def test_a_job_waits_suspended_for_quota_and_runs_when_the_first_finishes() -> None:
    w = _world(nominal="2")
    w.apply(job("first", seconds=30))
    w.cp.run_until_idle()
    w.apply(job("second", seconds=30))
    w.cp.run_until_idle()
    assert w.cp.client.get(Job, "second", "default").spec.suspend is True
    assert _pods(w, "second") == []
    assert w.cond(_workload_of(w, "second").metadata.name, "QuotaReserved").status == "False"

    w.cp.advance(45)
    assert w.cp.client.get(Job, "first", "default").status.succeeded == 2
    second = w.cp.client.get(Job, "second", "default")
    assert second.spec.suspend is False
    w.cp.advance(60)
    assert w.cp.client.get(Job, "second", "default").status.succeeded == 2


def test_a_preempted_job_is_suspended_restored_and_requeued() -> None:
    w = _world(nominal="2", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
             "metadata": {"name": "urgent"}, "value": 1000})
    w.apply(job("low", seconds=600))
    w.cp.advance(5)
    assert len(_pods(w, "low")) == 2
    w.apply(job("high", seconds=30, priority_class="urgent"))
    w.cp.advance(5)

    low_wl = _workload_of(w, "low").metadata.name
    assert w.cond(low_wl, "Preempted").reason == "InClusterQueue"
    low = w.cp.client.get(Job, "low", "default")
    assert low.spec.suspend is True
    assert low.spec.template.spec.node_selector is None  # restored to the Job's own template
    assert not w.reserved(low_wl)
    assert w.cond(low_wl, "Requeued").status == "True"
    high_wl = _workload_of(w, "high")
    assert high_wl.spec.priority == 1000
    assert w.admitted(high_wl.metadata.name)

    w.cp.advance(60)  # high finishes; low comes back
    assert w.cp.client.get(Job, "high", "default").status.succeeded == 2
    assert w.admitted(low_wl)
    assert w.cp.client.get(Job, "low", "default").spec.suspend is False


def test_a_job_without_a_queue_name_is_left_alone() -> None:
    w = _world()
    w.apply(job("free", queue=None))
    w.cp.run_until_idle()
    assert not w.cp.client.get(Job, "free", "default").spec.suspend
    assert w.cp.client.list(Workload, "default").items == []
