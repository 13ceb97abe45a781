"""The Job controller's Workload and PodGroup (KEP-5547, Kubernetes 1.37 alpha, gate ``WorkloadWithJob``;
upstream ``pkg/controller/job/job_scheduling_manager.go`` and ``component-helpers/scheduling/
schedulingv1/workloadbuilder``). Active only with both ``WorkloadWithJob`` and ``GenericWorkload`` on
(the scheduling.k8s.io kinds are served only with the latter).

Before it creates pods, the controller makes sure the Job has its scheduling objects:

* a Job managed here is a **root** (no controller owner, or a CronJob as owner: CronJob Jobs stand
  alone) or a **delegated** child (a controller owner and the annotation
  ``scheduling.k8s.io/group-template-name``: only a PodGroup, against the parent's Workload
  template of that name); a Job whose pod template names its own group (``schedulingGroup``), or
  with a controller owner and no annotation, gets nothing;
* discovery goes by reference, not by name: the Workloads of the namespace whose
  ``spec.controllerRef`` is this Job (none: create; one: use it if it has one template, or the
  annotated one; several: fall back to default scheduling) and the PodGroups whose
  ``spec.workloadRef.workloadName`` is that Workload;
* objects are created only for a **new** Job: no pods, no ``status.startTime``, nothing succeeded
  or failed, no ``Suspended`` condition; an older Job only discovers;
* the Workload is ``<job name>-<hash of the Job's uid>`` with one template ``<job name>-pgt-0``
  compiled from ``spec.scheduling`` (no policy: ``basic``; ``gang`` without ``minCount``: the
  Job's parallelism), a controller reference to the Job in ``ownerReferences`` and
  ``spec.controllerRef``; the PodGroup is ``<workload>-<template>-<hash>`` (fair-share truncation to
  253), copies the template, and is owned by the Job (controller) and the Workload; both carry the
  managed-by annotation; events ``WorkloadCreated``, ``PodGroupCreated``,
  ``FailedWorkloadCompilation``, ``FailedWorkloadCreate``;
* a changed gang ``minCount`` (the only mutable field) is written to the objects this controller
  created (the Workload's template, the PodGroup);
* pods are created with ``spec.schedulingGroup.podGroupName`` and an owner reference to the PodGroup.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod, PodSchedulingGroup
from kbatch.api.errors import AlreadyExists, Conflict, NotFound, StatusError
from kbatch.api.gates import gate_on
from kbatch.api.meta import OwnerReference
from kbatch.api.scheduling_v1beta1 import (
    GENERIC_WORKLOAD,
    MANAGED_BY_ANNOTATION,
    WORKLOAD_WITH_JOB,
    PodGroup,
    Workload,
)
from kbatch.runtime.context import ControllerContext

__all__ = [
    "GROUP_TEMPLATE_ANNOTATION",
    "JOB_CONTROLLER_NAME",
    "JobWorkloads",
    "compile_template",
    "is_new_job",
    "job_workloads",
    "pod_group_name",
    "safe_encode",
    "template_name",
    "workload_name",
]

# apischeduling.GroupTemplateNameAnnotation
GROUP_TEMPLATE_ANNOTATION = "scheduling.k8s.io/group-template-name"
JOB_CONTROLLER_NAME = "kubernetes.io/job-controller"  # batch.JobControllerName
BY_CONTROLLER_JOB = "workload-by-job-name"  # Workload index: "<ns>/<job name>" of spec.controllerRef
BY_WORKLOAD = "podgroup-by-workload-name"  # PodGroup index: "<ns>/<workload name>" of spec.workloadRef
_MAX_NAME = 253  # validation.DNS1123SubdomainMaxLength
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand


# --- names (pure) ---------------------------------------------------------------------------------

def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``: each character mapped into an alphabet without vowels or 0/1/3."""
    return "".join(_ALPHANUMS[ord(c) % len(_ALPHANUMS)] for c in text)


def workload_name(job_name: str, job_uid: str) -> str:
    """``GenerateWorkloadName``: the hash is FNV-32a of the uid as ``DeepHashObject`` prints it
    (spew's ``%#v`` of a ``types.UID``: ``(types.UID)<uid>``)."""
    digest = safe_encode(str(_fnv32a(f"(types.UID){job_uid}".encode())))
    return f"{job_name[:_MAX_NAME - len(digest) - 1]}-{digest}"


