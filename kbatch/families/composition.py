"""Composing families: the kinds, admission plugins, controllers, scheduler plugins, feature gates and
job integrations of a control plane, each in family order, checked for clashes.

:func:`compose` is what the ``ControlPlane``, ``kbatch serve`` and the CLI call; it never imports
what the families refer to lazily. :meth:`Composition.admission_plugins` applies kube-apiserver's
``--enable-admission-plugins`` / ``--disable-admission-plugins`` (upstream
``staging/src/k8s.io/apiserver/pkg/server/options/admission.go``: unknown names and a plugin named in
both are errors; the enabled plugins run in the recommended order, whatever the flags' order).
:meth:`Composition.cluster_addons` selects the add-ons a new cluster gets, in ``--controllers``'
syntax (``*``, ``name``, ``-name``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kbatch.api.features import FeatureGates, FeatureSpec
from kbatch.api.registry import Registry
from kbatch.api.strategy import GatedStrategy
from kbatch.api.virtual import VirtualResource
from kbatch.families.family import (
    AdmissionPlugin,
    ClusterAddon,
    ControllerSpec,
    Family,
    JobIntegration,
    KindEntry,
    SchedulerPlugin,
)

__all__ = ["AddonSelectionError", "AdmissionSelectionError", "Composition", "compose", "parse_plugin_list"]


class AdmissionSelectionError(ValueError):
    """``--enable-admission-plugins`` / ``--disable-admission-plugins`` that cannot be applied."""


class AddonSelectionError(ValueError):
    """A cluster add-on selection that names an unknown add-on."""


def parse_plugin_list(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"A,B"`` or ``["A", "B"]`` → ``("A", "B")`` (empty items dropped)."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(item.strip() for item in items if item.strip())


@dataclass(frozen=True, slots=True)
class Composition:
    families: tuple[Family, ...]
    kinds: tuple[KindEntry, ...]
    admission: tuple[AdmissionPlugin, ...]
    controllers: tuple[ControllerSpec, ...]
    scheduler_plugins: tuple[SchedulerPlugin, ...]
    feature_specs: tuple[FeatureSpec, ...]
    job_integrations: tuple[JobIntegration, ...]
    addons: tuple[ClusterAddon, ...] = ()
    virtual: tuple[VirtualResource, ...] = ()

    def registry(self, gates: FeatureGates | None = None,
                 served: Collection[tuple[str, str]] | None = None) -> Registry:
        """A fresh registry (a ``Registry`` is owned by one control plane). With the control plane's
        ``gates``: only the kinds whose gate is on, each strategy bound to the gates
        (:class:`~kbatch.api.strategy.GatedStrategy`: fields of disabled features dropped on write, as
        upstream's ``dropDisabledFields``); without: every kind, nothing dropped (a client's view).
        ``served``: the (apiVersion, kind) pairs a server's discovery lists; a client keeps only the
        kinds it offers, as kubectl's discovery-backed RESTMapper knows only those."""
        registry = Registry()
        for entry in self.kinds:
            if gates is not None and entry.feature_gate and not gates.enabled(entry.feature_gate):
                continue
            info = entry.model.api_info
            if served is not None and (info.api_version, info.kind) not in served:
                continue
            strategy = entry.strategy
            if gates is not None and isinstance(strategy, GatedStrategy):
                strategy = strategy.for_gates(gates)
            versions = tuple(v for v in entry.versions
                             if gates is None or not v.feature_gate or gates.enabled(v.feature_gate))
            registry.register(entry.model, strategy, gc_policy=entry.gc_policy, printer=entry.printer,
                              describe=entry.describe, page=entry.page,
                              versions=versions, subresources=entry.subresources)
        for resource in self.virtual:
            if served is None or (resource.api_version, resource.kind) in served:
                registry.register_virtual(resource)
        return registry

    def feature_gates(self, overrides: Mapping[str, bool] | str | None = None) -> FeatureGates:
        """The gates of every family, with ``overrides`` (``--feature-gates``) applied."""
        return FeatureGates(self.feature_specs, overrides)

    def admission_plugins(self, enable: str | Sequence[str] | None = None,
                          disable: str | Sequence[str] | None = None) -> tuple[AdmissionPlugin, ...]:
        """The plugins to run: the default-enabled ones plus ``enable`` minus ``disable``, in order."""
        enabled, disabled = parse_plugin_list(enable), parse_plugin_list(disable)
        known = {p.name for p in self.admission}
        for flag, names in (("enable-admission-plugins", enabled), ("disable-admission-plugins", disabled)):
            for name in names:
                if name not in known:
                    raise AdmissionSelectionError(f'{flag} plugin "{name}" is unknown')
        both = sorted(set(enabled) & set(disabled))
        if both:
            raise AdmissionSelectionError(f"[{' '.join(both)}] in enable-admission-plugins and "
                                          "disable-admission-plugins overlapped")
        return tuple(p for p in self.admission
                     if (p.enabled_by_default or p.name in enabled) and p.name not in disabled)

    def cluster_addons(self, selection: str | Sequence[str] | None = None) -> tuple[ClusterAddon, ...]:
        """The add-ons a new cluster gets, in family order. ``selection`` reads as ``--controllers``
        does: ``*`` the default-enabled ones, ``name`` on, ``-name`` off (the first explicit term
        naming an add-on decides); ``None`` is ``*``, ``""`` none."""
        terms = ["*"] if selection is None else list(parse_plugin_list(selection))
        known = {a.name for a in self.addons}
        unknown = sorted({t.removeprefix("-") for t in terms if t != "*"} - known)
        if unknown:
            raise AddonSelectionError(f"unknown cluster add-on {', '.join(repr(u) for u in unknown)}; "
                                      f"known: {', '.join(sorted(known)) or '(none)'}")
        return tuple(a for a in self.addons if _selected(a, terms))

    def family(self, name: str) -> Family:
        for family in self.families:
            if family.name == name:
                return family
        raise KeyError(f"no family named {name!r}; known: {', '.join(f.name for f in self.families)}")


