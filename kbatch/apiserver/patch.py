"""Patch: merge (RFC 7386), JSON (RFC 6902) and strategic merge, on the main resource or status.

The patch is applied to the latest stored object's JSON (the stored bytes are the object's dump, see
:mod:`kbatch.apiserver.raw`, so no decode → dump is needed for the base; the patched document is
decoded once) and the result goes through the same path as an update
(:func:`kbatch.apiserver.update.apply_update`). If the store moves on between read and write
the patch is re-applied to the new latest object (upstream's patcher retries the same way), unless the
patch itself pinned ``metadata.resourceVersion``, which makes a mismatch a ``Conflict``.

Go's unset fields (:mod:`kbatch.api.wire_zeros`): kube-apiserver applies a JSON patch to the object
as its codec encodes it (k8s.io/apiserver ``pkg/endpoints/handlers/patch.go``,
``jsonPatcher.applyPatchToCurrentObject``: ``runtime.Encode`` of the current object, then the patch,
then a decode), so a JSON patch sees ``resources: {}``, ``restartCount: 0``, ``lastProbeTime: null``
as a client read them: ``add /spec/containers/0/resources/limits`` and ``test`` against a zero work
as there. For a client's patch (``as_served``: HTTP and the CLI, :mod:`kbatch.apiserver.unstructured`)
the base gets the same zeros and the patched document loses them again before it is decoded
(:func:`kbatch.api.wire_zeros_strip.without_wire_zeros`, as for a create or update body), and a
merge or strategic merge patch loses its empty structs first
(:func:`~kbatch.api.wire_zeros_strip.without_empty_structs`: ``kubectl debug`` sends
``resources: {}``), since merging ``{}`` changes nothing where Go decodes ``{}`` and no value alike,
while kbatch's models would hold an empty struct where the stored object has none. kbatch's own
components patch the objects they hold, without the wire's zeros, and are left as they are (the
kubelet's status patches are the hot path, and its ``lastState: {}`` is what it means to store).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError
from pydantic_core import from_json

from kbatch.api.base import KubeModel, time_fractions_read, wire_validate
from kbatch.api.errors import BadRequest, Conflict, FieldError, Invalid, UnsupportedMediaType
from kbatch.api.go_fmt import go_value
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.api.model_copy import alternatives, copy_model, partial_instance
from kbatch.api.strategy import DefaultStrategy, Strategy
from kbatch.api.wire_zeros import with_wire_zeros
from kbatch.api.wire_zeros_strip import without_empty_structs, without_wire_zeros
from kbatch.apiserver.codec import whole_seconds
from kbatch.apiserver.decoding import FieldValidation, StrictDecodingError, decode_dict
from kbatch.apiserver.jsonpatch import apply_json_patch, apply_merge_patch
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.raw import raw_dict, with_resource_version
from kbatch.apiserver.strategic import apply_strategic_patch, roots
from kbatch.apiserver.typed_merge import Fallback, merge_typed, plain_fields
from kbatch.apiserver.update import MAX_RETRIES, StaleRead, apply_update, object_namespace, read_for_update
from kbatch.store.kv import KeyValue

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["apply_patch", "patch_object", "strict_patch_error"]

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
        result = apply_strategic_patch(current, patch, rooted=roots(kind.info.api_version, kind.info.kind))
    else:
        raise UnsupportedMediaType(f"unsupported patch type: {patch_type}")
    if not isinstance(result, dict):
        raise BadRequest("the patched document is not a JSON object")
    return result


def patch_object(server: APIServer, model: type[T], name: str, patch: Any, namespace: str | None = None,
                 *, patch_type: str = "merge", status: bool = False, dry_run: bool = False,
                 field_validation: FieldValidation = "Strict", strategy: Strategy[Any] | None = None,
                 as_served: bool = False) -> tuple[T, list[str]]:
    """``strategy``: a subresource's own strategy in place of the kind's (``pods/ephemeralcontainers``);
    ``as_served``: a client's patch, written against the object as served, with Go's unset fields
    (the module docstring); kbatch's own components patch what they hold."""
    kind = server.kind(model)
    if strategy is not None:
        kind = Kind(dataclasses.replace(kind.spec, strategy=strategy), kind.keys)
    namespace = object_namespace(kind, namespace)
    sent = patch
    if as_served and patch_type in ("merge", "strategic") and type(patch) is dict:
        patch = without_empty_structs(patch, kind.info.api_version, kind.info.kind)
    for _ in range(MAX_RETRIES):
        # the update's old: the decode cache's object, else a decode of this write's own (which the
        # patch is merged into as well, instead of decoding the patched document whole)
        current = read_for_update(server, kind, namespace, name)
        kv = current.kv
        fractions = time_fractions_read()
        try:
            new, warnings = _decoded(kind, model, kv, current.obj, patch,  # type: ignore[arg-type]
                                     patch_type, status, as_served, field_validation)
        except StrictDecodingError as err:
            raise strict_patch_error(sent, err) if patch_type == "strategic" else err from None
        if time_fractions_read() != fractions:  # the answer is the stored form: whole-second times
            whole_seconds(new)
        pinned = new.metadata.resource_version
        if pinned and pinned != str(kv.mod_revision):
            raise Conflict.stale(kind.info.group_resource, name)
        try:
            result = apply_update(server, kind, new, current, status=status, dry_run=dry_run,
                                  warnings=warnings)
        except StaleRead:
            continue
        return result, warnings  # type: ignore[return-value]
    raise Conflict.stale(kind.info.group_resource, name)


