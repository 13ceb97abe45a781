"""Unset by-value fields as Go writes them (``{}``, ``null``), on the wire only.

Go's encoding/json never omits a struct held by value: ``omitempty`` does not apply to structs and
only ``omitzero`` (Go 1.24) drops one. So a 1.37 API server answers every container with
``"resources":{}`` (``Container.Resources ResourceRequirements `json:"resources,omitempty"```, k8s.io/api
``core/v1/types.go``), a Job with ``"status":{}``, its pod template with ``"metadata":{}``, a service
with ``"status":{"loadBalancer":{}}``, and ``kubectl get -o yaml`` prints them. A by-value
``metav1.Time`` is such a struct whose ``MarshalJSON`` writes an unset time as ``null``
(k8s.io/apimachinery ``pkg/apis/meta/v1/time.go``): every pod condition carries
``"lastProbeTime":null``. Fields that carry ``omitzero`` (``ObjectMeta.CreationTimestamp``, so no
``creationTimestamp: null`` in a pod template) and pointers (a Job's ``startTime``) are left out when
unset, as kbatch's models already do.

kbatch stores ``None`` and empty structs as absent (``KubeModel.to_dict``), which keeps the stored
bytes and the decoded objects small; the values are put back only where an object leaves as JSON or
YAML (the HTTP responses, watch events and ``includeObject=Object`` tables of ``kbatch serve``, the
CLI's ``-o json|yaml``), by :func:`with_wire_zeros`. Keys are inserted where Go declares them, so the
JSON keeps Go's field order.

Which fields, and what each unset one is written as, is not written here by hand: ``wire_zeros.json``
is generated from the k8s.io/api 1.37 Go types of every built-in kind kbatch serves by
``tools/gen_wire_zeros.py``. Custom resources (Kueue, JobSet) are served as their clients wrote them,
as kube-apiserver serves a CRD's objects, so they get nothing. kbatch differs in one respect: Go also
writes unset non-``omitempty`` scalars and lists (``"imageID":""``, ``"containers":null``); kbatch's
models write the ones its components set, and the wire pass does not add the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["with_wire_zeros", "without_wire_zeros"]

Obj = dict[str, Any]


class _Leaf:
    """A struct to fill: the keys Go writes when unset, with their zeros and Go's field positions."""

    __slots__ = ("fills", "order", "pos")

    def __init__(self, order: list[str], fills: Mapping[str, Any]) -> None:
        self.fills = fills
        self.order = tuple(key for key in order if key in fills)
        self.pos = {key: i for i, key in enumerate(order)}


class _Node:
    """Where a kind's structs are: a struct to fill here (``leaf``), fields to step into, and for a
    list or a map the node of each element or value."""

    __slots__ = ("each", "fields", "leaf", "values")

    def __init__(self) -> None:
        self.leaf: _Leaf | None = None
        self.fields: dict[str, _Node] = {}
        self.each: _Node | None = None  # "[]": each element of a list
        self.values: _Node | None = None  # "{}": each value of a map


def _tree(structs: list[Obj]) -> _Node:
    root = _Node()
    for struct in structs:
        node = root
        for step in struct["path"]:
            if step == "[]":
                node.each = node = node.each or _Node()
            elif step == "{}":
                node.values = node = node.values or _Node()
            else:
                node = node.fields.setdefault(step, _Node())
        node.leaf = _Leaf(struct["order"], struct["fill"])
    return root


@cache
def _trees() -> Mapping[tuple[str, str], _Node]:
    doc = json.loads(Path(__file__).with_name("wire_zeros.json").read_text())
    out: dict[tuple[str, str], _Node] = {}
    for key, structs in doc["kinds"].items():
        version, kind = key.rsplit("/", 1)
        out[(version, kind)] = _tree(structs)
    return out


