"""MultiKueue job adapters: how a job kind is copied to a worker and its status copied back.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/multikueue.go`` (the
``MultiKueueAdapter`` and ``MultiKueueWatcher`` interfaces), ``utils.go``
(``ValidateRemoteObjectOwnership``, ``DeleteRemoteObjectIfOwned``, ``SetMultiKueueMeta``) and
``pkg/controller/jobs/job/job_multikueue_adapter.go`` (batch/v1 Job; JobSet's,
``jobs/jobset/jobset_multikueue_adapter.go``, copies its whole status back, :class:`JobSetAdapter`):

* ``sync_job``: no remote job → one is created from the local job's name, namespace, labels,
  annotations and spec, without the selector, the managed pod-template labels and ``managedBy`` (so
  the worker's job controller runs it), labelled with the origin, naming the prebuilt workload (an
  annotation with ``WorkloadIdentifierAnnotations``, beta, on; a label without); a remote job →
  its status is copied to the local job (``determineStatusUpdate``: while the local job is
  suspended only a suspended or finished remote status is copied; otherwise the local job gets
  ``JobSuspended=True`` once and the sync is *deferred*); an elastic Job's remote copy then takes
  the local ``parallelism`` and the current slice as its prebuilt Workload, in place
  (``needElasticJobSync``, ``syncElasticJob``, :mod:`.elastic`);
* ``delete_remote``: background deletion of the remote job, only when its origin label is ours;
* ``is_managed``: the local job's ``spec.managedBy`` is ``kueue.x-k8s.io/multikueue``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

from kbatch.api import edit
from kbatch.api.batch_v1 import Job, JobCondition
from kbatch.api.errors import NotFound
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.api.kueue_v1beta2.multikueue import CONTROLLER_NAME, ORIGIN_LABEL
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.controllers.kueue.jobframework.prebuilt import prebuilt_name, set_prebuilt_name
from kbatch.controllers.kueue.multikueue import elastic
from kbatch.controllers.kueue.multikueue.remote import RemoteCluster

__all__ = ["JobAdapter", "JobSetAdapter", "MultiKueueAdapter", "NotOwned", "owned_by", "set_multikueue_meta"]

# the Job controller's pod-template labels that must not travel (job_controller.go managedLabels;
# batch.kubernetes.io/job-name is kept)
_MANAGED_LABELS = ("job-name", "controller-uid", "batch.kubernetes.io/controller-uid")
STOPPING_ANNOTATION = "kueue.x-k8s.io/stopping"


class NotOwned(Exception):
    """``ErrRemoteObjectNotOwnedByMultiKueue``."""


class MultiKueueAdapter(Protocol):
    @property
    def model(self) -> type[Resource]: ...

    @property
    def gvk(self) -> str:
        """``batch/v1, Kind=Job``: upstream's adapter key."""
        ...

    def sync_job(
        self, local: Any, remote: RemoteCluster, namespace: str, name: str, workload: str, origin: str
    ) -> bool:
        """Create the remote job or copy its status back; returns whether the sync was deferred."""
        ...

    def delete_remote(self, remote: RemoteCluster, namespace: str, name: str) -> None: ...

    def is_managed(self, get: Any, namespace: str, name: str) -> tuple[bool, str]: ...

    def workload_key(self, obj: Resource) -> tuple[str, str] | None:
        """The manager Workload a remote object of this kind reports on (``WorkloadKeysFor``)."""
        ...


def owned_by(remote: RemoteCluster, kind: type[Resource], namespace: str, name: str, origin: str) -> bool:
    """``ValidateRemoteObjectOwnership``: True when it exists with our origin label, False when it does
    not exist, :class:`NotOwned` otherwise."""
    obj = remote.get(kind, name, namespace)
    if obj is None:
        return False
    if (obj.metadata.labels or {}).get(ORIGIN_LABEL) != origin:
        raise NotOwned(
            f'remote object is not owned by MultiKueue: expected "{ORIGIN_LABEL}"="{origin}" '
            f'on {kind.api_info.kind} "{namespace}/{name}"'
        )
    return True


