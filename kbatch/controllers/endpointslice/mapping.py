"""Pod events → the Services whose endpoints they may change (k8s.io/endpointslice
``util/controller_utils.go`` ``GetPodServiceMemberships``, ``GetServicesToUpdateOnPodChange``),
shared by the endpointslice and endpoints controllers.

Cheap on purpose, for pod create and status writes are the hot path: an update passes only when
:func:`..pods.pod_endpoints_changed` says it matters, and the mapper looks only at the Services of
the pod's namespace (the informer's namespace index), so a namespace without a Service costs one
index lookup. Old and new pod are both mapped on an update (a union of the Services before and
after; upstream reconciles the symmetric difference when only labels changed, a subset of it).
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.endpointslice.pods import pod_endpoints_changed, selects
from kbatch.runtime.cache import Cache
from kbatch.runtime.reconcile import Request

__all__ = ["POD_CHANGES", "ServicesForPod"]


class _PodChanges:
    """Predicate: every create and delete; an update only when the endpoints may change."""

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return pod_endpoints_changed(old, new)

    def delete(self, obj: Any) -> bool:
        return True


POD_CHANGES = _PodChanges()


class ServicesForPod:
    """A pod → the Services of its namespace whose selector picks it (a class: mappers are pickled)."""

    __slots__ = ("cache",)

    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def __call__(self, pod: Any) -> list[Request]:
        from kbatch.api.core_v1 import Service

        namespace = pod.metadata.namespace or ""
        services = self.cache.list(Service, namespace)
        if not services:
            return []
        labels = pod.metadata.labels
        return [Request(namespace, s.metadata.name or "") for s in services
                if selects(s.spec.selector, labels)]

    def __getstate__(self) -> Cache:
        return self.cache

    def __setstate__(self, state: Cache) -> None:
        self.cache = state
