"""Object ↔ stored bytes. Values are the object's compact JSON *without* ``resourceVersion``; the
resourceVersion handed out is the key's ``mod_revision`` (as kube-apiserver's etcd3 storage fills it
on read, ``staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go``)."""

from __future__ import annotations

from typing import TypeVar

from kbatch.api.base import private_fields_set
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.store.kv import KeyValue

__all__ = ["decode", "encode", "set_resource_version", "stub"]

T = TypeVar("T", bound=Resource)


def encode(obj: Resource) -> bytes:
    """The stored form: compact JSON, ``metadata.resourceVersion`` omitted."""
    meta = obj.metadata
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
    obj = model.model_validate_json(kv.value)
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
