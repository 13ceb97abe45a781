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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.go_unmarshal import cannot_unmarshal, go_number, json_kind, marshalled

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "PluginEntry",
    "PluginSet",
    "ProfileConfig",
    "SchedulerConfig",
    "SchedulerConfigError",
    "decode_int",
    "invalid",
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


class SchedulerDecodingError(SchedulerConfigError):
    """A value of the wrong JSON type, in the decoder's words (:func:`type_error`); in plugin args it
    is wrapped with where the args are (:mod:`.profiles`)."""


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


def invalid(path: str, value: Any, detail: str) -> SchedulerConfigError:
    """A validation error as kube-scheduler prints a ``field.Invalid``: the bad value rendered as Go
    renders it (``"abc"``, ``true``, ``1.5``), never a Python repr."""
    return SchedulerConfigError(str(FieldError.invalid(path, value, detail)))


def type_error(value: Any, field_path: str, go_type: str, *, numeric: bool = False) -> SchedulerDecodingError:
    """kube-scheduler's decoding error for a value of the wrong JSON type (its ``--config`` file is
    decoded with sigs.k8s.io/json): ``field_path`` is Go's ``Struct.dotted.json.path``; ``numeric``:
    the Go type is a number, so a number names its text, else plain ``number`` (encoding/json
    ``literalStore``; :func:`~kbatch.api.go_unmarshal.cannot_unmarshal`)."""
    struct, _, path = field_path.partition(".")
    text = cannot_unmarshal(value, struct, path, go_type, integer=numeric, text=go_number)
    return SchedulerDecodingError(text)


def decode_int(value: Any, field_path: str, bits: int = 32) -> Any:
    """``value`` as Go decodes it into an ``int32``/``int64`` field (``None`` stays ``None``); any other
    JSON value is a :func:`type_error`. A number is what YAML→JSON conversion hands the decoder
    (:func:`~kbatch.api.go_unmarshal.marshalled`: a whole float below 1e21 an integer)."""
    value = marshalled(value)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)
                         and -(2 ** (bits - 1)) <= value < 2 ** (bits - 1)):
        return value
    raise type_error(value, field_path, f"int{bits}", numeric=True)


def _go_path(path: str) -> str:
    """Go's dotted field path for one of ours: the indices dropped (``profiles.plugins.score``)."""
    return re.sub(r"\[[^]]*\]", "", path)


def _mapping(value: Any, path: str, go: tuple[str, str] | None = None) -> Mapping[str, Any]:
    """``go``: (the Go struct holding the field, the field's Go type), for upstream's decoding error."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        if go is not None:
            raise type_error(value, f"{go[0]}.{_go_path(path)}", go[1])
        raise SchedulerConfigError(f"{path}: Invalid value: expected an object, got {json_kind(value)}")
    return value


def _list(value: Any, path: str, go: tuple[str, str]) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise type_error(value, f"{go[0]}.{_go_path(path)}", go[1])
    return value


def _plugin_set(doc: Any, path: str) -> PluginSet:
    doc = _mapping(doc, path, ("Plugins", "v1.PluginSet"))
    _unknown(doc, {"enabled", "disabled"}, path)
    enabled = []
    for i, item in enumerate(_list(doc.get("enabled"), f"{path}.enabled", ("PluginSet", "[]v1.Plugin"))):
        item = _mapping(item, f"{path}.enabled[{i}]", ("PluginSet", "v1.Plugin"))
        _unknown(item, {"name", "weight"}, f"{path}.enabled[{i}]")
        name = item.get("name")
        weight = decode_int(item.get("weight"), f"Plugin.{_go_path(path)}.enabled.weight") or 0
        if not isinstance(name, str) or not name:
            raise SchedulerConfigError(f"{path}.enabled[{i}].name: Required value")
        if weight < 0:
            raise invalid(f"{path}.enabled[{i}].weight", weight, "must be a non-negative integer")
        enabled.append(PluginEntry(name, weight))
    disabled = []
    for i, item in enumerate(_list(doc.get("disabled"), f"{path}.disabled", ("PluginSet", "[]v1.Plugin"))):
        item = _mapping(item, f"{path}.disabled[{i}]", ("PluginSet", "v1.Plugin"))
        _unknown(item, {"name", "weight"}, f"{path}.disabled[{i}]")
        if not isinstance(item.get("name"), str) or not item["name"]:
            raise SchedulerConfigError(f"{path}.disabled[{i}].name: Required value")
        disabled.append(item["name"])
    return PluginSet(tuple(enabled), tuple(disabled))


def _profile(doc: Any, path: str) -> ProfileConfig:
    doc = _mapping(doc, path, ("KubeSchedulerConfiguration", "v1.KubeSchedulerProfile"))
    _unknown(doc, {"schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"}, path)
    name = doc.get("schedulerName", DEFAULT_SCHEDULER_NAME)
    if not isinstance(name, str) or not name:
        raise SchedulerConfigError(f"{path}.schedulerName: Required value")
    plugins_doc = _mapping(doc.get("plugins"), f"{path}.plugins", ("KubeSchedulerProfile", "v1.Plugins"))
    _unknown(plugins_doc, {"multiPoint", *EXTENSION_POINTS}, f"{path}.plugins")
    plugins = {point: _plugin_set(value, f"{path}.plugins.{point}") for point, value in plugins_doc.items()}
    args: dict[str, Mapping[str, Any]] = {}
    for i, item in enumerate(_list(doc.get("pluginConfig"), f"{path}.pluginConfig",
                                   ("KubeSchedulerProfile", "[]v1.PluginConfig"))):
        where = f"{path}.pluginConfig[{i}]"
        item = _mapping(item, where, ("KubeSchedulerProfile", "v1.PluginConfig"))
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
    percentage = decode_int(doc.get("percentageOfNodesToScore"),
                            "KubeSchedulerConfiguration.percentageOfNodesToScore")
    if percentage is not None and not 0 <= percentage <= 100:
        raise invalid("percentageOfNodesToScore", percentage, "not in valid range [0-100]")
    listed = _list(doc.get("profiles"), "profiles",
                   ("KubeSchedulerConfiguration", "[]v1.KubeSchedulerProfile"))
    profiles = tuple(_profile(p, f"profiles[{i}]") for i, p in enumerate(listed))
    seen: set[str] = set()
    for i, profile in enumerate(profiles):
        if profile.scheduler_name in seen:
            raise SchedulerConfigError(
                f'profiles[{i}].schedulerName: Duplicate value: "{profile.scheduler_name}"')
        seen.add(profile.scheduler_name)
    return SchedulerConfig(profiles or (ProfileConfig(),), percentage or None)
