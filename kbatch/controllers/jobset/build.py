"""The objects a JobSet creates and the changes it makes to its Jobs, as pure functions of the JobSet
(``jobset_controller.go`` ``constructJob``, ``labelAndAnnotateObject``, ``createHeadlessSvcIfNecessary``,
``resumeJob``; ``volume_claim_policy.go``).

A child Job is the replicated job's template (its labels and annotations, a copy of its spec), with
on both the Job and its pod template the ``jobset.sigs.k8s.io`` labels *and* the same annotations
(name, uid, replicated job name and replicas, global replicas, job index, global index, job key,
group name, group replicas, group index, restart attempt; the job restart attempt with the RestartJob
gate; the coordinator endpoint when ``spec.coordinator`` is set), the exclusive-placement annotations
copied from the JobSet or the replicated job (annotations only), ``subdomain`` on the pod template
when DNS hostnames are enabled, the node-selector strategy's node selector and toleration,
``suspend`` equal to the JobSet's, the claims' volumes, and a controller reference to the JobSet.
"""

from __future__ import annotations

from typing import Any

from kbatch.api import jobset_constants as c
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import (
    PersistentVolumeClaim,
    PersistentVolumeClaimVolumeSource,
    PodTemplateSpec,
    Service,
    ServiceSpec,
    Toleration,
    Volume,
)
from kbatch.api.jobset_v1alpha2 import JobSet, ReplicatedJob
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.api.model_copy import copy_model, copy_value
from kbatch.controllers.jobset.names import (
    coordinator_endpoint,
    job_key,
    job_name,
    namespaced_job_name,
    pvc_name,
)

__all__ = [
    "build_claims",
    "build_job",
    "build_service",
    "dns_hostnames",
    "merge_for_resume",
    "owner_reference",
    "subdomain",
]


def owner_reference(js: JobSet) -> OwnerReference:
    """``ctrl.SetControllerReference``."""
    return OwnerReference(api_version=c.API_VERSION, kind="JobSet", name=js.name, uid=js.metadata.uid or "",
                          controller=True, block_owner_deletion=True)


def subdomain(js: JobSet) -> str:
    """``GetSubdomain``: ``spec.network.subdomain``, else the JobSet's name (defaulted here, not by
    the webhook, because a generated name is not known at admission)."""
    network = js.spec.network
    return network.subdomain if network is not None and network.subdomain else js.name


def dns_hostnames(js: JobSet) -> bool:
    network = js.spec.network
    return bool(network is not None and network.enable_dns_hostnames)


def _rjobs(js: JobSet) -> list[ReplicatedJob]:
    return js.spec.replicated_jobs or []


def _replicas(rjob: ReplicatedJob) -> int:
    return rjob.replicas if rjob.replicas is not None else 1


def _global_index(js: JobSet, rjob_name: str, index: int) -> str:
    total = 0
    for rjob in _rjobs(js):
        if rjob.name == rjob_name:
            return str(total + index)
        total += _replicas(rjob)
    return ""


def _group_index(js: JobSet, group: str, rjob_name: str, index: int) -> str:
    total = 0
    for rjob in _rjobs(js):
        if rjob.group_name == group:
            if rjob.name == rjob_name:
                return str(total + index)
            total += _replicas(rjob)
    return ""


