"""The Job controller's Workload and PodGroup (KEP-5547, gate WorkloadWithJob; cases after upstream
``pkg/controller/job/job_scheduling_manager_test.go``): names, ownership, the new-Job rule, discovery
by reference, compiled policies, elastic ``minCount``, events, and the gates."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.scheduling_v1beta1 import MANAGED_BY_ANNOTATION, PodGroup, Workload
from kbatch.controllers.job.workload import pod_group_name, safe_encode, template_name, workload_name
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes

GATES = "GenericWorkload=true,WorkloadWithJob=true"


def job(name: str = "train", parallelism: int = 2, scheduling: dict | None = None, **meta: Any) -> dict:
    spec: dict[str, Any] = {"parallelism": parallelism, "completions": parallelism,
                            "completionMode": "Indexed",
                            "template": {"spec": {"restartPolicy": "Never", "containers": [{
                                "name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 10"],
                                "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}
    if scheduling is not None:
        spec["scheduling"] = scheduling
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, **meta}, "spec": spec}


def cluster(gates: str | None = GATES, nodes: int = 2, controllers: str = "*") -> ControlPlane:
    cp = ControlPlane(feature_gates=gates, controllers=controllers)
    create_nodes(cp, nodes, NodeTemplate(gpus=8))
    return cp


def test_a_gang_job_gets_a_workload_a_pod_group_and_pods_that_join_it() -> None:
    cp = cluster()
    cp.apply(job(scheduling={"schedulingPolicy": {"gang": {}}}))
    got = cp.client.get(Job, "train", "default")
    [wl] = cp.client.list(Workload, "default").items
    [pg] = cp.client.list(PodGroup, "default").items
    assert wl.metadata.name == workload_name("train", got.metadata.uid or "")
    assert wl.spec.controller_ref.to_dict() == {"apiGroup": "batch", "kind": "Job", "name": "train"}
    [tpl] = wl.spec.pod_group_templates
    assert tpl.name == "train-pgt-0" and tpl.scheduling_policy.to_dict() == {"gang": {"minCount": 2}}
    assert pg.metadata.name == pod_group_name(wl.metadata.name or "", "train-pgt-0")
    assert pg.spec.workload_ref.to_dict() == {"workloadName": wl.metadata.name, "templateName": "train-pgt-0"}
    assert [(r.kind, bool(r.controller)) for r in pg.metadata.owner_references] == [("Job", True),
                                                                                   ("Workload", False)]
    assert [(r.kind, bool(r.controller)) for r in wl.metadata.owner_references] == [("Job", True)]
    assert (pg.metadata.annotations or {})[MANAGED_BY_ANNOTATION] == "kubernetes.io/job-controller"
    pods = cp.client.list(Pod, "default").items
    assert len(pods) == 2 and all(p.spec.scheduling_group.pod_group_name == pg.metadata.name for p in pods)
    assert all([r.kind for r in p.metadata.owner_references] == ["Job", "PodGroup"] for p in pods)
    reasons = [e.reason for e in cp.client.list(Event, "default").items]
    assert reasons.index("WorkloadCreated") < reasons.index("PodGroupCreated") < \
        reasons.index("SuccessfulCreate")
    cp.advance(15)
    assert cp.client.get(Job, "train", "default").status.succeeded == 2


def test_without_spec_scheduling_the_policy_is_basic() -> None:
    cp = cluster()
    cp.apply(job("plain", parallelism=1))
    [wl] = cp.client.list(Workload, "default").items
    assert wl.spec.pod_group_templates[0].scheduling_policy.to_dict() == {"basic": {}}


def test_an_explicit_min_count_and_an_elastic_update() -> None:
    cp = cluster()
    cp.apply(job(parallelism=2, scheduling={"schedulingPolicy": {"gang": {"minCount": 2}}}))
    cp.client.patch(Job, "train", {"spec": {"scheduling": {"schedulingPolicy": {"gang": {"minCount": 1}}}}},
                    "default")
    cp.run_until_idle()
    [wl] = cp.client.list(Workload, "default").items
    [pg] = cp.client.list(PodGroup, "default").items
    assert wl.spec.pod_group_templates[0].scheduling_policy.gang.min_count == 1
    assert pg.spec.scheduling_policy.gang.min_count == 1


def test_a_job_that_names_its_own_group_or_has_a_parent_gets_nothing() -> None:
    cp = cluster(controllers="job")  # no garbage collector: the CronJob below does not exist
    own = job("own")
    own["spec"]["template"]["spec"]["schedulingGroup"] = {"podGroupName": "mine"}
    cp.apply(own)
    # the parent JobSet exists (Kueue's job webhook refuses a Job whose JobSet owner is missing,
    # FindAncestorJobManagedByKueue); no JobSet controller runs, so it makes no Jobs itself
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
              "spec": {"suspend": True,
                       "replicatedJobs": [{"name": "w", "template": {"spec": job()["spec"]}}]}}
    [parent] = cp.apply(jobset)
    child = job("child", ownerReferences=[{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                                           "name": "js", "uid": parent.metadata.uid, "controller": True}])
    cp.apply(child)
    assert cp.client.list(Workload, "default").items == []
    cron = job("from-cron", ownerReferences=[{"apiVersion": "batch/v1", "kind": "CronJob", "name": "c",
                                              "uid": "u2", "controller": True}])
    cp.apply(cron)  # a CronJob's Job stands alone: a root
    assert [w.spec.controller_ref.name for w in cp.client.list(Workload, "default").items] == ["from-cron"]


def test_a_job_that_already_started_only_discovers() -> None:
    cp = cluster(gates="GenericWorkload=true")  # the integration off: pods are created plainly
    cp.apply(job())
    cp.run_until_idle()
    assert cp.client.list(Pod, "default").items
    restarted = ControlPlane(feature_gates=GATES, store=cp.store)  # the gate turned on later
    restarted.run_until_idle()
    assert restarted.client.list(Workload, "default").items == []


def test_a_bad_min_count_is_a_compilation_failure_event() -> None:
    cp = cluster()
    cp.apply(job("zero", parallelism=0, scheduling={"schedulingPolicy": {"gang": {}}}))
    events = cp.client.list(Event, "default").items
    messages = [e.message for e in events if e.reason == "FailedWorkloadCompilation"]
    assert messages == ["Failed to compile Workload for Job zero: invalid spec.scheduling: "
                        "policy.gang.minCount: Invalid value: 0: must be at least 1"]


def test_with_the_gate_off_nothing_is_created_and_the_field_is_dropped() -> None:
    cp = cluster(gates="GenericWorkload=true")
    cp.apply(job(scheduling={"schedulingPolicy": {"gang": {}}}))
    assert cp.client.get(Job, "train", "default").spec.scheduling is None
    assert cp.client.list(Workload, "default").items == []
    assert all(p.spec.scheduling_group is None for p in cp.client.list(Pod, "default").items)


@given(st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=260),
       st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=260))
def test_generated_names_fit_and_keep_what_fits(workload: str, template: str) -> None:
    name = pod_group_name(workload, template)
    digest = name.rsplit("-", 1)[1]
    assert len(name) <= 253 and set(digest) <= set(safe_encode("0123456789"))
    if len(workload) + len(template) <= 253 - len(digest) - 2:
        assert name.startswith(f"{workload}-{template}-")
    assert len(workload_name(workload, "uid")) <= 253 and template_name("j") == "j-pgt-0"


def test_workload_and_pod_group_events_enqueue_no_job_sync() -> None:
    """Upstream's ``addSchedulingInformers`` (``job_scheduling_manager.go``, 1.36 and 1.37) gives the
    controller the Workload and PodGroup listers and indexes and registers no event handler: an
    update of either object (here a label; the scheduler's status write is another) syncs no Job."""
    cp = cluster(controllers="job")
    cp.apply(job(scheduling={"schedulingPolicy": {"gang": {}}}))
    cp.advance(2)  # the Job's own status write comes back after its 1 s batching
    [wl] = cp.client.list(Workload, "default").items
    [pg] = cp.client.list(PodGroup, "default").items
    before = cp.manager.get("job").reconciles
    cp.client.patch(Workload, wl.metadata.name or "", {"metadata": {"labels": {"touch": "1"}}}, "default")
    cp.client.patch(PodGroup, pg.metadata.name or "", {"metadata": {"labels": {"touch": "1"}}}, "default")
    cp.run_until_idle()
    cp.advance(2)  # past the Job controller's 1 s batching
    assert cp.manager.get("job").reconciles == before