def _decoded(kind: Kind, model: type[T], kv: KeyValue, obj: T, patch: Any, patch_type: str,
             status: bool, as_served: bool, field_validation: FieldValidation) -> tuple[T, list[str]]:
    """The patched object and decoding's warnings: merged into the decode cache's object when it can
    be, else the patched document decoded whole."""
    new = _decode_parts(kind, model, kv, obj, patch, patch_type, status)
    if new is not None:
        return new, []
    # the stored JSON is the object's dump (kbatch.apiserver.raw), so it is the patch's base as is
    patched = _patched(kind, model, raw_dict(kv), patch, patch_type, as_served)
    return decode_dict(model, patched, field_validation)


def strict_patch_error(patch: Any, err: StrictDecodingError) -> Invalid:
    """A strategic merge patch's unknown fields under ``fieldValidation=Strict``: upstream's
    ``applyPatchToObject`` (k8s.io/apiserver ``pkg/endpoints/handlers/patch.go``) answers a 422 with no
    kind or name, one ``patch`` cause quoting the patch map as Go's ``%+v`` prints it
    (``"" is invalid: patch: Invalid value: "map[spec:map[foo:1]]": strict decoding error: …``),
    where a JSON or merge patch answers the bare 400."""
    cause = FieldError.invalid("patch", go_value(patch), str(err))
    invalid = Invalid.of("", "", [cause])
    if invalid.details is not None:
        invalid.details.kind = None
    return invalid


def _patched(kind: Kind, model: type[Resource], stored: dict[str, Any], patch: Any,
             patch_type: str, as_served: bool) -> dict[str, Any]:
    """The patched document to decode; a client's JSON patch's base is the object as served, with
    Go's unset fields, and its result is read as Go reads it (the module docstring)."""
    if patch_type != "json" or not as_served:
        return apply_patch(kind, stored, patch, patch_type)
    return without_wire_zeros(apply_patch(kind, with_wire_zeros(stored), patch, patch_type), model)


# --- patches merged into the decode cache's object ------------------------------------------------
#
# The general path merges the patch into the whole stored document and decodes all of it. When the
# decode cache holds the object for exactly the stored bytes, the patch is merged into it level by
# level instead, validating only what the patch changes (kbatch.apiserver.typed_merge: the Job
# controller's finalizer removal, label and annotation edits, spec edits). On the status subresource a
# patch naming only ``metadata``/``status`` (every kubelet and controller status patch) needs only
# those two: the status strategy replaces every other field by the stored one anyway. Such a patch of
# the status's lists and objects (the kubelet's conditions and container statuses: most of the status)
# merges the stored JSON of those two parts and decodes just them (the
# merge into the held object measured ~3 us slower there: the values it would not validate again are
# few, and parsing the stored bytes costs less than viewing the held conditions).
# Whatever does not merge or decode cleanly takes the general path, which reports the error (paths,
# Strict/Warn/Ignore) exactly as before.

