"""Object ↔ stored bytes. Values are the object's compact JSON *without* ``resourceVersion``; the
resourceVersion handed out is the key's ``mod_revision`` (as kube-apiserver's etcd3 storage fills it
on read, ``staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go``)."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from kbatch.api.base import private_fields_set
from kbatch.api.errors import BadRequest
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.apiserver.decoding import decode_dict
from kbatch.apiserver.wire_copy import COPIERS, NOT_COPIED
from kbatch.store.kv import KeyValue

__all__ = ["checked_clone", "decode", "encode", "set_resource_version", "stub"]

T = TypeVar("T", bound=Resource)
M = TypeVar("M", bound=BaseModel)


# ObjectMeta's collections are ``omitempty`` in Go (k8s.io/apimachinery/pkg/apis/meta/v1/types.go):
# an empty one is not stored and reads back absent.
_OMIT_EMPTY_META = ("labels", "annotations", "owner_references", "finalizers", "managed_fields")


def encode(obj: Resource) -> bytes:
    """The stored form: compact JSON, ``metadata.resourceVersion`` omitted; empty metadata
    collections become absent on ``obj`` too, so the object a write returns is what a read gives."""
    meta = obj.metadata
    values = meta.__dict__
    for name in _OMIT_EMPTY_META:
        value = values[name]
        if value is not None and not value:
            values[name] = None
    rv = meta.resource_version
    if rv is None:
        return obj.to_json()
    meta.resource_version = None
    try:
        return obj.to_json()
    finally:
        meta.resource_version = rv


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
    return model.model_construct(api_version=info.api_version, kind=info.kind, metadata=meta)


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
    document = top.__pydantic_serializer__.to_python(top, mode="json", by_alias=True, exclude_none=True,
                                                     warnings=False)
    decode_dict(type(top), document)  # raises the BadRequest naming the field
    raise BadRequest(f"the {type(top).__name__} object cannot be handled: it does not survive its own "
                     "encoding")
