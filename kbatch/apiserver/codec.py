"""Object ↔ stored bytes. Values are the object's compact JSON *without* ``resourceVersion``; the
resourceVersion handed out is the key's ``mod_revision`` (as kube-apiserver's etcd3 storage fills it
on read, ``staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go``)."""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import to_json

from kbatch.api.base import private_fields_set
from kbatch.api.errors import BadRequest
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.api.model_copy import alternatives
from kbatch.apiserver.decoding import decode_dict
from kbatch.apiserver.wire_copy import COPIERS, NOT_COPIED
from kbatch.store.kv import KeyValue

__all__ = ["Carried", "checked_clone", "decode", "encode", "encode_over", "set_resource_version",
           "splice_over", "stub", "whole_seconds"]

T = TypeVar("T", bound=Resource)
M = TypeVar("M", bound=BaseModel)


# ObjectMeta's collections are ``omitempty`` in Go (k8s.io/apimachinery/pkg/apis/meta/v1/types.go):
# an empty one is not stored and reads back absent.
_OMIT_EMPTY_META = ("labels", "annotations", "owner_references", "finalizers", "managed_fields")


def _omit_empty_meta(values: dict[str, Any]) -> None:
    for name in _OMIT_EMPTY_META:
        value = values[name]
        if value is not None and not value:
            values[name] = None


def encode(obj: Resource) -> bytes:
    """The stored form: compact JSON, ``metadata.resourceVersion`` omitted; empty metadata
    collections become absent on ``obj`` too, so the object a write returns is what a read gives."""
    meta = obj.metadata
    _omit_empty_meta(meta.__dict__)
    rv = meta.resource_version
    if rv is None:
        return obj.to_json()
    meta.resource_version = None
    try:
        return obj.to_json()
    finally:
        meta.resource_version = rv


# --- a status write's encoding from the stored one --------------------------------------------------
#
# A status write with the default strategy keeps every field but metadata and status from the stored
# object; when the write decoded that object itself, the new object holds the very same field values
# (update._take_carried). Their encoding is then already in the stored bytes, between the metadata and
# the status: every write path stores encode(obj), whose decode encodes back to the same bytes (the
# invariant kbatch.apiserver.raw relies on too). Only the new metadata and status are serialized.


@functools.lru_cache(maxsize=256)
def _status_class(model: type[Resource]) -> type | None:
    """The declared class of ``model``'s status when ``model`` serializes as apiVersion, kind, metadata
    (an ObjectMeta), the carried fields, then a status of one model class; else ``None``."""
    fields = model.__pydantic_fields__
    names = list(fields)
    if names[:3] != ["api_version", "kind", "metadata"] or names[-1] != "status":
        return None
    if fields["metadata"].annotation is not ObjectMeta:
        return None
    alts = [a for a in alternatives(fields["status"].annotation) if a is not type(None)]
    only = alts[0] if len(alts) == 1 else None
    return only if isinstance(only, type) and issubclass(only, BaseModel) else None


@functools.lru_cache(maxsize=256)
def _head(api_version: str, kind: str) -> bytes:
    return b'{"apiVersion":' + to_json(api_version) + b',"kind":' + to_json(kind) + b',"metadata":'


_NO_RESOURCE_VERSION = {"resource_version"}  # (a set: pydantic-core types ``exclude`` as one)
_STATUS_KEY = b',"status":'


def _meta_bytes(meta: ObjectMeta, private: bool) -> bytes:
    """``meta``'s part of the stored form (no resourceVersion); ``meta`` is left as it was (a
    ``private`` one is briefly changed, a shared one never)."""
    serialize = meta.__pydantic_serializer__.to_json
    if not private:
        return serialize(meta, by_alias=True, exclude_none=True, exclude=_NO_RESOURCE_VERSION)
    values = meta.__dict__
    rv = values["resource_version"]
    values["resource_version"] = None  # a dict write: the fields set is not touched
    try:
        return serialize(meta, by_alias=True, exclude_none=True)
    finally:
        values["resource_version"] = rv


Carried = tuple[int, int]
"""Where a status write's carried fields lie in a stored value: ``stored[start:end]``."""


def encode_over(obj: Resource, old: Resource, stored: bytes, *, old_private: bool = False) -> bytes | None:
    """``encode(obj)`` for an ``obj`` whose fields other than metadata and status are ``old``'s own
    values or copies of them, ``old`` being the decode of ``stored`` (``old_private``: referenced by
    nothing else): the stored bytes of those fields are reused. ``None``
    when that cannot be vouched for (another field layout, a status absent, or stored bytes that are
    not ``old``'s encoding around them): the caller encodes. Empty metadata collections become absent
    on ``obj``, as :func:`encode` does. Property-tested equal to :func:`encode`."""
    spliced = splice_over(obj, old, stored, old_private=old_private)
    return None if spliced is None else spliced[0]


def splice_over(obj: Resource, old: Resource, stored: bytes, *, old_private: bool = False,
                carried: Carried | None = None) -> tuple[bytes, Carried] | None:
    """:func:`encode_over`'s bytes, and where the carried fields lie in them (the next status write
    over this one reuses them without serializing this one's metadata and status again).
    ``carried``: where they lie in ``stored``, when a previous splice that produced exactly ``stored``
    said so; otherwise they are found by serializing ``old``'s metadata and status."""
    cls = _status_class(type(obj))
    values, before = obj.__dict__, old.__dict__
    status, old_status = values["status"], before["status"]
    if (cls is None or type(status) is not cls or type(old_status) is not cls
            or type(obj.metadata) is not ObjectMeta or type(old.metadata) is not ObjectMeta
            or values["api_version"] != before["api_version"] or values["kind"] != before["kind"]):
        return None
    head = _head(before["api_version"], before["kind"])
    if carried is None:
        carried = _carried_in(stored, head, old, old_private)
        if carried is None:
            return None
    start, end = carried
    meta = obj.metadata
    _omit_empty_meta(meta.__dict__)
    meta_bytes = _meta_bytes(meta, True)
    status_bytes = cls.__pydantic_serializer__.to_json(status, by_alias=True, exclude_none=True)
    begin = len(head) + len(meta_bytes)
    return (b"".join((head, meta_bytes, memoryview(stored)[start:end], _STATUS_KEY, status_bytes, b"}")),
            (begin, begin + end - start))