_STATUS_PATCH_KEYS = frozenset({"metadata", "status"})
_DEFAULT_PREPARE = DefaultStrategy.prepare_for_status_update


@functools.cache
def _status_model(model: type[Resource]) -> type[KubeModel] | None:
    """The model class of ``model``'s ``status`` field (``None``: no single model type)."""
    field = model.model_fields.get("status")
    if field is None:
        return None
    alts = [a for a in alternatives(field.annotation) if a is not type(None)]
    only = alts[0] if len(alts) == 1 else None
    return only if isinstance(only, type) and issubclass(only, KubeModel) else None


def _decode_parts(kind: Kind, model: type[T], kv: KeyValue, held: T, patch: Any,
                  patch_type: str, status: bool) -> T | None:
    """The decoded patched object built from its changed parts, or ``None``: take the general path.
    ``held``: the object decoded from exactly ``kv`` (read only)."""
    if patch_type not in ("merge", "strategic") or type(patch) is not dict:
        return None
    if not status:
        try:
            return _merge_held(kind, model, held, patch, patch_type == "strategic", status)
        except Fallback:
            return None
    status_model = _status_model(model)
    prepare = type(kind.strategy).prepare_for_status_update
    if not patch.keys() <= _STATUS_PATCH_KEYS or status_model is None or prepare is not _DEFAULT_PREPARE:
        # the status strategy replaces every other field by the stored one anyway
        # (``prepare_for_status_update``), as ``update._status_input`` relies on for status updates
        return None
    part = patch.get("status")
    if type(part) is not dict or plain_fields(status_model, part):
        try:
            return _merge_held(kind, model, held, patch, patch_type == "strategic", status)
        except Fallback:
            return None
    # a patch of the status's lists and objects (the kubelet's) replaces most of it: merged on JSON
    return _decode_status_parts(kind, model, status_model, kv, held, patch, patch_type)


def _merge_held(kind: Kind, model: type[T], held: T, patch: dict[str, Any],
                strategic: bool, status: bool) -> T:
    """``patch`` merged into the held object (:mod:`~kbatch.apiserver.typed_merge`); on the status
    subresource only its metadata and status (the other fields are left unset for the strategy)."""
    if strategic and (not kind.strategic_merge  # the general path answers UnsupportedMediaType
                      or roots(kind.info.api_version, kind.info.kind) is not None):
        raise Fallback  # a kind replacing a list others merge (strategic.roots)
    if not status:
        return merge_typed(model, held, patch, strategic=strategic, parent="")
    values = {}
    for name, part_model, part in (("metadata", ObjectMeta, held.metadata),
                                   ("status", _status_model(model), getattr(held, "status", None))):
        value = patch.get(name, held) if part is not None else None
        if value is held and part is not None:  # (``value is held`` implies it: narrows the type)
            values[name] = copy_model(part)
            continue
        if type(value) is not dict:
            raise Fallback  # absent or null status, a non-object: the general path's business
        values[name] = merge_typed(part_model, part, value, strategic=strategic,  # type: ignore[arg-type]
                                   parent=name)
    return partial_instance(model, values)


def _decode_status_parts(kind: Kind, model: type[T], status_model: type[KubeModel], kv: KeyValue,
                         held: Resource, patch: dict[str, Any], patch_type: str) -> T | None:
    """A status patch merged into the stored JSON of metadata and status, which are decoded (the held
    object's metadata copied when the patch does not name it)."""
    stored = from_json(kv.value, cache_strings=False)
    base: dict[str, Any] = {}
    if "metadata" in patch:
        base["metadata"] = with_resource_version(stored.get("metadata") or {}, str(kv.mod_revision))
    if "status" in stored:
        base["status"] = stored["status"]
    patched = apply_patch(kind, base, patch, patch_type)
    raw_status = patched.get("status")
    if raw_status is None:
        return None  # no status at all: the field's default is the general path's business
    try:
        meta = (wire_validate(ObjectMeta, patched.get("metadata"))
                if "metadata" in base else copy_model(held.metadata))
        values = {"metadata": meta,
                  "status": wire_validate(status_model, raw_status)}
    except ValidationError:
        return None
    return partial_instance(model, values)
