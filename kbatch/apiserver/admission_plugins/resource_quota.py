"""``ResourceQuota`` admission (upstream ``plugin/pkg/admission/resourcequota``, ``controller.go``
``CheckRequest``), a validating plugin on every namespaced kind's create.

For each quota of the object's namespace, by name, that covers the object (its ``status.hard``
names a resource the kind is accounted in and its scopes select it; ``kbatch.api.quota_usage``):

* a pod without a cpu/memory request or limit the quota caps is ``Forbidden``:
  ``failed quota: q: must specify limits.cpu for: c; requests.memory for: c``;
* a quota whose ``status.used`` lacks one of those resources (the controller has not counted yet)
  is ``Forbidden``: ``status unknown for quota: q, resources: pods``;
* the object's usage added to ``status.used`` must stay within ``status.hard``, else ``Forbidden``:
  ``exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2``.

An admitted create charges every covering quota at once (``status.used`` written through the
status subresource, as upstream's quota evaluator does) so that the next create sees it; the
``resourcequota`` controller recounts later, which also returns a charge whose create then failed.
Dry runs charge nothing. Updates are not checked (upstream checks only pod resizes, which kbatch
does not model). A namespace without quotas costs one dict lookup per create.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kbatch.api.core_v1 import Pod, ResourceQuota
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.model_copy import copy_model
from kbatch.api.quantity import Quantity
from kbatch.api.quota_usage import IGNORED, covers, matching_resources, missing_requests, usage
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.priority import forbidden
from kbatch.apiserver.watched_range import WatchedRange

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ResourceQuotaAdmission", "exceeded", "install"]

_NO_QUOTAS: tuple[ResourceQuota, ...] = ()
_RETRIES = 5


def pretty(amounts: Mapping[str, Quantity]) -> str:
    """``prettyPrint``: ``name=value`` sorted by name, comma separated."""
    return ",".join(f"{name}={amounts[name]}" for name in sorted(amounts))


def exceeded(rq: ResourceQuota, requested: Mapping[str, Quantity]) -> str:
    """The ``exceeded quota: ...`` text if ``requested`` on top of ``status.used`` passes
    ``status.hard`` (``LessThanOrEqual``), else empty."""
    hard = (rq.status.hard if rq.status else None) or {}
    used = (rq.status.used if rq.status else None) or {}
    over = sorted(n for n, q in requested.items()
                  if n in hard and (used[n].add(q) if n in used else q).cmp(hard[n]) > 0)
    if not over:
        return ""
    zero = Quantity(0)
    return (f"exceeded quota: {rq.name}, requested: {pretty({n: requested[n] for n in over})}, "
            f"used: {pretty({n: used.get(n, zero) for n in over})}, "
            f"limited: {pretty({n: hard[n] for n in over})}")


class ResourceQuotaAdmission:
    def __init__(self, server: APIServer) -> None:
        self._server = server
        kind = server.kind(ResourceQuota)
        self._start, self._end = kind.keys.prefix(None), kind.keys.range_end(None)
        self._range = WatchedRange(server.store, self._start, self._end)
        self._by_namespace: dict[str, list[ResourceQuota]] = {}

    def _quotas(self, namespace: str) -> list[ResourceQuota] | tuple[ResourceQuota, ...]:
        if self._range.changed:
            self._range.rearm()
            get = self._server.decoded.get
            by_namespace: dict[str, list[ResourceQuota]] = {}
            for kv in self._server.store.range(self._start, self._end).kvs:  # key order: by name
                rq: ResourceQuota = get(ResourceQuota, kv)  # type: ignore[assignment]
                by_namespace.setdefault(rq.metadata.namespace or "", []).append(rq)
            self._by_namespace = by_namespace
        return self._by_namespace.get(namespace, _NO_QUOTAS)

    def validate(self, request: AdmissionRequest) -> None:
        obj = request.obj
        if request.operation != "CREATE":
            return
        namespace = obj.metadata.namespace
        quotas = self._quotas(namespace) if namespace else _NO_QUOTAS
        if not quotas:
            return
        resource = type(obj).api_info.group_resource
        if resource in IGNORED:
            return
        charged = self._check(request, resource, quotas)
        if charged and not request.dry_run:
            for rq, requested in charged:
                self._charge(rq, requested)

    def _check(self, request: AdmissionRequest, resource: str,
               quotas: list[ResourceQuota] | tuple[ResourceQuota, ...],
               ) -> list[tuple[ResourceQuota, dict[str, Quantity]]]:
        obj = request.obj
        covering = [rq for rq in quotas if covers(rq, resource, obj)]
        for rq in covering:
            names = matching_resources(resource, (rq.status.hard or {}) if rq.status else {})
            if isinstance(obj, Pod):
                missing = missing_requests(names, obj)
                if missing:
                    raise forbidden(resource, obj, f"failed quota: {rq.name}: {missing}")
            used = (rq.status.used if rq.status else None) or {}
            if any(n not in used for n in names):
                raise forbidden(resource, obj, f"status unknown for quota: {rq.name}, resources: "
                                f"{','.join(names)}")
        if not covering:
            return []
        delta = {n: q for n, q in usage(resource, obj, self._server.timestamp()).items() if not q.is_zero()}
        charged = []
        for rq in covering:
            hard = (rq.status.hard if rq.status else None) or {}
            requested = {n: q for n, q in delta.items() if n in hard}
            why = exceeded(rq, requested)
            if why:
                raise forbidden(resource, obj, why)
            if requested:
                charged.append((rq, requested))
        return charged

    def _charge(self, rq: ResourceQuota, requested: dict[str, Quantity]) -> None:
        """Add ``requested`` to the quota's ``status.used`` (the evaluator's status update, retried
        on a conflict against the stored quota)."""
        server = self._server
        for _ in range(_RETRIES):
            updated = copy_model(rq)
            status = updated.status
            assert status is not None
            used = dict(status.used or {})
            for name, q in requested.items():
                used[name] = used[name].add(q) if name in used else q
            status.used = used
            try:
                server.update_status(updated)
                return
            except Conflict:
                try:
                    rq = server.get(ResourceQuota, rq.name, rq.metadata.namespace)
                except NotFound:
                    return
                if rq.status is None:
                    return


def install(server: APIServer) -> None:
    """The plugin's hook on creates of every kind (it answers only for namespaced objects), after every
    other validating hook, so that a create another one refuses is never charged
    (``AllOrderedPlugins``: "ResourceQuota" last)."""
    if ResourceQuota not in server.registry:
        return
    plugin = ResourceQuotaAdmission(server)
    server.admission.add_validating(None, plugin.validate, main_resource_only=True, last=True)
