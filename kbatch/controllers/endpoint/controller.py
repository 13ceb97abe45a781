"""The effectful half of the endpoints controller (kubernetes ``pkg/controller/endpoint/
endpoints_controller.go`` ``syncService``; the subsets are :mod:`.subsets`).

Requests are Services (the keys :mod:`.leftovers` queues at start are the Services of the Endpoints
then present). A Service that is gone takes its Endpoints with it (deleted by name: Endpoints carry no owner
reference). An ``ExternalName`` Service or one without a selector is left alone. Otherwise the
Endpoints named after the Service is created or updated when its subsets, its labels (the Service's,
plus ``service.kubernetes.io/headless`` for a headless one) or its over-capacity annotation are not
what they should be; the trigger-time annotation (:mod:`kbatch.controllers.endpointslice.trigger_time`)
is set or cleared with each write. A failed write raises (retried with back-off) after a Warning
``FailedToCreateEndpoint`` / ``FailedToUpdateEndpoint`` event; a create refused because the namespace
is terminating is dropped.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.core_v1 import (
    ENDPOINTS_LAST_CHANGE_TRIGGER_TIME,
    ENDPOINTS_OVER_CAPACITY,
    IS_HEADLESS_SERVICE,
    Endpoints,
    Pod,
    Service,
)
from kbatch.api.errors import NAMESPACE_TERMINATING_CAUSE, NotFound, StatusError, has_status_cause
from kbatch.api.frozen import edit
from kbatch.api.meta import ObjectMeta
from kbatch.controllers.endpoint.leftovers import request_of
from kbatch.controllers.endpoint.subsets import capacity_annotation_correct, desired_subsets, truncate
from kbatch.controllers.endpointslice.trigger_time import TriggerTimeTracker, format_trigger_time
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["EndpointsController"]

class EndpointsController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.triggers = TriggerTimeTracker()

    @staticmethod
    def for_endpoints(ep: Any) -> list[Request]:
        """``onEndpointsDelete``: a deleted Endpoints queues the Service of its name (any Endpoints,
        a leader-election lock too); creates and updates queue nothing (:mod:`.leftovers`)."""
        return [request_of(ep)]

    def reconcile(self, request: Request) -> None:
        try:
            service = self.ctx.cache.get(Service, request.name, request.namespace)
        except NotFound:
            self._delete(request)
            return
        if service.spec.type == "ExternalName" or service.spec.selector is None:
            return
        pods = self.ctx.cache.list(Pod, request.namespace, labels=service.spec.selector) \
            if service.spec.selector else self.ctx.cache.list(Pod, request.namespace)
        trigger = self.triggers.compute(service, pods)
        subsets = desired_subsets(service, pods)
        try:
            current: Any = self.ctx.cache.get(Endpoints, request.name, request.namespace)
        except NotFound:
            current = None
        if current is not None and self._up_to_date(current, service, subsets):
            return
        self._write(service, current, subsets, format_trigger_time(trigger) if trigger is not None else None)

    def _delete(self, request: Request) -> None:
        self.triggers.delete_service(request.namespace, request.name)
        with contextlib.suppress(NotFound):
            self.ctx.client.delete(Endpoints, request.name, request.namespace)

    @staticmethod
    def _up_to_date(current: Any, service: Any, subsets: list[Any]) -> bool:
        labels = {k: v for k, v in (current.metadata.labels or {}).items() if k != IS_HEADLESS_SERVICE}
        return (_without_versions(current.subsets or []) == _without_versions(subsets)
                and labels == (service.metadata.labels or {})
                and capacity_annotation_correct(current.metadata.annotations, current.subsets or []))

    def _write(self, service: Any, current: Any, subsets: list[Any], trigger: str | None) -> None:
        ep = edit(current) if current is not None else Endpoints(metadata=ObjectMeta(
            name=service.metadata.name, namespace=service.metadata.namespace))
        annotations = dict(ep.metadata.annotations or {})
        if trigger is not None:
            annotations[ENDPOINTS_LAST_CHANGE_TRIGGER_TIME] = trigger
        else:
            annotations.pop(ENDPOINTS_LAST_CHANGE_TRIGGER_TIME, None)
        if truncate(subsets):
            annotations[ENDPOINTS_OVER_CAPACITY] = "truncated"
        else:
            annotations.pop(ENDPOINTS_OVER_CAPACITY, None)
        labels = dict(service.metadata.labels or {})
        headless = service.spec.cluster_ip in (None, "", "None")
        if headless:
            labels[IS_HEADLESS_SERVICE] = ""
        ep.subsets = subsets or None
        ep.metadata.annotations, ep.metadata.labels = annotations or None, labels or None
        try:
            self.ctx.client.update(ep) if current is not None else self.ctx.client.create(ep)
        except StatusError as err:
            if current is None and has_status_cause(err, NAMESPACE_TERMINATING_CAUSE):
                return
            name = f"{service.metadata.namespace}/{service.metadata.name}"
            reason, message = (("FailedToUpdateEndpoint", f"Failed to update endpoint {name}: {err}")
                               if current is not None else
                               ("FailedToCreateEndpoint",
                                f"Failed to create endpoint for service {name}: {err}"))
            self.ctx.recorder.event(ep, "Warning", reason, message)
            raise


def _without_versions(subsets: list[Any]) -> list[Any]:
    """``endpointSubsetsEqualIgnoreResourceVersion``: the targets' resourceVersion aside."""
    return [s.model_dump(exclude={"addresses": {"__all__": {"target_ref": {"resource_version"}}},
                                  "not_ready_addresses": {"__all__": {"target_ref": {"resource_version"}}}})
            for s in subsets]
