"""The effectful half of the endpointslice-mirroring controller (kubernetes
``pkg/controller/endpointslicemirroring/endpointslicemirroring_controller.go`` ``syncEndpoints``,
``reconciler.go`` ``finalize`` and ``deleteEndpoints``; the plan is :mod:`.reconciler`).

One sync per Endpoints (its namespace and name). Its mirrored slices (labelled with its name and
managed by this controller) are all deleted when the Endpoints is gone, is not to be mirrored (the
``endpointslice.kubernetes.io/skip-mirror: "true"`` label, or a leader-election annotation), has no
Service of its name, or that Service has a selector (the endpointslice controller's business).
Otherwise the plan is written: creates (a terminating namespace drops the sync), updates, deletes;
a failed write raises, so the Endpoints is retried with back-off. Addresses left out give Warning
events on the Endpoints: ``InvalidIPAddress`` and ``TooManyAddressesToMirror``.

The controller writes as ``system:serviceaccount:kube-system:endpointslicemirroring-controller`` and
remembers the resourceVersion of each slice it wrote (upstream's ``EndpointSliceTracker``): an event
it caused itself enqueues nothing; anyone else's change to one of its slices, or a deletion it did
not make, brings the Endpoints back.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.core_v1 import Endpoints, Service
from kbatch.api.core_v1.endpoints import LEADER_ANNOTATION
from kbatch.api.discovery_v1 import LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_SKIP_MIRROR, EndpointSlice
from kbatch.api.errors import NAMESPACE_TERMINATING_CAUSE, NotFound, StatusError, has_status_cause
from kbatch.controllers.endpointslicemirroring.desired import MAX_ENDPOINTS_PER_SUBSET
from kbatch.controllers.endpointslicemirroring.reconciler import CONTROLLER_NAME, MirrorPlan, plan_mirror
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["LEADER_ANNOTATION", "EndpointSliceMirroringController", "should_mirror"]

_DELETED = "deleted"


def should_mirror(endpoints: Any) -> bool:
    """``shouldMirror``: not labelled skip-mirror, not a leader-election lock."""
    return ((endpoints.metadata.labels or {}).get(LABEL_SKIP_MIRROR) != "true"
            and LEADER_ANNOTATION not in (endpoints.metadata.annotations or {}))


class EndpointSliceMirroringController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.most = int(ctx.options.get("mirroring_max_endpoints_per_subset", MAX_ENDPOINTS_PER_SUBSET))
        self.written: dict[tuple[str, str], str] = {}  # (namespace, slice) -> resourceVersion we wrote

    # -- events (the predicates and mappers of :func:`kbatch.controllers.endpointslicemirroring.setup`)
    def slice_changed_by_others(self, eps: Any) -> bool:
        """``onEndpointSliceAdd``/``Update``: one of ours, not in the state we wrote it in."""
        if (eps.metadata.labels or {}).get(LABEL_MANAGED_BY) != CONTROLLER_NAME:
            return False
        return self.written.get(_key(eps)) not in (eps.metadata.resource_version, _DELETED)

    def slice_deleted_by_others(self, eps: Any) -> bool:
        """``onEndpointSliceDelete``: one we wrote and did not delete ourselves."""
        if (eps.metadata.labels or {}).get(LABEL_MANAGED_BY) != CONTROLLER_NAME:
            return False
        written = self.written.pop(_key(eps), None)
        return written is not None and written != _DELETED

    # -- the sync ----------------------------------------------------------------------------------
    def reconcile(self, request: Request) -> None:
        endpoints = self._get(Endpoints, request)
        service = self._get(Service, request) if endpoints is not None and should_mirror(endpoints) else None
        if endpoints is None or service is None or service.spec.selector is not None:
            self._delete_mirrored(request)
            return
        plan = plan_mirror(endpoints, self._mirrored(request), self.most)
        self._warn(endpoints, plan)
        self._write(endpoints, plan)

    def _get(self, kind: Any, request: Request) -> Any:
        try:
            return self.ctx.cache.get(kind, request.name, request.namespace)
        except NotFound:
            return None

    def _mirrored(self, request: Request) -> list[Any]:
        """``endpointSlicesMirroredForService``."""
        labels = {LABEL_SERVICE_NAME: request.name, LABEL_MANAGED_BY: CONTROLLER_NAME}
        return self.ctx.cache.list(EndpointSlice, request.namespace, labels=labels)

    def _delete_mirrored(self, request: Request) -> None:
        """``deleteMirroredSlices``."""
        for eps in self._mirrored(request):
            self._delete(eps)

    def _delete(self, eps: Any) -> None:
        key = _key(eps)
        self.written[key] = _DELETED
        with contextlib.suppress(NotFound):
            self.ctx.client.delete(EndpointSlice, key[1], key[0])

    def _warn(self, endpoints: Any, plan: MirrorPlan) -> None:
        recorder = self.ctx.recorder
        if plan.invalid:
            recorder.event(endpoints, "Warning", "InvalidIPAddress",
                           f"Skipped {plan.invalid} invalid IP addresses when mirroring to EndpointSlices")
        if plan.skipped > plan.invalid:
            recorder.event(endpoints, "Warning", "TooManyAddressesToMirror",
                           f"A max of {self.most} addresses can be mirrored to EndpointSlices per Endpoints "
                           f"subset. {plan.skipped} addresses were skipped")

    def _write(self, endpoints: Any, plan: MirrorPlan) -> None:
        client = self.ctx.client
        for eps in plan.create:
            try:
                created = client.create(eps)
            except StatusError as err:
                if has_status_cause(err, NAMESPACE_TERMINATING_CAUSE):
                    return
                raise
            self.written[_key(created)] = created.metadata.resource_version or ""
        for eps in plan.update:
            updated = client.update(eps)
            self.written[_key(updated)] = updated.metadata.resource_version or ""
        for eps in plan.delete:
            self._delete(eps)


def _key(eps: Any) -> tuple[str, str]:
    return eps.metadata.namespace or "", eps.metadata.name or ""
