"""The ``endpointslicemirroring`` controller (kube-controller-manager's
``endpointslice-mirroring-controller``, ``pkg/controller/endpointslicemirroring``): the EndpointSlices
of Endpoints written by hand for a Service without a selector. docs/endpoints.md.

Requests are Endpoints (namespace and name). Events, as upstream's handlers:

* Endpoints: created or deleted when to be mirrored (:func:`.controller.should_mirror`), updated when
  the old or the new one is;
* Services: created or deleted without a selector, updated when the selector appears or goes;
* EndpointSlices managed by this controller: the Endpoints named by ``kubernetes.io/service-name``
  (both names when that label changed), when someone else wrote or deleted the slice, or when the
  managed-by label moved to or from this controller.

The plan is pure (:mod:`.desired`, :mod:`.reconciler`); :mod:`.controller` writes it. Option:
``mirroring_max_endpoints_per_subset`` (1000, ``--mirroring-max-endpoints-per-subset``).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.discovery_v1 import LABEL_MANAGED_BY, LABEL_SERVICE_NAME
from kbatch.controllers.endpointslicemirroring.controller import (
    EndpointSliceMirroringController,
    should_mirror,
)
from kbatch.controllers.endpointslicemirroring.desired import MAX_ENDPOINTS_PER_SUBSET, desired_groups
from kbatch.controllers.endpointslicemirroring.reconciler import CONTROLLER_NAME, MirrorPlan, plan_mirror
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["CONTROLLER_NAME", "MAX_ENDPOINTS_PER_SUBSET", "EndpointSliceMirroringController", "MirrorPlan",
           "desired_groups", "plan_mirror", "setup", "should_mirror"]


class _EndpointsEvents:
    """``onEndpointsAdd``/``Update``/``Delete``."""

    def create(self, obj: Any) -> bool:
        return should_mirror(obj)

    def update(self, old: Any, new: Any) -> bool:
        return should_mirror(old) or should_mirror(new)

    def delete(self, obj: Any) -> bool:
        return should_mirror(obj)


class _ServiceEvents:
    """``onServiceAdd``/``Update``/``Delete``: Services without a selector."""

    def create(self, obj: Any) -> bool:
        return obj.spec.selector is None

    def update(self, old: Any, new: Any) -> bool:
        return (old.spec.selector is None) != (new.spec.selector is None)

    def delete(self, obj: Any) -> bool:
        return obj.spec.selector is None


class _SliceEvents:
    """``onEndpointSliceAdd``/``Update``/``Delete`` (the controller remembers its own writes)."""

    def __init__(self, controller: EndpointSliceMirroringController) -> None:
        self.controller = controller

    def create(self, obj: Any) -> bool:
        return self.controller.slice_changed_by_others(obj)

    def update(self, old: Any, new: Any) -> bool:
        before, after = old.metadata.labels or {}, new.metadata.labels or {}
        if before.get(LABEL_SERVICE_NAME) != after.get(LABEL_SERVICE_NAME):
            return True
        ours_before, ours_after = (before.get(LABEL_MANAGED_BY) == CONTROLLER_NAME,
                                   after.get(LABEL_MANAGED_BY) == CONTROLLER_NAME)
        return ours_before != ours_after or self.controller.slice_changed_by_others(new)

    def delete(self, obj: Any) -> bool:
        return self.controller.slice_deleted_by_others(obj)


def endpoints_of_slice(eps: Any) -> list[Request]:
    """``endpointsControllerKey``: the Endpoints the slice is labelled with."""
    name = (eps.metadata.labels or {}).get(LABEL_SERVICE_NAME)
    return [Request(eps.metadata.namespace or "", name)] if name else []


def setup(ctx: ControllerContext) -> EndpointSliceMirroringController:
    """Catalog factory for ``endpointslicemirroring``: upstream's rate limiter (per Endpoints 1 s
    doubling to 100 s, overall 10 qps with a burst of 100)."""
    from kbatch.api.core_v1 import Endpoints, Service
    from kbatch.api.discovery_v1 import EndpointSlice
    from kbatch.runtime.handler import enqueue_object
    from kbatch.runtime.workqueue.rate_limiters import (
        BucketRateLimiter,
        ItemExponentialFailureRateLimiter,
        max_of,
    )

    controller = EndpointSliceMirroringController(ctx)
    limiter = max_of(ItemExponentialFailureRateLimiter(1.0, 100.0), BucketRateLimiter(ctx.clock, 10.0, 100))
    (ctx.build()
        .describe("mirrors the Endpoints of Services without a selector into EndpointSlices")
        .for_(Endpoints, _EndpointsEvents())
        .watches(Service, enqueue_object, _ServiceEvents())
        .watches(EndpointSlice, endpoints_of_slice, _SliceEvents(controller))
        .with_rate_limiter(limiter)
        .complete(controller))
    return controller
