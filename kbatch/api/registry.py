"""The kinds registry: group/version/kind, plural, short names, scope, model and strategy per kind.

Adding a kind is one model (a ``Resource`` subclass with ``api_info``) plus one strategy, registered
here. A ``Registry`` is a plain value owned by a control plane (no global mutable state):
:func:`builtin_registry` builds a fresh one holding every built-in kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.api.errors import BadRequest, NotFound
from kbatch.api.meta import Resource
from kbatch.api.strategy import DefaultStrategy, Strategy

__all__ = ["KindSpec", "Registry", "builtin_registry"]


@dataclass(frozen=True, slots=True)
class KindSpec:
    info: ApiInfo
    model: type[Resource]
    strategy: Strategy[Any]

    @property
    def list_kind(self) -> str:
        return self.info.kind + "List"


class Registry:
    """Lookup of kinds by model class, by (apiVersion, kind) and by any name a user may type."""

    def __init__(self) -> None:
        self._by_model: dict[type[Resource], KindSpec] = {}
        self._by_gvk: dict[tuple[str, str], KindSpec] = {}
        self._by_name: dict[str, list[KindSpec]] = {}

    def register(self, model: type[Resource], strategy: Strategy[Any] | None = None) -> KindSpec:
        info = model.api_info
        spec = KindSpec(info, model, strategy if strategy is not None else DefaultStrategy())
        self._by_model[model] = spec
        self._by_gvk[(info.api_version, info.kind)] = spec
        names = {info.plural, info.kind.lower(), info.singular or info.kind.lower(), *info.short_names}
        for name in names:
            for qualified in (name, f"{name}.{info.group}" if info.group else name,
                              f"{name}.{info.version}.{info.group}" if info.group else name):
                bucket = self._by_name.setdefault(qualified, [])
                if spec not in bucket:
                    bucket.append(spec)
        return spec

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


def builtin_registry() -> Registry:
    """A fresh registry with every built-in kind (each API module contributes an installer)."""
    from kbatch.api import install

    registry = Registry()
    for installer in install.INSTALLERS:
        installer(registry)
    return registry
