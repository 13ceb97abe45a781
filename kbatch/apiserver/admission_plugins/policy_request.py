"""What both admission-policy plugins (validating and mutating) read of a request and of the store.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/cel/activation.go`` and ``cel.CreateAdmissionRequest``
(the ``request`` variable), ``cel.CreateNamespaceObject`` (``namespaceObject``, without managed
fields), ``policy/generic/policy_source.go`` (policies and bindings read from informers; kbatch reads
the store again only after a change under their prefix, :class:`Stored`).

Who a request is: the admission request's user (``Attributes.GetUserInfo``), the caller ``kbatch
serve`` authenticated or the user it impersonates, and the local administrator for in-process writes
(:mod:`kbatch.apiserver.requester`; docs/rbac.md, "Who a request is"). ``request.userInfo`` is that
user as ``authentication.k8s.io/v1`` ``UserInfo`` (``CreateAdmissionRequest``; empty fields left out,
as their ``omitempty`` tags leave them out of the value CEL reads), and the ``authorizer`` asks about
that user.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kbatch.api.cel.authz import authorizer_variables
from kbatch.api.core_v1 import Namespace
from kbatch.api.errors import NotFound
from kbatch.api.meta import Resource
from kbatch.api.wire_zeros import with_wire_zeros
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.policy_matching import Attributes
from kbatch.apiserver.subresource_admission import request_info
from kbatch.apiserver.watched_range import WatchedRange
from kbatch.authz.user import user_info_wire

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["Stored", "attributes", "cel_object", "namespace_labels", "request_variables", "wire"]


def wire(obj: Resource | None) -> Any:
    """An object's JSON form as kbatch stores it (None stays null)."""
    return None if obj is None else json.loads(obj.to_json())


def cel_object(obj: Resource | None) -> Any:
    """An object as the expressions read it: ``runtime.DefaultUnstructuredConverter.ToUnstructured``
    of the typed object (apiserver ``pkg/admission/plugin/cel/filter.go``, ``objectToResolveVal``),
    which like encoding/json keeps a by-value struct under ``omitempty``, so a built-in kind's unset
    fields are there as Go writes them (a container's ``resources: {}``, :mod:`kbatch.api.wire_zeros`);
    a custom resource is read as stored."""
    return None if obj is None else with_wire_zeros(wire(obj))


class Stored:
    """The stored objects of one kind, read again after a change under their prefix."""

    def __init__(self, server: APIServer, model: type[Resource]) -> None:
        kind = server.kind(model)
        self._server, self._model = server, model
        self._start, self._end = kind.keys.prefix(None), kind.keys.range_end(None)
        self._range = WatchedRange(server.store, self._start, self._end)
        self._items: list[Any] = []

    def get(self) -> list[Any]:
        if self._range.changed:
            self._range.rearm()
            get = self._server.decoded.get
            self._items = [
                get(self._model, kv) for kv in self._server.store.range(self._start, self._end).kvs
            ]
        return self._items


def attributes(server: APIServer, request: AdmissionRequest) -> Attributes:
    """The request as matching reads it (``admission.Attributes``)."""
    obj, old = request.obj, request.old
    info = request_info(request)  # pods for pods/binding and pods/eviction
    versions = tuple(
        spec.info.version
        for spec in server.registry.served()
        if spec.info.group == info.group and spec.info.plural == info.plural
    )
    return Attributes(
        operation=request.operation,
        group=info.group,
        version=info.version,
        resource=info.plural,
        subresource=request.subresource,
        name=obj.metadata.name or "",
        namespace=obj.metadata.namespace or "",
        namespaced=info.namespaced,
        is_namespace_kind=isinstance(obj, Namespace),
        labels=obj.metadata.labels,
        old_labels=old.metadata.labels if old is not None else None,
        versions=versions,
    )


def _namespace(server: APIServer, attrs: Attributes) -> Namespace | None:
    if not attrs.namespaced or not attrs.namespace:
        return None
    try:
        return server.get(Namespace, attrs.namespace)
    except NotFound:
        return None


def namespace_labels(server: APIServer, attrs: Attributes) -> dict[str, str] | None:
    ns = _namespace(server, attrs)
    return dict(ns.metadata.labels or {}) if ns is not None else None


def request_variables(server: APIServer, request: AdmissionRequest, attrs: Attributes,
                      current: Any = None) -> dict[str, Any]:
    """``object``, ``oldObject``, ``request``, ``namespaceObject`` (``cel.CreateAdmissionRequest``,
    ``cel.CreateNamespaceObject``), ``authorizer`` and ``authorizer.requestResource``
    (``cel.OptionalVariableBindings``; their checks go to the checker the plugin installs).
    ``current``: the object's view already built (a mutating policy's, patched so far)."""
    info = type(request.obj).api_info
    kind = {"group": info.group, "version": info.version, "kind": info.kind}
    resource = {"group": attrs.group, "version": attrs.version, "resource": attrs.resource}
    ns = cel_object(_namespace(server, attrs))
    user = user_info_wire(request.user)
    if ns is not None:
        ns["metadata"].pop("managedFields", None)
    return {
        "object": None if request.operation == "DELETE"  # null on DELETE
        else current if current is not None else cel_object(request.obj),
        "oldObject": cel_object(request.old),
        "request": {
            "kind": kind,
            "resource": resource,
            "subResource": attrs.subresource,
            "requestKind": kind,
            "requestResource": resource,
            "requestSubResource": attrs.subresource,
            "name": attrs.name,
            "namespace": attrs.namespace,
            "operation": attrs.operation,
            "userInfo": user,
            "dryRun": request.dry_run,
        },
        "namespaceObject": ns,
        "variables": {},
        **authorizer_variables(user, attrs.group, attrs.resource, attrs.subresource, attrs.namespace,
                               attrs.name),
    }