def _carried_in(stored: bytes, head: bytes, old: Resource, old_private: bool) -> Carried | None:
    """Where the fields between ``old``'s metadata and status lie in ``stored``, found by serializing
    those two; ``None`` when ``stored`` is not ``old``'s encoding around them."""
    old_meta = _meta_bytes(old.metadata, old_private)
    old_status = old.__dict__["status"]
    serialize = old_status.__pydantic_serializer__.to_json
    old_status_bytes = serialize(old_status, by_alias=True, exclude_none=True)
    # stored = head, old metadata, the carried fields [start:end], ',"status":', old status, '}'
    start, end = len(head) + len(old_meta), len(stored) - len(old_status_bytes) - len(_STATUS_KEY) - 1
    if (end < start or not stored.startswith(head) or not stored.startswith(old_meta, len(head))
            or not stored.startswith(_STATUS_KEY, end)
            or not stored.startswith(old_status_bytes, end + len(_STATUS_KEY)) or not stored.endswith(b"}")):
        return None
    return start, end


def decode(model: type[T], kv: KeyValue, revision: int | None = None) -> T:
    """A fresh object from stored bytes, ``resourceVersion`` = ``revision`` or the key's mod_revision."""
    obj = model.__pydantic_validator__.validate_json(kv.value)  # model_validate_json without its frame
    set_resource_version(obj, revision if revision is not None else kv.mod_revision)
    return obj


def set_resource_version(obj: Resource, revision: int) -> None:
    """Set ``metadata.resourceVersion`` without pydantic's (slow, here pointless) ``__setattr__``."""
    meta = obj.metadata
    meta.__dict__["resource_version"] = str(revision)
    private_fields_set(meta).add("resource_version")  # the set may be a shared frozenset


def stub(model: type[T], namespace: str | None, name: str | None, revision: int) -> T:
    """An object carrying only identity and resourceVersion (bookmarks, lost tombstones); built
    without validation, so kinds with required fields can be stubbed too."""
    meta = ObjectMeta(name=name, namespace=namespace, resource_version=str(revision))
    info = model.api_info
    # pydantic's mypy plugin types model_construct as returning the declaring class, not Self
    return model.model_construct(api_version=info.api_version, kind=info.kind, metadata=meta)  # type: ignore[return-value]


def checked_clone(value: M, whole: Resource | None = None) -> M:
    """A copy of a caller's object through the wire format, so it is validated as a request body is.

    pydantic does not validate assignment: a caller may have put a wrong type into a field of a typed
    object. Such a value fails the JSON round trip; the error becomes the ``BadRequest`` a request body
    with that value gets (naming the field path), built by decoding ``whole`` (default: ``value``), the
    top-level object ``value`` belongs to, as the wire decoder does. Nothing has been written then.
    Values that already are what the round trip gives back are copied without it (:mod:`.wire_copy`).
    """
    try:
        return COPIERS[type(value)](value)  # type: ignore[no-any-return]  # wire_copy, one frame less
    except NOT_COPIED:
        pass
    try:
        data = value.__pydantic_serializer__.to_json(value, by_alias=True, exclude_none=True, warnings=False)
        return type(value).__pydantic_validator__.validate_json(data)  # type: ignore[no-any-return]
    except ValidationError:
        pass
    top = whole if whole is not None else value
    assert isinstance(top, Resource), "a nested value is checked with the object it belongs to (whole)"
    document = top.__pydantic_serializer__.to_python(top, mode="json", by_alias=True, exclude_none=True,
                                                     warnings=False)
    decode_dict(type(top), document)  # raises the BadRequest naming the field
    raise BadRequest(f"the {type(top).__name__} object cannot be handled: it does not survive its own "
                     "encoding")


# --- times with a sub-second part in a request --------------------------------------------------------
#
# A metav1.Time keeps whole seconds on the wire, and kube-apiserver answers a write with the stored form
# decoded (``storage/etcd3/store.go`` Create and GuaranteedUpdate decode the bytes they wrote): a body's
# "...:01.5Z" comes back "...:01Z" from the write as from every later read. Objects a write builds from
# a typed caller's object go through checked_clone, whose wire copy drops the fraction (wire_copy's time
# rule); a patch or an apply is decoded from JSON values, which keep it in memory as Go's decoder does.
# When that decode read a time text with a fractional second (base.time_fractions_read: rare, kbatch's
# own writers send whole seconds; a MicroTime's fraction counts too and the copy keeps it), the object's
# parts are passed through the wire copy as well.


def whole_seconds(obj: Resource) -> None:
    """Replace each set top-level model field of ``obj`` (a write's object, private) by its wire copy,
    so its metav1.Time values hold what the stored form will: whole seconds."""
    values = obj.__dict__
    for name in sorted(obj.model_fields_set):
        value = values[name]
        if isinstance(value, BaseModel):
            values[name] = checked_clone(value, obj)