def with_wire_zeros(obj: Obj) -> Obj:
    """``obj`` (an object or a list of them, as served) with its unset by-value fields as Go writes
    them. Returns ``obj`` itself when there is nothing to add; never changes ``obj`` or what it holds."""
    kind = obj.get("kind")
    if not isinstance(kind, str):
        return obj
    version = obj.get("apiVersion")
    items = obj.get("items")
    if kind.endswith("List") and isinstance(items, list):
        item_kind = kind[:-4]
        new_items = [_one(item, version, item_kind) for item in items]
        if any(new is not old for new, old in zip(new_items, items, strict=True)):
            return {**obj, "items": new_items}
        return obj
    return _one(obj, version, kind)


def without_wire_zeros(obj: Obj) -> Obj:
    """``obj`` (a create or update body) without the empty by-value structs :func:`with_wire_zeros`
    writes: Go decodes ``"resources":{}`` and no ``resources`` to the same value, so a client that
    sends back what it read (``kubectl replace``, a GET then PUT) changes nothing; kbatch's models
    would otherwise hold an empty struct where the stored object has none. Shares what it keeps."""
    tree = _trees().get((obj.get("apiVersion"), obj.get("kind")))  # type: ignore[arg-type]
    return obj if tree is None else _rewrite(obj, tree, _stripped)


def _stripped(struct: Obj, leaf: _Leaf) -> Obj:
    empty = [k for k, zero in leaf.fills.items() if type(zero) is dict and _is_zero(struct.get(k), zero)]
    return {k: v for k, v in struct.items() if k not in empty} if empty else struct


def _is_zero(value: Any, zero: Any) -> bool:
    """Whether ``value`` is the by-value field's zero: ``null`` for a time; for a struct ``{}``, or only
    its own nested zeros."""
    if zero is None:
        return value is None
    return type(value) is dict and all(k in zero and _is_zero(v, zero[k]) for k, v in value.items())


def _one(obj: Any, version: Any, kind: str) -> Any:
    if not isinstance(obj, dict):
        return obj
    tree = _trees().get((obj.get("apiVersion", version), obj.get("kind", kind)))
    return obj if tree is None else _rewrite(obj, tree, _filled)


def _rewrite(value: Any, node: _Node, at_struct: Callable[[Obj, _Leaf], Obj]) -> Any:
    """``value`` with ``at_struct`` applied to every struct ``node`` reaches, innermost first; shares
    whatever it does not change."""
    if type(value) is list:
        each = node.each
        if each is None:
            return value
        new = [_rewrite(v, each, at_struct) for v in value]
        return new if any(n is not v for n, v in zip(new, value, strict=True)) else value
    if type(value) is not dict:
        return value
    out = value
    for key, sub in node.fields.items():
        inner = out.get(key)
        if inner is not None:
            new = _rewrite(inner, sub, at_struct)
            if new is not inner:
                out = {**out, key: new}
    if node.values is not None:
        values = {k: _rewrite(v, node.values, at_struct) for k, v in out.items()}
        if any(values[k] is not v for k, v in out.items()):
            out = values
    return out if node.leaf is None else at_struct(out, node.leaf)


def _filled(struct: Obj, leaf: _Leaf) -> Obj:
    """The struct with its missing keys as Go writes them, each placed before the first present key
    that Go declares after it; the present keys keep their order."""
    if leaf.fills.keys() <= struct.keys():
        return struct
    missing = [key for key in leaf.order if key not in struct]
    pos, fills = leaf.pos, leaf.fills
    out: Obj = {}
    at = 0
    for key, value in struct.items():
        here = pos.get(key)
        while here is not None and at < len(missing) and pos[missing[at]] < here:
            out[missing[at]] = _fresh(fills[missing[at]])
            at += 1
        out[key] = value
    for key in missing[at:]:
        out[key] = _fresh(fills[key])
    return out


def _fresh(zero: Any) -> Any:
    """A copy of a zero value (``None`` or nested dicts), so no two answers share one."""
    return {k: _fresh(v) for k, v in zero.items()} if type(zero) is dict else zero