def template_name(job_name: str) -> str:
    return f"{job_name}-pgt-0"


def pod_group_name(workload: str, template: str) -> str:
    """``GeneratePodGroupName``: ``<workload>-<template>-<hash>``, each part truncated to its fair
    share of 253 characters when they do not fit."""
    digest = safe_encode(str(_fnv32a(workload.encode() + template.encode())))
    room = _MAX_NAME - len(digest) - 2
    wl, tpl = workload, template
    if len(wl) + len(tpl) > room:
        half = room // 2
        if len(wl) <= half:
            tpl = tpl[:room - len(wl)]
        elif len(tpl) <= half:
            wl = wl[:room - len(tpl)]
        else:
            wl, tpl = wl[:room - half], tpl[:half]
    return f"{wl}-{tpl}-{digest}"


# --- decisions (pure) -----------------------------------------------------------------------------

def is_new_job(job: Job, has_pods: bool) -> bool:
    """``isNewJob``: no pods, never started, nothing counted, never suspended."""
    status = job.status
    if has_pods:
        return False
    if status is None:
        return True
    if status.start_time is not None or status.succeeded or status.failed:
        return False
    return not any(c.type == "Suspended" for c in status.conditions or ())


def parent_owns_workload(job: Job) -> bool:
    """``hasParentWorkloadOwner``: a controller owner other than a CronJob."""
    ref = job.metadata.controller_ref()
    if ref is None:
        return False
    return ref.group != "batch" or ref.kind != "CronJob"


def managed(job: Job) -> bool:
    """``shouldManageWorkloadForJob`` (the gates checked by the caller)."""
    if job.spec.template.spec.scheduling_group is not None:
        return False
    delegated = GROUP_TEMPLATE_ANNOTATION in (job.metadata.annotations or {})
    return not parent_owns_workload(job) or delegated


def compile_template(job: Job) -> tuple[dict[str, Any] | None, str]:
    """The Workload's single template from ``spec.scheduling`` (the workloadbuilder), or an error."""
    config = job.spec.scheduling
    policy: dict[str, Any] = {"basic": {}}
    chosen = config.scheduling_policy if config is not None else None
    if chosen is not None and chosen.gang is not None:
        count = chosen.gang.min_count
        if count is None:
            count = job.spec.parallelism if job.spec.parallelism is not None else 1
        if count < 1:
            return None, (f"invalid spec.scheduling: policy.gang.minCount: Invalid value: {count}: "
                          "must be at least 1")
        policy = {"gang": {"minCount": count}}
    template: dict[str, Any] = {"name": template_name(job.metadata.name or ""), "schedulingPolicy": policy}
    if config is not None:
        if config.scheduling_constraints is not None and config.scheduling_constraints.topology:
            template["schedulingConstraints"] = config.scheduling_constraints.to_dict()
        if config.disruption_mode is not None:
            template["disruptionMode"] = config.disruption_mode.to_dict()
        if config.resource_claims:
            template["resourceClaims"] = [c.to_dict() for c in config.resource_claims]
    return template, ""


def _controller_ref(job: Job) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "name": job.metadata.name, "uid": job.metadata.uid,
            "controller": True, "blockOwnerDeletion": True}


def _workloads_by_job(wl: Any) -> tuple[str, ...]:
    ref = wl.spec.controller_ref
    if ref is None or ref.api_group != "batch" or ref.kind != "Job" or not ref.name:
        return ()
    return (f"{wl.metadata.namespace}/{ref.name}",)


def _pod_groups_by_workload(pg: Any) -> tuple[str, ...]:
    ref = pg.spec.workload_ref
    return (f"{pg.metadata.namespace}/{ref.workload_name}",) if ref is not None and ref.workload_name else ()


# --- effects ----------------------------------------------------------------------------------------

