"""The ``endpoint`` controller (kube-controller-manager's ``endpoints-controller``,
``pkg/controller/endpoint``): one core/v1 Endpoints per Service with a selector, named after it.
Still run by kube-controller-manager in 1.37 though the API is deprecated (KEP-4974).
docs/simulation.md "Endpoints and EndpointSlices".

Requests are Services: Service events enqueue the Service, pod events the Services selecting the pod
(:mod:`kbatch.controllers.endpointslice.mapping`), Endpoints creates and deletes the Service of the
same name (an Endpoints left without its Service is deleted). Pure part: :mod:`.subsets`.
"""

from __future__ import annotations

from kbatch.controllers.endpoint.controller import EndpointsController
from kbatch.controllers.endpoint.subsets import MAX_CAPACITY, desired_subsets, truncate
from kbatch.runtime.context import ControllerContext

__all__ = ["MAX_CAPACITY", "EndpointsController", "desired_subsets", "setup", "truncate"]


def setup(ctx: ControllerContext) -> EndpointsController:
    """Catalog factory for ``endpoint``."""
    from kbatch.api.core_v1 import Endpoints, Pod, Service
    from kbatch.controllers.endpointslice.mapping import ServiceSelectors
    from kbatch.runtime.predicate import Funcs

    controller = EndpointsController(ctx)
    services = ServiceSelectors(ctx.cache)
    (ctx.build()
        .describe("keeps one core/v1 Endpoints per Service with a selector (deprecated API)")
        .for_(Service)
        .watches(Pod, services, services)
        .watches(Endpoints, controller.for_endpoints, Funcs(update=False))
        .complete(controller))
    return controller
