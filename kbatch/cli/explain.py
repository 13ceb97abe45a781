"""``kbatch explain``'s text from an OpenAPI v3 document, as kubectl prints it: a Python rendering of
k8s.io/kubectl v0.37.0-beta.0 ``pkg/explain/v2/templates/plaintext.tmpl`` (templates ``output``,
``fieldList``, ``fieldDetail``, ``typeGuess``, ``extractEnum``, ``description``) over the document
:mod:`kbatch.server.openapi` serves to kubectl. Pure: a document and a path in, text out.

Deliberate difference: kubectl wraps long descriptions with its ``term.WordWrapWriter``; kbatch's
schemas carry no descriptions (kubectl prints ``<empty>``/``<no description>``), and the rare one is
wrapped with :func:`textwrap.wrap`.
"""

from __future__ import annotations

import textwrap
from typing import Any

from kbatch.cli.errors import UserError

__all__ = ["MissingField", "explain_text"]

Schema = dict[str, Any]


class MissingField(UserError):
    """A field path the schema does not have. kubectl has printed the page's header by then (its
    template writes as it goes), so the header travels with the error."""

    def __init__(self, header: str, field: str) -> None:
        super().__init__(f'field "{field}" does not exist')
        self.header = header


def _resolve(ref: Any, doc: Schema) -> Schema | None:
    """``resolveRef``: a ``#/a/b`` fragment followed through the document, or None."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    cur: Any = doc
    for part in ref[1:].split("/"):
        if not part:
            continue
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur if isinstance(cur, dict) else None


def _map_of(schema: Schema) -> Schema | None:
    """``additionalProperties`` when it is a (non-empty) schema, not a bool."""
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) and extra else None


def _type_guess(schema: Schema, doc: Schema) -> str:
    if schema.get("items"):
        return "[]" + _type_guess(schema["items"], doc)
    if _map_of(schema) is not None:
        return "map[string]" + _type_guess(_map_of(schema) or {}, doc)
    all_of = schema.get("allOf")
    if all_of and not schema.get("properties") and len(all_of) == 1:
        return _type_guess(all_of[0], doc)
    ref = schema.get("$ref")
    if ref:
        target = _resolve(ref, doc)
        if not target or not target.get("type") or target.get("type") == "object":
            return ref.split("/")[-1].split(".")[-1] or "Object"
        return str(target["type"])
    kind = schema.get("type")
    return "Object" if kind == "object" or not kind else str(kind)


def _enum_text(value: Any) -> str:
    if value == "":
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _enum(schema: Schema, long_view: bool, limit: int, indent: int = 0) -> str:
    values = schema.get("enum")
    if not values:
        return ""
    text = "ENUM:" if long_view else "\n" + " " * indent + "enum: "
    for index, value in enumerate(values):
        if limit > -1 and index >= limit:
            text += ", ...."
            break
        if index > 0 and not long_view:
            text += ", "
        elif long_view:
            text += "\n    "
        text += _enum_text(value)
    return text


def _wrap(text: str, width: int) -> str:
    return "\n".join(line for para in text.split("\n")
                     for line in (textwrap.wrap(para, width) if len(para) > width else [para]))


def _indent(text: str, amount: int) -> str:
    pad = " " * amount
    return pad + text.replace("\n", "\n" + pad)


def _description(schema: Schema, doc: Schema) -> str:
    node = _resolve(schema.get("$ref"), doc) or schema
    text = node["description"] + "\n" if node.get("description") else ""
    for sub in node.get("allOf") or ():
        text += _description(sub, doc)
    if node.get("items"):
        text += _description(node["items"], doc)
    if _map_of(node) is not None:
        text += _description(_map_of(node) or {}, doc)
    return text


def _field_detail(name: str, parent: Schema, short: bool, level: int, doc: Schema) -> str:
    pad = level * 2
    field = parent["properties"][name]
    text = _indent(name, pad) + f"\t<{_type_guess(field, doc)}>"
    if name in (parent.get("required") or ()):
        text += " -required-"
    text += _enum(field, False, 4, pad) + "\n"
    if not short:
        text += _indent(_wrap(field.get("description") or "<no description>", 78 - pad), pad + 2) + "\n"
        text += "\n"
    return text


def _field_list(schema: Schema, level: int, history: frozenset[str], recursive: int, doc: Schema) -> str:
    """``recursive``: 0 for one level, -1 for every level, N for N levels (``--max-depth``)."""
    ref = schema.get("$ref") or ""
    if ref and ref in history:
        return ""  # a cycle
    history = history | {ref}
    node = _resolve(ref, doc) or schema
    text = ""
    for name in sorted(node.get("properties") or {}):  # Go templates range over a map's sorted keys
        text += _field_detail(name, node, recursive != 0, level, doc)
        if recursive < 0 or level < recursive:
            text += _field_list(node["properties"][name], level + 1, history, recursive, doc)
    for sub in node.get("allOf") or ():
        text += _field_list(sub, level, history, recursive, doc)
    if node.get("items"):
        text += _field_list(node["items"], level, history, recursive, doc)
    if _map_of(node) is not None:
        text += _field_list(_map_of(node) or {}, level, history, recursive, doc)
    return text


def _output(schema: Schema, path: list[str], history: frozenset[str], recursive: int, doc: Schema) -> str:
    ref = schema.get("$ref") or ""
    node = _resolve(ref, doc) or schema
    if not path:
        text = "DESCRIPTION:\n" + _indent(_wrap(_description(node, doc) or "<empty>", 76), 4) + "\n"
        fields = _field_list(node, 1, frozenset(), recursive, doc)
        return text + ("FIELDS:\n" + fields if fields else "")
    if ref and ref in history:
        return ""
    history = history | {ref}
    properties = node.get("properties") or {}
    if path[0] in properties:
        sub = properties[path[0]]
        head = ""
        if len(path) == 1:
            head = f"FIELD: {path[0]} <{_type_guess(sub, doc)}>\n" + _enum(sub, True, -1) + "\n\n"
        return head + _output(sub, path[1:], frozenset(), recursive, doc)
    if node.get("items"):
        return _output(node["items"], path, history, recursive, doc)
    if _map_of(node) is not None:
        return _output(_map_of(node) or {}, path, history, recursive, doc)
    for sub in node.get("allOf") or ():
        text = _output(sub, path, history, recursive, doc)
        if text:
            return text
    return ""


def explain_text(doc: Schema, gvk: dict[str, str], path: list[str], recursive: int) -> str:
    """The page for the kind ``gvk`` (group, version, kind) and the field ``path`` under it;
    ``recursive``: 0 (one level of fields), -1 (``--recursive``) or ``--max-depth``."""
    header = (f"GROUP:      {gvk['group']}\n" if gvk["group"] else "") + \
        f"KIND:       {gvk['kind']}\nVERSION:    {gvk['version']}\n\n"
    for schema in (doc.get("components") or {}).get("schemas", {}).values():
        if gvk in (schema.get("x-kubernetes-group-version-kind") or ()):
            body = _output(schema, path, frozenset(), recursive, doc)
            if not body:
                raise MissingField(header, path[-1])
            return header + body + "\n"
    raise UserError(f"GVK {gvk['group']}/{gvk['version']}, Kind={gvk['kind']} not found in OpenAPI schema")