def _pairs(js: JobSet, rjob: ReplicatedJob, index: int, job_restart: int | None) -> dict[str, str]:
    """The keys set both as labels and as annotations (``labelAndAnnotateObject``)."""
    name = job_name(js.name, rjob.name or "", index)
    group = rjob.group_name or ""
    pairs = {
        c.JOBSET_NAME_KEY: js.name,
        c.JOBSET_UID_KEY: js.metadata.uid or "",
        c.REPLICATED_JOB_NAME_KEY: rjob.name or "",
        c.RESTARTS_KEY: str(js.status.restarts if js.status else 0),
    }
    if job_restart is not None:
        pairs[c.JOB_RESTART_ATTEMPT_KEY] = str(job_restart)
    pairs.update({
        c.REPLICATED_JOB_REPLICAS_KEY: str(_replicas(rjob)),
        c.GLOBAL_REPLICAS_KEY: str(sum(_replicas(r) for r in _rjobs(js))),
        c.JOB_INDEX_KEY: str(index),
        c.JOB_KEY: job_key(js.namespace or "", name),
        c.JOB_GLOBAL_INDEX_KEY: _global_index(js, rjob.name or "", index),
        c.GROUP_NAME_KEY: group,
        c.GROUP_REPLICAS_KEY: str(sum(_replicas(r) for r in _rjobs(js) if r.group_name == group)),
        c.JOB_GROUP_INDEX_KEY: _group_index(js, group, rjob.name or "", index),
    })
    coordinator = js.spec.coordinator
    if coordinator is not None:
        pairs[c.COORDINATOR_KEY] = coordinator_endpoint(js.name, coordinator.replicated_job or "",
                                                         coordinator.job_index or 0,
                                                         coordinator.pod_index or 0, subdomain(js))
    return pairs


def _placement_annotations(js: JobSet, rjob: ReplicatedJob) -> dict[str, str]:
    """Exclusive placement, from the JobSet then the replicated job's template (which wins)."""
    out: dict[str, str] = {}
    template = rjob.template.metadata if rjob.template else None
    for source in (js.metadata.annotations or {}, (template.annotations if template else None) or {}):
        if c.EXCLUSIVE_KEY in source:
            out[c.EXCLUSIVE_KEY] = source[c.EXCLUSIVE_KEY]
            if c.NODE_SELECTOR_STRATEGY_KEY in source:
                out[c.NODE_SELECTOR_STRATEGY_KEY] = source[c.NODE_SELECTOR_STRATEGY_KEY]
    return out


def _label(meta: ObjectMeta, pairs: dict[str, str], extra: dict[str, str]) -> None:
    meta.labels = {**(meta.labels or {}), **pairs}
    meta.annotations = {**(meta.annotations or {}), **pairs, **extra}


def _has_mount(spec: Any, name: str) -> bool:
    return any(m.name == name for ct in (*(spec.containers or ()), *(spec.init_containers or ()))
               for m in ct.volume_mounts or ())


def _add_volumes(js: JobSet, job: Job) -> None:
    """``addVolumes``: a claim volume for each template some container mounts."""
    spec = job.spec.template.spec
    for policy in js.spec.volume_claim_policies or ():
        for template in policy.templates or ():
            name = (template.metadata.name if template.metadata else None) or ""
            if _has_mount(spec, name):
                volume = Volume(name=name, persistent_volume_claim=PersistentVolumeClaimVolumeSource(
                    claim_name=pvc_name(js.name, name)))
                spec.volumes = [*(spec.volumes or ()), volume]


def build_job(js: JobSet, rjob_index: int, index: int, job_restart: int | None = None) -> Job:
    """``constructJob``: the Job for index ``index`` of replicated job ``rjob_index``; ``job_restart``
    is its ``job-restart-attempt`` (RestartJob gate), None without the gate."""
    rjob = _rjobs(js)[rjob_index]
    template = rjob.template
    assert template is not None  # the CRD requires it
    meta = template.metadata
    job = Job(metadata=ObjectMeta(
        name=job_name(js.name, rjob.name or "", index), namespace=js.namespace,
        labels=dict(meta.labels) if meta and meta.labels else None,
        annotations=dict(meta.annotations) if meta and meta.annotations else None,
        owner_references=[owner_reference(js)]), spec=copy_model(template.spec))
    pairs, extra = _pairs(js, rjob, index, job_restart), _placement_annotations(js, rjob)
    _label(job.metadata, pairs, extra)
    pod_template = job.spec.template
    if pod_template.metadata is None:
        pod_template.metadata = ObjectMeta()
    _label(pod_template.metadata, pairs, extra)
    if dns_hostnames(js):
        pod_template.spec.subdomain = subdomain(js)
    annotations = job.metadata.annotations or {}
    if c.EXCLUSIVE_KEY in annotations and c.NODE_SELECTOR_STRATEGY_KEY in annotations:
        pod_spec = pod_template.spec
        pod_spec.node_selector = {**(pod_spec.node_selector or {}),
                                  c.NAMESPACED_JOB_KEY: namespaced_job_name(js.namespace or "", job.name)}
        pod_spec.tolerations = [*(pod_spec.tolerations or ()), Toleration(
            key=c.NO_SCHEDULE_TAINT_KEY, operator="Exists", effect="NoSchedule")]
    job.spec.suspend = bool(js.spec.suspend)
    if js.spec.volume_claim_policies:
        _add_volumes(js, job)
    return job


