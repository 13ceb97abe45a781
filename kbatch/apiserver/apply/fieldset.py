"""The members of an object: every path a manager can own, with its value (structured-merge-diff
``ToFieldSet``, plus the values for comparing two objects as its ``Compare`` does).

Members are the leaves (scalars, atomic lists and maps, empty maps and lists), every associative
list item and every set item. Struct and map nodes with children are not members themselves. Left
out, as upstream's field manager strips them (``fieldmanager/internal/stripmeta.go``): ``apiVersion``,
``kind`` and the system-set metadata (name, namespace, uid, resourceVersion, generation,
creationTimestamp, deletion fields, selfLink, managedFields).
"""

from __future__ import annotations

from typing import Any

from kbatch.apiserver.apply.fieldpath import Path, key_step, value_step
from kbatch.apiserver.apply.schema import ATOMIC_MAPS, is_set, item_keys, list_keys, root_container

__all__ = ["ITEM", "STRIPPED_META", "Members", "members"]

Members = dict[Path, Any]
ITEM = ("<item>",)  # the value recorded for a list item: its existence, not its content
STRIPPED_META = frozenset({"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                           "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink", "managedFields"})
_TOP_SKIPPED = frozenset({"apiVersion", "kind"})


def members(doc: dict[str, Any], *, kind: str = "", skip: frozenset[str] = frozenset()) -> Members:
    """The members of a wire document; ``skip``: top-level fields left out (``status`` for the main
    resource, whose status the strategy resets); ``kind``: the object's group kind (``Job.batch``),
    for the lists typed per kind."""
    out: Members = {}
    for name, value in doc.items():
        if name in _TOP_SKIPPED or name in skip:
            continue
        if name == "metadata" and isinstance(value, dict):
            for key, sub in value.items():
                if key not in STRIPPED_META:
                    _walk(sub, ("f:metadata", "f:" + key), "metadata", key, out)
            continue
        _walk(value, ("f:" + name,), "", name, out, inner=root_container(kind, name))
    return out


def _walk(value: Any, path: Path, container: str, name: str, out: Members, inner: str | None = None) -> None:
    """``value`` is field ``name`` of the object field ``container``; its own children see
    ``inner`` (default ``name``) as their container."""
    if isinstance(value, dict):
        if not value or name in ATOMIC_MAPS:
            out[path] = value
            return
        for key, sub in value.items():
            _walk(sub, (*path, "f:" + key), inner or name, key, out)
        return
    if isinstance(value, list) and value:
        steps = list_steps(container, name, value)
        if steps is not None:
            keyed = list_keys(container, name) is not None
            for step, item in zip(steps, value, strict=True):
                item_path = (*path, step)
                out[item_path] = ITEM if keyed else item
                if keyed:
                    for key, sub in item.items():
                        _walk(sub, (*item_path, "f:" + key), name, key, out)
            return
    out[path] = value


def list_steps(container: str, name: str, items: list[Any]) -> list[str] | None:
    """The path step of each item of a granular list (associative or set), or None: the list is
    atomic (by schema, or because an item cannot be keyed or two items share a key)."""
    if is_set(container, name):
        if not all(isinstance(x, (str, int, float, bool)) for x in items):
            return None
        steps = [value_step(x) for x in items]
    else:
        keys = list_keys(container, name)
        if keys is None:
            return None
        found = [item_keys(item, keys) for item in items]
        if any(k is None for k in found):
            return None
        steps = [key_step(k) for k in found]  # type: ignore[arg-type]
    return steps if len(set(steps)) == len(steps) else None
