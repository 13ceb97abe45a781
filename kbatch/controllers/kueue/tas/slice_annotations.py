"""A pod set's slice annotations: parsed into its topology request, and checked by the webhook.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas.go``
(``podSetTopologyRequestBuilder.Build``: ``podset-slice-required-topology`` with
``podset-slice-size``, or, with ``TASMultiLayerTopology`` (beta, on), the JSON list
``podset-slice-required-topology-constraints`` of 1 to 3 ``{"topology", "size"}`` layers;
``podset-group-name`` kept only beside a required or preferred level) and ``tas_validation.go``
(``ValidateTASPodSetRequest``' slice and group rows, ``validateSliceSizeAnnotation``,
``validatePodSetGroupNameAnnotation``, ``validateSliceRequiredTopologyConstraintsAnnotation``,
``ValidateSliceSizeAnnotationUpperBound``) and ``pkg/webhooks/workload_webhook.go``
(``validateTASSliceSize``, with ``TASValidateWorkloadSliceSize``, beta, on: a Workload's own slice
fields).

kbatch differs in one wording: a constraints value that is not JSON Go's ``encoding/json`` would
read gets ``must be a valid JSON array: <Python's decoder message>`` (upstream quotes Go's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import PodSetTopologyRequest
from kbatch.api.kueue_v1beta2.workload import PodsetSliceRequiredTopologyConstraint
from kbatch.api.selectors import label_key_errors

__all__ = [
    "GROUP_NAME",
    "SLICE_CONSTRAINTS",
    "SLICE_REQUIRED",
    "SLICE_SIZE",
    "apply",
    "upper_bound_errors",
    "validate",
    "workload_errors",
]

SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP_NAME = "kueue.x-k8s.io/podset-group-name"
LAYER_COUNT = "topology constraints must contain between 1 and 3 entries"
_INT = re.compile(r"[+-]?[0-9]+")
_CONSTRAINTS_TYPE = "[]v1beta2.PodsetSliceRequiredTopologyConstraint"


def _parse_int32(text: str) -> int | None:
    """``strconv.ParseInt(s, 10, 32)``: an optional sign and decimal digits within int32."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**31) <= value < 2**31 else None


def _go_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (int, float)):
        return "number"
    return "object" if isinstance(value, dict) else "array"


def _parse_constraints(text: str) -> tuple[list[tuple[str, int]] | None, str]:
    """``json.Unmarshal`` into the constraint list (keys matched case-insensitively, unknown keys
    ignored, ``null`` a zero entry), or the error."""
    try:
        raw = json.loads(text)
    except ValueError as e:
        return None, str(e)
    if raw is None:
        return [], ""
    if not isinstance(raw, list):
        return None, f"json: cannot unmarshal {_go_kind(raw)} into Go value of type {_CONSTRAINTS_TYPE}"
    out = []
    for item in raw:
        if item is not None and not isinstance(item, dict):
            return (
                None,
                f"json: cannot unmarshal {_go_kind(item)} into Go value of type {_CONSTRAINTS_TYPE[2:]}",
            )
        fields = {k.lower(): v for k, v in (item or {}).items()}
        topology, size = fields.get("topology", ""), fields.get("size", 0)
        if topology is not None and not isinstance(topology, str):
            return None, _field_error("topology", topology, "string")
        if size is not None and (
            isinstance(size, bool) or not isinstance(size, int) or not -(2**31) <= size < 2**31
        ):
            return None, _field_error("size", size, "int32")
        out.append((topology or "", size or 0))
    return out, ""


def _field_error(name: str, value: Any, go_type: str) -> str:
    return (
        f"json: cannot unmarshal {_go_kind(value)} into Go struct field "
        f"PodsetSliceRequiredTopologyConstraint.{name} of type {go_type}"
    )


