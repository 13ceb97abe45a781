"""Patch: merge (RFC 7386), JSON (RFC 6902) and strategic merge, on the main resource or status.

The patch is applied to the latest stored object's JSON (the stored bytes are the object's dump, see
:mod:`kbatch.apiserver.raw`, so no decode → dump is needed for the base; the patched document is
decoded once) and the result goes through the same path as an update
(:func:`kbatch.apiserver.update.apply_update`). If the store moves on between read and write
the patch is re-applied to the new latest object (upstream's patcher retries the same way), unless the
patch itself pinned ``metadata.resourceVersion``, which makes a mismatch a ``Conflict``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api.errors import BadRequest, Conflict, UnsupportedMediaType
from kbatch.api.meta import Resource
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
        new, warnings = decode_dict(model, patched, field_validation)
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
