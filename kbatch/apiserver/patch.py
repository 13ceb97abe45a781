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

from kbatch.api.base import KubeModel
from kbatch.api.errors import BadRequest, Conflict, UnsupportedMediaType
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.api.model_copy import alternatives, partial_instance
from kbatch.api.strategy import DefaultStrategy
from kbatch.apiserver.decoding import FieldValidation, decode_dict
from kbatch.apiserver.jsonpatch import apply_json_patch, apply_merge_patch
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.raw import raw_dict
from kbatch.apiserver.strategic import apply_strategic_patch
from kbatch.apiserver.update import (
    MAX_RETRIES,
    Current,
    StaleRead,
    apply_update,
    object_namespace,
    read_kv,
)

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
        # the stored JSON is the object's dump (kbatch.apiserver.raw), so it is the patch's base as is
        patched = apply_patch(kind, raw_dict(kv), patch, patch_type)
        fast = _decode_status_patch(kind, model, patched, patch, patch_type) if status else None
        new, warnings = (fast, []) if fast is not None else decode_dict(model, patched, field_validation)
        pinned = new.metadata.resource_version
        if pinned and pinned != str(kv.mod_revision):
            raise Conflict.stale(kind.info.group_resource, name)
        current = Current(kv, server.decoded.shared(model, kv))  # read only: the update's old
        try:
            result = apply_update(server, kind, new, current, status=status, dry_run=dry_run)
        except StaleRead:
            continue
        return result, warnings  # type: ignore[return-value]
    raise Conflict.stale(kind.info.group_resource, name)


# --- status patches that touch only metadata and status -------------------------------------------

_STATUS_PATCH_KEYS = frozenset({"metadata", "status"})


@functools.cache
def _status_model(model: type[Resource]) -> type[KubeModel] | None:
    """The model class of ``model``'s ``status`` field (``None``: no single model type)."""
    field = model.model_fields.get("status")
    if field is None:
        return None
    alts = [a for a in alternatives(field.annotation) if a is not type(None)]
    only = alts[0] if len(alts) == 1 else None
    return only if isinstance(only, type) and issubclass(only, KubeModel) else None


def _decode_status_patch(kind: Kind, model: type[T], patched: dict[str, Any], patch: Any,
                         patch_type: str) -> T | None:
    """A status patch that names only ``metadata``/``status`` (a kubelet's, a controller's): decode
    just those two parts of the patched document.

    Every other field of the patched document is the stored object's, already valid, and the status
    strategy replaces it by the stored value anyway (``prepare_for_status_update``), so decoding it
    (most of a Pod) would be wasted — as ``update._status_input`` does for status updates. Anything
    that does not decode cleanly returns ``None`` and takes the full decode, which reports the error
    (paths, Strict/Warn/Ignore) exactly as before."""
    if (patch_type == "json" or type(patch) is not dict or not patch.keys() <= _STATUS_PATCH_KEYS
            or type(kind.strategy).prepare_for_status_update
            is not DefaultStrategy.prepare_for_status_update):
        return None
    status_model = _status_model(model)
    if status_model is None:
        return None
    raw_meta, raw_status = patched.get("metadata"), patched.get("status")
    try:
        values: dict[str, Any] = {"metadata": ObjectMeta.__pydantic_validator__.validate_python(raw_meta)}
        values["status"] = (None if raw_status is None
                            else status_model.__pydantic_validator__.validate_python(raw_status))
    except ValidationError:
        return None
    return partial_instance(model, values)
