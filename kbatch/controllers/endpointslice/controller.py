"""The effectful half of the endpointslice controller (kubernetes ``pkg/controller/endpointslice/
endpointslice_controller.go`` ``syncService``; the plan is :mod:`.reconciler`).

One sync per Service: a Service that is gone leaves nothing to do (its slices carry it as controller
owner: the garbage collector deletes them); an ``ExternalName`` Service or one without a selector gets
no slices from this controller (kubernetes#105986). Otherwise the selected pods (the informer's label
index), the slices labelled with the Service's name and managed by this controller (those being
deleted left out) and the trigger time (:mod:`.trigger_time`) make the plan, written in order:
creates (none while the Service is being deleted; a terminating namespace drops the sync),
updates, deletes. A failed write or a missing node raises, so the Service is retried with back-off,
with a Warning ``FailedToUpdateEndpointSlices`` event on the Service for a failed write.

The controller writes its slices as ``system:serviceaccount:kube-system:endpointslice-controller`` and
remembers the resourceVersion of each (upstream's ``EndpointSliceTracker``): a slice event it caused
itself enqueues nothing; anyone else's change to one of its slices, or a deletion it did not
make, brings the Service back (after ``endpointSliceChangeMinSyncDelay``, 1 s).
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.core_v1 import ENDPOINTS_LAST_CHANGE_TRIGGER_TIME, Node, Pod, Service
from kbatch.api.discovery_v1 import CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, EndpointSlice
from kbatch.api.errors import NAMESPACE_TERMINATING_CAUSE, NotFound, StatusError, has_status_cause
from kbatch.controllers.endpointslice.reconciler import MAX_ENDPOINTS_PER_SLICE, SlicePlan, plan_slices
from kbatch.controllers.endpointslice.trigger_time import TriggerTimeTracker, format_trigger_time
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["MIN_SYNC_DELAY", "EndpointSliceController", "MissingNode"]

MIN_SYNC_DELAY = 1.0  # endpointSliceChangeMinSyncDelay
ZONE_LABEL = "topology.kubernetes.io/zone"


class MissingNode(Exception):
    """A selected pod's node is not in the cache: retried with back-off (the slices were written
    without that pod)."""


class EndpointSliceController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.most = int(ctx.options.get("max_endpoints_per_slice", MAX_ENDPOINTS_PER_SLICE))
        self.triggers = TriggerTimeTracker()
        self.written: dict[tuple[str, str], str] = {}  # (namespace, slice) -> resourceVersion we wrote
        self.delayed: set[Request] = set()

    # -- events ------------------------------------------------------------------------------------
    def for_slice(self, eps: Any) -> list[Request]:
        """An EndpointSlice event → its Service, unless this controller caused it (module docstring)."""
        labels = eps.metadata.labels or {}
        service = labels.get(LABEL_SERVICE_NAME)
        if labels.get(LABEL_MANAGED_BY) != CONTROLLER_NAME or not service:
            return []
        key = (eps.metadata.namespace or "", eps.metadata.name or "")
        if self.written.get(key) in (eps.metadata.resource_version, "deleted"):
            return []
        request = Request(key[0], service)
        self.delayed.add(request)
        return [request]

    def _node(self, name: str) -> tuple[bool, str | None]:
        try:
            node = self.ctx.cache.get(Node, name)
        except NotFound:
            return False, None
        return True, (node.metadata.labels or {}).get(ZONE_LABEL) or None

    # -- the sync ----------------------------------------------------------------------------------
    def reconcile(self, request: Request) -> Result | None:
        if request in self.delayed:  # a slice change: wait endpointSliceChangeMinSyncDelay first
            self.delayed.discard(request)
            return Result(requeue_after=MIN_SYNC_DELAY)
        try:
            service = self.ctx.cache.get(Service, request.name, request.namespace)
        except NotFound:
            self.triggers.delete_service(request.namespace, request.name)
            self._forget_gone(request.namespace)
            return None
        if service.spec.type == "ExternalName" or service.spec.selector is None:
            return None
        pods = self.ctx.cache.list(Pod, request.namespace, labels=service.spec.selector) \
            if service.spec.selector else self.ctx.cache.list(Pod, request.namespace)
        existing = [s for s in self.ctx.cache.list(EndpointSlice, request.namespace,
                                                   labels={LABEL_SERVICE_NAME: request.name,
                                                           LABEL_MANAGED_BY: CONTROLLER_NAME})
                    if s.metadata.deletion_timestamp is None]
        trigger = self.triggers.compute(service, pods)
        plan = plan_slices(service, pods, self._node, existing, CONTROLLER_NAME, self.most)
        try:
            self._write(service, plan, format_trigger_time(trigger) if trigger is not None else None)
        except StatusError as err:
            if has_status_cause(err, NAMESPACE_TERMINATING_CAUSE):
                return None
            self.ctx.recorder.event(service, "Warning", "FailedToUpdateEndpointSlices",
                                    f"Error updating Endpoint Slices for Service {request.namespace}/"
                                    f"{request.name}: {err}")
            raise
        if plan.missing_node:
            raise MissingNode(f"a pod of Service {request.namespace}/{request.name} is on a node not found")
        return None

    def _forget_gone(self, namespace: str) -> None:
        """Drop what is remembered of the namespace's slices that no longer exist (a gone Service's
        slices go with it: their deletion events bring the Service back here once more)."""
        for key in [k for k in self.written if k[0] == namespace]:
            try:
                self.ctx.cache.get(EndpointSlice, key[1], namespace)
            except NotFound:
                del self.written[key]

    def _write(self, service: Any, plan: SlicePlan, trigger: str | None) -> None:
        client = self.ctx.client
        for eps in plan.create if service.metadata.deletion_timestamp is None else ():
            created = client.create(_annotated(eps, trigger))
            self.written[(created.metadata.namespace or "", created.metadata.name or "")] = \
                created.metadata.resource_version or ""
        for eps in plan.update:
            updated = client.update(_annotated(eps, trigger))
            self.written[(updated.metadata.namespace or "", updated.metadata.name or "")] = \
                updated.metadata.resource_version or ""
        for eps in plan.delete:
            key = (eps.metadata.namespace or "", eps.metadata.name or "")
            self.written[key] = "deleted"
            with contextlib.suppress(NotFound):
                client.delete(EndpointSlice, key[1], key[0])


def _annotated(eps: EndpointSlice, trigger: str | None) -> EndpointSlice:
    """``addTriggerTimeAnnotation``: set, or removed when there is no new trigger time (``eps`` is the
    plan's own copy)."""
    eps.endpoints, eps.ports = eps.endpoints or None, eps.ports or None  # empty: null, as upstream reads
    annotations = dict(eps.metadata.annotations or {})
    if trigger is not None:
        annotations[ENDPOINTS_LAST_CHANGE_TRIGGER_TIME] = trigger
    else:
        annotations.pop(ENDPOINTS_LAST_CHANGE_TRIGGER_TIME, None)
    eps.metadata.annotations = annotations or None
    return eps