def _selected(addon: ClusterAddon, terms: Sequence[str]) -> bool:
    for term in terms:
        if term in (addon.name, f"-{addon.name}"):
            return term == addon.name
    return "*" in terms and addon.enabled_by_default


def _unique(what: str, names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"two families declare the {what} {name!r}")
        seen.add(name)


def compose(families: Iterable[Family]) -> Composition:
    """The families, in order, as one :class:`Composition`; a clash (two families declaring the same
    kind, virtual resource, admission plugin, controller, scheduler plugin, integration or cluster
    add-on) is a ``ValueError``."""
    chosen = tuple(families)
    _unique("family", (f.name for f in chosen))
    kinds = tuple(k for f in chosen for k in f.kinds)
    virtual = tuple(v for f in chosen for v in f.virtual)
    _unique("kind", (*(f"{k.model.api_info.api_version}/{k.model.api_info.kind}" for k in kinds),
                     *(f"{v.api_version}/{v.kind}" for v in virtual if "create" in v.verbs)))
    _unique("resource", (*(f"{k.model.api_info.api_version}/{k.model.api_info.plural}" for k in kinds),
                         *(f"{v.api_version}/{v.plural}" for v in virtual)))
    admission = tuple(p for f in chosen for p in f.admission)
    _unique("admission plugin", (p.name for p in admission))
    controllers = tuple(c for f in chosen for c in f.controllers)
    _unique("controller", (n for c in controllers for n in (c.name, *c.aliases)))
    plugins = tuple(p for f in chosen for p in f.scheduler_plugins)
    _unique("scheduler plugin", (p.name for p in plugins))
    integrations = tuple(j for f in chosen for j in f.job_integrations)
    _unique("job integration", (j.name for j in integrations))
    gates = tuple(g for f in chosen for g in f.feature_gates)
    addons = tuple(a for f in chosen for a in f.cluster_addons)
    _unique("cluster add-on", (a.name for a in addons))
    return Composition(chosen, kinds, admission, controllers, plugins, gates, integrations, addons, virtual)
