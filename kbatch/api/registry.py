"""The kinds registry: group/version/kind, plural, short names, scope, model, strategy, printer,
describer and garbage-collection policy per kind (apimachinery's ``runtime.Scheme`` plus the
per-kind registry options of kube-apiserver), and the resources served without storage (the reviews,
metrics.k8s.io: :mod:`kbatch.api.virtual`).

A ``Registry`` is a plain value owned by a control plane (no global mutable state). Kinds reach it
from their families (:class:`kbatch.families.KindEntry`): :func:`kbatch.families.builtin_registry`
builds a fresh one holding every built-in kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.api.errors import BadRequest, NotFound
from kbatch.api.meta import Resource
from kbatch.api.printing import DEFAULT_PRINTER, Describer, PageDescriber, Printer
from kbatch.api.strategy import DefaultStrategy, Strategy
from kbatch.api.versions import ServedVersion
from kbatch.api.virtual import Subresource, VirtualResource

__all__ = ["GC_POLICIES", "KindSpec", "Registry"]

GC_POLICIES = ("Background", "Foreground", "Orphan")


@dataclass(frozen=True, slots=True)
class KindSpec:
    """``gc_policy``: what a delete without ``propagationPolicy`` does (upstream's
    ``DefaultGarbageCollectionPolicy``); ``printer``/``describe``: how people see the kind (``None``:
    a custom resource's Name, Age columns / its spec and status as YAML); ``page``: its whole describe
    page when that reads other objects (replaces ``describe``)."""

    info: ApiInfo
    model: type[Resource]
    strategy: Strategy[Any]
    gc_policy: str = "Background"
    printer: Printer | None = None
    describe: Describer | None = None
    page: PageDescriber | None = None
    # a non-storage served version: the storage version's spec and how this version converts
    storage: KindSpec | None = None
    served: ServedVersion | None = None
    extra: tuple[Subresource, ...] = ()  # subresources beyond status (pods/log, serviceaccounts/token)

    def subresource(self, name: str | None) -> Subresource | None:
        """The declared subresource ``name`` (``None`` for status and undeclared ones)."""
        return next((s for s in self.extra if s.name == name), None)

    @property
    def list_kind(self) -> str:
        return self.info.kind + "List"

    @property
    def table_printer(self) -> Printer:
        return self.printer if self.printer is not None else DEFAULT_PRINTER


def _names(info: ApiInfo) -> tuple[str, ...]:
    """The names a user may type for a kind, each once, in a fixed order: a set's order would depend
    on the hash seed, and it orders the name table an image stores (tests/runtime/test_image_columns.py)."""
    return tuple(dict.fromkeys((info.plural, info.kind.lower(), info.singular or info.kind.lower(),
                                *info.short_names)))


class Registry:
    """Lookup of kinds by model class, by (apiVersion, kind) and by any name a user may type."""

    def __init__(self) -> None:
        self._by_model: dict[type[Resource], KindSpec] = {}
        self._by_gvk: dict[tuple[str, str], KindSpec] = {}
        self._by_name: dict[str, list[KindSpec]] = {}
        self._alternates: list[KindSpec] = []
        self._virtual: dict[tuple[str, str], VirtualResource] = {}

    def register_virtual(self, resource: VirtualResource) -> None:
        """Serve ``resource`` without storage (:mod:`kbatch.api.virtual`); by resource, since two
        may answer with one kind (Kueue's visibility ``PendingWorkloadsSummary``)."""
        self._virtual[(resource.api_version, resource.plural)] = resource

    def virtual(self) -> list[VirtualResource]:
        """The resources served without storage, in registration order."""
        return list(self._virtual.values())

    def virtual_for(self, api_version: str, kind: str) -> VirtualResource | None:
        """The virtual resource a body of ``kind`` is created on (reviews: one resource per kind)."""
        return next((r for r in self._virtual.values()
                     if (r.api_version, r.kind) == (api_version, kind) and "create" in r.verbs), None)

    def register(self, model: type[Resource], strategy: Strategy[Any] | None = None, *,
                 gc_policy: str = "Background", printer: Printer | None = None,
                 describe: Describer | None = None, page: PageDescriber | None = None,
                 versions: tuple[ServedVersion, ...] = (),
                 subresources: tuple[Subresource, ...] = ()) -> KindSpec:
        """Register ``model`` as a stored kind; ``versions`` are further served versions of it
        (converted to and from ``model``'s, :mod:`kbatch.api.versions`)."""
        if gc_policy not in GC_POLICIES:
            raise ValueError(f"gc_policy must be one of {GC_POLICIES}, not {gc_policy!r}")
        info = model.api_info
        spec = KindSpec(info, model, strategy if strategy is not None else DefaultStrategy(), gc_policy,
                        printer, describe, page, extra=subresources)
        self._by_model[model] = spec
        self._by_gvk[(info.api_version, info.kind)] = spec
        for name in _names(info):
            for qualified in (name, f"{name}.{info.group}" if info.group else name,
                              f"{name}.{info.version}.{info.group}" if info.group else name):
                bucket = self._by_name.setdefault(qualified, [])
                if spec not in bucket:
                    bucket.append(spec)
        for served in versions:
            self._register_version(spec, served)
        return spec

    def _register_version(self, storage: KindSpec, served: ServedVersion) -> None:
        info = served.model.api_info
        alt = KindSpec(info, served.model, storage.strategy, storage.gc_policy,
                       served.printer or storage.printer, storage.describe, storage.page, storage=storage,
                       served=served)
        self._by_gvk[(info.api_version, info.kind)] = alt
        self._alternates.append(alt)
        own_group = info.group != storage.info.group  # events.k8s.io/v1 Event, stored as core/v1's
        for name in _names(info):
            self._by_name.setdefault(f"{name}.{info.version}.{info.group}", []).append(alt)
            if own_group:
                self._by_name.setdefault(f"{name}.{info.group}", []).append(alt)

    def served(self) -> list[KindSpec]:
        """Every served kind version: the stored ones (each the preferred version of its kind, in
        registration order), then the further served versions."""
        return [*self._by_model.values(), *self._alternates]

    def for_model(self, model: type[Resource]) -> KindSpec:
        try:
            return self._by_model[model]
        except KeyError:
            raise NotFound(f"kind {model.__name__} is not registered") from None

    def for_gvk(self, api_version: str, kind: str) -> KindSpec:
        spec = self._by_gvk.get((api_version, kind))
        if spec is None:
            raise BadRequest(f'no matches for kind "{kind}" in version "{api_version}"')
        return spec

    def for_name(self, name: str) -> KindSpec:
        """Resolve what a user types (``po``, ``pods``, ``Pod``, ``jobs.batch``); the preferred
        (first registered) version wins when several versions share a name."""
        bucket = self._by_name.get(name) or self._by_name.get(name.lower())
        if not bucket:
            raise BadRequest(f'the server doesn\'t have a resource type "{name}"')
        return bucket[0]

    def __iter__(self) -> Iterator[KindSpec]:
        return iter(self._by_model.values())

    def __contains__(self, model: object) -> bool:
        return model in self._by_model
