"""Scheduler profiles from a configuration and a plugin registry (kube-scheduler's framework setup).

A :class:`Registry` maps plugin names to factories (``new(args, handle) -> plugin``); families
contribute their plugins to it (:class:`kbatch.families.SchedulerPlugin`) and some to the default
``multiPoint`` list. :func:`build_profiles` turns a :class:`~.config.SchedulerConfig` into one
:class:`~.framework.Profile` per ``schedulerName``:

1. each extension point's plugin set is the default set merged with the profile's
   (:func:`~.config.merge_plugin_set`; the defaults are all ``multiPoint``);
2. ``multiPoint`` plugins are expanded to every extension point they implement, unless disabled
   there; a plugin also enabled explicitly at a point takes that position (upstream
   ``expandMultiPointPlugins``: explicit overrides first, then the other multiPoint plugins, then the
   other explicit ones);
3. each plugin is built once per profile, with its ``pluginConfig`` args, and placed at its points;
   a score plugin's weight is the configured one, else the plugin's default, else 1.

The :class:`Handle` is what a plugin may use (upstream ``framework.Handle``): the informer cache, the
client, the clock, the feature gates and, once built, its own profile (DefaultPreemption runs the
profile's filters). A plugin that needs informer events declares ``event_handlers()`` (kind → handler);
the scheduler registers them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.features import FeatureGates
from kbatch.controllers.scheduler.config import (
    EXTENSION_POINTS,
    PluginEntry,
    PluginSet,
    ProfileConfig,
    SchedulerConfig,
    SchedulerConfigError,
    SchedulerDecodingError,
    merge_plugin_set,
)
from kbatch.controllers.scheduler.framework import (
    BindPlugin,
    FilterPlugin,
    PermitPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    Profile,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
)

__all__ = ["Handle", "PluginFactory", "Registry", "build_profiles", "decode_nested_objects", "event_handlers",
           "implements"]

PluginFactory = Callable[[Mapping[str, Any], "Handle"], Any]

# extension point -> the protocol a plugin implements to run there (postBind: none modelled)
_PROTOCOLS: dict[str, Any] = {
    "preEnqueue": PreEnqueuePlugin, "queueSort": QueueSortPlugin, "preFilter": PreFilterPlugin,
    "filter": FilterPlugin, "postFilter": PostFilterPlugin, "preScore": PreScorePlugin,
    "score": ScorePlugin, "reserve": ReservePlugin, "permit": PermitPlugin, "preBind": PreBindPlugin,
    "bind": BindPlugin,
}
_METHODS = {"preEnqueue": "pre_enqueue", "queueSort": "sort_key", "preFilter": "pre_filter",
            "filter": "filter", "postFilter": "post_filter", "preScore": "pre_score", "score": "score",
            "reserve": "reserve", "permit": "permit", "preBind": "pre_bind", "bind": "bind"}


def implements(plugin: Any, point: str) -> bool:
    """Whether ``plugin`` extends ``point`` (it has the method that point calls)."""
    method = _METHODS.get(point)
    return method is not None and callable(getattr(plugin, method, None))


@dataclass(slots=True)
class Handle:
    """What plugins may use; any part may be ``None`` for a scheduler built without a control plane
    (pure tests). ``profile`` is set once the plugin's profile is built; ``scheduler`` is the running
    scheduler's services (waiting pods, activation, custom-kind events:
    :class:`~kbatch.controllers.scheduler.services.SchedulerServices`)."""

    cache: Any = None
    client: Any = None
    clock: Any = None
    features: FeatureGates = field(default_factory=FeatureGates)
    profile: Profile | None = None
    rng: Any = None  # the scheduler's seeded random source (None without a control plane)
    # on_event(event, old, new[, pre_check]): a plugin's informer handler reports a cluster event
    # (upstream: the scheduler's informers for the resources plugins register), moving the pods it
    # may help; pre_check(pod) narrows the candidates (upstream PreEnqueueCheck)
    on_event: Callable[..., None] | None = None
    scheduler: Any = None  # SchedulerServices (services.py): waiting pods, Activate, pod groups
    recorder: Any = None  # the scheduler's event recorder (None: no events, e.g. pure tests)
    # extended resource name -> the DeviceClass backing it (upstream ``SharedDRAManager``'s
    # ``DeviceClassResolver``); the DynamicResources plugin sets it, NodeResourcesFit reads it
    device_class_resolver: Callable[[str], Any] | None = None
    # (extended resource name, NodeInfo) -> (devices backing it on the node, how many are allocated):
    # what NodeResourcesFit and BalancedAllocation score a DRA-backed resource with (upstream
    # ``calculateDRAExtendedResourceAllocatableRequest``); set by DynamicResources too
    dra_extended_totals: Callable[[str, Any], tuple[int, int]] | None = None


@dataclass(frozen=True, slots=True)
class _Known:
    factory: PluginFactory
    weight: int


class Registry:
    """Plugin name → factory and default weight, and the default ``multiPoint`` list, in order."""

    def __init__(self) -> None:
        self._plugins: dict[str, _Known] = {}
        self._multi_point: list[PluginEntry] = []
        self._queue_sort: PluginSet | None = None

    def register(self, name: str, factory: PluginFactory, *, weight: int = 0,
                 multi_point: bool = False, queue_sort: bool = False, before: str = "") -> None:
        """``queue_sort``: the default profile's QueueSort is this plugin; the multiPoint plugins
        registered before it do not sort the queue there; ``before``: its multiPoint place is just
        before that plugin's, when registered (:class:`kbatch.families.SchedulerPlugin`)."""
        if name in self._plugins:
            raise ValueError(f'a plugin named "{name}" already exists')
        self._plugins[name] = _Known(factory, weight)
        if queue_sort:
            self._queue_sort = PluginSet((PluginEntry(name),), tuple(e.name for e in self._multi_point))
        if multi_point:
            names = [e.name for e in self._multi_point]
            self._multi_point.insert(names.index(before) if before in names else len(names),
                                     PluginEntry(name, weight))

    def __contains__(self, name: object) -> bool:
        return name in self._plugins

    @property
    def names(self) -> list[str]:
        return list(self._plugins)

    @property
    def defaults(self) -> PluginSet:
        """The default profile's ``multiPoint`` set (upstream ``getDefaultPlugins``)."""
        return PluginSet(tuple(self._multi_point))

    @property
    def point_defaults(self) -> dict[str, PluginSet]:
        """Default plugin sets of single extension points (today only ``queueSort``, when a family's
        plugin takes it over)."""
        return {"queueSort": self._queue_sort} if self._queue_sort is not None else {}

    def new(self, name: str, args: Mapping[str, Any], handle: Handle) -> Any:
        known = self._plugins.get(name)
        if known is None:
            raise SchedulerConfigError(f'plugin "{name}" does not exist')
        try:
            return known.factory(args, handle)
        except SchedulerConfigError:
            raise
        except (TypeError, ValueError) as err:
            raise SchedulerConfigError(f'initializing plugin "{name}": {err}') from None

    def default_weight(self, name: str) -> int:
        return self._plugins[name].weight


