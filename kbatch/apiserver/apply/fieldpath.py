"""Field paths in the FieldsV1 format (structured-merge-diff ``fieldpath``; KEP-555 "managedFields").

A path is a tuple of FieldsV1 keys, one per step: ``f:<name>`` (a struct or map field),
``k:<json object of the merge keys>`` (an associative list item), ``v:<json value>`` (a set item).
FieldsV1 is the trie of a path set: every step a key, ``{}`` for a leaf, ``".": {}`` marking a node
that is itself a member and also has children. Conflict messages print a path as upstream's
``Path.String``: ``.spec.containers[name="c"].image``, ``.metadata.finalizers[="x"]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

__all__ = ["Path", "from_fields_v1", "key_step", "path_string", "to_fields_v1", "value_step"]

Path = tuple[str, ...]


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def key_step(keys: dict[str, Any]) -> str:
    """``k:{"name":"c"}``: the merge-key fields of an associative list item, sorted by name."""
    return "k:" + _json(keys)


def value_step(value: Any) -> str:
    """``v:"x"``: a set item."""
    return "v:" + _json(value)


def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """The FieldsV1 trie of ``paths`` (keys sorted, ``.`` first: a stable encoding)."""
    root: dict[str, Any] = {}
    members: set[Path] = set()
    for path in paths:
        node = root
        for step in path:
            node = node.setdefault(step, {})
        members.add(path)
    return _sorted(root, (), members)


def _sorted(node: dict[str, Any], prefix: Path, members: set[Path]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if prefix and node and prefix in members:
        out["."] = {}
    for step in sorted(node):
        out[step] = _sorted(node[step], (*prefix, step), members)
    return out


def from_fields_v1(tree: Any) -> set[Path]:
    """The path set of a FieldsV1 trie (a leaf ``{}`` or a ``.`` entry marks a member)."""
    out: set[Path] = set()
    _collect(tree if isinstance(tree, dict) else {}, (), out)
    return out


def _collect(node: dict[str, Any], prefix: Path, out: set[Path]) -> None:
    for step, child in node.items():
        if step == ".":
            if prefix:
                out.add(prefix)
            continue
        path = (*prefix, step)
        if not isinstance(child, dict) or not child:
            out.add(path)
        else:
            _collect(child, path, out)


def path_string(path: Path) -> str:
    """Upstream's ``Path.String``: ``.f`` for fields, ``[k=v,...]`` for keys, ``[=v]`` for values."""
    parts = []
    for step in path:
        kind, text = step[:2], step[2:]
        if kind == "f:":
            parts.append("." + text)
        elif kind == "k:":
            keys = json.loads(text)
            parts.append("[" + ",".join(f"{k}={_json(v)}" for k, v in sorted(keys.items())) + "]")
        elif kind == "v:":
            parts.append("[=" + text + "]")
        else:
            parts.append("[" + text + "]")
    return "".join(parts)
