"""The controller catalog: every controller kbatch knows, by stable name, and how to build it.

Names follow kube-controller-manager where upstream has the controller (``job``, ``cronjob``,
``ttl-after-finished``, ``garbage-collector``, ``podgc``, ``taint-eviction-controller``,
``node-lifecycle``, ``disruption``) and are kbatch's own otherwise (``scheduler``, ``kubelet``). Each
entry has a one-line description, an enabled-by-default flag, a factory (a callable
``setup(ctx: ControllerContext)`` or a lazy ``"module:attribute"`` path), upstream aliases and the
Event source component upstream uses (``job-controller``, ``default-scheduler``, ...).

**Adding a controller by name** is one line in :data:`BUILTIN_CONTROLLERS`, pointing at a
``setup(ctx)`` function in its own package (``kbatch.controllers.job:setup``). An entry whose
module or ``setup`` does not exist is *known but unavailable*: ``*`` skips it, naming it
explicitly is an error that says so. Users add their own with :meth:`Catalog.register`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbatch.runtime.context import ControllerContext
from kbatch.runtime.selection import ControllerInfo, SelectionError, select

__all__ = ["BUILTIN_CONTROLLERS", "Catalog", "ControllerSpec", "default_catalog"]

Factory = Callable[[ControllerContext], Any]


@dataclass(frozen=True, slots=True)
class ControllerSpec:
    name: str
    description: str
    factory: str | Factory
    enabled_by_default: bool = True
    aliases: tuple[str, ...] = ()
    source: str = ""  # the Event source component upstream uses; the name when empty

    @property
    def event_source(self) -> str:
        return self.source or self.name

    @property
    def info(self) -> ControllerInfo:
        return ControllerInfo(self.name, self.description, self.enabled_by_default, self.aliases)


# Names: kbatch's short names first (the ones the issues and docs use); ``aliases`` accept
# kube-controller-manager's canonical names and its legacy aliases
# (upstream cmd/kube-controller-manager/names/controller_names.go), so a selection copied from a
# real cluster's flags works unchanged.
BUILTIN_CONTROLLERS: tuple[ControllerSpec, ...] = (
    ControllerSpec("garbage-collector", "deletes dependents whose owners are gone (ownerReferences)",
                   "kbatch.runtime.builtin.garbage_collector:setup",
                   aliases=("garbage-collector-controller", "garbagecollector"),
                   source="garbage-collector-controller"),
    ControllerSpec("ttl-after-finished", "deletes finished Jobs ttlSecondsAfterFinished after they end",
                   "kbatch.runtime.builtin.ttl_after_finished:setup",
                   aliases=("ttl-after-finished-controller",), source="ttl-after-finished-controller"),
    ControllerSpec("job", "runs a Job's pods to completion (batch/v1 Job)", "kbatch.controllers.job:setup",
                   aliases=("job-controller",), source="job-controller"),
    ControllerSpec("cronjob", "creates Jobs on a cron schedule (batch/v1 CronJob)",
                   "kbatch.controllers.cronjob:setup", aliases=("cronjob-controller",),
                   source="cronjob-controller"),
    ControllerSpec("podgc", "deletes terminated, orphaned and unscheduled terminating pods",
                   "kbatch.controllers.podgc:setup", aliases=("pod-garbage-collector-controller",),
                   source="pod-garbage-collector-controller"),
    ControllerSpec("node-lifecycle", "taints NotReady/unreachable nodes (node.kubernetes.io/not-ready)",
                   "kbatch.controllers.nodelifecycle:setup",
                   aliases=("node-lifecycle-controller", "nodelifecycle"), source="node-controller"),
    ControllerSpec("taint-eviction-controller", "evicts pods that do not tolerate NoExecute taints",
                   "kbatch.controllers.nodelifecycle:setup_taint_eviction"),
    ControllerSpec("scheduler", "binds pending pods to nodes (simulated kube-scheduler)",
                   "kbatch.controllers.scheduler:setup", source="default-scheduler"),
    ControllerSpec("kubelet", "runs bound pods on simulated nodes (KWOK-style)",
                   "kbatch.controllers.kubelet:setup"),
    ControllerSpec("disruption", "keeps PodDisruptionBudget status current, resets stale DisruptionTarget",
                   "kbatch.controllers.disruption:setup", aliases=("disruption-controller",),
                   source="controllermanager"),
    ControllerSpec("namespace", "deletes the content of terminating namespaces, then finalizes them",
                   "kbatch.controllers.namespace:setup", aliases=("namespace-controller",),
                   source="namespace-controller"),
)


class Catalog:
    """Known controllers, in a fixed order (the order they are set up and stepped in)."""

    def __init__(self, specs: tuple[ControllerSpec, ...] | list[ControllerSpec] = ()) -> None:
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
        return [s.info for s in self._specs.values()]

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

    def resolve(self, selection: str | list[str] | None) -> list[str]:
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


def _terms(selection: str | list[str] | None) -> list[str]:
    from kbatch.runtime.selection import parse_selection

    return parse_selection(selection)


def default_catalog() -> Catalog:
    """A fresh catalog with every built-in entry."""
    return Catalog(BUILTIN_CONTROLLERS)
