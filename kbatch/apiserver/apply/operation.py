"""The ``apply`` verb (``PATCH`` with ``application/apply-patch+yaml``; k8s.io/apiserver
``pkg/endpoints/handlers/patch.go`` ``applyPatcher`` and ``fieldmanager``).

The request is checked as upstream checks ``PatchOptions`` and an apply body: ``fieldManager`` is
required (at most 128 bytes, printable: :mod:`kbatch.apiserver.field_manager`), the body must be an
object of the URL's kind and name, and must not set ``metadata.managedFields``. A missing object is
created from the configuration (apply-create); an existing one is merged (:mod:`.plan`). Either way the
result is decoded (``fieldValidation``) and written through the ordinary create or update path —
defaulting, admission, validation, the transaction guarded by the read revision — so an apply that
changes nothing writes nothing and keeps the resourceVersion. If the object changed between read and
write the apply is planned again on the new object (upstream's patcher retries the same way); a
``metadata.resourceVersion`` in the configuration is a precondition instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic_core import from_json

from kbatch.api.base import format_time, time_fractions_read
from kbatch.api.errors import AlreadyExists, BadRequest, Conflict, Invalid, NotFound
from kbatch.api.meta import Resource
from kbatch.api.wire_zeros_strip import without_wire_zeros
from kbatch.apiserver.apply.plan import ApplyRequest, plan_apply
from kbatch.apiserver.apply.tracking import applying
from kbatch.apiserver.apply.undeclared import undeclared_fields
from kbatch.apiserver.codec import whole_seconds
from kbatch.apiserver.create import create_object
from kbatch.apiserver.decoding import FieldValidation, decode_dict
from kbatch.apiserver.field_manager import apply_manager_errors
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.update import MAX_RETRIES, Current, StaleRead, apply_update, object_namespace, read_kv
from kbatch.store.kv import KeyValue

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["apply_object", "check_apply_options"]

T = TypeVar("T", bound=Resource)


def check_apply_options(field_manager: str | None) -> str:
    """Upstream ``ValidatePatchOptions``' manager checks for an apply patch (:mod:`..field_manager`)."""
    errors = apply_manager_errors(field_manager)
    if errors:
        raise Invalid.of("PatchOptions.meta.k8s.io", "", errors)
    return field_manager  # type: ignore[return-value]


def _check_config(kind: Kind, config: Any, name: str, namespace: str | None) -> dict[str, Any]:
    if not isinstance(config, dict):
        raise BadRequest("the body of an apply patch must be an object")
    info = kind.info
    if config.get("apiVersion") != info.api_version:
        raise BadRequest(f"the API version in the data ({config.get('apiVersion')}) does not match the "
                         f"expected API version ({info.api_version})")
    if config.get("kind") != info.kind:
        raise BadRequest(f"the kind in the data ({config.get('kind')}) does not match the expected kind "
                         f"({info.kind})")
    meta = config.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise BadRequest("metadata must be an object")
    meta = dict(meta or {})
    if meta.get("managedFields") is not None:
        raise BadRequest("metadata.managedFields must be nil")
    if meta.get("name") not in (None, name):
        raise BadRequest(f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                         f"({name})")
    if namespace and meta.get("namespace") not in (None, namespace):
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the "
                         "request")
    meta["name"] = name
    if namespace:
        meta["namespace"] = namespace
    return {**config, "metadata": meta}


def _sent_namespace(config: Any) -> str:
    meta = config.get("metadata") if isinstance(config, dict) else None
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    return namespace if isinstance(namespace, str) else ""


def _decode(model: type[T], doc: dict[str, Any], kind: Kind, name: str, namespace: str,
            ) -> tuple[T, list[str]]:
    """The merged object; a field the kind does not declare fails the apply whatever the request's
    ``fieldValidation`` (:mod:`.undeclared`: upstream reads the directive only after the merge, for
    the YAML's duplicate keys)."""
    obj, unknown = decode_dict(model, doc, "Warn")
    if unknown:
        info = kind.info
        raise undeclared_fields(doc, [w.removeprefix('unknown field "').removesuffix('"') for w in unknown],
                                kind=info.kind, group_kind=info.group_kind, api_version=info.api_version,
                                name=name, namespace=namespace)
    return obj, []


def apply_object(server: APIServer, model: type[T], name: str, config: Any, namespace: str | None = None, *,
                 field_manager: str | None, force: bool = False, status: bool = False, dry_run: bool = False,
                 field_validation: FieldValidation = "Strict", as_served: bool = False,
                 ) -> tuple[T, list[str]]:
    """Apply ``config`` (a wire dict) as ``field_manager``; the written object and the warnings
    (decoding's and the strategy's). ``as_served``: a client's configuration, which may hold what
    it read with Go's unset fields (``kubectl apply --server-side`` of ``get -o yaml``): the merged
    object is decoded as Go decodes it, ``resources: {}`` or ``divisor: "0"`` as no value
    (:mod:`kbatch.api.wire_zeros_strip`). ``field_validation`` changes nothing here: a field the kind
    does not declare fails the apply whatever it says (:mod:`.undeclared`)."""
    manager = check_apply_options(field_manager)
    kind = server.kind(model)
    sent_namespace = _sent_namespace(config)
    namespace = object_namespace(kind, namespace)
    config = _check_config(kind, config, name, namespace)
    pinned = config["metadata"].pop("resourceVersion", None)
    info = kind.info
    for _ in range(MAX_RETRIES):
        try:
            kv: KeyValue | None = read_kv(server, kind, namespace, name)
        except NotFound:
            if status:
                raise
            kv = None
        if pinned and (kv is None or str(pinned) != str(kv.mod_revision)):
            raise Conflict.stale(info.group_resource, name)
        request = ApplyRequest(manager, info.api_version, format_time(server.timestamp()), force,
                               "status" if status else "", info.group_kind)
        live = from_json(kv.value, cache_strings=False) if kv is not None else None
        doc = plan_apply(live, config, request)
        fractions = time_fractions_read()
        obj, warnings = _decode(model, without_wire_zeros(doc, model) if as_served else doc, kind, name,
                                sent_namespace)
        if time_fractions_read() != fractions:  # the answer is the stored form: whole-second times
            whole_seconds(obj)
        try:
            with applying():
                if kv is None:
                    return create_object(server, obj, namespace=namespace, dry_run=dry_run,
                                         warnings=warnings), warnings
                current = Current(kv, server.decoded.shared(model, kv))
                return apply_update(server, kind, obj, current, status=status,  # type: ignore[return-value]
                                    dry_run=dry_run, warnings=warnings), warnings
        except (StaleRead, AlreadyExists):
            continue
    raise Conflict.stale(info.group_resource, name)