def delete_if_owned(
    adapter: MultiKueueAdapter, remote: RemoteCluster, namespace: str, name: str, origin: str
) -> None:
    """``DeleteRemoteObjectIfOwned``."""
    try:
        if not owned_by(remote, adapter.model, namespace, name, origin):
            return
    except NotOwned:
        return
    adapter.delete_remote(remote, namespace, name)


def local_object(local: Any, kind: type[Resource], namespace: str, name: str) -> Any:
    """The manager's object the Workload names (``localClient.Get``): NotFound when it is gone."""
    obj = local(kind, name, namespace)
    if obj is None:
        raise NotFound(f'{kind.api_info.group_resource} "{name}" not found')
    return obj


def clone_meta(meta: ObjectMeta) -> ObjectMeta:
    """``CloneObjectMetaForCreation``: name, namespace, labels, annotations."""
    return ObjectMeta(
        name=meta.name,
        namespace=meta.namespace,
        labels=dict(meta.labels or {}) or None,
        annotations=dict(meta.annotations or {}) or None,
    )


def set_multikueue_meta(meta: ObjectMeta, workload: str, origin: str, identifier_annotations: bool) -> None:
    """``SetMultiKueueMeta``: the origin label and the prebuilt workload name (an annotation with
    ``WorkloadIdentifierAnnotations``, beta, on; else a label, ``SetPrebuiltWorkloadName``)."""
    meta.labels = {**(meta.labels or {}), ORIGIN_LABEL: origin}
    set_prebuilt_name(meta, workload, identifier_annotations)


def managed_by_multikueue(obj: Any, kind: type[Resource], name: str) -> tuple[bool, str]:
    """``IsJobManagedByKueue``: the local job's ``spec.managedBy`` is MultiKueue's controller."""
    if obj is None:
        raise NotFound(f'{kind.api_info.group_resource} "{name}" not found')
    managed_by = (obj.spec.managed_by if obj.spec else None) or ""
    if managed_by != CONTROLLER_NAME:
        return False, f'Expecting spec.managedBy to be "{CONTROLLER_NAME}" not "{managed_by}"'
    return True, ""


def prebuilt_key(obj: Resource, identifier_annotations: bool) -> tuple[str, str] | None:
    """``WorkloadKeysFor``: the manager Workload a remote job names as its prebuilt Workload."""
    name = prebuilt_name(obj, identifier_annotations)
    return (obj.metadata.namespace or "", name) if name else None


def _suspended(job: Job) -> bool:
    return (
        bool(job.spec and job.spec.suspend)
        and (job.metadata.annotations or {}).get(STOPPING_ANNOTATION) != "true"
    )


def _finished(job: Job) -> bool:
    return any(
        c.type in ("Complete", "Failed") and c.status == "True"
        for c in (job.status.conditions if job.status else None) or ()
    )


def determine_status_update(local: Job, remote: Job, now: Any) -> tuple[Any, bool]:
    """``determineStatusUpdate``: the status to write on the local job, and whether it was deferred."""
    if not _suspended(local) or _suspended(remote) or _finished(remote):
        return remote.status, False
    conditions = list((local.status.conditions if local.status else None) or ())
    if any(c.type == "Suspended" and c.status == "True" for c in conditions):
        return local.status, True
    status = edit(local).status
    assert status is not None
    cond = JobCondition(
        type="Suspended",
        status="True",
        reason="MultiKueueAdapter",
        message="Set by MultiKueue adapter",
        last_transition_time=now,
        last_probe_time=now,
    )
    status.conditions = [c for c in conditions if c.type != "Suspended"] + [cond]
    return status, True


