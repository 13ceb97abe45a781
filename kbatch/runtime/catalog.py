"""The controller catalog: every controller the composed families declare, by stable name, and how
to build it.

Names follow kube-controller-manager where upstream has the controller (``job``, ``cronjob``,
``ttl-after-finished``, ``garbage-collector``, ``podgc``, ``taint-eviction-controller``,
``node-lifecycle``, ``disruption``) and are kbatch's own otherwise (``scheduler``, ``kubelet``). Each
entry (a :class:`kbatch.families.ControllerSpec`, declared by its family) has a one-line
description, an enabled-by-default flag, a factory (a callable ``setup(ctx: ControllerContext)`` or
a lazy ``"module:attribute"`` path), upstream aliases and the Event source component upstream uses
(``job-controller``, ``default-scheduler``, ...).

An entry whose module or ``setup`` does not exist is *known but unavailable*: ``*`` skips it, naming
it explicitly is an error that says so. Users add their own with :meth:`Catalog.register`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kbatch.families import ControllerSpec, builtin
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.selection import ControllerInfo, SelectionError, select

__all__ = ["Catalog", "ControllerSpec", "default_catalog", "info_of"]

Factory = Callable[[ControllerContext], Any]


def info_of(spec: ControllerSpec) -> ControllerInfo:
    return ControllerInfo(spec.name, spec.description, spec.enabled_by_default, spec.aliases)


class Catalog:
    """Known controllers, in a fixed order (the order they are set up and stepped in)."""

    def __init__(self, specs: Iterable[ControllerSpec] = ()) -> None:
        self._specs: dict[str, ControllerSpec] = {}
        self._aliases: dict[str, str] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ControllerSpec) -> None:
        taken = [n for n in (spec.name, *spec.aliases) if n in self._specs or n in self._aliases]
        if taken:
            raise ValueError(f"controller name {taken[0]!r} is already in the catalog")
        self._specs[spec.name] = spec
        for alias in spec.aliases:
            self._aliases[alias] = spec.name

    def __contains__(self, name: object) -> bool:
        return name in self._specs or name in self._aliases

    def __getitem__(self, name: str) -> ControllerSpec:
        try:
            return self._specs[self._aliases.get(name, name)]
        except KeyError:
            raise SelectionError(f"unknown controller {name!r}; known controllers: "
                                 f"{', '.join(sorted(self._specs))}") from None

    @property
    def specs(self) -> list[ControllerSpec]:
        return list(self._specs.values())

    def infos(self) -> list[ControllerInfo]:
        return [info_of(s) for s in self._specs.values()]

    def factory(self, name: str) -> Factory | None:
        """The setup function, or ``None`` when the entry is not available in this build."""
        target = self[name].factory
        if callable(target):
            return target
        module_name, _, attr = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name and module_name.startswith(err.name):
                return None
            raise
        return getattr(module, attr or "setup", None)

    def available(self, name: str) -> bool:
        return self.factory(name) is not None

    def resolve(self, selection: str | Sequence[str] | None) -> list[str]:
        """The controllers to run for a ``--controllers`` selection, in catalog order.

        ``*`` quietly skips unavailable entries; naming an unavailable one explicitly is an error."""
        names = select(selection, self.infos())
        explicit = {self[t].name for t in _terms(selection) if t != "*" and not t.startswith("-")}
        chosen = []
        for name in names:
            if self.available(name):
                chosen.append(name)
            elif name in explicit:
                raise SelectionError(f"controller {name!r} is known but not available in this build "
                                     f"({self[name].factory} not found)")
        return chosen


def _terms(selection: str | Sequence[str] | None) -> list[str]:
    from kbatch.runtime.selection import parse_selection

    return parse_selection(selection)


def default_catalog() -> Catalog:
    """A fresh catalog with every built-in family's controllers."""
    return Catalog(builtin().controllers)
