"""The ``jobset`` controller on a control plane: real child Jobs, pods run by the simulated scheduler
and kubelet, in virtual time (kubernetes-sigs/jobset ``test/integration/controller`` and ``test/e2e``
restate these cases)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Node, PersistentVolumeClaim, Pod, Service
from kbatch.api.errors import NotFound
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.sim import NodeTemplate, create_nodes


def manifest(name: str = "js", command: str = "sleep 10", replicas: int = 2, pods: int = 2,
             **spec: Any) -> dict[str, Any]:
    template = {"spec": {"parallelism": pods, "completions": pods, "backoffLimit": 0, "template": {"spec": {
        "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
        "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", command],
                        "resources": {"requests": {"cpu": "10m"}}}]}}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": name},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": replicas, "template": template}], **spec}}


def plane(nodes: int = 4, **kwargs: Any) -> ControlPlane:
    cp = ControlPlane(seed=3, **kwargs)
    create_nodes(cp, nodes, NodeTemplate())
    return cp


def jobset(cp: ControlPlane, name: str = "js") -> JobSet:
    return cp.client.get(JobSet, name, "default")


def cond(js: JobSet, type_: str) -> tuple[str, str, str] | None:
    c = js.status.condition(type_) if js.status else None
    return (c.status, c.reason or "", c.message or "") if c else None


def jobs(cp: ControlPlane) -> list[Job]:
    return sorted(cp.client.list(Job, "default").items, key=lambda j: j.name)


def events(cp: ControlPlane, kind: str = "JobSet") -> list[tuple[str, str]]:
    return [(e.reason or "", e.message or "") for e in cp.client.list(Event, "default").items
            if e.involved_object.kind == kind]


def test_children_labels_service_and_completion() -> None:
    cp = plane()
    cp.apply(manifest(coordinator={"replicatedJob": "w", "jobIndex": 1, "podIndex": 0}))
    js = jobset(cp)
    names = [j.name for j in jobs(cp)]
    assert names == ["js-w-0", "js-w-1"]
    svc = cp.client.get(Service, "js", "default")
    assert svc.spec.cluster_ip == "None" and svc.spec.selector == {"jobset.sigs.k8s.io/jobset-name": "js"}
    assert svc.spec.publish_not_ready_addresses is True and svc.metadata.owner_references[0].name == "js"
    job = cp.client.get(Job, "js-w-1", "default")
    labels = job.metadata.labels
    assert labels["jobset.sigs.k8s.io/job-key"] == hashlib.sha1(b"default/js-w-1").hexdigest()
    assert labels["jobset.sigs.k8s.io/coordinator"] == "js-w-1-0.js"
    assert job.metadata.annotations["jobset.sigs.k8s.io/coordinator"] == "js-w-1-0.js"
    pod = next(p for p in cp.client.list(Pod, "default").items
               if p.metadata.labels.get("batch.kubernetes.io/job-completion-index") == "1"
               and p.metadata.labels["jobset.sigs.k8s.io/job-index"] == "0")
    assert (pod.spec.hostname, pod.spec.subdomain) == ("js-w-0-1", "js")  # js-w-0-1.js resolves through svc
    assert pod.metadata.labels["jobset.sigs.k8s.io/priority"] == "0"  # mpod.kb.io, after Priority
    cp.wait_for(lambda: jobset(cp).status.is_true("Completed"), "5m")
    js = jobset(cp)
    assert js.status.terminal_state == "Completed"
    assert [(s.name, s.succeeded) for s in js.status.replicated_jobs_status] == [("w", 2)]
    assert ("AllJobsCompleted", "jobset completed successfully") in events(cp)


def test_a_failed_job_fails_the_jobset_and_its_remaining_jobs_are_deleted() -> None:
    cp = plane()
    cp.apply(manifest(command="exit 1", replicas=1, pods=1))
    cp.apply(manifest(name="other", command="sleep 600", replicas=1, pods=1))
    cp.wait_for(lambda: jobset(cp).status.is_true("Failed"), "5m")
    message = "jobset failed due to one or more job failures (first failed job: js-w-0)"
    assert cond(jobset(cp), "Failed") == ("True", "FailedJobs", message)


def test_restart_recreates_every_job_after_its_pods_are_gone_up_to_max_restarts() -> None:
    cp = plane()
    cp.apply(manifest(command="sleep 5; exit 1", replicas=2, pods=1, failurePolicy={"maxRestarts": 2}))
    seen: set[tuple[str, str]] = set()
    recreated_while_old_pods_lived: list[str] = []

    def watch() -> bool:
        by_attempt: dict[str, set[str]] = {}
        for job in jobs(cp):
            attempt = job.metadata.labels["jobset.sigs.k8s.io/restart-attempt"]
            seen.add((job.name, attempt))
            by_attempt.setdefault(attempt, set()).add(job.name)
        for pod in cp.client.list(Pod, "default").items:  # Recreate: a Job comes back once its pods are gone
            attempt = pod.metadata.labels["jobset.sigs.k8s.io/restart-attempt"]
            job = pod.metadata.labels["batch.kubernetes.io/job-name"]
            newer = [a for a in by_attempt if int(a) > int(attempt) and job in by_attempt[a]]
            if newer:
                recreated_while_old_pods_lived.append(job)
        return jobset(cp).status.is_true("Failed")

    cp.wait_for(watch, "10m")
    js = jobset(cp)
    assert (js.status.restarts, js.status.restarts_count_towards_max) == (2, 2)
    assert cond(js, "Failed")[1] == "ReachedMaxRestarts"
    assert {a for _, a in seen} == {"0", "1", "2"} and not recreated_while_old_pods_lived
    restarts = [e for e in cp.client.list(Event, "default").items
                if e.reason == "RestartJobSetFailurePolicyAction"]
    # JobSet records through events.k8s.io/v1, keyed on the JobSet's resourceVersion, which moved
    # between the two restarts: two Events, neither a series
    assert [(e.series, e.count) for e in restarts] == [(None, None), (None, None)]


def test_blocking_recreate_waits_for_every_old_job() -> None:
    cp = plane()
    cp.apply(manifest(command="sleep 5; exit 1", replicas=3, pods=1,
                      failurePolicy={"maxRestarts": 1, "restartStrategy": "BlockingRecreate"}))
    mixed: list[set[str]] = []

    def watch() -> bool:
        attempts = {j.metadata.labels["jobset.sigs.k8s.io/restart-attempt"] for j in jobs(cp)}
        if len(attempts) > 1:
            mixed.append(attempts)
        return jobset(cp).status.restarts == 1 and len(jobs(cp)) == 3 and attempts == {"1"}

    cp.wait_for(watch, "10m")
    assert not mixed


def test_suspend_propagates_to_jobs_and_resume_unsuspends_them() -> None:
    cp = plane()
    cp.apply(manifest(suspend=True))
    assert all(j.spec.suspend for j in jobs(cp)) and not cp.client.list(Pod, "default").items
    assert cond(jobset(cp), "Suspended") == ("True", "SuspendedJobs", "jobset is suspended")
    cp.client.patch(JobSet, "js", {"spec": {"suspend": False}}, "default")
    cp.run_until_idle()
    assert not any(j.spec.suspend for j in jobs(cp)) and cp.client.list(Pod, "default").items
    assert cond(jobset(cp), "Suspended") == ("False", "ResumeJobs", "jobset is resumed")
    cp.advance(2)
    cp.client.patch(JobSet, "js", {"spec": {"suspend": True}}, "default")
    cp.run_until_idle()
    assert all(j.spec.suspend for j in jobs(cp))
    cp.advance(60)
    assert not [p for p in cp.client.list(Pod, "default").items if p.status.phase == "Running"]
    cp.client.patch(JobSet, "js", {"spec": {"suspend": False}}, "default")  # started Jobs: startTime reset
    cp.wait_for(lambda: jobset(cp).status.is_true("Completed"), "5m")


def test_ttl_after_finished_deletes_the_jobset_and_its_children() -> None:
    cp = plane()
    cp.apply(manifest(ttlSecondsAfterFinished=30, command="sleep 1"))
    cp.wait_for(lambda: jobset(cp).status.is_true("Completed"), "5m")
    finished = cp.now()
    cp.wait_for(lambda: not cp.client.list(JobSet, "default").items, "5m")
    assert (cp.now() - finished).total_seconds() >= 30
    cp.run_until_idle()
    assert not jobs(cp) and [s.name for s in cp.client.list(Service, "default").items] == ["kubernetes"]


def test_a_jobset_managed_by_another_controller_is_left_alone() -> None:
    cp = plane()
    cp.apply(manifest(managedBy="kueue.x-k8s.io/multikueue"))
    cp.advance(30)
    assert not jobs(cp) and jobset(cp).status is None


def test_the_headless_service_is_recreated_and_dns_can_be_off() -> None:
    cp = plane()
    cp.apply(manifest(command="sleep 100", network={"subdomain": "net"}))
    cp.client.delete(Service, "net", "default")
    cp.run_until_idle()
    assert cp.client.get(Service, "net", "default")  # the Service's deletion queued the JobSet
    cp.apply(manifest(name="nodns", network={"enableDNSHostnames": False}))
    assert not [s for s in cp.client.list(Service, "default").items if s.name == "nodns"]
    assert all(j.spec.template.spec.subdomain is None for j in jobs(cp) if j.name.startswith("nodns"))


@pytest.mark.parametrize("retain", [False, True])
def test_volume_claims_are_created_mounted_and_kept_or_collected(retain: bool) -> None:
    cp = plane()
    claim = {"metadata": {"name": "data", "labels": {"team": "a"}},
             "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}}}
    m = manifest(command="sleep 5", volumeClaimPolicies=[{
        "templates": [claim], **({"retentionPolicy": {"whenDeleted": "Retain"}} if retain else {})}])
    pod_spec = m["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod_spec["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    cp.apply(m)
    claim = cp.client.get(PersistentVolumeClaim, "data-js", "default")
    assert claim.metadata.labels == {"team": "a", "jobset.sigs.k8s.io/jobset-name": "js"}
    assert bool(claim.metadata.owner_references) is not retain
    # the cluster's default class (WaitForFirstConsumer): provisioned and bound once a pod is scheduled
    assert claim.spec.storage_class_name == "standard" and claim.status.phase == "Bound"
    volume = jobs(cp)[0].spec.template.spec.volumes[0]
    assert (volume.name, volume.persistent_volume_claim.claim_name) == ("data", "data-js")
    cp.client.delete(JobSet, "js", "default")
    cp.advance(60)
    remaining = [c.name for c in cp.client.list(PersistentVolumeClaim, "default").items]
    assert remaining == (["data-js"] if retain else [])


def test_exclusive_placement_puts_one_job_per_topology_domain() -> None:
    cp = plane(nodes=6)
    for i, node in enumerate(sorted(cp.client.list(Node).items, key=lambda n: n.name)):
        cp.client.patch(Node, node.name, {"metadata": {"labels": {"rack": f"r{i // 2}"}}})
    m = manifest(command="sleep 30", replicas=3, pods=2)
    m["metadata"]["annotations"] = {"alpha.jobset.sigs.k8s.io/exclusive-topology": "rack"}
    cp.apply(m)
    cp.advance(10)
    racks = {n.name: n.metadata.labels["rack"] for n in cp.client.list(Node).items}
    by_job: dict[str, set[str]] = {}
    for pod in cp.client.list(Pod, "default").items:
        job = pod.metadata.labels["batch.kubernetes.io/job-name"]
        by_job.setdefault(job, set()).add(racks[pod.spec.node_name])
    assert len(by_job) == 3 and all(len(r) == 1 for r in by_job.values())
    assert len({next(iter(r)) for r in by_job.values()}) == 3
    leader = next(p for p in cp.client.list(Pod, "default").items
                  if p.metadata.annotations["batch.kubernetes.io/job-completion-index"] == "0")
    term = leader.spec.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0]
    assert term.topology_key == "rack" and term.namespace_selector is not None
    refused = [m for r, m in events(cp, "Job") if r == "FailedCreate"]
    assert refused and all('admission webhook "vpod.kb.io" denied the request' in m for m in refused)


def test_node_selector_strategy_selects_the_jobs_nodes_and_tolerates_the_taint() -> None:
    cp = plane()
    m = manifest()
    m["metadata"]["annotations"] = {"alpha.jobset.sigs.k8s.io/exclusive-topology": "pool",
                                    "alpha.jobset.sigs.k8s.io/node-selector": "true"}
    cp.apply(m)
    spec = cp.client.get(Job, "js-w-1", "default").spec.template.spec
    assert spec.node_selector == {"alpha.jobset.sigs.k8s.io/namespaced-job": "default_js-w-1"}
    assert [(t.key, t.operator, t.effect) for t in spec.tolerations] == [
        ("alpha.jobset.sigs.k8s.io/no-schedule", "Exists", "NoSchedule")]


def test_in_order_startup_and_depends_on_gate_creation_on_readiness() -> None:
    cp = plane()
    m = manifest(command="sleep 30", replicas=1, startupPolicy={"startupPolicyOrder": "InOrder"})
    second = {**m["spec"]["replicatedJobs"][0], "name": "x"}
    m["spec"]["replicatedJobs"].append(second)
    cp.apply(m)
    assert [j.name for j in jobs(cp)] == ["js-w-0"]
    assert cond(jobset(cp), "StartupPolicyInProgress")[0] == "True"
    cp.wait_for(lambda: len(jobs(cp)) == 2, "2m")
    cp.wait_for(lambda: cond(jobset(cp), "StartupPolicyCompleted") is not None, "2m")
    assert cond(jobset(cp), "StartupPolicyInProgress")[0] == "False"
    d = manifest(name="dep", command="sleep 30", replicas=1)
    d["spec"]["replicatedJobs"].append({**d["spec"]["replicatedJobs"][0], "name": "x",
                                        "dependsOn": [{"name": "w", "status": "Complete"}]})
    cp.apply(d)
    cp.advance(10)
    assert [j.name for j in jobs(cp) if j.name.startswith("dep")] == ["dep-w-0"]
    cp.wait_for(lambda: any(j.name == "dep-x-0" for j in jobs(cp)), "2m")


def test_restart_job_recreates_only_the_failed_job() -> None:
    cp = plane(feature_gates="RestartJob=true")
    cp.apply(manifest(command="sleep 5; exit 1", replicas=2, pods=1, failurePolicy={
        "maxRestarts": 3, "rules": [{"name": "one", "action": "RestartJob", "targetReplicatedJobs": ["w"]}]}))
    cp.wait_for(lambda: jobset(cp).status.is_true("Failed"), "10m")
    js = jobset(cp)
    assert js.status.restarts == 0 and cond(js, "Failed")[1] == "ReachedMaxRestarts"
    (status,) = js.status.replicated_jobs_status
    assert sum(status.job_restarts) == 3 and status.job_restarts == status.job_restarts_count_towards_max


def test_in_place_restart_follows_the_agents_attempts() -> None:
    cp = plane(feature_gates="InPlaceRestart=true")
    m = manifest(command="sleep 600", replicas=1, pods=2,
                 failurePolicy={"maxRestarts": 2, "restartStrategy": "InPlaceRestart"})
    m["spec"]["replicatedJobs"][0]["template"]["spec"].update(backoffLimit=2**31 - 1,
                                                             podReplacementPolicy="Failed")
    cp.apply(m)
    cp.advance(2)
    pods = sorted(cp.client.list(Pod, "default").items, key=lambda p: p.name)

    def agent(pod: Pod, attempt: int) -> None:  # what the in-place restart agent writes
        cp.client.patch(Pod, pod.name, {"metadata": {"annotations": {
            "jobset.sigs.k8s.io/in-place-restart-attempt": str(attempt)}}}, "default")
        cp.run_until_idle()

    agent(pods[0], 1)
    assert jobset(cp).status.previous_in_place_restart_attempt == 0
    agent(pods[1], 1)
    assert jobset(cp).status.current_in_place_restart_attempt == 1
    agent(pods[0], 4)
    assert cond(jobset(cp), "Failed")[1] == "ReachedMaxRestarts"


def test_elastic_jobsets_scale_their_running_jobs() -> None:
    cp = plane(feature_gates="ElasticJobSet=true")
    cp.apply(manifest(command="sleep 600", replicas=1, pods=2))
    js = jobset(cp).to_dict()
    js["spec"]["replicatedJobs"][0]["template"]["spec"].update(parallelism=3, completions=3)
    cp.client.update(JobSet.model_validate(js))
    cp.run_until_idle()
    job = cp.client.get(Job, "js-w-0", "default")
    assert (job.spec.parallelism, job.spec.completions) == (3, 3)


def test_deleting_the_jobset_deletes_its_jobs_and_pods() -> None:
    cp = plane()
    cp.apply(manifest(command="sleep 600"))
    cp.advance(2)
    cp.client.delete(JobSet, "js", "default")
    cp.advance(60)
    with pytest.raises(NotFound):
        jobset(cp)
    assert not jobs(cp) and not cp.client.list(Pod, "default").items
