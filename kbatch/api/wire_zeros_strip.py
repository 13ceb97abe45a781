"""Reading Go's unset fields back: what :mod:`kbatch.api.wire_zeros` writes, taken out of what clients send.

Go decodes ``"resources":{}``, ``"restartCount":0``, ``"reason":""`` and ``"rules":null`` into the
same values as no key at all: a non-pointer field cannot tell its zero from unset. kbatch's models
can (``None`` is not ``0``), and they keep unset fields as absent. So a body that comes back with the
zeros the wire pass wrote (``kubectl replace``, ``edit``, a GET then PUT, ``kubectl apply`` of
``get -o yaml``) would read as a change, and a pod's spec may not change. Two readings:

* :func:`without_wire_zeros`: a whole object (a create or update body, the document a JSON patch
  produced). Every field holding exactly Go's zero is dropped, struct zeros included, unless the
  kind's model requires the key (a required field is decoded and validated as sent, so an empty
  ``name`` is still "Required value"). Safe for a whole object: Go's decoder reads the zero and
  the absent key alike.
* :func:`without_empty_structs`: a merge or strategic merge patch. Only empty by-value structs
  (``resources: {}``, ``kubectl debug``'s ephemeral container) are dropped: merging ``{}`` changes
  nothing, but a scalar zero or a ``null`` in a patch sets or deletes a value and is kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from kbatch.api.model_copy import alternatives
from kbatch.api.wire_zeros import Leaf, Node, tree_of

__all__ = ["without_empty_structs", "without_wire_zeros"]

Obj = dict[str, Any]
Model = type[BaseModel] | None
# (struct, its leaf, the struct's model) -> the struct without what reads as unset
AtStruct = Callable[[Obj, Leaf, Model], Obj]


def without_wire_zeros(obj: Obj, model: Model = None) -> Obj:
    """``obj`` (a whole object of a kind the table holds) without the fields that hold Go's zero and
    that ``model`` (the kind's model class) does not require. Shares what it keeps."""
    tree = tree_of(obj.get("apiVersion"), obj.get("kind"))
    return obj if tree is None else _rewrite(obj, tree, model, _without_zeros)


def without_empty_structs(patch: Obj, api_version: str, kind: str) -> Obj:
    """A merge or strategic merge ``patch`` of ``api_version``/``kind`` without its empty by-value
    structs (``{}``, or only nested empty ones). Shares what it keeps."""
    tree = _structs_only(tree_of(api_version, kind))
    return patch if tree is None else _rewrite(patch, tree, None, _without_empty)


@functools.cache
def _structs_only(node: Node | None) -> Node | None:
    """``node`` cut down to the by-value structs (a patch's walk skips conditions, ports …: the
    kubelet's status patches take this path), ``None`` when none are below it."""
    if node is None:
        return None
    out = Node()
    out.fields = {k: sub for k, child in node.fields.items() if (sub := _structs_only(child)) is not None}
    out.each, out.values = _structs_only(node.each), _structs_only(node.values)
    leaf = node.leaf
    if leaf is not None and any(type(zero) is dict for zero in leaf.fills.values()):
        out.leaf = leaf
    if out.leaf is None and not out.fields and out.each is None and out.values is None:
        return None
    out.seal()
    return out


def _rewrite(value: Any, node: Node, model: Model, at_struct: AtStruct) -> Any:
    """``value`` with ``at_struct`` applied to every struct ``node`` reaches, innermost first;
    ``model``: the model class of ``value`` (of each element for a list or a map's values)."""
    if type(value) is list:
        each = node.each
        if each is None:
            return value
        new = [_rewrite(v, each, model, at_struct) for v in value]
        return new if any(n is not v for n, v in zip(new, value, strict=True)) else value
    if type(value) is not dict:
        return value
    out = value
    for key, sub in node.fields.items():
        inner = out.get(key)
        if inner is not None:
            new_inner = _rewrite(inner, sub, model and _child_model(model, key), at_struct)
            if new_inner is not inner:
                out = {**out, key: new_inner}
    if node.values is not None:
        values = {k: _rewrite(v, node.values, model, at_struct) for k, v in out.items()}
        if any(values[k] is not v for k, v in out.items()):
            out = values
    return out if node.leaf is None else at_struct(out, node.leaf, model)


def _without_zeros(struct: Obj, leaf: Leaf, model: Model) -> Obj:
    fills = leaf.fills
    drop = [k for k in _optional(leaf, model) if k in struct and _is_zero(struct[k], fills[k])]
    return {k: v for k, v in struct.items() if k not in drop} if drop else struct


def _without_empty(struct: Obj, leaf: Leaf, model: Model) -> Obj:
    fills = leaf.fills
    drop = [k for k, zero in fills.items() if type(zero) is dict and _is_empty(struct.get(k), zero)]
    return {k: v for k, v in struct.items() if k not in drop} if drop else struct


def _is_zero(value: Any, zero: Any) -> bool:
    """Whether ``value`` is what Go decodes to the field's zero: the zero itself (``null``, ``""``,
    ``0``, ``false``, a Quantity's ``"0"``), or for a struct, only keys holding their zeros."""
    if type(zero) is dict:
        return type(value) is dict and all(k in zero and _is_zero(v, zero[k]) for k, v in value.items())
    return type(value) is type(zero) and value == zero


def _is_empty(value: Any, zero: Any) -> bool:
    """Whether ``value`` is ``{}`` or holds only nested empty structs."""
    return type(value) is dict and all(
        type(zero.get(k)) is dict and _is_empty(v, zero[k]) for k, v in value.items())


@functools.cache
def _optional(leaf: Leaf, model: Model) -> tuple[str, ...]:
    """The keys of ``leaf`` that ``model`` can do without (all of them without a model)."""
    fields = _fields(model)
    return tuple(k for k in leaf.fills if not ((f := fields.get(k)) is not None and f.is_required()))


@functools.cache
def _fields(model: Model) -> dict[str, FieldInfo]:
    if model is None:
        return {}
    return {field.alias or name: field for name, field in model.model_fields.items()}


@functools.cache
def _child_model(model: Model, key: str) -> Model:
    """The model class of ``model``'s field ``key`` (of its elements or values for a list or map)."""
    field = _fields(model).get(key)
    return None if field is None else _struct_of(field.annotation)


def _struct_of(annotation: Any) -> Model:
    for alt in alternatives(annotation):
        if isinstance(alt, type) and issubclass(alt, BaseModel):
            return alt
        origin, args = get_origin(alt), get_args(alt)
        if origin in (list, tuple) and args:
            return _struct_of(args[0])
        if origin is dict and len(args) == 2:
            return _struct_of(args[1])
    return None