def _expanded(points: Mapping[str, PluginSet], plugins: Mapping[str, Any]) -> dict[str, list[PluginEntry]]:
    """Each extension point's enabled plugins after multiPoint expansion (module docstring, step 2)."""
    multi = points.get("multiPoint", PluginSet())
    out: dict[str, list[PluginEntry]] = {}
    for point in EXTENSION_POINTS:
        explicit = points.get(point, PluginSet())
        named = {e.name: e for e in explicit.enabled}
        from_multi: list[PluginEntry] = []
        overrides: list[PluginEntry] = []
        if "*" not in explicit.disabled:
            for entry in multi.enabled:
                if not implements(plugins[entry.name], point) or entry.name in explicit.disabled:
                    continue
                if entry.name in named:
                    overrides.append(named[entry.name])
                else:
                    from_multi.append(entry)
        taken = {e.name for e in overrides}
        rest = [e for e in explicit.enabled if e.name not in taken]
        out[point] = [e for e in explicit.enabled if e.name in taken] + from_multi + rest
    return out


def _profile_points(registry: Registry, config: ProfileConfig) -> dict[str, PluginSet]:
    defaults = {"multiPoint": registry.defaults, **registry.point_defaults}
    return {point: merge_plugin_set(defaults.get(point, PluginSet()), config.plugins.get(point, PluginSet()))
            for point in ("multiPoint", *EXTENSION_POINTS)}


def _new(registry: Registry, config: ProfileConfig, index: int, name: str, handle: Handle) -> Any:
    """The plugin ``name`` built with its args; a decoding error in them wrapped as kube-scheduler's
    nested-object decoding wraps it (k8s.io/kube-scheduler ``config/v1/types.go``:
    ``KubeSchedulerConfiguration.DecodeNestedObjects`` around ``PluginConfig.decodeNestedObjects``)."""
    try:
        return registry.new(name, config.plugin_config.get(name, {}), handle)
    except SchedulerDecodingError as err:
        if name not in config.plugin_config:
            raise
        entry = list(config.plugin_config).index(name)
        raise SchedulerDecodingError(f"decoding .profiles[{index}].pluginConfig[{entry}]: "
                                     f"decoding args for plugin {name}: {err}") from None


