"""Prebuilt workloads: a job labelled ``kueue.x-k8s.io/prebuilt-workload-name`` uses that Workload.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler.go``
(``ensureOneWorkload``'s prebuilt branch, ``EnsurePrebuiltWorkloadOwnership``,
``ensurePrebuiltWorkloadInSync``, ``handleJobWithNoWorkload``) and ``utils.go``
(``PrebuiltWorkloadNameFor``, ``SetPrebuiltWorkloadName``: the name is the annotation
``kueue.x-k8s.io/prebuilt-workload-name`` while ``WorkloadIdentifierAnnotations``, beta, is on, the
label of that name otherwise). This is how a MultiKueue worker runs a job: the manager creates the
Workload first, then the job naming it.

* the named Workload missing → the job is stopped and the reconcile retried (``ErrPrebuiltWorkloadNotFound``);
* controlled by another object → ignored (no Workload for this job);
* otherwise the job becomes its controller (and its ``kueue.x-k8s.io/job-uid`` label is set);
* a Workload not equivalent to the job is finished, reason ``OutOfSync``, "The prebuilt workload is
  out of sync with its user job".

The job webhooks' checks of the name (``validation.go``: ``ValidatePrebuiltWorkloadName``,
``GetPrebuiltWorkloadPath``, ``validateUpdateForPrebuiltWorkload``; the pod webhook's
``validatePrebuiltWorkloadName``) are :func:`name_errors`, :func:`update_errors` and
:func:`group_errors`: the name a DNS subdomain, at the annotation's path when the annotation is what
is read (``WorkloadIdentifierAnnotations``, or an annotation too long to be a label), else the
label's; the name immutable once the job runs (unless it is elastic), so a running job may move it
from the label to the annotation but not change it; a pod group's prebuilt Workload is the group's.
Every integration kbatch has (batch/v1 Job, JobSet, Pod) may name one (``supportedPrebuiltWlJobGVKs``).
"""

from __future__ import annotations

from typing import Any

from kbatch.api import edit
from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import JOB_UID_LABEL, PREBUILT_WORKLOAD_LABEL
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.api.validation import is_dns1123_subdomain

__all__ = ["PREBUILT_ANNOTATION", "PrebuiltWorkloadNotFound", "adopt", "group_errors", "name_errors",
           "prebuilt_name", "prebuilt_path", "set_prebuilt_name", "update_errors"]

PREBUILT_ANNOTATION = "kueue.x-k8s.io/prebuilt-workload-name"
OUT_OF_SYNC = "OutOfSync"
OUT_OF_SYNC_MESSAGE = "The prebuilt workload is out of sync with its user job"


class PrebuiltWorkloadNotFound(Exception):
    """``ErrPrebuiltWorkloadNotFound``: retried with back-off."""


def prebuilt_name(obj: Any, identifier_annotations: bool = True) -> str:
    """``PrebuiltWorkloadNameFor``: with ``WorkloadIdentifierAnnotations`` (beta, on) the annotation,
    else the label; with the gate off the label, else an annotation too long to be a label value."""
    label = str((obj.metadata.labels or {}).get(PREBUILT_WORKLOAD_LABEL) or "")
    annotated = str((obj.metadata.annotations or {}).get(PREBUILT_ANNOTATION) or "")
    if identifier_annotations:
        return annotated or label
    return label or (annotated if len(annotated) > 63 else "")


def _reads_annotation(obj: Any, identifier_annotations: bool) -> str:
    """The annotation's value when it is what names the Workload, else ``""``."""
    annotated = str((obj.metadata.annotations or {}).get(PREBUILT_ANNOTATION) or "")
    return annotated if identifier_annotations or len(annotated) > 63 else ""


def prebuilt_path(obj: Any, identifier_annotations: bool = True) -> str:
    """``GetPrebuiltWorkloadPath``: the annotation's path when it is read, else the label's."""
    if _reads_annotation(obj, identifier_annotations):
        return f"metadata.annotations[{PREBUILT_ANNOTATION}]"
    return f"metadata.labels[{PREBUILT_WORKLOAD_LABEL}]"


def name_errors(obj: Any, identifier_annotations: bool = True) -> list[FieldError]:
    """``ValidatePrebuiltWorkloadName``: the annotation (when read) or the label, if present, is a DNS
    subdomain (``ValidateAnnotationAsCRDName``, ``ValidateLabelAsCRDName``)."""
    annotated = _reads_annotation(obj, identifier_annotations)
    if annotated:
        value: str | None = annotated
    else:
        value = (obj.metadata.labels or {}).get(PREBUILT_WORKLOAD_LABEL)
    if value is None:
        return []
    problems = is_dns1123_subdomain(value)
    if not problems:
        return []
    return [FieldError.invalid(prebuilt_path(obj, identifier_annotations), value, ",".join(problems))]


def update_errors(old: Any, new: Any, *, suspended: bool, elastic: bool,
                  identifier_annotations: bool = True) -> list[FieldError]:
    """``validateUpdateForPrebuiltWorkload``: a suspended job (or an elastic one) is checked as on
    create; a running one may not change the Workload it names."""
    if suspended or elastic:
        return name_errors(new, identifier_annotations)
    old_name = prebuilt_name(old, identifier_annotations)
    new_name = prebuilt_name(new, identifier_annotations)
    if old_name == new_name:
        return []
    return [FieldError.invalid(prebuilt_path(new, identifier_annotations), new_name, "field is immutable")]


def group_errors(pod: Any, group_name: str, identifier_annotations: bool = True) -> list[FieldError]:
    """The pod webhook's ``validatePrebuiltWorkloadName``: a grouped pod's prebuilt Workload is its
    group's."""
    name = prebuilt_name(pod, identifier_annotations)
    if not group_name or not name or name == group_name:
        return []
    return [FieldError.invalid(prebuilt_path(pod, identifier_annotations), name,
                               "prebuilt workload and pod group should be equal")]


def set_prebuilt_name(meta: ObjectMeta, name: str, identifier_annotations: bool = True) -> None:
    """``SetPrebuiltWorkloadName``: the annotation with ``WorkloadIdentifierAnnotations`` or for a
    name too long to be a label value, else the label."""
    if identifier_annotations or len(name) > 63:
        meta.annotations = {**(meta.annotations or {}), PREBUILT_ANNOTATION: name}
    else:
        meta.labels = {**(meta.labels or {}), PREBUILT_WORKLOAD_LABEL: name}


def adopt(wl: Workload, obj: Any, write: Any) -> Workload | None:
    """``EnsurePrebuiltWorkloadOwnership``: ``None`` when another object controls the Workload."""
    meta = obj.metadata
    ref = wl.metadata.controller_ref()
    if ref is not None:
        return wl if ref.uid == meta.uid else None
    adopted = edit(wl)
    adopted.metadata.owner_references = [
        *(adopted.metadata.owner_references or ()),
        OwnerReference(
            api_version=obj.api_info.api_version,
            kind=obj.api_info.kind,
            name=meta.name or "",
            uid=meta.uid or "",
            controller=True,
            block_owner_deletion=True,
        ),
    ]
    uid = meta.uid or ""
    if uid and len(uid) <= 63:
        adopted.metadata.labels = {**(adopted.metadata.labels or {}), JOB_UID_LABEL: uid}
    return write(adopted)  # type: ignore[no-any-return]
