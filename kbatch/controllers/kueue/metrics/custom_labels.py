"""``metrics.customLabels`` (``CustomMetricLabels``, alpha 0.17, off): Kubernetes labels or annotations
of ClusterQueues, LocalQueues, Cohorts and Workloads promoted to ``custom_<name>`` Prometheus labels.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/metrics/custom_labels.go`` (``CustomLabels``,
``parseLabels``, ``extractValues``; the entries and their checks are
:mod:`kbatch.api.kueue_config_metrics`), ``pkg/metrics/metrics.go`` (``InitMetricVectors``: which
families carry which kinds' labels), KEP ``keps/7066-custom-metric-labels``. Each entry names its
source: ``sourceAnnotationKey``, else ``sourceLabelKey``, else the label ``name``; its kind defaults
to ``ClusterQueue``. A family's custom
labels are its kinds' entries, the kinds in name order (``ClusterQueue``, ``Cohort``, ``LocalQueue``,
``Workload``: upstream sorts them) and each kind's entries in configuration order. A value outside a
non-empty ``trackedValues`` list is ``kueue.x-k8s.io/_UNTRACKED_VALUE_``; an absent source is ``""``.

Upstream stores each object's values when its controller sees it and reads them when a metric is
reported; kbatch reads the object from the informer cache when the metric is reported (a counter's
event, a gauge's scrape), which gives the same values. With the gate off, or no entries, every
family has its plain labels and every lookup returns ``()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kbatch.api.kueue_config_metrics import (
    CLUSTER_QUEUE,
    COHORT,
    LOCAL_QUEUE,
    SOURCE_KINDS,
    WORKLOAD,
    CustomLabel,
    parse_entries,
)
from kbatch.api.kueue_v1beta2 import ClusterQueue, Cohort, LocalQueue, Workload
from kbatch.runtime.cache import Cache
from kbatch.runtime.cache.indexer import key_of
from kbatch.runtime.metrics import MetricsRegistry

__all__ = ["CLUSTER_QUEUE", "COHORT", "LOCAL_QUEUE", "NONE", "WORKLOAD", "CustomLabels", "custom_labels_of",
           "install_custom_labels", "parse_entries"]

_KIND_TYPES: dict[str, type[Any]] = {CLUSTER_QUEUE: ClusterQueue, COHORT: Cohort, LOCAL_QUEUE: LocalQueue}


def _meta(obj: Any) -> tuple[Mapping[str, str], Mapping[str, str]]:
    meta = obj.metadata if obj is not None else None
    if meta is None:
        return {}, {}
    return meta.labels or {}, meta.annotations or {}


class CustomLabels:
    """The configured custom labels, with the informer cache their source objects are read from."""

    def __init__(self, entries: Sequence[CustomLabel], cache: Cache | None = None) -> None:
        self.entries = tuple(entries)
        self.cache = cache
        self._by_kind = {kind: tuple(e for e in self.entries if e.kind == kind) for kind in SOURCE_KINDS}

    def names(self, *kinds: str) -> tuple[str, ...]:
        """``LabelNames``: the ``custom_*`` label names of ``kinds`` (kinds in name order)."""
        return tuple(e.metric_label for kind in SOURCE_KINDS if kind in kinds for e in self._by_kind[kind])

    def values(self, kind: str, labels: Mapping[str, str], annotations: Mapping[str, str]) -> tuple[str, ...]:
        """One kind's values for an object's labels and annotations (``extractValues``)."""
        return tuple(e.value(labels, annotations) for e in self._by_kind[kind])

    def of_object(self, kind: str, obj: Any) -> tuple[str, ...]:
        """An object's values; ``obj`` ``None`` (not seen yet): every value ``""`` (``get``)."""
        entries = self._by_kind[kind]
        if not entries:
            return ()
        if obj is None:
            return ("",) * len(entries)
        labels, annotations = _meta(obj)
        return tuple(e.value(labels, annotations) for e in entries)

    def _lookup(self, kind: str, name: str, namespace: str | None = None) -> tuple[str, ...]:
        if not self._by_kind[kind]:
            return ()
        obj = None
        if self.cache is not None:
            obj = self.cache.informer_for(_KIND_TYPES[kind]).store.get(key_of(namespace, name))
        return self.of_object(kind, obj)

    def cluster_queue(self, name: str) -> tuple[str, ...]:
        """``CQGet``."""
        return self._lookup(CLUSTER_QUEUE, name)

    def local_queue(self, namespace: str, name: str) -> tuple[str, ...]:
        """``LQGet``."""
        return self._lookup(LOCAL_QUEUE, name, namespace)

    def cohort(self, name: str) -> tuple[str, ...]:
        """``CohortGet`` (a Cohort with no object of its own: ``""``)."""
        return self._lookup(COHORT, name)

    def workload(self, wl: Workload) -> tuple[str, ...]:
        return self.of_object(WORKLOAD, wl)

    def changed(self, kind: str, old: Any, new: Any) -> bool:
        """``UpdateRequired``: whether an update changes the object's values."""
        return bool(self._by_kind[kind]) and self.of_object(kind, old) != self.of_object(kind, new)


NONE = CustomLabels(())
_KEY = "kueue.custom_labels"


def install_custom_labels(registry: MetricsRegistry, labels: CustomLabels) -> None:
    """Make ``labels`` the custom labels of Kueue's families on ``registry`` (one Kueue manager per
    control plane, so one registry); kept with the registry, so a loaded image has them too."""
    registry.extensions[_KEY] = labels


def custom_labels_of(registry: MetricsRegistry) -> CustomLabels:
    """The custom labels installed on ``registry`` (none: :data:`NONE`)."""
    labels = registry.extensions.get(_KEY, NONE)
    assert isinstance(labels, CustomLabels)
    return labels
