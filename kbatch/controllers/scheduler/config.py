"""The scheduler's configuration: kube-scheduler's ``KubeSchedulerConfiguration`` (``v1``).

Read from the same document kube-scheduler takes with ``--config`` (YAML or a dict)::

    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    percentageOfNodesToScore: 50
    profiles:
    - schedulerName: default-scheduler
    - schedulerName: no-preemption
      plugins:
        postFilter: {disabled: [{name: DefaultPreemption}]}
      pluginConfig:
      - name: NodeResourcesFit
        args: {scoringStrategy: {type: MostAllocated}}

Only the scheduling part is modelled (profiles, plugins per extension point, plugin args,
``percentageOfNodesToScore``); the process settings upstream also keeps here (leader election,
client connection, ...) are accepted and ignored. Upstream: ``pkg/scheduler/apis/config/v1``
(types, ``default_plugins.go``'s ``mergePluginSet``) and ``validation/validation.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "PluginEntry",
    "PluginSet",
    "ProfileConfig",
    "SchedulerConfig",
    "SchedulerConfigError",
    "merge_plugin_set",
    "parse_config",
    "plugin_args",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
# The extension points a profile configures, in the order the framework runs them; ``multiPoint``
# enables a plugin at every one it implements. preBind/postBind are accepted for plugins kbatch
# models none of (volume binding).
EXTENSION_POINTS = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
                    "reserve", "permit", "preBind", "bind", "postBind")
_PROCESS_FIELDS = frozenset({
    "parallelism", "leaderElection", "clientConnection", "healthzBindAddress", "metricsBindAddress",
    "enableProfiling", "enableContentionProfiling", "podInitialBackoffSeconds", "podMaxBackoffSeconds",
    "extenders", "delayCacheUntilActive", "featureGates",
})


class SchedulerConfigError(ValueError):
    """A configuration kube-scheduler would refuse; the message names the field path."""


@dataclass(frozen=True, slots=True)
class PluginEntry:
    name: str
    weight: int = 0  # 0: the plugin's default weight (score plugins)


@dataclass(frozen=True, slots=True)
class PluginSet:
    enabled: tuple[PluginEntry, ...] = ()
    disabled: tuple[str, ...] = ()  # "*" disables every default plugin of the extension point


@dataclass(frozen=True, slots=True)
class ProfileConfig:
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: Mapping[str, PluginSet] = field(default_factory=dict)  # extension point -> set
    plugin_config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # plugin -> args


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    profiles: tuple[ProfileConfig, ...] = (ProfileConfig(),)
    percentage_of_nodes_to_score: int | None = None


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """A profile's plugin set over the defaults (upstream ``mergePluginSet``): defaults stay in their
    order unless disabled (``*``: all of them); a default the profile enables again is replaced in
    place (its weight may change); the profile's other plugins follow, in its order."""
    disabled = (*custom.disabled, *default.disabled)
    custom_index = {e.name: i for i, e in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginEntry] = []
    if "*" not in disabled:
        for entry in default.enabled:
            if entry.name in disabled:
                continue
            index = custom_index.get(entry.name)
            if index is not None:
                entry = custom.enabled[index]
                replaced.add(index)
            enabled.append(entry)
    enabled += [e for i, e in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(tuple(enabled), disabled)


def plugin_args(plugin: str, args: Mapping[str, Any], allowed: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """``args`` of ``plugin`` when it names only ``allowed`` fields (upstream decodes plugin args
    strictly: ``strict decoding error: unknown field``)."""
    _unknown(args, set(allowed), f"pluginConfig[{plugin}].args")
    return args


def _unknown(doc: Mapping[str, Any], known: set[str] | frozenset[str], path: str) -> None:
    extra = sorted(set(doc) - set(known))
    if extra:
        where = f"{path}." if path else ""
        raise SchedulerConfigError(f'strict decoding error: unknown field "{where}{extra[0]}"')


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SchedulerConfigError(f"{path}: Invalid value: expected an object, got {type(value).__name__}")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise SchedulerConfigError(f"{path}: Invalid value: expected a list, got {type(value).__name__}")
    return value


def _plugin_set(doc: Any, path: str) -> PluginSet:
    doc = _mapping(doc, path)
    _unknown(doc, {"enabled", "disabled"}, path)
    enabled = []
    for i, item in enumerate(_list(doc.get("enabled"), f"{path}.enabled")):
        item = _mapping(item, f"{path}.enabled[{i}]")
        _unknown(item, {"name", "weight"}, f"{path}.enabled[{i}]")
        name, weight = item.get("name"), item.get("weight", 0)
        if not isinstance(name, str) or not name:
            raise SchedulerConfigError(f"{path}.enabled[{i}].name: Required value")
        if not isinstance(weight, int) or weight < 0:
            raise SchedulerConfigError(f"{path}.enabled[{i}].weight: Invalid value: {weight!r}: "
                                       "must be a non-negative integer")
        enabled.append(PluginEntry(name, weight))
    disabled = []
    for i, item in enumerate(_list(doc.get("disabled"), f"{path}.disabled")):
        item = _mapping(item, f"{path}.disabled[{i}]")
        _unknown(item, {"name", "weight"}, f"{path}.disabled[{i}]")
        if not isinstance(item.get("name"), str) or not item["name"]:
            raise SchedulerConfigError(f"{path}.disabled[{i}].name: Required value")
        disabled.append(item["name"])
    return PluginSet(tuple(enabled), tuple(disabled))


def _profile(doc: Any, path: str) -> ProfileConfig:
    doc = _mapping(doc, path)
    _unknown(doc, {"schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"}, path)
    name = doc.get("schedulerName", DEFAULT_SCHEDULER_NAME)
    if not isinstance(name, str) or not name:
        raise SchedulerConfigError(f"{path}.schedulerName: Required value")
    plugins_doc = _mapping(doc.get("plugins"), f"{path}.plugins")
    _unknown(plugins_doc, {"multiPoint", *EXTENSION_POINTS}, f"{path}.plugins")
    plugins = {point: _plugin_set(value, f"{path}.plugins.{point}") for point, value in plugins_doc.items()}
    args: dict[str, Mapping[str, Any]] = {}
    for i, item in enumerate(_list(doc.get("pluginConfig"), f"{path}.pluginConfig")):
        where = f"{path}.pluginConfig[{i}]"
        item = _mapping(item, where)
        _unknown(item, {"name", "args"}, where)
        plugin = item.get("name")
        if not isinstance(plugin, str) or not plugin:
            raise SchedulerConfigError(f"{where}.name: Required value")
        if plugin in args:
            raise SchedulerConfigError(f'{where}: Duplicate value: "{plugin}"')
        args[plugin] = _mapping(item.get("args"), f"{where}.args")
    return ProfileConfig(name, plugins, args)


def parse_config(doc: Mapping[str, Any] | None) -> SchedulerConfig:
    """A validated :class:`SchedulerConfig` from a ``KubeSchedulerConfiguration`` document (``None``:
    the defaults: one ``default-scheduler`` profile)."""
    if doc is None:
        return SchedulerConfig()
    doc = _mapping(doc, "")
    api_version, kind = doc.get("apiVersion", API_VERSION), doc.get("kind", "KubeSchedulerConfiguration")
    if api_version != API_VERSION or kind != "KubeSchedulerConfiguration":
        raise SchedulerConfigError(f'no kind "{kind}" is registered for version "{api_version}"; '
                                   f"kbatch reads {API_VERSION} KubeSchedulerConfiguration")
    _unknown(doc, {"apiVersion", "kind", "profiles", "percentageOfNodesToScore", *_PROCESS_FIELDS}, "")
    percentage = doc.get("percentageOfNodesToScore")
    if percentage is not None and (not isinstance(percentage, int) or not 0 <= percentage <= 100):
        raise SchedulerConfigError(f"percentageOfNodesToScore: Invalid value: {percentage!r}: "
                                   "not in valid range [0-100]")
    profiles = tuple(_profile(p, f"profiles[{i}]") for i, p in enumerate(_list(doc.get("profiles"),
                                                                                 "profiles")))
    seen: set[str] = set()
    for i, profile in enumerate(profiles):
        if profile.scheduler_name in seen:
            raise SchedulerConfigError(
                f'profiles[{i}].schedulerName: Duplicate value: "{profile.scheduler_name}"')
        seen.add(profile.scheduler_name)
    return SchedulerConfig(profiles or (ProfileConfig(),), percentage or None)
