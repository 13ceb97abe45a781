"""What a pod's ConfigMap and Secret references resolve to, and what is missing: pure functions.

The kubelet reads the objects a pod references when it mounts the pod's volumes and when it builds
each container's environment; a missing object or key (not marked ``optional``) stops it there.
Upstream (semantics only), kubernetes 1.37:

* ``pkg/kubelet/kubelet_pods.go`` ``makeEnvironmentVariables``: ``envFrom`` entries first (in order,
  each key of the object's ``data`` as ``prefix + key``), then ``env`` (later entries win); a missing
  object is the kubelet manager's NotFound (``configmap "x" not found``, ``secret "x" not found``:
  ``pkg/kubelet/configmap`` and ``pkg/kubelet/secret`` name their resource in the singular), a
  missing key ``couldn't find key k in ConfigMap ns/x`` (``... in Secret ns/x``); only ConfigMap
  ``data`` is read, never ``binaryData``. The error becomes the container's waiting reason
  ``CreateContainerConfigError`` (``kuberuntime_container.go`` ``startContainer``).
* ``pkg/volume/configmap``, ``pkg/volume/secret`` and ``pkg/volume/projected`` ``SetUpAt`` /
  ``MakePayload``: the same NotFound for a missing object, ``configmap references non-existent
  config key: k`` / ``references non-existent secret key: k`` for a missing ``items`` key (ConfigMap
  keys from ``data`` and ``binaryData``); a projected volume reports all its failing sources
  (an aggregate: one message, or ``[a, b]``). ``optional`` skips a missing object or key.

A :data:`Lookup` answers ``(kind, namespace, name)`` with the object (or None when it does not
exist): the edge that reads the informer cache. :func:`pod_references` is the free test for pods
that reference nothing (most pods): the other functions are not called for them.
"""

from __future__ import annotations

import base64
import binascii
from collections import ChainMap
from collections.abc import Callable, Mapping
from typing import Any

from kbatch.sim.command import expand_k8s_refs

__all__ = ["CONFIG_MAP", "SECRET", "Lookup", "container_references", "decode", "env_error", "mount_errors",
           "pod_references", "resolve_env"]

CONFIG_MAP, SECRET = "ConfigMap", "Secret"
Lookup = Callable[[str, str, str], Any]  # (kind, namespace, name) -> the object, or None
_NOT_FOUND = {CONFIG_MAP: 'configmap "{}" not found', SECRET: 'secret "{}" not found'}


def container_references(container: Any) -> bool:
    """Does the container's environment read a ConfigMap or a Secret?"""
    if container.env_from:
        return True
    for var in container.env or ():
        source = var.value_from
        if source is not None and (source.config_map_key_ref or source.secret_key_ref) is not None:
            return True
    return False


def _refs_in_volume(volume: Any) -> bool:
    return volume.config_map is not None or volume.secret is not None or (
        volume.projected is not None and any(s.config_map is not None or s.secret is not None
                                             for s in volume.projected.sources or ()))


def pod_references(pod: Any) -> tuple[bool, bool]:
    """(any volume reads a ConfigMap or Secret, any container's environment does)."""
    spec = pod.spec
    volumes = any(_refs_in_volume(v) for v in spec.volumes) if spec.volumes else False
    containers = [*(spec.init_containers or ()), *spec.containers]
    return volumes, any(container_references(c) for c in containers)


def _values(kind: str, obj: Any, with_binary: bool = False) -> dict[str, str]:
    """The object's keys with their text (a Secret's base64 ``data`` decoded)."""
    if kind == CONFIG_MAP:
        out = dict(obj.data or {})
        if with_binary:
            out.update(dict.fromkeys(obj.binary_data or {}, ""))
        return out
    return {k: decode(v) for k, v in (obj.data or {}).items()}


def decode(text: str | None) -> str:
    """A Secret ``data`` (or ConfigMap ``binaryData``) value as text: base64-decoded, bytes that
    are not UTF-8 replaced; a value that is not base64 is empty."""
    try:
        return base64.b64decode(text or "", validate=True).decode(errors="replace")
    except (binascii.Error, ValueError):
        return ""


