"""``TestGetPodsForJob``'s cases (adoption and release) and ``TestJobPodLookup``'s, through kbatch's
control plane.

Source: kubernetes/kubernetes ``pkg/controller/job/job_controller_test.go`` ``TestGetPodsForJob``
(stored copy of the 1.31 era, commit de00a3c8) and ``getPodsForJob`` (``ClaimPods`` with the
tracking finalizer added on adoption). The pods are created with the case's labels and owner, the
Job controller runs, and the pods the Job then controls — and which of them hold the tracking
finalizer — are compared. The Job runs 5 pods so that the seeded ones are not surplus. "no adopt
when deleting race" (the Job deleted in the API but not yet in the informer) does not translate:
kbatch's cache is never behind (docs/job.md, "No expectations").
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.runtime.controlplane import ControlPlane

from .upstream import job_manifest


def _create_job(cp: ControlPlane, name: str, deleting: bool = False) -> Job:
    manifest = job_manifest(5, 5, 6)
    manifest["metadata"] = {"name": name, "namespace": "default"}
    if deleting:
        manifest["metadata"]["finalizers"] = ["test/hold"]
    return cp.client.create(Job.model_validate(manifest))


def _pod(cp: ControlPlane, name: str, job: Job | None, *, owner: bool = True, labels: bool = True,
         finalizer: bool = False) -> None:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if job is not None and labels:
        meta["labels"] = dict(job.spec.template.metadata.labels or {})
    if job is not None and owner:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": job.metadata.name,
                                    "uid": job.metadata.uid, "controller": True, "blockOwnerDeletion": True}]
    if finalizer:
        meta["finalizers"] = [JOB_TRACKING_FINALIZER]
    cp.client.create(Pod.model_validate({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                                         "spec": {"containers": [{"name": "c", "image": "i"}]}}))


def _controlled(cp: ControlPlane, job: Job) -> tuple[list[str], list[str]]:
    pods = [p for p in cp.client.list(Pod, "default").items if p.metadata.name.startswith("pod")]
    mine = sorted(p.metadata.name for p in pods
                  if (ref := p.metadata.controller_ref()) is not None and ref.uid == job.metadata.uid)
    held = sorted(p.metadata.name for p in pods if p.metadata.name in mine
                  and JOB_TRACKING_FINALIZER in (p.metadata.finalizers or ()))
    return mine, held


def _setup(name: str) -> tuple[ControlPlane, Job]:
    cp = ControlPlane(seed=0, controllers="job")
    job = _create_job(cp, "test-job", deleting=name.startswith("no adopt"))
    other = _create_job(cp, "other-job")
    if name == "only matching":
        _pod(cp, "pod1", job, finalizer=True)
        _pod(cp, "pod2", other)
        _pod(cp, "pod3", None)
        _pod(cp, "pod4", job)
    elif name == "adopt":
        _pod(cp, "pod1", job)
        _pod(cp, "pod2", job, owner=False)
        _pod(cp, "pod3", other)
    elif name == "no adopt when deleting":
        _pod(cp, "pod1", job)
        _pod(cp, "pod2", job, owner=False)
        cp.client.delete(Job, "test-job", "default")
    elif name == "release":
        _pod(cp, "pod1", job)
        _pod(cp, "pod2", job, labels=False)
    return cp, job


# name: (pods the Job controls, those with the tracking finalizer)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "only matching": (["pod1", "pod4"], ["pod1"]),
    "adopt": (["pod1", "pod2"], ["pod2"]),
    "no adopt when deleting": (["pod1"], []),
    "release": (["pod1"], []),
}


@pytest.mark.parametrize("name", list(CASES))
def test_get_pods_for_job(name: str) -> None:
    cp, job = _setup(name)
    cp.run_until_idle()
    assert _controlled(cp, job) == CASES[name]


# -- TestJobPodLookup: which Job an orphan pod is claimed by ---------------------------------------
def _manual_job(cp: ControlPlane, name: str, ns: str, selector: dict[str, Any]) -> Job:
    manifest = job_manifest(1, 1, 6, manualSelector=True, selector=selector)
    manifest["spec"]["template"]["metadata"] = {"labels": {"foo": "bar"}}
    manifest["metadata"] = {"name": name, "namespace": ns}
    return cp.client.create(Job.model_validate(manifest))


def _orphan(cp: ControlPlane, name: str, ns: str, labels: dict[str, str] | None) -> None:
    meta: dict[str, Any] = {"name": name, "namespace": ns, **({"labels": labels} if labels else {})}
    cp.client.create(Pod.model_validate({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                                         "spec": {"containers": [{"name": "c", "image": "i"}]}}))


# name: (Job namespace, Job selector, pod namespace, pod labels, claimed)
LOOKUP: dict[str, tuple[Any, ...]] = {
    "pods without labels don't match any job": ("default", {"matchLabels": {"foo": "bar"}}, "default",
                                                None, False),
    "matching labels, different namespace": ("default", {"matchLabels": {"foo": "bar"}}, "ns",
                                             {"foo": "bar"}, False),
    "matching ns and labels returns": ("ns", {"matchExpressions": [
        {"key": "foo", "operator": "In", "values": ["bar"]}]}, "ns", {"foo": "bar"}, True),
}


@pytest.mark.parametrize("name", list(LOOKUP))
def test_job_pod_lookup(name: str) -> None:
    job_ns, selector, pod_ns, labels, claimed = LOOKUP[name]
    # the serviceaccount controller readies "ns" for pods, as on any cluster (its default account)
    cp = ControlPlane(seed=0, controllers="job,serviceaccount")
    cp.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}})
    job = _manual_job(cp, "bar", job_ns, selector)
    _orphan(cp, "foo", pod_ns, labels)
    cp.run_until_idle()
    ref = cp.client.get(Pod, "foo", pod_ns).metadata.controller_ref()
    assert (ref is not None and ref.uid == job.metadata.uid) is claimed
