"""Kueue admits JobSets (the ``jobset.x-k8s.io/jobset`` integration): a JobSet naming a LocalQueue is
created suspended, gets one Workload with a pod set per replicated job (replicas x pods each), is
unsuspended with the flavor's node selector in every replicated job once admitted, runs, and frees
its quota when it completes, so the next JobSet waiting in the queue is admitted.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/jobset/jobset_controller.go`` and
``jobset_webhook.go``; ``test/integration/singlecluster/controller/jobs/jobset``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.api.kueue_v1beta2 import Workload

from .helpers import World, cluster_queue, flavor, local_queue, quota
from .test_jobs import node


def jobset(name: str, seconds: int = 30) -> dict[str, Any]:
    """Two replicated jobs of 1 x 2 pods, each pod 1 cpu: 4 cpu in all."""
    def rjob(rname: str) -> dict[str, Any]:
        container = {"name": "c", "image": "busybox", "args": ["sleep", str(seconds)],
                     "resources": {"requests": {"cpu": "1"}}}
        return {"name": rname, "replicas": 1, "template": {"spec": {
            "parallelism": 2, "completions": 2,
            "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default",
                         "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"replicatedJobs": [rjob("driver"), rjob("workers")]}}


def _world() -> World:
    return World(node("n-a", "a"), node("n-b", "a"), flavor("fa", labels={"pool": "a"}),
                 cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "4")])])),
                 local_queue("lq", "cq"), controllers="*")


def _workload(w: World, name: str) -> Workload:
    owned = [wl for wl in w.cp.client.list(Workload, "default").items
             if (ref := wl.metadata.controller_ref()) is not None and ref.name == name]
    assert len(owned) == 1, [wl.metadata.name for wl in owned]
    return owned[0]


def _finished(js: JobSet) -> bool:
    conditions = (js.status.conditions if js.status else None) or ()
    return any(c.type == "Completed" and c.status == "True" for c in conditions)


def test_a_queued_jobset_is_created_suspended_admitted_whole_and_frees_its_quota() -> None:
    w = _world()
    w.apply(jobset("first"), jobset("second"))
    created = [r for r in w.cp.trace.records if r.kind.startswith("JobSet") and r.verb == "create"]
    assert [r.diff["spec"]["suspend"] for r in created] == [True, True], "Kueue's webhook suspends on create"
    first = _workload(w, "first")
    assert [(ps.name, ps.count) for ps in first.spec.pod_sets] == [("driver", 2), ("workers", 2)]
    assert w.admitted(first.metadata.name)
    second = _workload(w, "second")
    assert not w.reserved(second.metadata.name), "the first holds the whole quota"
    js = w.cp.client.get(JobSet, "first", "default")
    assert js.spec.suspend is False
    for rjob in js.spec.replicated_jobs or ():
        assert rjob.template.spec.template.spec.node_selector == {"pool": "a"}, "the flavor's labels"
    assert w.cp.client.get(JobSet, "second", "default").spec.suspend is True
    w.cp.advance("2m")
    assert _finished(w.cp.client.get(JobSet, "first", "default"))
    assert w.cond(first.metadata.name, "Finished").status == "True"
    assert w.admitted(second.metadata.name), "the freed quota admits the next JobSet"
    w.cp.advance("2m")
    assert _finished(w.cp.client.get(JobSet, "second", "default"))
