"""The job reconciler's workload-slice paths, for elastic jobs.

Upstream: kubernetes-sigs/kueue ``pkg/controller/jobframework/reconciler.go`` (v0.19.2):
``ensureOneWorkload``'s slice branch (``EnsureWorkloadSlices``, then ``syncWorkloadSlicePriority``),
``newWorkloadName`` (the job's generation hashed into the name) and ``prepareWorkloadSlice`` (the
new Workload's ``elastic-job`` annotation, its chain's ``workload-slice-name`` and, for a scale-up,
``workload-slice-replacement-for`` naming the live slice). The decisions are
:func:`~kbatch.controllers.kueue.workloadslicing.decide_slices`'s; this module writes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api import edit
from kbatch.api.errors import Conflict
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import (
    ELASTIC_JOB_ANNOTATION,
    WORKLOAD_SLICE_NAME_ANNOTATION,
    WORKLOAD_SLICE_REPLACEMENT_FOR,
)
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.controllers.kueue.workloadslicing import (
    decide_slices,
    enabled,
    find_latest_active,
    not_finished,
    pod_set_counts,
)
from kbatch.controllers.kueue.workloadslicing.slices import ENABLED_VALUE, key_of

if TYPE_CHECKING:
    from kbatch.controllers.kueue.jobframework.reconciler import JobReconciler

__all__ = ["FALLBACK", "ensure_slices", "is_elastic", "name_extra", "prepare_slice"]

FALLBACK = object()
""":func:`ensure_slices`' answer when the pod sets changed shape: the ordinary one-Workload path."""

GATE = "ElasticJobsViaWorkloadSlices"


def is_elastic(r: JobReconciler, obj: Any) -> bool:
    """``WorkloadSliceEnabled``."""
    return enabled(obj, r.mgr.settings.on(GATE))


def name_extra(r: JobReconciler, obj: Any) -> str:
    """``newWorkloadName``'s extra part: the job's generation for an elastic job, else none."""
    return str(obj.metadata.generation or 0) if is_elastic(r, obj) else ""


def ensure_slices(r: JobReconciler, job: Any, obj: Any) -> Workload | object | None:
    """``EnsureWorkloadSlices`` with its writes: slices to finish first (``WorkloadSliceReplaced`` or
    ``OutOfSync``), then the kept slice's counts (an unadmitted slice, or a scale-down: its usage
    drops at once). ``None``: a new slice is to be created; :data:`FALLBACK`: incompatible."""
    meta = obj.metadata
    counts = pod_set_counts(job.pod_sets())
    decision = decide_slices(counts, r._workloads(meta.namespace or "", meta.name or ""))
    now = r.mgr.now()
    for done, reason, message in decision.finish:
        write_status(
            r.mgr, done, lambda st, o, rs=reason, m=message: W.finish(st, rs, m, o.metadata.generation, now)
        )
    if not decision.compatible:
        return FALLBACK
    wl: Workload | None = decision.workload
    if wl is not None and decision.counts is not None:
        resized = edit(wl)
        for ps in (resized.spec.pod_sets if resized.spec else None) or ():
            if (ps.name or "") in decision.counts:
                ps.count = decision.counts[ps.name or ""]
        wl = r._write(resized)
    sync_slice_priority(r, job, obj, wl)
    return wl


def sync_slice_priority(r: JobReconciler, job: Any, obj: Any, wl: Workload | None) -> None:
    """``syncWorkloadSlicePriority``: a priority-class label change reaches the slice kept and the
    quota-reserved slice a pending replacement waits behind (both are ordered in preemption), or
    only the latter when a new slice is about to be created (``wl`` ``None``)."""
    meta = obj.metadata
    retained = find_latest_active(r._workloads(meta.namespace or "", meta.name or ""))
    live = [x for x in (wl,) if x is not None]
    if retained is not None and (wl is None or retained.metadata.name != wl.metadata.name):
        live.append(retained)
    for x in live:
        r._sync_priority(job, obj, x)


def prepare_slice(r: JobReconciler, obj: Any, wl: Workload) -> None:
    """``prepareWorkloadSlice`` on the new Workload (its metadata is still private): the first slice
    names its chain after itself; a scale-up links to the live slice and carries the chain's name.
    Two or more live slices is a state to clear up first: a conflict, retried."""
    meta = obj.metadata
    live = not_finished(r._workloads(meta.namespace or "", meta.name or ""))
    annotations = dict(wl.metadata.annotations or {})
    annotations[ELASTIC_JOB_ANNOTATION] = ENABLED_VALUE
    if len(live) > 1:
        raise Conflict(f"unexpected workload-slices count: {len(live)}")
    if not live:
        annotations[WORKLOAD_SLICE_NAME_ANNOTATION] = wl.metadata.name or ""
    else:
        old = live[0]
        annotations[WORKLOAD_SLICE_REPLACEMENT_FOR] = key_of(old)
        origin = (old.metadata.annotations or {}).get(WORKLOAD_SLICE_NAME_ANNOTATION) or old.metadata.name
        annotations[WORKLOAD_SLICE_NAME_ANNOTATION] = origin or ""
    wl.metadata.annotations = annotations