def resolve_env(container: Any, namespace: str, lookup: Lookup, plain: dict[str, str],
                services: Mapping[str, str] | None = None) -> tuple[dict[str, str], str | None]:
    """The container's own environment (``plain``: the ``fieldRef`` entries already resolved)
    with its ConfigMap and Secret entries, and the first error (None when the container can start).
    A ``$(VAR)`` in a value sees the variables defined before it, then ``services`` (the service
    variables, ``expansion.MappingFuncFor(tmpEnv, serviceEnv)``)."""
    env: dict[str, str] = {}
    seen: Mapping[str, str] = ChainMap(env, dict(services)) if services else env
    for source in container.env_from or ():
        ref, kind = ((source.config_map_ref, CONFIG_MAP) if source.config_map_ref is not None
                     else (source.secret_ref, SECRET))
        if ref is None:
            continue
        obj = lookup(kind, namespace, ref.name or "")
        if obj is None:
            if ref.optional:
                continue
            return env, _NOT_FOUND[kind].format(ref.name or "")
        for k, v in sorted(_values(kind, obj).items()):
            env[(source.prefix or "") + k] = v
    for var in container.env or ():
        source = var.value_from
        ref = source and (source.config_map_key_ref or source.secret_key_ref)
        if ref is None:
            if var.value is not None or source is None:  # expanded against what is defined so far
                env[var.name] = expand_k8s_refs(var.value, seen) if var.value else ""
            elif var.name in plain:
                env[var.name] = plain[var.name]
            continue
        kind = CONFIG_MAP if source.config_map_key_ref is not None else SECRET
        obj = lookup(kind, namespace, ref.name or "")
        if obj is None:
            if ref.optional:
                continue
            return env, _NOT_FOUND[kind].format(ref.name or "")
        values = _values(kind, obj)
        if ref.key not in values:
            if ref.optional:
                continue
            return env, f"couldn't find key {ref.key} in {kind} {namespace}/{ref.name or ''}"
        env[var.name] = values[ref.key]
    return env, None


def env_error(container: Any, namespace: str, lookup: Lookup) -> str | None:
    """Why the container's environment cannot be built (None when it can)."""
    return resolve_env(container, namespace, lookup, {})[1] if container_references(container) else None


def _source_error(kind: str, name: str, items: Any, optional: bool | None, namespace: str,
                  lookup: Lookup) -> str | None:
    obj = lookup(kind, namespace, name)
    if obj is None:
        return None if optional else _NOT_FOUND[kind].format(name)
    keys = _values(kind, obj, with_binary=True)
    for item in items or ():
        if item.key not in keys and not optional:
            return (f"configmap references non-existent config key: {item.key}" if kind == CONFIG_MAP
                    else f"references non-existent secret key: {item.key}")
    return None


def _volume_error(volume: Any, namespace: str, lookup: Lookup) -> str | None:
    if volume.config_map is not None:
        cm = volume.config_map
        return _source_error(CONFIG_MAP, cm.name or "", cm.items, cm.optional, namespace, lookup)
    if volume.secret is not None:
        s = volume.secret
        return _source_error(SECRET, s.secret_name or "", s.items, s.optional, namespace, lookup)
    errors = []
    for source in volume.projected.sources or () if volume.projected is not None else ():
        part = source.config_map or source.secret
        if part is None:
            continue
        kind = CONFIG_MAP if source.config_map is not None else SECRET
        err = _source_error(kind, part.name or "", part.items, part.optional, namespace, lookup)
        if err:
            errors.append(err)
    if not errors:
        return None
    return errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"


def mount_errors(pod: Any, lookup: Lookup) -> list[tuple[str, str]]:
    """``(volume, message)`` for each volume whose ConfigMap or Secret cannot be set up, in the pod's
    volume order: the ``FailedMount`` events' ``MountVolume.SetUp failed for volume "v" : message``."""
    namespace = pod.metadata.namespace or ""
    out = []
    for volume in pod.spec.volumes or ():
        if _refs_in_volume(volume):
            err = _volume_error(volume, namespace, lookup)
            if err:
                out.append((volume.name, err))
    return out
