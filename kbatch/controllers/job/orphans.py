"""Releasing the ``batch.kubernetes.io/job-tracking`` finalizer of pods no Job will count any more
(KEP-2307; upstream job_controller.go ``orphanQueue``, ``enqueueOrphanPod``, ``syncOrphanPod``,
``cleanupPodFinalizers``).

A pod keeps the finalizer until its Job counted it. When the Job is gone (deleted with any
propagation policy), finished, or no longer the pod's controller (orphan propagation removes the
ownerReference), no sync will ever count the pod, so without this the pod could never be deleted.
The Job controller's event handlers put such pods on a queue of their own (controller
``job-orphan-pod``, upstream's ``job_orphan_pod`` queue); its reconciler re-checks the pod in the
cache and, if it is still orphaned, patches the finalizer away exactly as upstream does (strategic
merge ``$deleteFromPrimitiveList/finalizers``).

Still orphaned means: no controller, or a batch/v1 Job controller that does not resolve (name and
uid) or has finished. A pod controlled by something else, by an unfinished Job (it was adopted
meanwhile) or by a Job another controller manages (``spec.managedBy``) keeps its finalizer.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER, external_manager
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.runtime.cache import Cache
from kbatch.runtime.reconcile import Request

__all__ = [
    "REMOVE_TRACKING_FINALIZER_PATCH",
    "OrphanPodReconciler",
    "has_tracking_finalizer",
    "is_job_finished",
    "managed_externally",
    "remove_tracking_finalizer",
    "resolve_job",
]

# removeTrackingFinalizerPatch: removes only this finalizer, whatever else the pod carries meanwhile.
REMOVE_TRACKING_FINALIZER_PATCH = {
    "metadata": {"$deleteFromPrimitiveList/finalizers": [JOB_TRACKING_FINALIZER]}}


def has_tracking_finalizer(pod: Any) -> bool:
    return JOB_TRACKING_FINALIZER in (pod.metadata.finalizers or ())


def is_job_finished(job: Any) -> bool:
    """A Complete=True or Failed=True condition (job/util ``IsJobFinished``)."""
    status = job.status
    return status is not None and any(c.type in ("Complete", "Failed") and c.status == "True"
                                      for c in status.conditions or ())


def managed_externally(job: Any) -> str | None:
    """The ``spec.managedBy`` value when another controller manages the Job."""
    return external_manager(job.spec.managed_by)


def is_job_ref(ref: Any) -> bool:
    return ref.kind == "Job" and ref.api_version == "batch/v1"


def resolve_job(cache: Cache, namespace: str, ref: Any) -> Job | None:
    """The Job a controller reference names, if it exists with that uid (``resolveControllerRef``)."""
    if ref.kind != "Job":
        return None
    try:
        job = cache.get(Job, ref.name, namespace)
    except NotFound:
        return None
    return job if job.metadata.uid == ref.uid else None


def remove_tracking_finalizer(client: Any, pod: Any) -> Pod | None:
    """Patch the tracking finalizer away; None if the pod had none (nothing sent)."""
    if not has_tracking_finalizer(pod):
        return None
    result: Pod = client.patch(Pod, pod.metadata.name or "", REMOVE_TRACKING_FINALIZER_PATCH,
                               pod.metadata.namespace, patch_type="strategic")
    return result


class OrphanPodReconciler:
    """Reconciles one orphan pod (``syncOrphanPod``): the request names the pod."""

    def __init__(self, cache: Cache, client: Any) -> None:
        self.cache = cache
        self.client = client

    def reconcile(self, request: Request) -> None:
        try:
            pod = self.cache.get(Pod, request.name, request.namespace)
        except NotFound:
            return
        ref = pod.metadata.controller_ref()
        if ref is not None:
            if not is_job_ref(ref):
                return  # controlled by something that is not a batch/v1 Job: not ours to release
            job = resolve_job(self.cache, request.namespace, ref)
            if job is not None and (managed_externally(job) is not None or not is_job_finished(job)):
                return  # adopted meanwhile, or the Job's own controller decides
        try:
            remove_tracking_finalizer(self.client, pod)
        except NotFound:
            return