class JobAdapter:
    """batch/v1 Job (``job_multikueue_adapter.go``)."""

    model = Job
    gvk = "batch/v1, Kind=Job"

    def __init__(
        self,
        client: Any,
        now: Any,
        identifier_annotations: bool = True,
        elastic: bool = False,
        short_names: bool = False,
    ) -> None:
        self.client, self.now, self.ids = client, now, identifier_annotations
        # the gates ElasticJobsViaWorkloadSlices and ShortWorkloadNames
        self.elastic, self.short_names = elastic, short_names

    def sync_job(
        self, local: Any, remote: RemoteCluster, namespace: str, name: str, workload: str, origin: str
    ) -> bool:
        local_job = local_object(local, Job, namespace, name)
        remote_job = remote.get(Job, name, namespace)
        if remote_job is not None:
            status, deferred = determine_status_update(local_job, remote_job, self.now())
            if status != local_job.status:
                obj = edit(local_job)
                obj.status = status
                local_job = self.client.update_status(obj)
            self._sync_elastic(remote, workload, local_job, remote_job)
            return deferred  # an elastic sync leaves the local Job suspended as it was
        copy = Job(metadata=clone_meta(local_job.metadata), spec=edit(local_job).spec)
        assert copy.spec is not None
        copy.spec.selector = None
        template_meta = copy.spec.template.metadata if copy.spec.template else None
        if template_meta is not None and template_meta.labels:
            template_meta.labels = {
                k: v for k, v in template_meta.labels.items() if k not in _MANAGED_LABELS
            } or None
        set_multikueue_meta(copy.metadata, workload, origin, self.ids)
        copy.spec.managed_by = None
        remote.create(copy)
        return False

    def _sync_elastic(self, remote: RemoteCluster, workload: str, local_job: Job, remote_job: Job) -> None:
        """``needElasticJobSync`` → ``syncElasticJob`` (:mod:`.elastic`): the remote Job's
        parallelism and prebuilt Workload patched in place."""
        ids = self.ids
        if not elastic.need_job_sync(workload, local_job, remote_job, self.elastic, self.short_names, ids):
            return
        patched = elastic.synced_job(workload, local_job, remote_job, self.ids)
        if patched is not None:
            remote.update(patched)

    def delete_remote(self, remote: RemoteCluster, namespace: str, name: str) -> None:
        with contextlib.suppress(NotFound):
            remote.delete(Job, name, namespace)

    def is_managed(self, get: Any, namespace: str, name: str) -> tuple[bool, str]:
        return managed_by_multikueue(get(Job, name, namespace), Job, name)

    def workload_key(self, obj: Resource) -> tuple[str, str] | None:
        return prebuilt_key(obj, self.ids) if isinstance(obj, Job) else None


class JobSetAdapter:
    """jobset.x-k8s.io/v1alpha2 JobSet (``pkg/controller/jobs/jobset/jobset_multikueue_adapter.go``):
    the remote JobSet is the local one's metadata and spec with the MultiKueue labels and no
    ``managedBy``; its whole status is copied back."""

    model = JobSet
    gvk = "jobset.x-k8s.io/v1alpha2, Kind=JobSet"

    def __init__(self, client: Any, identifier_annotations: bool = True) -> None:
        self.client, self.ids = client, identifier_annotations

    def sync_job(
        self, local: Any, remote: RemoteCluster, namespace: str, name: str, workload: str, origin: str
    ) -> bool:
        local_js = local_object(local, JobSet, namespace, name)
        remote_js = remote.get(JobSet, name, namespace)
        if remote_js is not None:
            if remote_js.status != local_js.status:
                obj = edit(local_js)
                obj.status = remote_js.status
                self.client.update_status(obj)
            return False
        copy = JobSet(metadata=clone_meta(local_js.metadata), spec=edit(local_js).spec)
        set_multikueue_meta(copy.metadata, workload, origin, self.ids)
        assert copy.spec is not None
        copy.spec.managed_by = None
        remote.create(copy)
        return False

    def delete_remote(self, remote: RemoteCluster, namespace: str, name: str) -> None:
        with contextlib.suppress(NotFound):
            remote.delete(JobSet, name, namespace)

    def is_managed(self, get: Any, namespace: str, name: str) -> tuple[bool, str]:
        return managed_by_multikueue(get(JobSet, name, namespace), JobSet, name)

    def workload_key(self, obj: Resource) -> tuple[str, str] | None:
        return prebuilt_key(obj, self.ids) if isinstance(obj, JobSet) else None
