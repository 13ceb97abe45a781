"""Merging one writer's part of a claim's ``status.devices`` entries with what others wrote there.

Two simulated driver components write the same entries (``AllocatedDeviceStatus`` in
``k8s.io/api/resource/v1/types.go``, keyed by driver, pool, device and shareID): the node's kubelet
plugin reports a prepared device (the ``Ready`` condition, ``data``, ``networkData``; KEP-4817) and the
driver's attachment controller reports a device's binding conditions (KEP-5007). Each owns some
condition types and some fields; :func:`merged` replaces only those, so neither erases the other's,
and a condition whose status did not change keeps its ``lastTransitionTime`` (apimachinery's
``meta.SetStatusCondition``). An entry left with nothing but its key is dropped.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Owner", "entry_key", "merged"]

_KEY_FIELDS = ("driver", "pool", "device", "shareID")


@dataclass(frozen=True, slots=True)
class Owner:
    """What one writer owns in the entries of its pools: condition types and fields."""

    conditions: frozenset[str]
    fields: frozenset[str] = frozenset()


def entry_key(entry: Mapping[str, Any]) -> tuple[str, str, str, str]:
    get = entry.get
    return (get("driver", ""), get("pool", ""), get("device", ""), get("shareID") or "")


def _conditions(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]],
                owned: frozenset[str]) -> list[dict[str, Any]]:
    """``old`` with the owned types replaced in place by ``new``'s (dropped when ``new`` has none),
    new types appended; a condition whose status is unchanged keeps its transition time."""
    wanted = {c["type"]: dict(c) for c in new}
    out: list[dict[str, Any]] = []
    for condition in old:
        kind = condition.get("type")
        if kind not in owned:
            out.append(dict(condition))
            continue
        replacement = wanted.pop(kind, None)
        if replacement is None:
            continue
        if replacement.get("status") == condition.get("status") and condition.get("lastTransitionTime"):
            replacement["lastTransitionTime"] = condition["lastTransitionTime"]
        out.append(replacement)
    out.extend(wanted.values())
    return out


def _entry(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
           owner: Owner) -> dict[str, Any] | None:
    """The entry with the owner's part as ``new`` has it (``None``: the owner reports nothing)."""
    base = dict(old if old is not None else new or {})
    for name in owner.fields:
        base.pop(name, None)
    if new is not None:
        base.update({name: new[name] for name in owner.fields if name in new})
    conditions = _conditions((old or {}).get("conditions") or (), (new or {}).get("conditions") or (),
                             owner.conditions)
    base.pop("conditions", None)
    if conditions:
        base["conditions"] = conditions
    if all(name in _KEY_FIELDS for name in base):
        return None
    return base


def merged(current: Sequence[Mapping[str, Any]], wanted: Mapping[tuple, Mapping[str, Any]],
           ours: Collection[tuple[str, str]], owner: Owner) -> list[dict[str, Any]] | None:
    """``status.devices`` with the owner's part of the entries of its (driver, pool) pairs ``ours``
    as ``wanted`` (by :func:`entry_key`), everything else kept in place; ``None`` when nothing
    changes."""
    out: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    changed = False
    for entry in current:
        key = entry_key(entry)
        if (key[0], key[1]) not in ours:
            out.append(dict(entry))
            continue
        seen.add(key)
        new = _entry(entry, wanted.get(key), owner)
        changed = changed or new != dict(entry)
        if new is not None:
            out.append(new)
    for key, entry in wanted.items():
        if key not in seen:
            new = _entry(None, entry, owner)
            if new is not None:
                out.append(new)
                changed = True
    return out if changed else None
