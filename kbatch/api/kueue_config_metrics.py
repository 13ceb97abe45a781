"""Kueue's ``metrics.customLabels`` (``ControllerMetricsCustomLabel``): the entries and their checks.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``
(``ControllerMetricsCustomLabel``, ``SourceKind``, ``UntrackedCustomLabelValue``),
``apis/config/v1beta2/defaults.go`` (``DefaultCustomMetricLabelSourceKind``: ClusterQueue),
``pkg/config/validation.go`` (``validateCustomLabels``, run whatever ``CustomMetricLabels`` says) and
``pkg/metrics/custom_labels.go`` (``WorkloadCustomLabelSources``). At most 20 entries; a name matching
``^[a-zA-Z][a-zA-Z0-9_]*$`` and unique; ``sourceLabelKey`` and ``sourceAnnotationKey`` exclusive, the
key read (or the name) a valid label key; up to 16 ``trackedValues`` (a Workload entry: 1 to 12),
none twice; up to 6 entries per kind (2 for Workload), an unknown kind refused. Messages, field paths
and rendered values are upstream's (an entry, or the list, rendered as Go marshals the struct).

The section is decoded strictly, as the rest of the Configuration (``serializer.EnableStrict`` in
``pkg/config/config.go`` ``fromFile``): :class:`ControllerMetrics` is ``ControllerMetrics`` of
``configuration_types.go``, so a misspelt field anywhere in it (``metrics.customLabels[0].sourceKnd``)
is an ``unknown field``, and a value of another Go type than its field's (``enable: "true"``) is
refused before validation (:mod:`kbatch.api.gotypes`). A v1beta1 file's entries have no
``sourceKind`` nor ``trackedValues`` (``apis/config/v1beta1``), so there those two are unknown fields,
their values not looked into (``V1BETA2_ONLY`` in :mod:`kbatch.api.kueue_config_process`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from kbatch.api.base import KubeModel
from kbatch.api.errors import FieldError, Marshalled
from kbatch.api.gotypes import Bool, GoType
from kbatch.api.meta import LabelSelector
from kbatch.api.validation import is_qualified_name

__all__ = ["CLUSTER_QUEUE", "COHORT", "LOCAL_QUEUE", "SOURCE_KINDS", "UNTRACKED", "WORKLOAD",
           "ControllerMetrics", "CustomLabel", "custom_label_errors", "parse_entries", "workload_sources"]

CLUSTER_QUEUE, COHORT, LOCAL_QUEUE, WORKLOAD = "ClusterQueue", "Cohort", "LocalQueue", "Workload"
SOURCE_KINDS = (CLUSTER_QUEUE, COHORT, LOCAL_QUEUE, WORKLOAD)  # configapi.SourceKind, in name order
UNTRACKED = "kueue.x-k8s.io/_UNTRACKED_VALUE_"  # configapi.UntrackedCustomLabelValue
PATH = "metrics.customLabels"
MAX_LABELS = 20
MAX_TRACKED = 16
MAX_TRACKED_WORKLOAD = 12
MAX_PER_KIND = {WORKLOAD: 2, LOCAL_QUEUE: 6, CLUSTER_QUEUE: 6, COHORT: 6}
_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")


class ControllerMetricsCustomLabel(KubeModel):
    """``ControllerMetricsCustomLabel`` on the wire (values checked by :func:`custom_label_errors`)."""

    name: str | None = None
    source_label_key: str | None = None
    source_annotation_key: str | None = None
    source_kind: Annotated[str, GoType("SourceKind")] | None = None  # v1beta2 only
    tracked_values: list[str] | None = None  # v1beta2 only


class LocalQueueMetrics(KubeModel):
    enable: Bool | None = None
    local_queue_selector: LabelSelector | None = None


class ControllerMetrics(KubeModel):
    """``ControllerMetrics``: the Configuration's ``metrics`` section on the wire."""

    bind_address: str | None = None
    enable_cluster_queue_resources: Bool | None = None
    custom_labels: list[ControllerMetricsCustomLabel] | None = None
    local_queue_metrics: LocalQueueMetrics | None = None


@dataclass(frozen=True, slots=True)
class CustomLabel:
    """One ``ControllerMetricsCustomLabel`` with its source kind defaulted."""

    name: str
    kind: str = CLUSTER_QUEUE
    label_key: str = ""
    annotation_key: str = ""
    tracked: tuple[str, ...] = ()

    @property
    def metric_label(self) -> str:
        return f"custom_{self.name}"

    def value(self, labels: Mapping[str, str], annotations: Mapping[str, str]) -> str:
        """``extractValues`` for this entry: the annotation, else the label (by default the name);
        absent: ``""``; outside a non-empty ``trackedValues``: :data:`UNTRACKED`."""
        if self.annotation_key:
            value = annotations.get(self.annotation_key, "")
        else:
            value = labels.get(self.label_key or self.name, "")
        return value if not self.tracked or value in self.tracked else UNTRACKED


def _entries(raw: Any) -> list[Mapping[str, Any]]:
    return [e for e in raw if isinstance(e, Mapping)] if isinstance(raw, list) else []


