"""Serving a kind's further versions: conversion at the wire, and the deprecation warning.

A CustomResourceDefinition may serve several versions of a kind while storing one
(``spec.versions[].served``/``storage``); kube-apiextensions-apiserver decodes a request in its
version, converts it to the storage version (Kueue: a conversion webhook) for admission, validation
and storage, and converts every answer — objects, lists, watch events — back; a deprecated version
answers every request with ``Warning: 299 - "<deprecationWarning>"``.

:class:`VersionedBackend` does that around any :class:`~kbatch.server.backend.Backend`: a call for a
kind version the registry marks as a further served version
(:class:`kbatch.api.versions.ServedVersion`) is made on the storage version with the body
converted up, and its result converted down. A patch is applied to the object as the requested
version sees it (JSON merge or JSON patch; custom resources take no strategic merge patch; a built-in
group's further version, whose fields are the storage version's, takes it there), then
written in the storage version with the read's ``resourceVersion`` as a precondition (a concurrent
write answers Conflict, as upstream's ``GuaranteedUpdate`` retries would see it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from kbatch.api.base import ApiInfo
from kbatch.api.errors import Invalid, UnsupportedMediaType
from kbatch.api.registry import KindSpec, Registry
from kbatch.api.versions import ServedVersion
from kbatch.apiserver.jsonpatch import apply_json_patch, apply_merge_patch
from kbatch.server.backend import Backend, DeleteOptions, DictWatch, WatchOptions, WriteOptions
from kbatch.server.crd_openapi import is_custom_resource_group

__all__ = ["VersionedBackend", "deprecation_warning", "versioned"]

Obj = dict[str, Any]


class _Conversion(NamedTuple):
    """A served version that is not the storage version: the stored kind and how to convert."""

    storage: KindSpec
    served: ServedVersion


def _alternate(registry: Registry, info: ApiInfo) -> _Conversion | None:
    try:
        spec = registry.for_gvk(info.api_version, info.kind)
    except Exception:  # NotFound: not ours to convert
        return None
    if spec.served is None or spec.storage is None:
        return None
    return _Conversion(spec.storage, spec.served)


def deprecation_warning(registry: Registry, info: ApiInfo) -> str | None:
    """The warning a request in ``info``'s version answers with (``None`` when not deprecated)."""
    spec = _alternate(registry, info)
    return spec.served.warning if spec is not None else None


class _ConvertingWatch:
    def __init__(self, inner: DictWatch, down: Callable[[Obj], Obj]) -> None:
        self.inner = inner
        self.down = down

    def poll(self) -> list[Obj]:
        out = []
        for event in self.inner.poll():
            obj = event.get("object")
            if isinstance(obj, dict) and obj.get("kind") not in ("Status", None):
                event = {**event, "object": self.down(obj)}
            out.append(event)
        return out

    def set_notify(self, fn: Callable[[], None] | None) -> None:
        self.inner.set_notify(fn)

    def close(self) -> None:
        self.inner.close()