def decode_nested_objects(config: SchedulerConfig, registry: Registry) -> None:
    """``DecodeNestedObjects``: every profile's every ``pluginConfig`` entry of a known plugin is
    decoded while the file is, in file order, whether or not the profile enables the plugin; the
    first type error is the file's error, before any validation. A kbatch plugin factory decodes its
    args as it builds, so each entry is built here on a scratch handle and only a decoding error
    kept (an unknown plugin's args stay undecoded upstream too; other errors come when the profiles
    are built, as validation's)."""
    for index, profile in enumerate(config.profiles):
        for name in profile.plugin_config:
            if name not in registry:
                continue
            try:
                _new(registry, profile, index, name, Handle())
            except SchedulerDecodingError:
                raise
            except SchedulerConfigError:
                continue  # validation's, reported when the profiles are built


def _build_one(registry: Registry, config: ProfileConfig, percentage: int | None,
               handle: Handle, index: int = 0) -> Profile:
    points = _profile_points(registry, config)
    names: list[str] = []
    for plugin_set in points.values():
        names += [e.name for e in plugin_set.enabled if e.name not in names]
    for name in config.plugin_config:
        if name not in registry:
            raise SchedulerConfigError(f'plugin "{name}" does not exist')
    plugins = {name: _new(registry, config, index, name, handle) for name in names}
    placed = _expanded(points, plugins)
    for point, entries in placed.items():
        for entry in entries:
            if not implements(plugins[entry.name], point):
                raise SchedulerConfigError(f'plugin "{entry.name}" does not extend {point} plugin')
    for entry in placed["score"]:
        plugins[entry.name].weight = entry.weight or registry.default_weight(entry.name) or 1
    sorts = [plugins[e.name] for e in placed["queueSort"]]
    if len(sorts) > 1:
        raise SchedulerConfigError(f'profile "{config.scheduler_name}": only one queue sort plugin can be '
                                   f"enabled, got {json.dumps([s.name for s in sorts])}")

    def at(point: str) -> list[Any]:
        return [plugins[e.name] for e in placed[point]]

    profile = Profile(
        scheduler_name=config.scheduler_name, queue_sort=sorts[0] if sorts else None,
        pre_enqueue=at("preEnqueue"), pre_filter=at("preFilter"), filter=at("filter"),
        post_filter=at("postFilter"), pre_score=at("preScore"), score=at("score"), reserve=at("reserve"),
        permit=at("permit"), pre_bind=at("preBind"), bind=at("bind"), percentage_of_nodes_to_score=percentage,
        plugins=dict(plugins))
    handle.profile = profile
    return profile


def build_profiles(config: SchedulerConfig, registry: Registry,
                   handle_for: Callable[[], Handle] = Handle) -> dict[str, Profile]:
    """One profile per ``schedulerName``, each with a handle of its own (``handle_for()``).

    Every profile must sort the queue alike (upstream: ``queueSort`` must be the same for all
    profiles, there is one queue)."""
    decode_nested_objects(config, registry)
    percentage = config.percentage_of_nodes_to_score
    profiles = {p.scheduler_name: _build_one(registry, p, percentage, handle_for(), i)
                for i, p in enumerate(config.profiles)}
    sorts = {name: (p.queue_sort.name if p.queue_sort else "") for name, p in profiles.items()}
    if len(set(sorts.values())) > 1:
        first = next(iter(sorts))
        other = next(n for n in sorts if sorts[n] != sorts[first])
        raise SchedulerConfigError(f'profiles[{list(sorts).index(other)}].plugins.queueSort: Invalid value: '
                                   f'"{sorts[other]}": queueSort must be the same for all profiles')
    return profiles


def event_handlers(profiles: Iterable[Profile]) -> list[tuple[type, Any]]:
    """The informer handlers the profiles' plugins declare (``event_handlers()``), each plugin once."""
    seen: set[int] = set()
    out: list[tuple[type, Any]] = []
    for profile in profiles:
        for plugin in profile.plugins.values():
            declare = getattr(plugin, "event_handlers", None)
            if declare is None or id(plugin) in seen:
                continue
            seen.add(id(plugin))
            out += list(declare().items())
    return out
