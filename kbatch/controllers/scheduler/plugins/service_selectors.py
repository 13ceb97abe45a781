"""The Services' pod selectors per namespace, for PodTopologySpread's system default constraints:
which Services select a pod, and their merged selector (upstream ``helper.DefaultSelector`` and
``helper.GetPodServices``, ``pkg/scheduler/framework/plugins/helper/spread.go``).

Upstream lists every Service of the pod's namespace and keeps those whose selector (a non-nil map;
an empty one selects every pod) matches the pod's labels, then merges their selectors: the Services
all match the pod, so their pairs never conflict and the order of the merge does not matter. kbatch
keeps each namespace's Services indexed by the first (key, value) pair of their selector in key
order (Services with an empty selector under a bucket of their own), so a pod visits only the
Services whose first pair it carries — one lookup per pod label — instead of every Service of the
namespace: with a JobSet per Service (its headless Service selects ``jobset.sigs.k8s.io/jobset-name``)
that is one candidate, not one per JobSet. The Services selecting the pod are the same set as
upstream's, taken in Service name order (the key of the merged-selector memo).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.controllers.scheduler.types import LabelSelector, PodInfo

__all__ = ["ServiceSelectors"]

Pairs = tuple[tuple[str, str], ...]
_MEMO_LIMIT = 1024


class _Namespace:
    """One namespace's Services, by the first pair of their selector (built from name -> selector)."""

    __slots__ = ("by_pair", "unconditional")

    def __init__(self, services: Mapping[str, Pairs]) -> None:
        self.by_pair: dict[str, dict[str, list[tuple[str, Pairs]]]] = {}  # key -> value -> services
        self.unconditional: list[tuple[str, Pairs]] = []  # empty selectors: select every pod
        for name, pairs in sorted(services.items()):
            if pairs:
                key, value = pairs[0]
                self.by_pair.setdefault(key, {}).setdefault(value, []).append((name, pairs))
            else:
                self.unconditional.append((name, pairs))

    def selecting(self, labels: Mapping[str, str]) -> tuple[Pairs, ...]:
        """The selectors of the Services selecting a pod with ``labels``, in Service name order."""
        found = list(self.unconditional)
        by_pair = self.by_pair
        for key, value in labels.items():
            values = by_pair.get(key)
            if values is not None:
                candidates = values.get(value)
                if candidates is not None:
                    found.extend(c for c in candidates if all(labels.get(k) == v for k, v in c[1][1:]))
        if len(found) > 1:
            found.sort()
        return tuple(pairs for _, pairs in found)


class ServiceSelectors:
    """The Services' pod selectors, per namespace: the source of the system default constraints'
    selector. It is a Service informer handler (the PodTopologySpread plugin registers it), so it
    holds plain tuples, never the models."""

    def __init__(self) -> None:
        self._by_ns: dict[str, dict[str, Pairs]] = {}
        self._index: dict[str, _Namespace] = {}  # per namespace, rebuilt after a change
        # the merged selector of each combination of selecting Services seen: pods of one workload share it
        self._merged: dict[tuple[Pairs, ...], LabelSelector | None] = {}

    def on_add(self, service: Any) -> None:
        meta = service.metadata
        self.set(meta.namespace or "", meta.name or "", service.spec.selector if service.spec else None)

    def on_update(self, old: Any, new: Any) -> None:
        self.on_add(new)

    def on_delete(self, service: Any) -> None:
        self.delete(service.metadata.namespace or "", service.metadata.name or "")

    def set(self, namespace: str, name: str, selector: Mapping[str, str] | None) -> None:
        if selector is None:  # a nil selector selects nothing (upstream GetPodServices)
            self.delete(namespace, name)
        else:
            self._by_ns.setdefault(namespace, {})[name] = tuple(sorted(selector.items()))
            self._index.pop(namespace, None)

    def delete(self, namespace: str, name: str) -> None:
        self._by_ns.get(namespace, {}).pop(name, None)
        self._index.pop(namespace, None)

    def in_namespace(self, namespace: str) -> bool:
        return bool(self._by_ns.get(namespace))

    def selector_for(self, pod: PodInfo) -> LabelSelector | None:
        """The merged selectors of the Services selecting ``pod``; None when that is empty."""
        index = self._index.get(pod.namespace)
        if index is None:
            services = self._by_ns.get(pod.namespace)
            if not services:
                return None
            index = self._index[pod.namespace] = _Namespace(services)
        selecting = index.selecting(pod.labels)
        if not selecting:
            return None
        found = self._merged.get(selecting, ...)
        if found is ...:
            merged: dict[str, str] = {}
            for pairs in selecting:
                merged.update(pairs)
            if len(self._merged) >= _MEMO_LIMIT:
                self._merged.clear()
            found = self._merged[selecting] = (
                LabelSelector(tuple(sorted(merged.items()))) if merged else None)
        return found