def apply(req: PodSetTopologyRequest, annotations: Mapping[str, str], multi_layer: bool) -> None:
    """``Build``'s slice and group part on a request already holding its level."""
    if multi_layer and SLICE_CONSTRAINTS in annotations:
        layers, _ = _parse_constraints(annotations[SLICE_CONSTRAINTS])
        if layers and len(layers) <= 3:
            req.podset_slice_required_topology_constraints = [
                PodsetSliceRequiredTopologyConstraint(topology=t, size=s) for t, s in layers
            ]
    elif SLICE_REQUIRED in annotations and SLICE_SIZE in annotations:
        size = _parse_int32(annotations[SLICE_SIZE])
        if size is not None:
            req.pod_set_slice_required_topology = annotations[SLICE_REQUIRED]
            req.pod_set_slice_size = size
    if GROUP_NAME in annotations and (req.required is not None or req.preferred is not None):
        req.pod_set_group_name = annotations[GROUP_NAME]


def has_slice_layer(annotations: Mapping[str, str]) -> bool:
    """A slice layer alone makes a request (``hasSliceLayer`` in ``Build``)."""
    return (SLICE_REQUIRED in annotations and SLICE_SIZE in annotations) or SLICE_CONSTRAINTS in annotations


def validate(annotations: Mapping[str, str], where: str) -> list[FieldError]:
    """The slice and group rows of ``ValidateTASPodSetRequest`` (``where``: the annotations path),
    after the level rows: slice level name, group name, slice size, the pairing, constraints."""
    errs: list[FieldError] = []
    required_found = "kueue.x-k8s.io/podset-required-topology" in annotations
    preferred_found = "kueue.x-k8s.io/podset-preferred-topology" in annotations
    slice_found, size_found = SLICE_REQUIRED in annotations, SLICE_SIZE in annotations
    if slice_found:
        for msg in label_key_errors(annotations[SLICE_REQUIRED]):
            errs.append(FieldError.invalid(f"{where}[{SLICE_REQUIRED}]", annotations[SLICE_REQUIRED], msg))
    group_path = f"{where}[{GROUP_NAME}]"
    if GROUP_NAME in annotations:
        name = annotations[GROUP_NAME]
        if name.isascii() and name.isdigit() and int(name) < 2**64:  # strconv.ParseUint(name, 10, 64)
            errs.append(FieldError.invalid(group_path, name, "must not be a number"))
        if size_found:
            errs.append(FieldError.forbidden(group_path, f"may not be set when '{SLICE_SIZE}' is specified"))
        if slice_found:
            errs.append(
                FieldError.forbidden(group_path, f"may not be set when '{SLICE_REQUIRED}' is specified")
            )
        if not preferred_found and not required_found:
            errs.append(
                FieldError.forbidden(
                    group_path,
                    "may not be set when neither 'kueue.x-k8s.io/podset-preferred-topology' nor "
                    "'kueue.x-k8s.io/podset-required-topology' is specified",
                )
            )
    return errs


def validate_size(annotations: Mapping[str, str], where: str, multi_layer: bool) -> list[FieldError]:
    """``validateSliceSizeAnnotation``, the slice pairing and the constraints annotation (after
    ``validateTASUnconstrained``)."""
    errs: list[FieldError] = []
    slice_found, size_found = SLICE_REQUIRED in annotations, SLICE_SIZE in annotations
    size_path = f"{where}[{SLICE_SIZE}]"
    if size_found:
        text = annotations[SLICE_SIZE]
        size = _parse_int32(text)
        if size is None:
            errs.append(FieldError.invalid(size_path, text, "must be a numeric value"))
        elif size < 1:
            errs.append(FieldError.invalid(size_path, text, "must be greater than or equal to 1"))
    if slice_found and not size_found:
        errs.append(FieldError.required(size_path, f"must be set when '{SLICE_REQUIRED}' is specified"))
    if size_found and not slice_found:
        errs.append(
            FieldError.forbidden(size_path, f"may not be set when '{SLICE_REQUIRED}' is not specified")
        )
    if SLICE_CONSTRAINTS in annotations:
        errs += _validate_constraints(annotations, where, multi_layer)
    return errs


