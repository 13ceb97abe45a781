"""The ``endpoint`` controller (kube-controller-manager's ``endpoints-controller``,
``pkg/controller/endpoint``): one core/v1 Endpoints per Service with a selector, named after it.
Still run by kube-controller-manager in 1.37 though the API is deprecated (KEP-4974).
docs/simulation.md "Endpoints and EndpointSlices".

Requests are Services: Service events enqueue the Service, pod events the Services selecting the pod
(:mod:`kbatch.controllers.endpointslice.mapping`), an Endpoints *delete* the Service of the same name
(upstream registers only ``DeleteFunc`` on the Endpoints informer); at the controller's start every
Endpoints present but a leader-election lock queues its Service (``checkLeftoverEndpoints``,
:mod:`.leftovers`), so one left without its Service is deleted then, never on its create. Pure parts:
:mod:`.subsets`, :mod:`.leftovers`.
"""

from __future__ import annotations

from kbatch.controllers.endpoint.controller import EndpointsController
from kbatch.controllers.endpoint.leftovers import LEADER_ANNOTATION, leftover_requests
from kbatch.controllers.endpoint.subsets import MAX_CAPACITY, desired_subsets, truncate
from kbatch.runtime.context import ControllerContext

__all__ = ["LEADER_ANNOTATION", "MAX_CAPACITY", "EndpointsController", "desired_subsets", "leftover_requests",
           "setup", "truncate"]


def setup(ctx: ControllerContext) -> EndpointsController:
    """Catalog factory for ``endpoint``."""
    from kbatch.api.core_v1 import Endpoints, Pod, Service
    from kbatch.controllers.endpointslice.mapping import ServiceSelectors
    from kbatch.runtime.predicate import Funcs

    controller = EndpointsController(ctx)
    services = ServiceSelectors(ctx.cache)
    queue = (ctx.build()
        .describe("keeps one core/v1 Endpoints per Service with a selector (deprecated API)")
        .for_(Service)
        .watches(Pod, services, services)
        .watches(Endpoints, controller.for_endpoints, Funcs(create=False, update=False))
        .complete(controller))
    # checkLeftoverEndpoints, once at the controller's start: a control plane's construction (a CLI
    # command continuing a state directory's image continues the running controller; docs/endpoints.md)
    for request in leftover_requests(ctx.client.list(Endpoints).items):
        queue.enqueue(request)
    return controller