def parse_entries(raw: Any) -> tuple[CustomLabel, ...]:
    """The entries of a validated ``metrics.customLabels`` list."""
    return tuple(
        CustomLabel(
            name=str(e.get("name") or ""),
            kind=str(e.get("sourceKind") or CLUSTER_QUEUE),
            label_key=str(e.get("sourceLabelKey") or ""),
            annotation_key=str(e.get("sourceAnnotationKey") or ""),
            tracked=tuple(str(v) for v in e.get("trackedValues") or ()),
        )
        for e in _entries(raw)
    )


def workload_sources(entries: Sequence[CustomLabel]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``WorkloadCustomLabelSources``: the label keys and annotation keys a job's Workload copies
    from the job for the ``Workload`` entries."""
    labels: dict[str, None] = {}
    annotations: dict[str, None] = {}
    for e in entries:
        if e.kind == WORKLOAD:
            if e.annotation_key:
                annotations[e.annotation_key] = None
            else:
                labels[e.label_key or e.name] = None
    return tuple(labels), tuple(annotations)


_FIELDS = ("name", "sourceLabelKey", "sourceAnnotationKey", "sourceKind", "trackedValues")


def _struct(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry in Go's field order, ``omitempty`` fields left out when empty (``name`` never)."""
    out: dict[str, Any] = {"name": entry.get("name") or ""}
    for key in _FIELDS[1:]:
        if entry.get(key):
            out[key] = entry[key]
    return out


def _marshal(value: Any) -> Marshalled:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return Marshalled(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _tracked_value(entry: Mapping[str, Any]) -> Marshalled:
    return _marshal(entry.get("trackedValues"))  # nil: null


def _entry_errors(i: int, entry: Mapping[str, Any], seen: set[str]) -> list[FieldError]:
    path = f"{PATH}[{i}]"
    name = str(entry.get("name") or "")
    errs: list[FieldError] = []
    if not _NAME.fullmatch(name):
        errs.append(FieldError.invalid(f"{path}.name", name, "must match ^[a-zA-Z][a-zA-Z0-9_]*$"))
    if name in seen:
        errs.append(FieldError.duplicate(f"{path}.name", name))
    seen.add(name)
    label_key, annotation_key = entry.get("sourceLabelKey") or "", entry.get("sourceAnnotationKey") or ""
    if label_key and annotation_key:
        errs.append(FieldError.invalid(path, _marshal(_struct(entry)),
                                       "sourceLabelKey and sourceAnnotationKey are mutually exclusive"))
    key_path, key = (
        (f"{path}.sourceLabelKey", label_key) if label_key
        else (f"{path}.sourceAnnotationKey", annotation_key) if annotation_key
        else (f"{path}.name", name)
    )
    if problems := is_qualified_name(str(key)):
        errs.append(FieldError.invalid(key_path, str(key), "; ".join(problems)))
    tracked = list(entry.get("trackedValues") or ())
    if (entry.get("sourceKind") or CLUSTER_QUEUE) == WORKLOAD:
        if not tracked:
            errs.append(FieldError.invalid(f"{path}.trackedValues", _tracked_value(entry),
                                           "must not be empty when sourceKind is 'Workload'"))
        if len(tracked) > MAX_TRACKED_WORKLOAD:
            errs.append(FieldError.invalid(
                f"{path}.trackedValues", _tracked_value(entry),
                f"must not be greater than {MAX_TRACKED_WORKLOAD} when sourceKind is 'Workload'"))
    elif len(tracked) > MAX_TRACKED:
        errs.append(FieldError.too_many(f"{path}.trackedValues", len(tracked), MAX_TRACKED))
    if len(set(tracked)) < len(tracked):
        errs.append(FieldError.invalid(f"{path}.trackedValues", _tracked_value(entry),
                                       "must not contain duplicates"))
    return errs


def custom_label_errors(metrics: Mapping[str, Any] | None) -> list[FieldError]:
    """``validateCustomLabels`` of a Configuration's ``metrics`` section."""
    raw = (metrics or {}).get("customLabels")
    if raw is None or raw == []:
        return []
    if not isinstance(raw, list) or not all(isinstance(e, Mapping) for e in raw):
        return [FieldError.invalid(PATH, _marshal(raw), "must be a list of custom label objects")]
    errs: list[FieldError] = []
    if len(raw) > MAX_LABELS:
        errs.append(FieldError.too_many(PATH, len(raw), MAX_LABELS))
    seen: set[str] = set()
    per_kind: dict[str, int] = {}
    for i, entry in enumerate(raw):
        errs += _entry_errors(i, entry, seen)
        kind = str(entry.get("sourceKind") or CLUSTER_QUEUE)
        per_kind[kind] = per_kind.get(kind, 0) + 1
    whole = _marshal([_struct(e) for e in raw])
    for kind in sorted(per_kind):
        limit = MAX_PER_KIND.get(kind)
        if limit is None:
            errs.append(FieldError.invalid(PATH, whole, f"unknown source kind: {kind}"))
        elif per_kind[kind] > limit:
            errs.append(FieldError.invalid(
                PATH, whole, f"too many custom labels for source kind {kind}: found {per_kind[kind]}, "
                             f"expected <= {limit}"))
    return errs
