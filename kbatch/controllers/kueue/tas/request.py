"""A pod set's topology request: from its template's annotations, checked, and asked of a pod.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas.go``
(``podSetTopologyRequestBuilder.Build``: ``required`` over ``preferred`` over ``unconstrained``; with
none of them, a request only when the integration names a pod index label, as the Job integration
does with ``batch.kubernetes.io/job-completion-index``), ``tas_validation.go``
(``ValidateTASPodSetRequest``, ``validateTASUnconstrained``), ``pkg/workload/workload.go``
(``IsExplicitlyRequestingTAS``) and ``pkg/util/tas/tas.go`` (``IsTAS`` of a pod).

The slice, multi-layer and group annotations are :mod:`.slice_annotations`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.go_bool import parse_bool
from kbatch.api.jobframework import PodSetInfo
from kbatch.api.kueue_v1beta2 import PodSetTopologyRequest
from kbatch.api.kueue_v1beta2.constants import WORKLOAD_SLICE_NAME_ANNOTATION
from kbatch.api.selectors import label_key_errors
from kbatch.controllers.kueue.tas import slice_annotations as slices

__all__ = [
    "PREFERRED",
    "REQUIRED",
    "TOPOLOGY_GATE",
    "UNCONSTRAINED",
    "WORKLOAD_ANNOTATION",
    "is_explicit",
    "is_tas_pod",
    "pod_slice_name",
    "tas_info",
    "topology_request",
    "validate",
]

REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"  # kueue.WorkloadAnnotation
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"  # kueue.TopologySchedulingGate


def topology_request(
    annotations: Mapping[str, str],
    pod_index_label: str | None,
    sub_group: tuple[str | None, int | None] = (None, None),
    multi_layer: bool = True,
) -> PodSetTopologyRequest | None:
    """``NewPodSetTopologyRequest(meta).PodIndexLabel(label).SubGroup(label, count).Build()``
    (unparsable values are refused by :func:`validate` first; ``multi_layer``:
    ``TASMultiLayerTopology``)."""
    req = PodSetTopologyRequest()
    if REQUIRED in annotations:
        req.required = annotations[REQUIRED]
    elif PREFERRED in annotations:
        req.preferred = annotations[PREFERRED]
    elif UNCONSTRAINED in annotations:
        req.unconstrained = bool(parse_bool(annotations[UNCONSTRAINED]))
    elif pod_index_label is None and not slices.has_slice_layer(annotations):
        return None
    slices.apply(req, annotations, multi_layer)
    req.pod_index_label = pod_index_label
    req.sub_group_index_label, req.sub_group_count = sub_group
    return req


def validate(
    annotations: Mapping[str, str], path: str, count: int | None = None, multi_layer: bool = True
) -> list[FieldError]:
    """``ValidateTASPodSetRequest`` and, when it passes and the pod set's ``count`` is given,
    ``ValidateSliceSizeAnnotationUpperBound``; ``path`` is the template's metadata."""
    errs = _validate(annotations, path, multi_layer)
    if not errs and count is not None:
        errs = slices.upper_bound_errors(annotations, f"{path}.annotations", count)
    return errs


def sliced(annotations: Mapping[str, str]) -> bool:
    """Whether the annotations size a slice (the only case the pod set's count is read for)."""
    return slices.SLICE_SIZE in annotations or slices.SLICE_CONSTRAINTS in annotations


def _validate(annotations: Mapping[str, str], path: str, multi_layer: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    where = f"{path}.annotations"
    found = [k for k in (REQUIRED, PREFERRED, UNCONSTRAINED) if k in annotations]
    if len(found) > 1:
        errs.append(
            FieldError(
                FieldErrorType.INVALID,
                where,
                "must not contain more than one topology annotation: "
                f'["{REQUIRED}", "{PREFERRED}", "{UNCONSTRAINED}"]',
            )
        )
    for key in (REQUIRED, PREFERRED):
        if key in annotations:
            for msg in label_key_errors(annotations[key]):
                errs.append(FieldError.invalid(f"{where}[{key}]", annotations[key], msg))
    errs += slices.validate(annotations, where)
    if UNCONSTRAINED in annotations and parse_bool(annotations[UNCONSTRAINED]) is None:
        errs.append(
            FieldError.invalid(
                f"{where}[{UNCONSTRAINED}]", annotations[UNCONSTRAINED], "must be a boolean value"
            )
        )
    return errs + slices.validate_size(annotations, where, multi_layer)


def tas_info(info: PodSetInfo, tr: PodSetTopologyRequest | None, workload: str) -> PodSetInfo:
    """``podset.FromAssignment`` and ``getPodSetsInfoFromStatus`` for a pod set admitted with a
    topology assignment: the ``kueue.x-k8s.io/topology`` scheduling gate, the Workload's name
    (``kueue.x-k8s.io/workload``, how the ungater finds the pods) and, for an implied request, the
    ``unconstrained`` annotation. (Upstream writes the Workload annotation on every pod set while
    TopologyAwareScheduling is on; kbatch only on those TAS admitted, where it is read.)"""
    annotations = {**info.annotations, WORKLOAD_ANNOTATION: workload}
    if tr is None or (tr.required is None and tr.preferred is None and tr.unconstrained is None):
        annotations[UNCONSTRAINED] = "true"
    return replace(info, annotations=annotations, scheduling_gates=(*info.scheduling_gates, TOPOLOGY_GATE))


def slice_layers(tr: PodSetTopologyRequest | None) -> tuple[tuple[str, int], ...]:
    """``utiltas.PodSetSliceRequiredTopologyConstraints``: the multi-layer constraints, else the
    one layer of ``podSetSliceRequiredTopology`` and ``podSetSliceSize`` (size 0 when unset)."""
    if tr is None:
        return ()
    if tr.podset_slice_required_topology_constraints:
        return tuple((c.topology or "", c.size or 0) for c in tr.podset_slice_required_topology_constraints)
    if tr.pod_set_slice_required_topology is None:
        return ()
    return ((tr.pod_set_slice_required_topology, tr.pod_set_slice_size or 0),)


def is_explicit(tr: PodSetTopologyRequest | None) -> bool:
    """``IsExplicitlyRequestingTAS`` of one pod set (slice fields count too)."""
    return tr is not None and (
        tr.unconstrained is not None
        or tr.required is not None
        or tr.preferred is not None
        or tr.pod_set_slice_required_topology is not None
        or tr.pod_set_slice_size is not None
        or bool(tr.podset_slice_required_topology_constraints)
    )


def pod_slice_name(pod: Any) -> str | None:
    """``indexer.IndexPodWorkloadSliceName``: the pod's ``kueue.x-k8s.io/workload-slice-name``
    (an elastic Workload's chain), else its ``kueue.x-k8s.io/workload``."""
    annotations = pod.metadata.annotations or {}
    return annotations.get(WORKLOAD_SLICE_NAME_ANNOTATION, annotations.get(WORKLOAD_ANNOTATION))


def is_tas_pod(pod: Any) -> bool:
    """``utiltas.IsTAS``: the pod carries a topology annotation (the implied-TAS ones get
    ``unconstrained`` at admission)."""
    annotations = pod.metadata.annotations or {}
    return any(
        k in annotations
        for k in (
            REQUIRED,
            PREFERRED,
            UNCONSTRAINED,
            "kueue.x-k8s.io/podset-slice-required-topology",
            "kueue.x-k8s.io/podset-slice-required-topology-constraints",
        )
    )
