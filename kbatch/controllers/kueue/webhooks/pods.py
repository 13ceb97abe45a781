"""Kueue's pod webhook (the ``pod`` integration), as part of the ``KueueJobWebhooks`` plugin.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_webhook.go`` (``mpod.kb.io`` on
create, ``vpod.kb.io`` on create and update):

* defaulting: a pod annotated ``kueue.x-k8s.io/pod-suspending-parent`` is gated as it is; otherwise
  only a pod in a namespace ``managedJobsNamespaceSelector`` selects (upstream's default excludes
  ``kube-system`` and ``kueue-system``) whose owner chain holds no Kueue-managed job: it gets the
  ``default`` LocalQueue when it has no queue name and one exists, and — with a queue name, or any
  with ``manageJobsWithoutQueueName`` — the ``kueue.x-k8s.io/managed: "true"`` label, the
  ``kueue.x-k8s.io/managed`` finalizer, the ``kueue.x-k8s.io/admission`` scheduling gate (and
  ``kueue.x-k8s.io/topology`` with ``TopologyAwareScheduling``) and the ``kueue.x-k8s.io/role-hash``
  annotation;
* validation: the job framework's queue-name and max-exec-time rules; the managed label is ``true``
  or absent; a pod group needs both the group name and the total count (a positive integer), the
  group name is a valid Workload name and immutable; a pod group may not turn retriable again; a
  pod naming a prebuilt Workload (checked as a job's) names its group's, if it has one;
* the warning (``warningForPodManagedLabel``) for a pod labelled ``kueue.x-k8s.io/managed: "true"``
  whose controller owner is of an enabled integration's kind, on create and on an update without the
  ``kueue.x-k8s.io/pod-suspending-parent`` annotation.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2.constants import DEFAULT_LOCAL_QUEUE, QUEUE_LABEL
from kbatch.api.validation import is_dns1123_subdomain
from kbatch.controllers.kueue.jobframework import prebuilt
from kbatch.controllers.kueue.podintegration import pods as P
from kbatch.controllers.kueue.tas import request as tas_request
from kbatch.controllers.kueue.webhooks.kinds import deny

__all__ = ["PodWebhook"]

_LABELS, _ANNOTATIONS = "metadata.labels", "metadata.annotations"
_MANAGED_OWNER_WARNING = (
    f"pod owner is managed by kueue, label '{P.MANAGED_LABEL}=true' might lead to unexpected behaviour"
)


class PodWebhook:
    """The pod integration's hooks; ``jobs`` is the generic job webhook of the same integration,
    whose namespace, queue and owner checks and job-level validation it shares."""

    def __init__(self, jobs: Any) -> None:
        self.jobs = jobs
        self.webhook = "vpod.kb.io"

    def _identifier_annotations(self) -> bool:
        return self.jobs._settings().on("WorkloadIdentifierAnnotations")

    # --- mutating --------------------------------------------------------------------------------
    def default(self, request: Any) -> None:
        if request.subresource or request.operation != "CREATE":
            return
        pod = request.obj
        meta = pod.metadata
        by_parent = P.SUSPENDED_BY_PARENT in (meta.annotations or {})
        suspend = by_parent
        if not by_parent:
            namespace = meta.namespace or ""
            cfg = self.jobs._settings().config
            queued = bool((meta.labels or {}).get(QUEUE_LABEL))
            if (
                not queued
                and not cfg.manage_jobs_without_queue_name
                and not self.jobs._default_queue_exists(namespace)
                and not self.jobs._settings().gates.enabled("WorkloadPriorityClassDefaulting")
            ):
                return  # nothing below could apply: skip the namespace and owner reads (most pods)
            if not self.jobs._namespace_selected(namespace) or self.jobs._ancestor_managed(pod):
                return
            if not (meta.labels or {}).get(QUEUE_LABEL) and self.jobs._default_queue_exists(namespace):
                meta.labels = {**(meta.labels or {}), QUEUE_LABEL: DEFAULT_LOCAL_QUEUE}
            self.jobs.default_priority_class(pod)
            suspend = bool((meta.labels or {}).get(QUEUE_LABEL)) or cfg.manage_jobs_without_queue_name
            if suspend:
                meta.labels = {**(meta.labels or {}), P.MANAGED_LABEL: "true"}
        if not suspend:
            return
        if not by_parent and P.POD_FINALIZER not in (meta.finalizers or ()):
            meta.finalizers = [*(meta.finalizers or ()), P.POD_FINALIZER]
        tas = self.jobs._settings().on("TopologyAwareScheduling")
        if tas and P.POD_INDEX_LABEL_ANNOTATION in (meta.annotations or {}):
            # ``PodGroupPodIndexLabelAnnotation`` names the label holding the pod's index in its group
            source = (meta.annotations or {})[P.POD_INDEX_LABEL_ANNOTATION]
            meta.labels = {**(meta.labels or {}), P.POD_INDEX_LABEL: (meta.labels or {}).get(source, "")}
        P.gate(pod, topology=tas)
        meta.annotations = {**(meta.annotations or {}), P.ROLE_HASH: P.role_hash(pod)}

    # --- validating --------------------------------------------------------------------------------
    def validate(self, request: Any) -> None:
        if request.subresource:
            return
        pod, old = request.obj, request.old
        if not _has_kueue_keys(pod) and (old is None or not _has_kueue_keys(old)):
            return  # every rule of errors() reads a kueue.x-k8s.io/ label or annotation (most pods)
        if request.warnings is not None and self._warns(pod, old):
            request.warnings.append(_MANAGED_OWNER_WARNING)
        deny(self.webhook, self.errors(pod, old))

    def _warns(self, pod: Any, old: Any | None) -> bool:
        """``warningForPodManagedLabel``, skipped on an update of a pod its parent suspends."""
        if old is not None and P.SUSPENDED_BY_PARENT in (pod.metadata.annotations or {}):
            return False
        return (pod.metadata.labels or {}).get(P.MANAGED_LABEL) == "true" and self.jobs.owner_managed(pod)

    def errors(self, pod: Any, old: Any | None) -> list[FieldError]:
        """``ValidateCreate`` (``old`` is ``None``) / ``ValidateUpdate``."""
        errs = self.jobs._on_create(pod) if old is None else self.jobs._on_update(old, pod)
        errs += self._common(pod)
        if old is not None:
            errs += self._on_update(old, pod)
        return errs

    def _group_path(self, pod: Any) -> str:
        if self._identifier_annotations() and (pod.metadata.annotations or {}).get(P.GROUP_NAME):
            return f"{_ANNOTATIONS}[{P.GROUP_NAME}]"
        return f"{_LABELS}[{P.GROUP_NAME}]"

    def _common(self, pod: Any) -> list[FieldError]:
        """``validateCommon``: the managed label, the pod group metadata, (with
        TopologyAwareScheduling) the topology annotations (``validateTopologyRequest``) and a group's
        prebuilt Workload, which must be the group's (``validatePrebuiltWorkloadName``); a wrong
        managed label is one error among the others, as upstream appends them all."""
        errs: list[FieldError] = []
        managed = (pod.metadata.labels or {}).get(P.MANAGED_LABEL)
        if managed is not None and managed != "true":
            path = f"{_LABELS}[{P.MANAGED_LABEL}]"
            errs.append(FieldError.forbidden(path, "managed label value can only be 'true'"))
        errs += self._group_metadata(pod)
        settings = self.jobs._settings()
        if settings.on("TopologyAwareScheduling"):  # pod_webhook.go, ValidateTASPodSetRequest
            multi_layer = settings.on("TASMultiLayerTopology")
            errs += tas_request.validate(pod.metadata.annotations or {}, "metadata", multi_layer=multi_layer)
        ids = self._identifier_annotations()  # validatePrebuiltWorkloadName
        errs += prebuilt.group_errors(pod, P.group_name(pod, ids), ids)
        return errs

    def _group_metadata(self, pod: Any) -> list[FieldError]:
        """``validatePodGroupMetadata``."""
        annotations = pod.metadata.annotations or {}
        has_count = P.GROUP_TOTAL_COUNT in annotations
        by_annotation = self._identifier_annotations() and bool(annotations.get(P.GROUP_NAME))
        detail = (
            f"both the '{P.GROUP_TOTAL_COUNT}' annotation and the '{P.GROUP_NAME}' "
            + ("annotation" if by_annotation else "label")
            + " should be set"
        )
        name = P.group_name(pod, self._identifier_annotations())
        errs: list[FieldError] = []
        if not name:
            if has_count:
                return [FieldError.required(self._group_path(pod), detail)]
        else:
            problems = is_dns1123_subdomain(name)
            if problems:
                errs.append(FieldError.invalid(self._group_path(pod), name, ", ".join(problems)))
            if not has_count:
                return [*errs, FieldError.required(f"{_ANNOTATIONS}[{P.GROUP_TOTAL_COUNT}]", detail)]
        if has_count and name:
            count, why = P.group_total_count(pod)
            if count is None:
                path = f"{_ANNOTATIONS}[{P.GROUP_TOTAL_COUNT}]"
                errs.append(FieldError.invalid(path, annotations[P.GROUP_TOTAL_COUNT], why))
        return errs

    def _on_update(self, old: Any, new: Any) -> list[FieldError]:
        errs: list[FieldError] = []
        ids = self._identifier_annotations()
        if P.group_name(new, ids) and _unretriable(old) and not _unretriable(new):
            errs.append(
                FieldError.forbidden(
                    f"{_ANNOTATIONS}[{P.RETRIABLE_IN_GROUP}]",
                    "unretriable pod group can't be converted to retriable",
                )
            )
        old_name = P.group_name(old, ids)
        if old_name and P.group_name(new, ids) != old_name:
            new_name = P.group_name(new, ids)
            errs.append(FieldError.invalid(self._group_path(new), new_name, "field is immutable"))
        return errs


_KUEUE_PREFIX = "kueue.x-k8s.io/"


def _has_kueue_keys(pod: Any) -> bool:
    """Whether the pod has a label or annotation of Kueue's (``kueue.x-k8s.io/…``)."""
    meta = pod.metadata
    for keys in (meta.labels, meta.annotations):
        if keys and any(k.startswith(_KUEUE_PREFIX) for k in keys):
            return True
    return False


def _unretriable(pod: Any) -> bool:
    return (pod.metadata.annotations or {}).get(P.RETRIABLE_IN_GROUP) == "false"
