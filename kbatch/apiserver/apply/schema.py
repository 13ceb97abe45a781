"""The list and map types server-side apply needs, for the built-in kinds (the ``x-kubernetes-list-type``
/ ``list-map-keys`` / ``map-type`` markers of k8s.io/api, which structured-merge-diff reads from the
OpenAPI schema):

* associative lists (``listType=map``): the strategic-merge keys kbatch already has
  (:data:`kbatch.apiserver.strategic.MERGE_KEYS`), except where upstream's list-map keys are several
  fields: container ``ports`` are keyed by ``containerPort`` and ``protocol``, Service ``spec.ports``
  by ``port`` and ``protocol``, ``topologySpreadConstraints`` by ``topologyKey`` and
  ``whenUnsatisfiable``; a key field left out takes its schema default (``protocol: TCP``);
* sets (``listType=set``): ``metadata.finalizers``;
* lists marked atomic although strategic merge keys them: the Job's ``status.conditions``;
* every other list is atomic (upstream's default), as are the maps and structs marked atomic:
  label selectors (``+structType=atomic``), ``nodeSelector`` and the Service ``selector``
  (``+mapType=atomic``).
"""

from __future__ import annotations

from typing import Any

from kbatch.apiserver.strategic import MERGE_KEYS

__all__ = ["ATOMIC_MAPS", "SERVICE_SPEC", "is_set", "item_keys", "list_keys", "root_container"]

SERVICE_SPEC = "service-spec"  # the container name strategic.MERGE_KEYS gives a Service's spec
_JOB_STATUS = "job-status"
_ROOTS = {("Service", "spec"): SERVICE_SPEC, ("Job.batch", "status"): _JOB_STATUS}
_ATOMIC_LISTS = frozenset({(_JOB_STATUS, "conditions")})  # batch/v1 JobStatus: +listType=atomic

_APPLY_KEYS: dict[tuple[str, str], tuple[str, ...]] = {
    ("*", "ports"): ("containerPort", "protocol"),
    (SERVICE_SPEC, "ports"): ("port", "protocol"),
    ("*", "topologySpreadConstraints"): ("topologyKey", "whenUnsatisfiable"),
}
_KEY_DEFAULTS: dict[str, Any] = {"protocol": "TCP"}
_SETS = frozenset({("metadata", "finalizers")})
ATOMIC_MAPS = frozenset({"selector", "nodeSelector", "labelSelector", "namespaceSelector"})


def root_container(kind: str, name: str) -> str:
    """The container name the top-level field ``name`` of a ``kind`` (``Job.batch``) gives its own
    fields: the field name, except where a kind's lists are typed differently."""
    return _ROOTS.get((kind, name), name)


def is_set(container: str, field: str) -> bool:
    return (container, field) in _SETS


def list_keys(container: str, field: str) -> tuple[str, ...] | None:
    """The list-map keys of the list ``field`` inside the object field ``container`` (None: atomic)."""
    if (container, field) in _ATOMIC_LISTS:
        return None
    keys = _APPLY_KEYS.get((container, field)) or _APPLY_KEYS.get(("*", field))
    if keys is not None:
        return keys
    key = MERGE_KEYS.get((container, field)) or MERGE_KEYS.get(("*", field))
    return (key,) if key is not None else None


def item_keys(item: Any, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The key fields of one list item (defaults filled in), or None when the item cannot be keyed."""
    if not isinstance(item, dict):
        return None
    out = {}
    for key in keys:
        value = item.get(key, _KEY_DEFAULTS.get(key))
        if value is None or isinstance(value, (dict, list)):
            return None
        out[key] = value
    return out
