"""A custom resource's OpenAPI v3 schema as kube-apiextensions-apiserver publishes it.

JobSet, Kueue and scheduler-plugins' PodGroup are CRDs upstream. A CRD's ``openAPIV3Schema`` is one
self-contained tree, and the apiextensions-apiserver publishes it as one component per kind
(kubernetes ``staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder/builder.go``):
nested objects stay inline (``kubectl explain`` shows ``<Object>``, ``<[]Object>`` rather than a
type name), only the top-level ``metadata`` refers to ``io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta``.
kbatch's models are pydantic classes whose JSON schema shares sub-schemas by class name under
``$defs``; for a custom resource they are inlined here, so two versions' classes of one name (Kueue
v1beta1's and v1beta2's ``FairSharingStatus``) can never stand for each other. The classes'
docstrings are kbatch's notes, not the CRDs' field descriptions, so a custom resource's schema
carries no descriptions (``kubectl explain`` shows ``<empty>``). The list and map extensions the
CRD declares (``x-kubernetes-list-type``, ``-list-map-keys``, ``-map-type``) are put where its YAML
has them (``crd_extensions.json``, generated from the upstream CRDs by ``tools/gen_crd_extensions.py``);
a CRD carries no patch extensions, so kubectl's apply sends a JSON merge patch.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kbatch.api.crd_absent import drop_from_schema

__all__ = ["DECLARED", "OBJECT_META", "declare_extensions", "inline_custom_resource",
           "is_custom_resource_group", "node_at"]

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_REF_PREFIX = "#/components/schemas/"
_CRD_GROUP_SUFFIX = ".x-k8s.io"  # jobset., kueue., scheduling.x-k8s.io: the sigs' CRD groups
# group/version/Kind -> field path -> the extensions the CRD's YAML puts on that node
DECLARED: dict[str, dict[str, dict[str, Any]]] = json.loads(
    (Path(__file__).parent / "crd_extensions.json").read_text())["kinds"]
_STEP = re.compile(r"\[\]|\{\}|[^.\[\]{}]+")


def is_custom_resource_group(group: str) -> bool:
    """Whether kbatch serves ``group`` in place of a CRD (kubernetes-sigs projects' ``*.x-k8s.io``)."""
    return group.endswith(_CRD_GROUP_SUFFIX)


def inline_custom_resource(schema: dict[str, Any], defs: dict[str, Any],
                           absent: tuple[str, ...] = (), gvk: str = "") -> dict[str, dict[str, Any]]:
    """The kind's schema with every ``$ref`` into ``defs`` inlined, and its ``metadata`` referring to
    ObjectMeta; returns the components to publish (the kind's, under its own key ``""``, and
    ObjectMeta's). A self-referring class (none of the CRDs has one) becomes an open object.
    ``gvk`` (``group/version/Kind``) names the CRD whose declared extensions the schema gets."""
    meta_name = _ref_name(_ref_of(schema.get("properties", {}).get("metadata", {})))
    out = _undescribed(_inline(schema, defs, frozenset()))
    drop_from_schema(out, absent)  # fields the CRD lacks (kbatch.api.crd_absent)
    declare_extensions(out, DECLARED.get(gvk, {}))
    components: dict[str, dict[str, Any]] = {"": out}
    if meta_name is not None and meta_name in defs:
        out["properties"]["metadata"] = {"allOf": [{"$ref": _REF_PREFIX + OBJECT_META}]}
        components[OBJECT_META] = _inline(defs[meta_name], defs, frozenset({meta_name}))
    return components


def declare_extensions(schema: dict[str, Any], declared: dict[str, dict[str, Any]]) -> None:
    """Put each path's extensions on the node of ``schema`` at that path, in place; a path kbatch's
    schema lacks is skipped."""
    for path, extensions in declared.items():
        node = node_at(schema, path)
        if node is not None:
            node.update(extensions)


def node_at(schema: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The node at ``path`` (property names joined by ``.``, ``[]`` a list's item, ``{}`` a map's
    value), None where the schema has no such field."""
    node: Any = schema
    for step in _STEP.findall(path):
        key = {"[]": "items", "{}": "additionalProperties"}.get(step)
        node = node.get(key) if key else (node.get("properties") or {}).get(step)
        if not isinstance(node, dict):
            return None
    return node


def _ref_of(node: Any) -> str | None:
    if not isinstance(node, dict):
        return None
    if "$ref" in node:
        return str(node["$ref"])
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        return _ref_of(all_of[0])
    return None


def _ref_name(ref: str | None) -> str | None:
    return ref[len(_REF_PREFIX):] if ref is not None and ref.startswith(_REF_PREFIX) else None


def _inline(node: Any, defs: dict[str, Any], seen: frozenset[str]) -> Any:
    if isinstance(node, list):
        return [_inline(n, defs, seen) for n in node]
    if not isinstance(node, dict):
        return node
    name = _ref_name(node.get("$ref"))
    if name is not None and name in defs:
        if name in seen:
            return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return {**_inline(defs[name], defs, seen | {name}), **_inline(rest, defs, seen)}
    out = {k: _inline(v, defs, seen) for k, v in node.items()}
    all_of = out.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        out.pop("allOf")
        out = {**all_of[0], **out}
    return out


def _undescribed(node: Any) -> Any:
    """A schema without ``description`` keywords (a property named ``description`` stays)."""
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k != "description"}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: _undescribed(sub) for name, sub in out["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _undescribed(out[key])
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(out.get(key), list):
            out[key] = [_undescribed(sub) for sub in out[key]]
    return out
