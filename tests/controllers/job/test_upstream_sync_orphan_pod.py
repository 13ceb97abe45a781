"""``TestSyncOrphanPod``'s cases, through kbatch's control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go`` ``TestSyncOrphanPod``
(stored copy of the 1.31 era, commit de00a3c8) and ``job_controller.go`` ``syncOrphanPod``. Each
case creates a pod holding the tracking finalizer, with the case's ownerReference (and the Job it
points to, when the case has one), deletes it, lets the control plane settle and checks whether
the finalizer was removed. Upstream calls ``syncOrphanPod`` alone; here the Job controller runs too,
so for "controlled_by_existing_running_job" the Job uses ``podReplacementPolicy: Failed`` (its own
sync does not count, and release, a terminating pod) and the pod its labels (its sync would release
a pod its selector does not match); the orphan path must leave that pod alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.runtime.controlplane import DEFAULT_START, ControlPlane

from .upstream import job_manifest

NOW = DEFAULT_START.strftime("%Y-%m-%dT%H:%M:%SZ")
DONE = "Reached expected number of succeeded pods"


def _job(cp: ControlPlane, finished: bool) -> Job:
    manifest = job_manifest(2, 2, 6, podReplacementPolicy="Failed", suspend=True)
    manifest["metadata"] = {"name": "j", "namespace": "default"}
    job = cp.client.create(Job.model_validate(manifest))
    if finished:
        conds = [{"type": t, "status": "True", "reason": "CompletionsReached", "message": DONE}
                 for t in ("SuccessCriteriaMet", "Complete")]
        job = cp.client.patch_status(Job, "j", {"status": {
            "startTime": NOW, "completionTime": NOW, "succeeded": 2, "conditions": conds}}, "default")
    return job


def _owner(kind: str, api_version: str = "batch/v1", uid: str = "111", controller: bool = True,
           name: str = "j") -> dict[str, Any]:
    ref = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}
    if controller:
        ref.update(controller=True, blockOwnerDeletion=True)
    return ref


# name: (job: None / "running" / "finished", owner (uid "JOB" = the Job's), pod labels, removed)
CASES: dict[str, tuple[Any, ...]] = {
    # the pod carries the Job's labels: a pod not matching the selector would be released by the
    # Job's own sync (ClaimPods), which upstream's test does not run
    "controlled_by_existing_running_job": ("running", _owner("Job", uid="JOB"), "JOB", False),
    "controlled_by_existing_finished_job": ("finished", _owner("Job", uid="JOB"), None, True),
    "controlled_by_non_existing_job": (None, _owner("Job"), None, True),
    "controlled_by_cronjob": (None, _owner("CronJob", name="cj"), None, False),
    "not_controlled": (None, None, None, True),
    "controlled_by_custom_crd": (None, _owner("Job", api_version="example/v1", name="job"), None, False),
    "owned_by_existing_running_job": ("running", _owner("Job", uid="JOB", controller=False), None, True),
    "owned_by_custom_crd": (None, _owner("Job", api_version="example/v1", name="job", controller=False),
                            None, True),
    "orphan_pods_by_label_selector": (None, None, {"app": "test"}, True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sync_orphan_pod(name: str) -> None:
    job_state, owner, labels, removed = CASES[name]
    cp = ControlPlane(seed=0, controllers="job")
    job = _job(cp, job_state == "finished") if job_state else None
    meta: dict[str, Any] = {"name": name.replace("_", "-"), "namespace": "default",
                            "finalizers": [JOB_TRACKING_FINALIZER]}
    if owner is not None:
        if owner["uid"] == "JOB":
            assert job is not None
            owner = {**owner, "uid": job.metadata.uid}
        meta["ownerReferences"] = [owner]
    if labels == "JOB":
        assert job is not None
        labels = dict(job.spec.template.metadata.labels or {})
    if labels:
        meta["labels"] = labels
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
           "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}}
    cp.client.create(Pod.model_validate(pod))
    cp.client.delete(Pod, meta["name"], "default")  # upstream's pod carries a deletionTimestamp
    cp.advance(2)
    pods = {p.metadata.name: p for p in cp.client.list(Pod, "default").items}
    still = meta["name"] in pods and JOB_TRACKING_FINALIZER in (pods[meta["name"]].metadata.finalizers or ())
    assert still is not removed