class JobWorkloads:
    """Discovers or creates a Job's Workload and PodGroup (``ensureWorkloadAndPodGroup``)."""

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        ctx.cache.add_index(Workload, BY_CONTROLLER_JOB, _workloads_by_job)
        ctx.cache.add_index(PodGroup, BY_WORKLOAD, _pod_groups_by_workload)

    def _event(self, job: Job, type_: str, reason: str, message: str) -> None:
        self.ctx.recorder.event(job, type_, reason, message)

    def ensure(self, job: Job, pods: list[Pod]) -> PodGroup | None:
        """The PodGroup the Job's new pods join, or None (default scheduling)."""
        if not managed(job):
            return None
        new = is_new_job(job, bool(pods))
        if parent_owns_workload(job):
            return self._delegated(job, new)
        workload = self._workload(job, new)
        if workload is None:
            return None
        group = self._pod_group(job, workload, new)
        self._sync_min_count(job, workload, group)
        return group

    # -- root Jobs -------------------------------------------------------------------------------
    def _workload(self, job: Job, new: bool) -> Workload | None:
        ns, name = job.metadata.namespace or "", job.metadata.name or ""
        found = self.ctx.cache.list(Workload, ns, index=(BY_CONTROLLER_JOB, f"{ns}/{name}"))
        if len(found) > 1:
            return None  # ambiguous: default scheduling (upstream logs the error)
        if found:
            return self._usable(job, found[0])
        return self._create_workload(job) if new else None

    @staticmethod
    def _usable(job: Job, wl: Workload) -> Workload | None:
        templates = wl.spec.pod_group_templates or []
        wanted = (job.metadata.annotations or {}).get(GROUP_TEMPLATE_ANNOTATION)
        if wanted is not None:
            return wl if any(t.name == wanted for t in templates) else None
        return wl if len(templates) == 1 else None

    def _create_workload(self, job: Job) -> Workload | None:
        name = job.metadata.name or ""
        template, error = compile_template(job)
        if template is None:
            self._event(job, "Warning", "FailedWorkloadCompilation",
                        f"Failed to compile Workload for Job {name}: {error}")
            return None
        body = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                "metadata": {"name": workload_name(name, job.metadata.uid or ""),
                             "namespace": job.metadata.namespace,
                             "ownerReferences": [_controller_ref(job)],
                             "annotations": {MANAGED_BY_ANNOTATION: JOB_CONTROLLER_NAME}},
                "spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job", "name": name},
                         "podGroupTemplates": [template]}}
        try:
            created = self.ctx.client.create(Workload.model_validate(body))
        except AlreadyExists:
            return None  # the informer brings it; the next sync discovers it
        except StatusError as err:
            self._event(job, "Warning", "FailedWorkloadCreate",
                        f"Failed to create Workload for Job {name}: {err}")
            raise
        self._event(job, "Normal", "WorkloadCreated",
                    f"Created Workload {created.metadata.name} for Job {name}")
        return created

    def _pod_group(self, job: Job, wl: Workload, new: bool) -> PodGroup | None:
        ns = wl.metadata.namespace or ""
        found = self.ctx.cache.list(PodGroup, ns, index=(BY_WORKLOAD, f"{ns}/{wl.metadata.name}"))
        if len(found) > 1:
            return None
        if found:
            return found[0]
        if not new:
            return None
        wanted = (job.metadata.annotations or {}).get(GROUP_TEMPLATE_ANNOTATION, "")
        return self._create_pod_group(job, wl, wanted, link_workload=True)

    # -- delegated Jobs --------------------------------------------------------------------------
    def _delegated(self, job: Job, new: bool) -> PodGroup | None:
        parent = job.metadata.controller_ref()
        ns = job.metadata.namespace or ""
        if parent is None:
            return None
        workloads = [wl for wl in self.ctx.cache.list(Workload, ns) if _controlled_by(wl, parent)]
        if not workloads:
            return None
        wl, wanted = workloads[0], (job.metadata.annotations or {}).get(GROUP_TEMPLATE_ANNOTATION, "")
        if not any(t.name == wanted for t in wl.spec.pod_group_templates or ()):
            return None
        for pg in self.ctx.cache.list(PodGroup, ns, index=(BY_WORKLOAD, f"{ns}/{wl.metadata.name}")):
            ref = pg.metadata.controller_ref()
            if ref is not None and ref.uid == job.metadata.uid:
                return pg
        return self._create_pod_group(job, wl, wanted, link_workload=False) if new else None

    def _create_pod_group(self, job: Job, wl: Workload, wanted: str, *,
                          link_workload: bool) -> PodGroup | None:
        templates = wl.spec.pod_group_templates or []
        template = next((t for t in templates if t.name == wanted), None) if wanted else \
            (templates[0] if templates else None)
        if template is None:
            return None
        owners = [_controller_ref(job)]
        if link_workload:
            owners.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                           "name": wl.metadata.name, "uid": wl.metadata.uid})
        ref = {"workloadName": wl.metadata.name, "templateName": template.name}
        spec: dict[str, Any] = {"workloadRef": ref, "schedulingPolicy": template.scheduling_policy.to_dict()}
        for name, wire in (("scheduling_constraints", "schedulingConstraints"),
                           ("disruption_mode", "disruptionMode")):
            value = getattr(template, name)
            if value is not None:
                spec[wire] = value.to_dict()
        if template.resource_claims:
            spec["resourceClaims"] = [c.to_dict() for c in template.resource_claims]
        body = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                "metadata": {"name": pod_group_name(wl.metadata.name or "", template.name),
                             "namespace": job.metadata.namespace, "ownerReferences": owners,
                             "annotations": {MANAGED_BY_ANNOTATION: JOB_CONTROLLER_NAME}},
                "spec": spec}
        try:
            created = self.ctx.client.create(PodGroup.model_validate(body))
        except AlreadyExists:
            return None
        self._event(job, "Normal", "PodGroupCreated",
                    f"Created PodGroup {created.metadata.name} for Job {job.metadata.name}")
        return created

    # -- elastic gangs ---------------------------------------------------------------------------
    def _sync_min_count(self, job: Job, wl: Workload, pg: PodGroup | None) -> None:
        """``syncGangMinCount``: only objects this controller created follow a new ``minCount``."""
        if not _owned(wl, job):
            return
        template, _ = compile_template(job)
        gang = (template or {}).get("schedulingPolicy", {}).get("gang")
        if gang is None:
            return
        count, templates_now = gang["minCount"], wl.spec.pod_group_templates or []
        current = templates_now[0].scheduling_policy.gang if len(templates_now) == 1 else None
        if current is not None and current.min_count != count:
            templates = [t.to_dict() for t in templates_now]
            templates[0]["schedulingPolicy"]["gang"]["minCount"] = count
            self._update(Workload, wl, {"spec": {"podGroupTemplates": templates}})
        if pg is not None and _owned(pg, job) and pg.spec.scheduling_policy.gang is not None \
                and pg.spec.scheduling_policy.gang.min_count != count:
            self._update(PodGroup, pg, {"spec": {"schedulingPolicy": {"gang": {"minCount": count}}}})

    def _update(self, kind: type, obj: Any, patch: dict[str, Any]) -> None:
        try:
            self.ctx.client.patch(kind, obj.metadata.name, patch, obj.metadata.namespace)
        except (NotFound, Conflict):
            return