def build_service(js: JobSet) -> Service:
    """The headless Service named after the subdomain, selecting the JobSet's pods."""
    network = js.spec.network
    publish = network.publish_not_ready_addresses if network is not None else None
    return Service(metadata=ObjectMeta(name=subdomain(js), namespace=js.namespace,
                                       owner_references=[owner_reference(js)]),
                   spec=ServiceSpec(cluster_ip="None", selector={c.JOBSET_NAME_KEY: js.name},
                                    publish_not_ready_addresses=True if publish is None else publish))


def build_claims(js: JobSet) -> list[tuple[int, PersistentVolumeClaim]]:
    """``createPVCsIfNecessary`` for every policy: ``(policy index, claim)``. A claim is owned by
    the JobSet (garbage-collected with it) only when its policy's ``whenDeleted`` is ``Delete``."""
    out = []
    for i, policy in enumerate(js.spec.volume_claim_policies or ()):
        retention = policy.retention_policy
        owned = retention is not None and retention.when_deleted == c.RETAIN_DELETE
        for template in policy.templates or ():
            meta = template.metadata or ObjectMeta()
            claim = PersistentVolumeClaim(
                metadata=ObjectMeta(name=pvc_name(js.name, meta.name or ""), namespace=js.namespace,
                                    labels={**(meta.labels or {}), c.JOBSET_NAME_KEY: js.name},
                                    annotations=dict(meta.annotations) if meta.annotations else None,
                                    owner_references=[owner_reference(js)] if owned else None),
                spec=copy_model(template.spec) if template.spec is not None else None)
            out.append((i, claim))
    return out


def _merged_list(old: list[Any] | None, new: list[Any] | None) -> list[Any] | None:
    """``collections.MergeSlices``: the distinct items of both (upstream's order is a Go map's; kbatch
    keeps the Job's items first, then the template's new ones)."""
    out: list[Any] = []
    for item in (*(old or ()), *(new or ())):
        if item not in out:
            out.append(copy_value(item))
    return out or None


def merge_for_resume(job: Job, template: PodTemplateSpec) -> None:
    """``resumeJob`` on a private copy of the Job: the template's labels, annotations, node selector,
    tolerations and scheduling gates merged in (the template's value wins for a key in both; Kueue
    may have changed them while the JobSet was suspended), and ``suspend: false``."""
    pod = job.spec.template
    if pod.metadata is None:
        pod.metadata = ObjectMeta()
    meta = template.metadata or ObjectMeta()
    pod.metadata.labels = {**(pod.metadata.labels or {}), **(meta.labels or {})} or None
    pod.metadata.annotations = {**(pod.metadata.annotations or {}), **(meta.annotations or {})} or None
    spec, source = pod.spec, template.spec
    spec.node_selector = {**(spec.node_selector or {}), **(source.node_selector or {})} or None
    spec.tolerations = _merged_list(spec.tolerations, source.tolerations)
    spec.scheduling_gates = _merged_list(spec.scheduling_gates, source.scheduling_gates)
    job.spec.suspend = False
