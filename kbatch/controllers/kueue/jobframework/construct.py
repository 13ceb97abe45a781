"""Building a job's Workload, matching it to the job, and what admission injects into the job.

Upstream: kubernetes-sigs/kueue ``pkg/controller/jobframework/{reconciler,utils}.go``,
``pkg/util/priority/priority.go``, ``pkg/podset/podset.go``, ``pkg/util/equality/podset.go``
(v0.19.2).

* :func:`new_workload` (``ConstructWorkload``/``NewWorkload``): the job's pod sets (``minCount``
  dropped unless ``PartialAdmission``), its queue name and maximum execution time (labels), the
  labels listed in ``integrations.labelKeysToCopy``, the ``provreq.kueue.x-k8s.io/`` annotations,
  the ``kueue.x-k8s.io/job-uid`` label, the ``resource-in-use`` finalizer and a controller reference.
* :func:`priority_of` (``ExtractPriority``): the ``kueue.x-k8s.io/priority-class`` label's
  WorkloadPriorityClass, else the pod PriorityClass, else the cluster's default PriorityClass (the
  lowest global default), else 0.
* :func:`equivalent` (``EquivalentToWorkload``): same owner, same maximum execution time, and the
  same pod sets (count, minCount, tolerations unless admitted, containers and init containers) as
  the Workload — or as the Workload's pod sets with its admission injected.
* :func:`infos_from_admission` (``getPodSetsInfoFromStatus``): per pod set, the assigned flavors'
  node labels and tolerations, the admitted count, the ``kueue.x-k8s.io/podset`` label and (with
  ``AssignQueueLabelsForPods``) the LocalQueue and ClusterQueue labels.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Toleration
from kbatch.api.errors import NotFound
from kbatch.api.go_int import parse_int
from kbatch.api.jobframework import PodSetInfo, info_from_template, merge_info
from kbatch.api.kueue_v1beta2 import (
    PodSet,
    PodSetTopologyRequest,
    PriorityClassRef,
    ResourceFlavor,
    Workload,
    WorkloadPriorityClass,
)
from kbatch.api.kueue_v1beta2.constants import (
    CLUSTER_QUEUE_LABEL,
    JOB_UID_LABEL,
    LOCAL_QUEUE_LABEL,
    MAX_EXEC_TIME_LABEL,
    POD_SET_LABEL,
    QUEUE_LABEL,
    RESOURCE_IN_USE_FINALIZER,
    WORKLOAD_PRIORITY_CLASS_LABEL,
    WORKLOAD_SLICE_NAME_ANNOTATION,
)
from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL, WORKER_POD_LABEL
from kbatch.api.model_copy import copy_model
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.api.selectors import label_value_errors
from kbatch.api.validation import is_dns1123_label
from kbatch.controllers.kueue.jobframework.names import workload_name
from kbatch.controllers.kueue.tas.request import tas_info, topology_request
from kbatch.controllers.kueue.workloadslicing import slice_name

__all__ = [
    "equivalent",
    "infos_from_admission",
    "max_execution_time",
    "new_workload",
    "priority_of",
    "queue_name",
]

ADMISSION_GATED_BY = "kueue.x-k8s.io/admission-gated-by"
PROVREQ_PREFIX = "provreq.kueue.x-k8s.io/"


def queue_name(obj: Any) -> str:
    return (obj.metadata.labels or {}).get(QUEUE_LABEL, "")


def max_execution_time(obj: Any) -> int | None:
    # upstream strconv.ParseInt(v, 10, 32), nil on error or <= 0 (pkg/controller/jobframework/utils.go)
    text = (obj.metadata.labels or {}).get(MAX_EXEC_TIME_LABEL)
    value = parse_int(text, 32) if text is not None else None
    return value if value is not None and value > 0 else None


def _topology_request(job: Any, ps: Any, multi_layer: bool) -> PodSetTopologyRequest | None:
    """The pod set's topology request: its ``topology`` source when the integration gives one
    (JobSet, plain pods, pod groups), else its template's annotations with the integration's pod
    index label (``tas_pod_index_label``, the Job's completion index). ``multi_layer``
    (``TASMultiLayerTopology``): off, the constraints annotation is not read (``Build``)."""
    src = ps.topology
    annotations = src.annotations if src is not None else None
    if annotations is None:
        annotations = (ps.template.metadata.annotations if ps.template.metadata else None) or {}
    if src is None:
        return topology_request(
            annotations, getattr(job, "tas_pod_index_label", None), multi_layer=multi_layer
        )
    return topology_request(
        annotations,
        src.pod_index_label,
        sub_group=(src.sub_group_index_label, src.sub_group_count),
        multi_layer=multi_layer,
    )


def _pod_sets(job: Any, partial_admission: bool, tas: bool, multi_layer: bool) -> list[PodSet]:
    """The job's pod sets; with TopologyAwareScheduling each carries its topology request."""
    return [
        PodSet(
            name=ps.name,
            template=ps.template,
            count=ps.count,
            min_count=ps.min_count if partial_admission else None,
            topology_request=_topology_request(job, ps, multi_layer) if tas else None,
        )
        for ps in job.pod_sets()
    ]


def priority_of(
    cache: Any, obj: Any, pod_sets: list[PodSet], custom_class: str | None
) -> tuple[PriorityClassRef | None, int]:
    """``ExtractPriority``; a referenced class that does not exist raises NotFound."""
    wpc = (obj.metadata.labels or {}).get(WORKLOAD_PRIORITY_CLASS_LABEL)
    if wpc:
        cls = cache.get(WorkloadPriorityClass, wpc)
        return PriorityClassRef(
            group="kueue.x-k8s.io", kind="WorkloadPriorityClass", name=wpc
        ), cls.value or 0
    name = (
        custom_class
        if custom_class is not None
        else next(
            (
                ps.template.spec.priority_class_name
                for ps in pod_sets
                if ps.template and ps.template.spec.priority_class_name
            ),
            "",
        )
    )
    if name:
        pc = cache.get(PriorityClass, name)
        return PriorityClassRef(group="scheduling.k8s.io", kind="PriorityClass", name=name), pc.value or 0
    defaults = [pc for pc in cache.list(PriorityClass) if pc.global_default]
    if defaults:
        pc = min(defaults, key=lambda p: (p.value or 0, p.metadata.name or ""))
        return PriorityClassRef(
            group="scheduling.k8s.io", kind="PriorityClass", name=pc.metadata.name
        ), pc.value or 0
    return None, 0


def new_workload(
    job: Any,
    kind: str,
    group: str,
    api_version: str,
    cache: Any,
    *,
    label_keys: tuple[str, ...],
    annotation_keys: tuple[str, ...] = (),
    partial_admission: bool,
    short_names: bool,
    admission_gated_by: bool,
    tas: bool = False,
    multi_layer: bool = True,
    name_extra: str = "",
) -> Workload:
    """``ConstructWorkload``; ``name_extra``: an elastic job's generation (``newWorkloadName``);
    ``multi_layer``: ``TASMultiLayerTopology``."""
    obj = job.object
    meta = obj.metadata
    pod_sets = _pod_sets(job, partial_admission, tas, multi_layer)
    labels = {k: v for k, v in (meta.labels or {}).items() if k in label_keys}
    if not label_value_errors(meta.uid or ""):
        labels[JOB_UID_LABEL] = meta.uid or ""
    annotations = {k: v for k, v in (meta.annotations or {}).items()
                   if k.startswith(PROVREQ_PREFIX) or k in annotation_keys}  # NewWorkload's annotationsToCopy
    if admission_gated_by and (meta.annotations or {}).get(ADMISSION_GATED_BY):
        annotations[ADMISSION_GATED_BY] = meta.annotations[ADMISSION_GATED_BY]
    custom = job.priority_class() if hasattr(job, "priority_class") else None
    ref, priority = priority_of(cache, obj, pod_sets, custom or None)
    return Workload.model_validate(
        {
            "metadata": {
                "name": workload_name(meta.name or "", meta.uid or "", kind, group, short_names, name_extra),
                "namespace": meta.namespace,
                "labels": labels or None,
                "annotations": annotations or None,
                "finalizers": [RESOURCE_IN_USE_FINALIZER],
                "ownerReferences": [
                    {
                        "apiVersion": api_version,
                        "kind": kind,
                        "name": meta.name,
                        "uid": meta.uid,
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": {
                "queueName": queue_name(obj) or None,
                "podSets": [ps.to_dict() for ps in pod_sets],
                "maximumExecutionTimeSeconds": max_execution_time(obj),
                "priorityClassRef": ref.to_dict() if ref else None,
                "priority": priority,
            },
        }
    )


# --- matching ---------------------------------------------------------------------------------------


def _same_pod_sets(a: list[PodSet], b: list[PodSet], ignore_tolerations: bool) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if (x.count or 0) != (y.count or 0):
            return False
        if (x.min_count if x.min_count is not None else -1) != (
            y.min_count if y.min_count is not None else -1
        ):
            return False
        xs, ys = x.template.spec, y.template.spec  # type: ignore[union-attr]
        if not ignore_tolerations and (xs.tolerations or []) != (ys.tolerations or []):
            return False
        if (xs.init_containers or []) != (ys.init_containers or []) or (xs.containers or []) != (
            ys.containers or []
        ):
            return False
    return True


def _has(wl: Workload, kind: str) -> bool:
    return any(
        c.type == kind and c.status == "True" for c in (wl.status.conditions if wl.status else None) or ()
    )


def _running_pod_sets(wl: Workload, cache: Any, assign_queue_labels: bool) -> list[PodSet] | None:
    """``expectedRunningPodSets``."""
    if not _has(wl, "QuotaReserved"):
        return None
    try:
        infos = {i.name: i for i in infos_from_admission(wl, cache, assign_queue_labels)}
    except (NotFound, ValueError):
        return None
    partial = any(ps.min_count is not None for ps in wl.spec.pod_sets or ())  # type: ignore[union-attr]
    out = []
    for ps in wl.spec.pod_sets or ():  # type: ignore[union-attr]
        info = infos.get(ps.name or "")
        if info is None:
            return None
        ps = copy_model(ps)
        try:
            merge_info(ps.template, info)  # type: ignore[arg-type]
        except ValueError:
            return None
        if partial and ps.min_count is not None:
            ps.count = info.count
        out.append(ps)
    return out


def equivalent(
    job: Any,
    wl: Workload,
    cache: Any,
    *,
    partial_admission: bool,
    finish_orphans: bool,
    assign_queue_labels: bool,
) -> bool:
    owner = wl.metadata.controller_ref()
    obj = job.object
    if owner is None or owner.name != obj.metadata.name:
        return False
    if finish_orphans and owner.uid != obj.metadata.uid:
        return False
    if (wl.spec.maximum_execution_time_seconds if wl.spec else None) != max_execution_time(obj):
        return False
    job_sets = _pod_sets(job, partial_admission, False, True)  # topology requests are not compared
    ignore = _has(wl, "Admitted")
    running = _running_pod_sets(wl, cache, assign_queue_labels)
    spec_sets = list((wl.spec.pod_sets if wl.spec else None) or ())
    if running is not None:
        if _same_pod_sets(job_sets, running, ignore):
            return True
        return job.is_suspended() and _same_pod_sets(job_sets, spec_sets, ignore)
    return _same_pod_sets(job_sets, spec_sets, ignore)


# --- what admission injects -----------------------------------------------------------------------


def infos_from_admission(
    wl: Workload, cache: Any, assign_queue_labels: bool, elastic: bool = False
) -> list[PodSetInfo]:
    """``getPodSetsInfoFromStatus``; a missing ResourceFlavor raises NotFound. ``elastic``: the
    Workload is an elastic slice (``IsElasticWorkload``): its pods carry the chain's slice name."""
    admission = wl.status.admission if wl.status else None
    if admission is None or not admission.pod_set_assignments:
        return []
    spec_sets = (wl.spec.pod_sets if wl.spec else None) or []
    out = []
    for i, psa in enumerate(admission.pod_set_assignments):
        ps = spec_sets[i] if i < len(spec_sets) else None
        selector: dict[str, str] = {}
        tolerations: list[Toleration] = []
        seen: set[str] = set()
        for res in sorted(psa.flavors or {}):
            name = (psa.flavors or {})[res]
            if name in seen:
                continue
            seen.add(name)
            flavor = cache.get(ResourceFlavor, name)
            fspec = flavor.spec
            selector.update((fspec.node_labels if fspec else None) or {})
            tolerations += list((fspec.tolerations if fspec else None) or ())
        labels = {POD_SET_LABEL: psa.name or ""}
        if assign_queue_labels:
            labels[LOCAL_QUEUE_LABEL] = (wl.spec.queue_name if wl.spec else None) or ""
            cq = admission.cluster_queue or ""
            if not is_dns1123_label(cq):
                labels[CLUSTER_QUEUE_LABEL] = cq
        if ORIGIN_LABEL in (wl.metadata.labels or {}):  # a MultiKueue worker's copy
            labels[WORKER_POD_LABEL] = "true"
        count = psa.count if psa.count is not None else ((ps.count or 0) if ps is not None else 0)
        annotations = {WORKLOAD_SLICE_NAME_ANNOTATION: slice_name(wl)} if elastic else {}
        info = PodSetInfo(psa.name or "", count, selector, tuple(tolerations), labels, annotations)
        if psa.topology_assignment is not None:
            info = tas_info(info, ps.topology_request if ps is not None else None, wl.metadata.name or "")
        for check in (wl.status.admission_checks if wl.status else None) or ():
            for update in check.pod_set_updates or ():
                if update.name == info.name:
                    info = _merge_update(info, update, check.name or "")
                    break
        out.append(info)
    return out


def _merge_update(info: PodSetInfo, update: Any, check: str) -> PodSetInfo:
    for what, have, new in (
        ("annotations", info.annotations, update.annotations or {}),
        ("labels", info.labels, update.labels or {}),
        ("nodeSelector", info.node_selector, update.node_selector or {}),
    ):
        for k in have:
            if k in new and have[k] != new[k]:
                raise ValueError(
                    f'in admission check "{check}": invalid admission check PodSetUpdate: conflict for '
                    f"{what}: conflict for key={k}, value1={have[k]}, value2={new[k]}"
                )
    tolerations = list(info.tolerations) + [t for t in update.tolerations or () if t not in info.tolerations]
    return PodSetInfo(
        info.name,
        info.count,
        {**info.node_selector, **(update.node_selector or {})},
        tuple(tolerations),
        {**info.labels, **(update.labels or {})},
        {**info.annotations, **(update.annotations or {})},
        info.scheduling_gates,
    )


def infos_from_spec(wl: Workload | None) -> list[PodSetInfo]:
    """``GetPodSetsInfoFromWorkload``: the pod sets as they were before admission."""
    if wl is None or wl.spec is None:
        return []
    return [
        info_from_template(ps.name or "", ps.count or 0, ps.template)
        for ps in wl.spec.pod_sets or ()
        if ps.template is not None
    ]
