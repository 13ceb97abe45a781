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
"""

from __future__ import annotations

from typing import Any

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import JOB_UID_LABEL, PREBUILT_WORKLOAD_LABEL
from kbatch.api.meta import ObjectMeta, OwnerReference

__all__ = ["PREBUILT_ANNOTATION", "PrebuiltWorkloadNotFound", "adopt", "prebuilt_name", "set_prebuilt_name"]

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
