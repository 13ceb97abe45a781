"""Equality as kube-apiserver's Go types see it, for the comparisons an update's validation makes.

kbatch's models tell an explicit empty value from an unset one; Go's types cannot, and upstream
compares with ``apiequality.Semantic.DeepEqual`` (k8s.io/apimachinery ``pkg/api/equality``, over
``third_party/forked/golang/reflect/deep_equal.go``), under which a nil and an empty slice or map are
equal. So a pod made from a custom resource's template that spelled ``resources: {}`` or
``ports: []`` (a JobSet's: custom resources are stored as written) and a client's copy of it that
comes back without them (Go's clients omit both, kbatch reads ``resources: {}`` of a body as unset,
:mod:`kbatch.api.wire_zeros_strip`) are the same pod upstream. :func:`go_equal` compares so:

* a list or a map: ``None`` equals an empty one; otherwise element by element;
* a model: field by field; an unset field equals the zero Go would hold in it where the kind's
  wire-zero table (:mod:`kbatch.api.wire_zeros`, generated from the Go types) knows the field is
  held by value or written without ``omitempty``: an empty struct (``resources``), ``""``, ``0``,
  ``false``; a pointer (``securityContext``) stays unset, as in Go.

Nothing else is relaxed: an omitted ``omitempty`` scalar that Go holds by value is not in the table
and still differs from its zero here.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.base import KubeModel
from kbatch.api.wire_zeros import Node

__all__ = ["go_equal"]


def go_equal(a: Any, b: Any, node: Node | None) -> bool:
    """Whether ``a`` and ``b`` are the same Go value; ``node``: their place in the kind's wire-zero
    tree (``None`` where the table has nothing below)."""
    if a == b:
        return True
    if type(a) is list or type(b) is list:
        return _lists_equal(a, b, node.each if node is not None else None)
    if type(a) is dict or type(b) is dict:
        return _maps_equal(a, b, node.values if node is not None else None)
    if isinstance(a, KubeModel) and isinstance(b, KubeModel):
        return type(a) is type(b) and _models_equal(a, b, node)
    return False


def _lists_equal(a: Any, b: Any, each: Node | None) -> bool:
    left, right = a or [], b or []
    if type(left) is not list or type(right) is not list or len(left) != len(right):
        return False
    return all(go_equal(x, y, each) for x, y in zip(left, right, strict=True))


def _maps_equal(a: Any, b: Any, values: Node | None) -> bool:
    left, right = a or {}, b or {}
    if type(left) is not dict or type(right) is not dict or left.keys() != right.keys():
        return False
    return all(go_equal(left[k], right[k], values) for k in left)


def _models_equal(a: KubeModel, b: KubeModel, node: Node | None) -> bool:
    mine, theirs = a.__dict__, b.__dict__
    fills = node.leaf.fills if node is not None and node.leaf is not None else {}
    for name, field in type(a).__pydantic_fields__.items():
        x, y = mine[name], theirs[name]
        if x == y:
            continue
        alias = field.alias or name
        child = node.fields.get(alias) if node is not None else None
        if x is None or y is None:
            if not _unset_equals(y if x is None else x, alias, fills, child):
                return False
        elif not go_equal(x, y, child):
            return False
    return True


def _unset_equals(value: Any, alias: str, fills: Any, child: Node | None) -> bool:
    """Whether an unset field equals ``value`` in Go: an empty list or map always; a struct, string,
    number or bool when the field is one Go holds by value (its zero is in the table)."""
    if type(value) in (list, dict):
        return not value
    if alias not in fills:
        return False
    zero = fills[alias]
    if isinstance(value, KubeModel):
        return type(zero) is dict and _models_equal(type(value).model_construct(), value, child)
    return zero is not None and type(value) is type(zero) and value == zero
