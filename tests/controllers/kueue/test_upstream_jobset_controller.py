"""Upstream's JobSet integration tables, through a running control plane.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/jobset/jobset_controller_test.go``
(``TestReconciler``'s priority rows, ``TestReclaimablePods``, ``TestPodsReady``; case names quoted) against
``jobset_controller.go``. The JobSet runs under kbatch's JobSet controller, scheduler and
kubelet. Not translated: "workload is created with podsets and a ProvReq annotation"
(ProvisioningRequest, not modelled), the TAS pod-set rows of ``TestPodSets`` (pod index and
sub-group labels are TAS fields) and ``TestRestorePodSetsInfo`` (an adapter function on a
hand-made spec; its effect is covered by ``test_jobsets.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.api.kueue_v1beta2 import Workload

from .helpers import World, cluster_queue, flavor, local_queue, quota
from .test_jobs import node

WPC = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
       "metadata": {"name": "test-wpc"}, "value": 100}
PC = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
      "metadata": {"name": "test-pc"}, "value": 200}


def make_jobset(rjobs: list[tuple[str, int, int, int]], *, seconds: dict[str, int] | None = None,
                priority_class: str | None = None, wpc: str | None = None) -> dict[str, Any]:
    """``testingjobset.MakeJobSet("jobset", ...).ReplicatedJobs(...)``: (name, replicas,
    parallelism, completions) per replicated job, 1 cpu per pod."""
    labels = {"kueue.x-k8s.io/queue-name": "lq"}
    if wpc:
        labels["kueue.x-k8s.io/priority-class"] = wpc
    replicated = []
    for name, replicas, parallelism, completions in rjobs:
        pod: dict[str, Any] = {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "args": ["sleep", str((seconds or {}).get(name, 600))],
             "resources": {"requests": {"cpu": "1"}}}]}
        if priority_class:
            pod["priorityClassName"] = priority_class
        replicated.append({"name": name, "replicas": replicas, "template": {"spec": {
            "parallelism": parallelism, "completions": completions, "template": {"spec": pod}}}})
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "jobset", "namespace": "default", "labels": labels},
            "spec": {"replicatedJobs": replicated}}


def world(nominal: str = "16") -> World:
    return World(node("n-a", "a", cpu="16"), flavor("fa", labels={"pool": "a"}),
                 cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", nominal)])])),
                 local_queue("lq", "cq"), controllers="*")


def workload(w: World) -> Workload:
    owned = [wl for wl in w.cp.client.list(Workload, "default").items
             if (ref := wl.metadata.controller_ref()) is not None and ref.kind == "JobSet"]
    assert len(owned) == 1
    return owned[0]


@pytest.mark.parametrize(
    ("case", "priority_class", "wpc", "want"),
    [
        ("workload is created with podsets and workloadPriorityClass", None, "test-wpc",
         (("kueue.x-k8s.io", "WorkloadPriorityClass", "test-wpc"), 100)),
        ("workload is created with podsets and PriorityClass", "test-pc", None,
         (("scheduling.k8s.io", "PriorityClass", "test-pc"), 200)),
        ("workload is created with podsets, workloadPriorityClass and PriorityClass", "test-pc", "test-wpc",
         (("kueue.x-k8s.io", "WorkloadPriorityClass", "test-wpc"), 100)),
    ],
)
def test_workload_priority(case: str, priority_class: str | None, wpc: str | None, want: Any) -> None:
    w = world(nominal="0")
    w.apply(WPC, PC)
    w.apply(make_jobset([("replicated-job-1", 1, 1, 1)], priority_class=priority_class, wpc=wpc))
    w.cp.run_until_idle()
    wl = workload(w)
    ref = wl.spec.priority_class_ref
    assert ((ref.group, ref.kind, ref.name), wl.spec.priority) == want
    assert [(ps.name, ps.count) for ps in wl.spec.pod_sets] == [("replicated-job-1", 1)]


def test_reclaimable_pods_single_job_done() -> None:
    """``TestReclaimablePods`` "single job done": replicated-job-1 (1 x 2 pods) finishes while
    replicated-job-2 (2 x 3 pods) runs, and its 2 pods are reclaimable."""
    w = world()
    w.apply(make_jobset([("replicated-job-1", 1, 2, 2), ("replicated-job-2", 2, 3, 3)],
                        seconds={"replicated-job-1": 5, "replicated-job-2": 600}))
    w.cp.advance(20)
    js = w.cp.client.get(JobSet, "jobset", "default")
    assert js.spec.suspend is False
    got = [(r.name, r.count) for r in workload(w).status.reclaimable_pods or ()]
    assert got == [("replicated-job-1", 2)]


@pytest.mark.parametrize(
    ("case", "statuses", "want"),
    [
        ("all jobs are ready", [("replicated-job-1", 1, 1), ("replicated-job-2", 3, 0)], True),
        ("not all jobs are ready", [("replicated-job-1", 1, 0), ("replicated-job-2", 1, 2)], False),
    ],
)
def test_pods_ready(case: str, statuses: list[tuple[str, int, int]], want: bool) -> None:
    """``TestPodsReady``: ready plus succeeded jobs of every replicated job against the replicas.
    Kueue runs alone (no JobSet controller), so the JobSet's status is written through its status
    subresource as the JobSet controller would, and the answer is the Workload's PodsReady."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]},
              "waitForPodsReady": {"timeout": "10m", "blockAdmission": False}}
    w = World(flavor("fa"), cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "16")])])),
              local_queue("lq", "cq"), kueue_config=config)
    w.apply(make_jobset([("replicated-job-1", 2, 1, 1), ("replicated-job-2", 3, 1, 1)]))
    w.cp.run_until_idle()
    assert w.cp.client.get(JobSet, "jobset", "default").spec.suspend is False
    name = workload(w).metadata.name
    assert w.cond(name, "PodsReady").status == "False"
    w.cp.client.patch_status(JobSet, "jobset", {"status": {"replicatedJobsStatus": [
        {"name": n, "ready": ready, "succeeded": succeeded, "failed": 0, "active": ready, "suspended": 0}
        for n, ready, succeeded in statuses]}}, "default")
    w.cp.run_until_idle()
    ready = w.cond(name, "PodsReady")
    assert (ready.status, ready.reason) == (("True", "Started") if want else ("False", "WaitForStart")), case
