"""Merging an applied configuration into the live object, and removing fields from an object.

Upstream: structured-merge-diff ``typed/merge.go`` (the merging walker) and ``typed/remove.go``:

* maps and structs merge field by field, the configuration's value winning; an atomic map (or one
  that is empty on both sides) is replaced whole; a ``null`` in the configuration removes the field;
* associative lists and sets merge item by item (an item's fields merge as a struct); the result
  lists the shared items in the configuration's order, items only in the live list stay where they
  were relative to them, items only in the configuration come where the configuration has them;
* every other list, and every scalar, is replaced by the configuration's value.
"""

from __future__ import annotations

import copy
from typing import Any

from kbatch.apiserver.apply.fieldpath import Path
from kbatch.apiserver.apply.fieldset import list_steps
from kbatch.apiserver.apply.schema import ATOMIC_MAPS, root_container

__all__ = ["merge_object", "remove_paths"]


def merge_object(live: dict[str, Any], config: dict[str, Any], *, kind: str = "") -> dict[str, Any]:
    """``live`` with ``config`` merged in (neither is mutated); ``kind``: the group kind."""
    out = dict(live)
    for name, value in config.items():
        if value is None:
            out.pop(name, None)
            continue
        out[name] = _merge(live.get(name), value, "", name, root_container(kind, name))
    return out


def _merge(lhs: Any, rhs: Any, container: str, name: str, inner: str | None = None) -> Any:
    if isinstance(rhs, dict) and isinstance(lhs, dict) and (rhs or lhs) and name not in ATOMIC_MAPS:
        out = dict(lhs)
        for key, value in rhs.items():
            if value is None:
                out.pop(key, None)
            elif key in lhs:
                out[key] = _merge(lhs[key], value, inner or name, key)
            else:
                out[key] = copy.deepcopy(value)
        return out
    if isinstance(rhs, list) and isinstance(lhs, list):
        merged = _merge_items(lhs, rhs, container, name)
        if merged is not None:
            return merged
    return copy.deepcopy(rhs)


def _merge_items(lhs: list[Any], rhs: list[Any], container: str, name: str) -> list[Any] | None:
    """Upstream's ordered merge of two granular lists (None: the list is atomic)."""
    lsteps, rsteps = list_steps(container, name, lhs), list_steps(container, name, rhs)
    if lsteps is None or rsteps is None:
        return None
    lmap, rmap = dict(zip(lsteps, lhs, strict=True)), dict(zip(rsteps, rhs, strict=True))
    shared = iter([s for s in rsteps if s in lmap])
    next_shared = next(shared, None)
    out: list[Any] = []
    li = ri = 0
    while li < len(lsteps) or ri < len(rsteps):
        if li < len(lsteps) and ri < len(rsteps):
            step = lsteps[li]
            if step == rsteps[ri]:
                out.append(_merge_item(lmap[step], rmap[step], name))
                li, ri = li + 1, ri + 1
                next_shared = next(shared, None)
                continue
            if step in rmap and next_shared is not None and next_shared != step:
                li += 1  # a shared item, placed when the configuration reaches it
                continue
        if li < len(lsteps) and lsteps[li] not in rmap:
            out.append(lmap[lsteps[li]])
            li += 1
            continue
        if ri < len(rsteps):
            step = rsteps[ri]
            out.append(_merge_item(lmap.get(step), rmap[step], name))
            ri += 1
            if next_shared == step:
                next_shared = next(shared, None)
            continue
        li += 1  # a shared live item already placed
    return out


def _merge_item(lhs: Any, rhs: Any, name: str) -> Any:
    if isinstance(lhs, dict) and isinstance(rhs, dict):
        return _merge(lhs, rhs, "", name)
    return copy.deepcopy(rhs)


def remove_paths(doc: dict[str, Any], paths: set[Path], *, kind: str = "") -> dict[str, Any]:
    """A copy of ``doc`` without the members ``paths`` (a list item goes with all its fields)."""
    out = copy.deepcopy(doc)
    for path in sorted(paths, key=len):
        if not any(path[:i] in paths for i in range(1, len(path))):  # gone with an ancestor already
            _remove(out, path, "", kind)
    return out


def _remove(node: Any, path: Path, container: str, kind: str) -> None:
    step, rest = path[0], path[1:]
    if not isinstance(node, dict) or not step.startswith("f:"):
        return
    name = step[2:]
    if name not in node:
        return
    if not rest:
        del node[name]
        return
    child = node[name]
    inner = name if container else root_container(kind, name)
    if isinstance(child, dict):
        _remove(child, rest, inner, kind)
    elif isinstance(child, list):
        steps = list_steps(container if container else "", name, child)
        if steps is None or rest[0] not in steps:
            return
        index = steps.index(rest[0])
        if len(rest) == 1:
            del child[index]
        else:
            _remove(child[index], rest[1:], name, kind)
