"""The ``x-kubernetes-*`` list, map and patch extensions of the built-in kinds' OpenAPI v3 schemas.

kube-openapi's generator writes them from the Go types (kube-openapi ``pkg/generators/extension.go``):
on a field's property ``x-kubernetes-patch-strategy``/``-patch-merge-key`` (the struct tags strategic
merge reads), ``x-kubernetes-list-type``, ``-list-map-keys`` and ``-map-type`` (the ``+listType``,
``+listMapKey``, ``+mapType``, ``+structType`` markers); on a struct's own schema its
``+structType`` as ``x-kubernetes-map-type`` (``io.k8s.api.core.v1.LocalObjectReference``). In
kubernetes ``api/openapi-spec/v3/*.json`` a property that refers to another schema does so through
``allOf: [{$ref}]``, so the extensions sit beside the ``allOf`` (OpenAPI 3.0 ignores a ``$ref``'s
siblings), and an array's sit beside its ``items``.

The facts are generated with the strategic merge table, from the same walk of the Go types
(``kbatch/apiserver/strategic_keys.json``'s ``openapi`` section, ``tools/gen_strategic_keys.py``).
kubectl reads them: ``kubectl apply`` computes its strategic merge patch from the v3 document when
the kind's PATCH operation accepts ``application/strategic-merge-patch+json`` (k8s.io/kubectl
``pkg/cmd/apply/patcher.go``, apimachinery ``strategicpatch.PatchMetaFromOpenAPIV3``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["annotate", "kind_key"]

_TABLE = json.loads((Path(__file__).parent.parent / "apiserver" / "strategic_keys.json").read_text())
_KINDS: dict[str, str] = _TABLE["openapi"]["kinds"]
_TYPES: dict[str, dict[str, dict[str, Any]]] = _TABLE["openapi"]["types"]
_REF_PREFIX = "#/components/schemas/"


def kind_key(group: str, version: str, kind: str) -> str:
    """``batch/v1/Job``, ``v1/Pod``: how the table names a kind."""
    return f"{group}/{version}/{kind}" if group else f"{version}/{kind}"


def annotate(schema: dict[str, Any], defs: dict[str, Any], key: str) -> None:
    """Put the kind's extensions into ``schema`` (the kind's) and the ``defs`` it refers to, in place."""
    struct = _KINDS.get(key)
    if struct is not None:
        _annotate(schema, struct, defs, set())


def _annotate(schema: dict[str, Any], struct: str, defs: dict[str, Any], seen: set[tuple[int, str]]) -> None:
    if (id(schema), struct) in seen:
        return
    seen.add((id(schema), struct))
    facts = _TYPES.get(struct, {})
    schema.update(facts.get("", {}))
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for field, entry in facts.items():
        if not field or field not in properties:
            continue
        extensions = {k: v for k, v in entry.items() if k.startswith("x-kubernetes-")}
        if extensions:
            properties[field] = _with(properties[field], extensions)
        held = entry.get("type")
        target = _held(properties[field], defs) if isinstance(held, str) else None
        if target is not None and isinstance(held, str):
            _annotate(target, held, defs, seen)


def _with(prop: dict[str, Any], extensions: dict[str, Any]) -> dict[str, Any]:
    """``prop`` carrying ``extensions``; a bare ``$ref`` is wrapped in ``allOf`` first."""
    if "$ref" in prop:
        prop = {"allOf": [{"$ref": prop["$ref"]}], **{k: v for k, v in prop.items() if k != "$ref"}}
    return {**prop, **extensions}


def _held(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema a property holds, through ``allOf``, ``$ref``, ``items`` and
    ``additionalProperties``; None for anything else (a scalar, a union)."""
    node: Any = prop
    for _ in range(8):
        if not isinstance(node, dict):
            return None
        if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            node = node["allOf"][0]
        elif isinstance(node.get("$ref"), str) and node["$ref"].startswith(_REF_PREFIX):
            node = defs.get(node["$ref"][len(_REF_PREFIX):])
        elif isinstance(node.get("items"), dict):
            node = node["items"]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return node if isinstance(node.get("properties"), dict) else None
    return None
