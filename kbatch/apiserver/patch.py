"""Patch: merge (RFC 7386), JSON (RFC 6902) and strategic merge, on the main resource or status.

The patch is applied to the latest stored object's JSON (the stored bytes are the object's dump, see
:mod:`kbatch.apiserver.raw`, so no decode → dump is needed for the base; the patched document is
decoded once) and the result goes through the same path as an update
(:func:`kbatch.apiserver.update.apply_update`). If the store moves on between read and write
the patch is re-applied to the new latest object (upstream's patcher retries the same way), unless the
patch itself pinned ``metadata.resourceVersion``, which makes a mismatch a ``Conflict``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError
from pydantic_core import from_json

from kbatch.api.base import KubeModel, private_fields_set
from kbatch.api.errors import BadRequest, Conflict, UnsupportedMediaType
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.api.model_copy import alternatives, copy_model, copy_value, partial_instance
from kbatch.api.strategy import DefaultStrategy
from kbatch.apiserver.decoding import FieldValidation, decode_dict
from kbatch.apiserver.jsonpatch import apply_json_patch, apply_merge_patch
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.raw import raw_dict, with_resource_version
from kbatch.apiserver.strategic import apply_strategic_patch
from kbatch.apiserver.update import (
    MAX_RETRIES,
    Current,
    StaleRead,
    apply_update,
    object_namespace,
    read_kv,
)
from kbatch.store.kv import KeyValue

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["apply_patch", "patch_object"]

T = TypeVar("T", bound=Resource)

_UNSUPPORTED = ("the body of the request was in an unknown format - accepted media types include: "
                "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")


def apply_patch(kind: Kind, current: dict[str, Any], patch: Any, patch_type: str) -> dict[str, Any]:
    """The patched document (pure)."""
    if patch_type == "merge":
        if not isinstance(patch, dict):
            raise BadRequest("merge patch must be a JSON object")
        result = apply_merge_patch(current, patch)
    elif patch_type == "json":
        result = apply_json_patch(current, patch)
    elif patch_type == "strategic":
        if not kind.strategic_merge:
            raise UnsupportedMediaType(_UNSUPPORTED)
        is_service = kind.info.kind == "Service" and not kind.info.group
        result = apply_strategic_patch(current, patch, service=is_service)
    else:
        raise UnsupportedMediaType(f"unsupported patch type: {patch_type}")
    if not isinstance(result, dict):
        raise BadRequest("the patched document is not a JSON object")
    return result


def patch_object(server: APIServer, model: type[T], name: str, patch: Any, namespace: str | None = None,
                 *, patch_type: str = "merge", status: bool = False, dry_run: bool = False,
                 field_validation: FieldValidation = "Strict") -> tuple[T, list[str]]:
    kind = server.kind(model)
    namespace = object_namespace(kind, namespace)
    for _ in range(MAX_RETRIES):
        kv = read_kv(server, kind, namespace, name)
        held = server.decoded.held(kv)
        new = _decode_parts(kind, model, kv, held, patch, patch_type, status)
        warnings: list[str] = []
        if new is None:
            # the stored JSON is the object's dump (kbatch.apiserver.raw), so it is the patch's base as is
            patched = apply_patch(kind, raw_dict(kv), patch, patch_type)
            new, warnings = decode_dict(model, patched, field_validation)
        pinned = new.metadata.resource_version
        if pinned and pinned != str(kv.mod_revision):
            raise Conflict.stale(kind.info.group_resource, name)
        # read only: the update's old
        current = Current(kv, held if held is not None else server.decoded.shared(model, kv))
        try:
            result = apply_update(server, kind, new, current, status=status, dry_run=dry_run)
        except StaleRead:
            continue
        return result, warnings  # type: ignore[return-value]
    raise Conflict.stale(kind.info.group_resource, name)


# --- patches that touch only metadata (main resource) or metadata and status (status) --------------
#
# The general path merges the patch into the whole stored document and decodes all of it. A patch
# that names only ``metadata`` (the Job controller's finalizer removal, label and annotation edits)
# or, on the status subresource, only ``metadata``/``status`` (every kubelet and controller status
# patch) leaves every other top-level field as stored, so the merge runs on those parts only and the
# rest is taken from the decode cache's object for exactly the stored bytes (equal to what decoding
# them again gives). Whatever does not decode cleanly takes the general path, which reports the error
# (paths, Strict/Warn/Ignore) exactly as before; errors of the merge itself are the same on either.

_STATUS_PATCH_KEYS = frozenset({"metadata", "status"})
_META_PATCH_KEYS = frozenset({"metadata"})


@functools.cache
def _status_model(model: type[Resource]) -> type[KubeModel] | None:
    """The model class of ``model``'s ``status`` field (``None``: no single model type)."""
    field = model.model_fields.get("status")
    if field is None:
        return None
    alts = [a for a in alternatives(field.annotation) if a is not type(None)]
    only = alts[0] if len(alts) == 1 else None
    return only if isinstance(only, type) and issubclass(only, KubeModel) else None


def _decode_parts(kind: Kind, model: type[T], kv: KeyValue, held: Resource | None, patch: Any,
                  patch_type: str, status: bool) -> T | None:
    """The decoded patched object built from its changed parts, or ``None``: take the general path."""
    if patch_type == "json" or type(patch) is not dict:
        return None
    if status:
        # the status strategy replaces every other field by the stored one anyway
        # (``prepare_for_status_update``), as ``update._status_input`` relies on for status updates
        if (not patch.keys() <= _STATUS_PATCH_KEYS or _status_model(model) is None
                or type(kind.strategy).prepare_for_status_update
                is not DefaultStrategy.prepare_for_status_update):
            return None
    elif held is None or not patch.keys() <= _META_PATCH_KEYS:
        return None
    stored = from_json(kv.value, cache_strings=False)
    base: dict[str, Any] = {}
    if "metadata" in patch or held is None:
        base["metadata"] = with_resource_version(stored.get("metadata") or {}, str(kv.mod_revision))
    if status and "status" in stored:
        base["status"] = stored["status"]
    patched = apply_patch(kind, base, patch, patch_type)
    try:
        if "metadata" in base:
            meta = ObjectMeta.__pydantic_validator__.validate_python(patched.get("metadata"))
        else:
            meta = copy_model(held.metadata)  # type: ignore[union-attr]
        if status:
            raw_status = patched.get("status")
            if raw_status is None:
                return None  # no status at all: the field's default is the general path's business
            values = {"metadata": meta,
                      "status": _status_model(model).__pydantic_validator__.validate_python(raw_status)}
            return partial_instance(model, values)
    except ValidationError:
        return None
    return _with_metadata(held, meta)  # type: ignore[arg-type]


def _with_metadata(old: T, meta: ObjectMeta) -> T:
    """A copy of ``old`` with ``meta`` for its metadata, the fields set as decoding it gives."""
    values = {name: meta if name == "metadata" else copy_value(value) for name, value in old.__dict__.items()}
    new = partial_instance(type(old), values)
    private_fields_set(new).intersection_update(old.model_fields_set | _META_PATCH_KEYS)
    return new
