"""The ``endpointslice`` controller (kube-controller-manager's ``endpointslice-controller``,
``pkg/controller/endpointslice`` over k8s.io/endpointslice): the EndpointSlices of every Service with a
selector. docs/simulation.md "Endpoints and EndpointSlices".

Requests are Services: Service events enqueue the Service; pod events the Services of the pod's
namespace that select it (:mod:`.mapping`, only when the endpoints may change); EndpointSlice events
the Service a slice is labelled with, unless the controller's own write caused them. The decision is
pure (:mod:`.reconciler`, :mod:`.pods`, :mod:`.trigger_time`); :mod:`.controller` writes it.
Option: ``max_endpoints_per_slice`` (100).
"""

from __future__ import annotations

from kbatch.controllers.endpointslice.controller import MIN_SYNC_DELAY, EndpointSliceController, MissingNode
from kbatch.controllers.endpointslice.mapping import ServiceSelectors
from kbatch.controllers.endpointslice.reconciler import MAX_ENDPOINTS_PER_SLICE, SlicePlan, plan_slices
from kbatch.runtime.context import ControllerContext

__all__ = ["MAX_ENDPOINTS_PER_SLICE", "MIN_SYNC_DELAY", "EndpointSliceController", "MissingNode", "SlicePlan",
           "plan_slices", "setup"]


def setup(ctx: ControllerContext) -> EndpointSliceController:
    """Catalog factory for ``endpointslice``."""
    from kbatch.api.core_v1 import Pod, Service
    from kbatch.api.discovery_v1 import EndpointSlice
    from kbatch.runtime.handler import new_object_only

    controller = EndpointSliceController(ctx)
    services = ServiceSelectors(ctx.cache)
    (ctx.build()
        .describe("keeps the EndpointSlices of Services with a selector (discovery.k8s.io/v1)")
        .for_(Service)
        .watches(Pod, services, services)
        .watches(EndpointSlice, new_object_only(controller.for_slice))
        .complete(controller))
    return controller
