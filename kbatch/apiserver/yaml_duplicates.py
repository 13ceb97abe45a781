"""Duplicate mapping keys in YAML, as go-yaml v2 (the parser under sigs.k8s.io/yaml) treats them.

kubectl reads a manifest with apimachinery's ``YAMLOrJSONDecoder`` (``pkg/util/yaml/decoder.go``:
``YAMLToJSONDecoder.Decode`` calls sigs.k8s.io/yaml's non-strict ``Unmarshal``), so a key given twice
in one mapping is no error: go-yaml's ``decoder.setMapIndex`` sets the map entry again and the
**last** value wins, silently (kubernetes/kubernetes#89303 shows the apiserver keeping the last
``image``). ruamel.yaml refuses the duplicate, or keeps the first when told to allow it:
:class:`LastKeyWins` makes it keep the last.

kube-apiserver reading a YAML request body under ``fieldValidation=Strict`` or ``Warn`` runs
sigs.k8s.io/yaml's ``YAMLToJSONStrict`` on it as well (apimachinery
``pkg/runtime/serializer/json/json.go``), whose duplicate check is go-yaml's strict
``setMapIndex``: ``line N: key "name" already set in map`` (N the 1-based line of the repeated
key's value). :func:`duplicate_key_problems` finds those lines; ``kbatch serve`` turns them into
a strict decoding error or warnings (:mod:`kbatch.server.handlers`).
"""

from __future__ import annotations

import json
from typing import Any

from ruamel.yaml.constructor import SafeConstructor

__all__ = ["LastKeyWins", "duplicate_key_problems", "duplicate_keys_error"]


class LastKeyWins(SafeConstructor):
    """A safe constructor for which a repeated mapping key replaces the earlier value."""

    def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any) -> bool:
        return True  # BaseConstructor.construct_mapping then assigns: the last value stays


def _go_key(node: Any) -> str:
    """The key as Go's ``%#v`` prints the interface value go-yaml decoded it to."""
    tag = str(getattr(node, "tag", ""))
    value = str(node.value)
    if tag.endswith((":int", ":float", ":bool", ":null")):
        return value
    return json.dumps(value, ensure_ascii=False)


def _walk(node: Any, seen: set[int], out: list[str]) -> None:
    if id(node) in seen:  # an alias to a node already walked
        return
    seen.add(id(node))
    kind = type(node).__name__
    if kind == "SequenceNode":
        for item in node.value:
            _walk(item, seen, out)
    elif kind == "MappingNode":
        keys: set[tuple[str, str]] = set()
        for key, value in node.value:
            if type(key).__name__ == "ScalarNode" and key.value != "<<":
                ident = (str(key.tag), str(key.value))
                if ident in keys:
                    out.append(f"line {value.start_mark.line + 1}: key {_go_key(key)} already set in map")
                keys.add(ident)
            _walk(value, seen, out)


def duplicate_key_problems(text: str) -> list[str]:
    """go-yaml's strict ``line N: key K already set in map`` for each repeated key of ``text``'s
    first document, in document order; ``[]`` when there is none (or the text does not parse:
    the non-strict read reports that)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        nodes = YAML(typ="safe", pure=True).compose_all(text)
        first = next(iter(nodes), None)
    except (YAMLError, ValueError, RecursionError):
        return []
    out: list[str] = []
    if first is not None:
        _walk(first, set(), out)
    return out


def duplicate_keys_error(problems: list[str]) -> str:
    """sigs.k8s.io/yaml's ``YAMLToJSONStrict`` error for ``problems`` (go-yaml's ``TypeError``)."""
    lines = "".join(f"\n  {p}" for p in problems)
    return f"error converting YAML to JSON: yaml: unmarshal errors:{lines}"