def _validate_constraints(annotations: Mapping[str, str], where: str, multi_layer: bool) -> list[FieldError]:
    """``validateSliceRequiredTopologyConstraintsAnnotation``."""
    path = f"{where}[{SLICE_CONSTRAINTS}]"
    if not multi_layer:
        return [
            FieldError.forbidden(
                path, "the TASMultiLayerTopology feature gate must be enabled to use this annotation"
            )
        ]
    errs: list[FieldError] = []
    if SLICE_REQUIRED in annotations:
        errs.append(FieldError.forbidden(path, f"may not be set when '{SLICE_REQUIRED}' is specified"))
    if SLICE_SIZE in annotations:
        errs.append(FieldError.forbidden(path, f"may not be set when '{SLICE_SIZE}' is specified"))
    if GROUP_NAME in annotations:
        errs.append(
            FieldError.forbidden(
                f"{where}[{GROUP_NAME}]", f"may not be set when '{SLICE_CONSTRAINTS}' is specified"
            )
        )
    text = annotations[SLICE_CONSTRAINTS]
    layers, problem = _parse_constraints(text)
    if layers is None:
        return [*errs, FieldError.invalid(path, text, f"must be a valid JSON array: {problem}")]
    if not 1 <= len(layers) <= 3:
        return [*errs, FieldError.invalid(path, text, LAYER_COUNT)]
    for i, (topology, size) in enumerate(layers):
        for msg in label_key_errors(topology):
            errs.append(FieldError.invalid(f"{path}[{i}].topology", topology, msg))
        if size < 1:
            errs.append(FieldError.invalid(f"{path}[{i}].size", size, "must be greater than or equal to 1"))
    seen: dict[str, int] = {}
    for i, (topology, _) in enumerate(layers):
        if topology in seen:
            errs.append(
                FieldError.duplicate(f"{path}[{i}].topology", f"{topology} (also at index {seen[topology]})")
            )
        else:
            seen[topology] = i
    for i in range(len(layers) - 1):
        parent, child = layers[i][1], layers[i + 1][1]
        if child > 0 and parent % child != 0:
            errs.append(
                FieldError.invalid(
                    f"{path}[{i + 1}].size", child, f"must evenly divide the parent layer size {parent}"
                )
            )
    return errs


def upper_bound_errors(annotations: Mapping[str, str], where: str, count: int) -> list[FieldError]:
    """``ValidateSliceSizeAnnotationUpperBound``: the (outermost) slice size is at most the pod
    set's count."""
    errs: list[FieldError] = []
    if SLICE_SIZE in annotations:
        text = annotations[SLICE_SIZE]
        size = _parse_int32(text)
        if size is None:
            return [FieldError.invalid(f"{where}[{SLICE_SIZE}]", text, "must be a numeric value")]
        if size > count:
            errs.append(
                FieldError.invalid(
                    f"{where}[{SLICE_SIZE}]", text, f"must not be greater than pod set count {count}"
                )
            )
    if SLICE_CONSTRAINTS in annotations:
        layers, _ = _parse_constraints(annotations[SLICE_CONSTRAINTS])
        if layers and layers[0][1] > count:
            errs.append(
                FieldError.invalid(
                    f"{where}[{SLICE_CONSTRAINTS}]",
                    layers[0][1],
                    f"must not be greater than pod set count {count}",
                )
            )
    return errs


def workload_errors(tr: PodSetTopologyRequest | None, path: str) -> list[FieldError]:
    """``validateTASSliceSize`` of a Workload pod set's ``topologyRequest`` (at ``path``): the
    slice level and size set together, sizes greater than 0."""
    if tr is None:
        return []
    errs: list[FieldError] = []
    if tr.pod_set_slice_required_topology is not None:
        if tr.pod_set_slice_size is None:
            errs.append(
                FieldError.required(
                    f"{path}.podSetSliceSize", "must be set when podSetSliceRequiredTopology is specified"
                )
            )
        elif tr.pod_set_slice_size <= 0:
            errs.append(
                FieldError.invalid(f"{path}.podSetSliceSize", tr.pod_set_slice_size, "must be greater than 0")
            )
    elif tr.pod_set_slice_size is not None:
        errs.append(
            FieldError.forbidden(
                f"{path}.podSetSliceSize", "may not be set when podSetSliceRequiredTopology is not specified"
            )
        )
    for i, c in enumerate(tr.podset_slice_required_topology_constraints or ()):
        if (c.size or 0) <= 0:
            errs.append(
                FieldError.invalid(
                    f"{path}.podsetSliceRequiredTopologyConstraints[{i}].size",
                    c.size or 0,
                    "must be greater than 0",
                )
            )
    return errs
