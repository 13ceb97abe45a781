"""Untyped entry points for the CLI and the HTTP front end: wire dicts in, wire dicts out.

Every function resolves the kind from ``apiVersion``/``kind`` through the registry, decodes with the
requested ``field_validation`` (Strict / Warn / Ignore) and returns the result as a dict, plus the
warnings an HTTP server sends as ``Warning`` headers. Errors are the same ``StatusError`` types the
typed verbs raise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import BadRequest, NotFound
from kbatch.api.strategies.core.pod_ephemeral import EphemeralContainersStrategy
from kbatch.api.wire_zeros_strip import without_wire_zeros
from kbatch.apiserver.client import PatchType, Preconditions
from kbatch.apiserver.create import create_object
from kbatch.apiserver.decoding import FieldValidation, StrictDecodingError, cannot_handle, decode_dict
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.listing import list_raw, parse_revision, too_large_resource_version
from kbatch.apiserver.patch import patch_object
from kbatch.apiserver.raw import raw_dict
from kbatch.apiserver.update import object_namespace, read_kv, update_object

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["Unstructured"]

Warnings = list[str]


class Unstructured:
    """Dict-in, dict-out verbs over one ``APIServer`` (``server.unstructured``)."""

    def __init__(self, server: APIServer) -> None:
        self._server = server

    def _kind_of(self, data: dict[str, Any]) -> Kind:
        if not isinstance(data, dict):
            raise BadRequest("the object must be a JSON object")
        api_version, kind = data.get("apiVersion"), data.get("kind")
        if not api_version or not kind:
            raise BadRequest("Object 'Kind' is missing" if not kind else "Object 'apiVersion' is missing")
        return self._server.kind_for(str(api_version), str(kind))

    @staticmethod
    def _decode_body(kind: Kind, data: dict[str, Any],
                     field_validation: FieldValidation) -> tuple[Any, Warnings]:
        """A create or update body: a strict decoding error names the kind and version, as
        ``transformDecodeError`` words it (k8s.io/apiserver ``handlers/create.go``, ``update.go``).
        Fields holding Go's zero are read as unset first, as Go's decoder reads them (a GET then PUT,
        ``kubectl replace`` or ``apply`` of what kubectl printed changes nothing:
        :mod:`kbatch.api.wire_zeros_strip`)."""
        try:
            return decode_dict(kind.model, without_wire_zeros(data, kind.model), field_validation)
        except StrictDecodingError as err:
            raise cannot_handle(kind.info, err.message) from None

    def kind(self, api_version: str, kind: str) -> Kind:
        return self._server.kind_for(api_version, kind)

    def create(self, data: dict[str, Any], *, namespace: str | None = None, dry_run: bool = False,
               field_validation: FieldValidation = "Strict") -> tuple[dict[str, Any], Warnings]:
        kind = self._kind_of(data)
        obj, warnings = self._decode_body(kind, data, field_validation)
        out = create_object(self._server, obj, namespace=namespace, dry_run=dry_run, warnings=warnings)
        return out.to_dict(), warnings

    def update(self, data: dict[str, Any], *, namespace: str | None = None, status: bool = False,
               dry_run: bool = False, field_validation: FieldValidation = "Strict", name: str | None = None,
               finalize: bool = False, ephemeral: bool = False) -> tuple[dict[str, Any], Warnings]:
        """``name``: the name from the request URL, which must match the body's (as upstream checks);
        ``finalize``: the ``namespaces/finalize`` subresource; ``ephemeral``: ``pods/ephemeralcontainers``."""
        kind = self._kind_of(data)
        obj, warnings = self._decode_body(kind, data, field_validation)
        if name is not None and obj.name != name:
            raise BadRequest(f"the name of the object ({obj.name}) does not match the name on the URL "
                             f"({name})")
        if namespace and kind.info.namespaced:
            if obj.metadata.namespace and obj.metadata.namespace != namespace:
                raise BadRequest("the namespace of the provided object does not match the namespace "
                                 "sent on the request")
            obj.metadata.namespace = namespace
        if finalize:
            return self._server.finalize(obj, dry_run=dry_run).to_dict(), warnings
        strategy = _ephemeral_strategy(kind) if ephemeral else None
        out = update_object(self._server, obj, status=status, dry_run=dry_run, warnings=warnings,
                            strategy=strategy)
        return out.to_dict(), warnings

    def patch(self, api_version: str, kind: str, name: str, patch: Any, *, namespace: str | None = None,
              patch_type: PatchType = "merge", status: bool = False, dry_run: bool = False,
              field_validation: FieldValidation = "Strict", ephemeral: bool = False
              ) -> tuple[dict[str, Any], Warnings]:
        spec = self.kind(api_version, kind)
        obj, warnings = patch_object(self._server, spec.model, name, patch, namespace, patch_type=patch_type,
                                     status=status, dry_run=dry_run, field_validation=field_validation,
                                     strategy=_ephemeral_strategy(spec) if ephemeral else None,
                                     as_served=True)
        return obj.to_dict(), warnings

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None, *,
            resource_version: str | None = None) -> dict[str, Any]:
        """The stored JSON with its resourceVersion, not decoded into a model (:mod:`.raw`).

        ``resource_version`` is a GET's "not older than" (k8s.io/apiserver ``storage/cacher/delegator.go``
        ``CacheDelegator.Get``: unset reads storage, anything else is parsed and served by the watch
        cache, whose ``waitUntilFreshAndBlock`` answers a revision not yet written with the too-large
        ``Timeout``, before the object is looked up). The store is always current, so any written
        revision is served the latest object."""
        spec = self.kind(api_version, kind)
        wanted = parse_revision(resource_version)
        if wanted is not None and wanted > self._server.store.revision:
            raise too_large_resource_version(wanted, self._server.store.revision)
        return raw_dict(read_kv(self._server, spec, object_namespace(spec, namespace), name))

    def list(self, api_version: str, kind: str, namespace: str | None = None, *,
             label_selector: str | None = None, field_selector: str | None = None, limit: int | None = None,
             continue_: str | None = None, resource_version: str | None = None,
             resource_version_match: str | None = None) -> dict[str, Any]:
        """As the typed list, built from the stored JSON (:func:`kbatch.apiserver.listing.list_raw`)."""
        return list_raw(self._server, self.kind(api_version, kind), namespace, label_selector=label_selector,
                        field_selector=field_selector, limit=limit, continue_=continue_,
                        resource_version=resource_version, resource_version_match=resource_version_match)

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None, *,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: Preconditions | None = None, dry_run: bool = False) -> dict[str, Any] | None:
        """The object while it still exists (terminating), ``None`` once it is gone."""
        result = self._server.delete(self.kind(api_version, kind).model, name, namespace,
                                     propagation_policy=propagation_policy,
                                     grace_period_seconds=grace_period_seconds,
                                     preconditions=preconditions, dry_run=dry_run)
        return None if result is None else result.to_dict()


def _ephemeral_strategy(kind: Kind) -> Any:
    """``pods/ephemeralcontainers``' strategy; any other kind has no such subresource (404)."""
    if not kind.is_pod:
        raise NotFound("the server could not find the requested resource "
                       f"({kind.info.plural}/ephemeralcontainers)")
    return EphemeralContainersStrategy.of(kind.strategy)
