"""Pod events → the Services whose endpoints they may change (k8s.io/endpointslice
``util/controller_utils.go`` ``GetPodServiceMemberships``, ``GetServicesToUpdateOnPodChange``),
shared by the endpointslice and endpoints controllers.

Cheap on purpose, for pod creates and status writes are the hot path: :class:`ServiceSelectors` keeps,
from the Service informer's events, the selectors of each namespace's Services that get endpoints
(a selector, not ExternalName). A pod event in a namespace without one costs a dict lookup; an update
passes only when :func:`..pods.pod_endpoints_changed` says it matters. Old and new pod are both mapped
on an update (the Services before and after; upstream reconciles the symmetric difference when only
labels changed, a subset of it).
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.endpointslice.pods import pod_endpoints_changed, selects
from kbatch.runtime.cache import Cache
from kbatch.runtime.reconcile import Request

__all__ = ["ServiceSelectors"]


class ServiceSelectors:
    """The Services that get endpoints, by namespace (a Service informer handler), and the pod
    predicate and mapper reading them. A class: handlers, predicates and mappers are pickled."""

    __slots__ = ("by_namespace",)

    def __init__(self, cache: Cache) -> None:
        from kbatch.api.core_v1 import Service

        self.by_namespace: dict[str, dict[str, dict[str, str]]] = {}
        cache.informer_for(Service).add_event_handler(self)

    # -- the Service informer's events ---------------------------------------------------------
    def on_add(self, service: Any) -> None:
        namespace, name = service.metadata.namespace or "", service.metadata.name or ""
        selectors = self.by_namespace.get(namespace)
        if service.spec.selector is not None and service.spec.type != "ExternalName":
            self.by_namespace.setdefault(namespace, {})[name] = service.spec.selector
        elif selectors is not None:
            selectors.pop(name, None)
            if not selectors:
                del self.by_namespace[namespace]

    def on_update(self, old: Any, new: Any) -> None:
        self.on_add(new)

    def on_delete(self, service: Any) -> None:
        namespace = service.metadata.namespace or ""
        selectors = self.by_namespace.get(namespace)
        if selectors is not None:
            selectors.pop(service.metadata.name or "", None)
            if not selectors:
                del self.by_namespace[namespace]

    # -- pod events: predicate, then mapper ------------------------------------------------------
    def create(self, pod: Any) -> bool:
        return (pod.metadata.namespace or "") in self.by_namespace

    def update(self, old: Any, new: Any) -> bool:
        return (new.metadata.namespace or "") in self.by_namespace and pod_endpoints_changed(old, new)

    def delete(self, pod: Any) -> bool:
        return self.create(pod)

    def __call__(self, pod: Any) -> list[Request]:
        namespace = pod.metadata.namespace or ""
        labels = pod.metadata.labels
        selectors = self.by_namespace.get(namespace, {})
        return [Request(namespace, name) for name, selector in sorted(selectors.items())
                if selects(selector, labels)]