def _controlled_by(wl: Workload, parent: OwnerReference) -> bool:
    """The Workload's ``spec.controllerRef`` names ``parent`` (``findParentWorkload``)."""
    ref = wl.spec.controller_ref
    group = parent.api_version.split("/")[0] if "/" in parent.api_version else ""
    return ref is not None and (ref.api_group or "") == group and ref.kind == parent.kind \
        and ref.name == parent.name


def _owned(obj: Any, job: Job) -> bool:
    ref = obj.metadata.controller_ref()
    managed_by = (obj.metadata.annotations or {}).get(MANAGED_BY_ANNOTATION)
    return ref is not None and ref.uid == job.metadata.uid and managed_by == JOB_CONTROLLER_NAME


def join_group(pod: Pod, group: PodGroup) -> None:
    """A new pod of a Job with a PodGroup: ``spec.schedulingGroup`` and an owner reference to it."""
    pod.spec.scheduling_group = PodSchedulingGroup(pod_group_name=group.metadata.name)
    ref = OwnerReference(api_version="scheduling.k8s.io/v1beta1", kind="PodGroup",
                         name=group.metadata.name or "", uid=group.metadata.uid or "")
    pod.metadata.owner_references = [*(pod.metadata.owner_references or ()), ref]


def job_workloads(ctx: ControllerContext) -> JobWorkloads | None:
    """The integration when both its gates are on (WorkloadWithJob, and GenericWorkload to serve the
    kinds it writes), else None."""
    if gate_on(ctx.features, WORKLOAD_WITH_JOB) and gate_on(ctx.features, GENERIC_WORKLOAD):
        return JobWorkloads(ctx)
    return None