class VersionedBackend:
    """A :class:`Backend` that serves further versions by conversion (see the module docstring)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.registry = inner.registry

    def __getattr__(self, name: str) -> Any:  # clock, advance, actions, logs, …: not per kind
        return getattr(self.inner, name)

    def _spec(self, info: ApiInfo) -> _Conversion | None:
        return _alternate(self.registry, info)

    @staticmethod
    def _check(spec: _Conversion, namespace: str | None, new: Obj, old: Obj | None) -> None:
        """The served version's own validation of a write (``ServedVersion.validate``), on the storage
        form; its errors name the stored kind, as upstream's ``Invalid`` names the internal one."""
        if spec.served.validate is None:
            return
        meta = new.get("metadata") or {}
        if namespace and not meta.get("namespace"):
            new = {**new, "metadata": {**meta, "namespace": namespace}}
        errors = spec.served.validate(new, old)
        if errors:
            name = meta.get("name") or meta.get("generateName") or ""
            raise Invalid.of(spec.storage.info.group_kind, name, errors)

    # --- verbs -------------------------------------------------------------------------------------
    def create(self, info: ApiInfo, namespace: str | None, body: Obj, opts: WriteOptions) -> Obj:
        spec = self._spec(info)
        if spec is None:
            return self.inner.create(info, namespace, body, opts)
        up = spec.served.to_storage(body)
        self._check(spec, namespace, up, None)
        out = self.inner.create(spec.storage.info, namespace, up, opts)
        return spec.served.from_storage(out)

    def get(self, info: ApiInfo, namespace: str | None, name: str, *,
            resource_version: str | None = None) -> Obj:
        spec = self._spec(info)
        if spec is None:
            return self.inner.get(info, namespace, name, resource_version=resource_version)
        return spec.served.from_storage(self.inner.get(spec.storage.info, namespace, name,
                                                       resource_version=resource_version))

    def list(self, info: ApiInfo, namespace: str | None, **kwargs: Any) -> Obj:
        spec = self._spec(info)
        if spec is None:
            return self.inner.list(info, namespace, **kwargs)
        convert = spec.served.field_selector
        if convert is not None and kwargs.get("field_selector"):
            kwargs = {**kwargs, "field_selector": convert(kwargs["field_selector"])}
        out = self.inner.list(spec.storage.info, namespace, **kwargs)
        down = spec.served.from_storage
        return {**out, "apiVersion": info.api_version, "items": [down(i) for i in out.get("items") or []]}

    def update(
        self,
        info: ApiInfo,
        namespace: str | None,
        name: str,
        body: Obj,
        opts: WriteOptions,
        *,
        subresource: str | None = None,
    ) -> Obj:
        spec = self._spec(info)
        if spec is None:
            return self.inner.update(info, namespace, name, body, opts, subresource=subresource)
        up = spec.served.to_storage(body)
        if spec.served.validate is not None:
            old = self.inner.get(spec.storage.info, namespace, name)
            self._check(spec, namespace, up, old)
        out = self.inner.update(spec.storage.info, namespace, name, up, opts, subresource=subresource)
        return spec.served.from_storage(out)

    def patch(
        self,
        info: ApiInfo,
        namespace: str | None,
        name: str,
        patch: Any,
        patch_type: str,
        opts: WriteOptions,
        *,
        subresource: str | None = None,
    ) -> Obj:
        spec = self._spec(info)
        if spec is None:
            return self.inner.patch(info, namespace, name, patch, patch_type, opts, subresource=subresource)
        built_in = not is_custom_resource_group(info.group)
        if patch_type == "strategic" and built_in and spec.served.validate is not None:
            # a version that validates its own writes (events.k8s.io/v1 Event) takes the read, patch,
            # update path below, where that validation sees the result; an Event has no list with a
            # merge key, so its strategic patch is a merge patch
            patch_type = "merge"
        if patch_type == "strategic" and built_in and isinstance(patch, dict):
            # a built-in group's further version (scheduling.k8s.io/v1alpha3 Workload, PodGroup): the
            # same fields as the storage version, so the strategic patch applies there
            out = self.inner.patch(spec.storage.info, namespace, name, spec.served.to_storage(patch),
                                   patch_type, opts, subresource=subresource)
            return spec.served.from_storage(out)
        if patch_type == "strategic":
            raise UnsupportedMediaType(
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json-patch+json, application/merge-patch+json, "
                "application/apply-patch+yaml"
            )
        current = self.get(info, namespace, name)
        patched = (
            apply_merge_patch(current, patch) if patch_type == "merge" else apply_json_patch(current, patch)
        )
        if isinstance(patched, dict):
            meta = patched.setdefault("metadata", {})
            meta.setdefault("resourceVersion", (current.get("metadata") or {}).get("resourceVersion"))
        return self.update(info, namespace, name, patched, opts, subresource=subresource)

    def apply(
        self,
        info: ApiInfo,
        namespace: str | None,
        name: str,
        config: Any,
        opts: WriteOptions,
        *,
        field_manager: str | None,
        force: bool = False,
        subresource: str | None = None,
    ) -> Obj:
        spec = self._spec(info)
        if spec is None:
            return self.inner.apply(
                info,
                namespace,
                name,
                config,
                opts,
                field_manager=field_manager,
                force=force,
                subresource=subresource,
            )
        up = spec.served.to_storage(config) if isinstance(config, dict) else config
        out = self.inner.apply(
            spec.storage.info,
            namespace,
            name,
            up,
            opts,
            field_manager=field_manager,
            force=force,
            subresource=subresource,
        )
        return spec.served.from_storage(out)

    def delete(self, info: ApiInfo, namespace: str | None, name: str, opts: DeleteOptions) -> Obj | None:
        spec = self._spec(info)
        if spec is None:
            return self.inner.delete(info, namespace, name, opts)
        out = self.inner.delete(spec.storage.info, namespace, name, opts)
        return spec.served.from_storage(out) if out is not None and out.get("kind") != "Status" else out

    def watch(self, info: ApiInfo, namespace: str | None, opts: WatchOptions) -> DictWatch:
        spec = self._spec(info)
        if spec is None:
            return self.inner.watch(info, namespace, opts)
        convert = spec.served.field_selector
        if convert is not None and opts.field_selector:
            opts = replace(opts, field_selector=convert(opts.field_selector))
        return _ConvertingWatch(
            self.inner.watch(spec.storage.info, namespace, opts),
            spec.served.from_storage,
        )


def versioned(backend: Backend) -> Backend:
    """``backend`` serving further versions (idempotent)."""
    if isinstance(backend, VersionedBackend) or not any(
        s.served is not None for s in backend.registry.served()
    ):
        return backend
    return VersionedBackend(backend)  # type: ignore[return-value]
