"""Unset fields as Go writes them (``{}``, ``null``, ``0``, ``""``), on the wire only.

Go's encoding/json never omits a struct held by value: ``omitempty`` does not apply to structs and
only ``omitzero`` (Go 1.24) drops one. So a 1.37 API server answers every container with
``"resources":{}`` (``Container.Resources ResourceRequirements `json:"resources,omitempty"```, k8s.io/api
``core/v1/types.go``), a Job with ``"status":{}``, its pod template with ``"metadata":{}``, a service
with ``"status":{"loadBalancer":{}}``, and ``kubectl get -o yaml`` prints them. A by-value
``metav1.Time`` is such a struct whose ``MarshalJSON`` writes an unset time as ``null``
(k8s.io/apimachinery ``pkg/apis/meta/v1/time.go``): every pod condition carries
``"lastProbeTime":null``. Fields that carry ``omitzero`` (``ObjectMeta.CreationTimestamp``, so no
``creationTimestamp: null`` in a pod template) and pointers under ``omitempty`` (a Job's
``startTime``) are left out when unset, as kbatch's models already do.

kbatch stores ``None`` and empty structs as absent (``KubeModel.to_dict``), which keeps the stored
bytes and the decoded objects small; the values are put back only where an object leaves as JSON or
YAML (the HTTP responses, watch events and ``includeObject=Object`` tables of ``kbatch serve``, the
CLI's ``-o json|yaml``), by :func:`with_wire_zeros`. Keys are inserted where Go declares them, so the
JSON keeps Go's field order.

Which fields, and what each unset one is written as, is not written here by hand: ``wire_zeros.json``
is generated from the k8s.io/api 1.37 Go types of every built-in kind kbatch serves by
``tools/gen_wire_zeros.py``. Custom resources (Kueue, JobSet) are served as their clients wrote them,
as kube-apiserver serves a CRD's objects, so they get nothing.

Go writes unset scalars, lists, maps and pointers whose tag lacks ``omitempty`` too: a PDB status's
``"disruptionsAllowed":0``, a condition's ``"reason":""``, a ClusterRole without rules
``"rules":null`` (a nil slice; kube-apiserver's JSON serializer is encoding/json, apimachinery
``pkg/runtime/serializer/json/json.go``), a downward API ``resourceFieldRef``'s ``"divisor":"0"``
(``resource.Quantity``'s own ``MarshalJSON``). The table holds them as well, so those a kbatch model
leaves out come back here; a key that is present is never changed. Reading them back (create and
update bodies, patches) is
:mod:`kbatch.api.wire_zeros_strip`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["Leaf", "Node", "tree_of", "with_wire_zeros"]

Obj = dict[str, Any]


class Leaf:
    """A struct to fill: the keys Go writes when unset, with their zeros and Go's field positions."""

    __slots__ = ("fills", "keys", "order", "pos")

    def __init__(self, order: list[str], fills: Mapping[str, Any]) -> None:
        self.fills = fills
        self.keys = frozenset(fills)
        self.order = tuple(key for key in order if key in fills)
        self.pos = {key: i for i, key in enumerate(order)}


class Node:
    """Where a kind's structs are: a struct to fill here (``leaf``), fields to step into, and for a
    list or a map the node of each element or value. ``bare``: the leaf when there is nothing to step
    into (a list element such as a container port or a condition: checked without a call)."""

    __slots__ = ("bare", "each", "fields", "keys", "leaf", "values")

    def __init__(self) -> None:
        self.leaf: Leaf | None = None
        self.fields: dict[str, Node] = {}
        self.each: Node | None = None  # "[]": each element of a list
        self.values: Node | None = None  # "{}": each value of a map
        self.bare: Leaf | None = None
        self.keys: frozenset[str] = frozenset()

    def seal(self) -> None:
        for sub in (*self.fields.values(), self.each, self.values):
            if sub is not None:
                sub.seal()
        self.keys = frozenset(self.fields)
        self.bare = None if self.fields or self.values or self.each else self.leaf


def _tree(structs: list[Obj]) -> Node:
    root = Node()
    for struct in structs:
        node = root
        for step in struct["path"]:
            if step == "[]":
                node.each = node = node.each or Node()
            elif step == "{}":
                node.values = node = node.values or Node()
            else:
                node = node.fields.setdefault(step, Node())
        node.leaf = Leaf(struct["order"], struct["fill"])
    root.seal()
    return root


@cache
def _trees() -> Mapping[tuple[str, str], Node]:
    doc = json.loads(Path(__file__).with_name("wire_zeros.json").read_text())
    out: dict[tuple[str, str], Node] = {}
    for key, structs in doc["kinds"].items():
        version, kind = key.rsplit("/", 1)
        out[(version, kind)] = _tree(structs)
    return out


def tree_of(api_version: Any, kind: Any) -> Node | None:
    """The kind's tree, ``None`` for a kind the table does not hold (a custom resource)."""
    return _trees().get((api_version, kind))


def with_wire_zeros(obj: Obj) -> Obj:
    """``obj`` (an object or a list of them, as served) with its unset fields as Go writes them.
    Returns ``obj`` itself when there is nothing to add; never changes ``obj`` or what it holds."""
    kind = obj.get("kind")
    if not isinstance(kind, str):
        return obj
    version = obj.get("apiVersion")
    items = obj.get("items")
    if kind.endswith("List") and isinstance(items, list):
        new_items = _filled_list(items, None, version, kind[:-4])
        return obj if new_items is items else {**obj, "items": new_items}
    tree = tree_of(version, kind)
    return obj if tree is None else _fill(obj, tree)


def _filled_list(items: list[Any], node: Node | None, version: Any = None, kind: str = "") -> list[Any]:
    """``items`` with each element filled (by ``node``, or for a list's items by each one's kind);
    ``items`` itself when nothing changes."""
    new: list[Any] | None = None
    for i, item in enumerate(items):
        if type(item) is not dict:
            continue
        at = node if node is not None else tree_of(item.get("apiVersion", version), item.get("kind", kind))
        if at is None:
            continue
        if (leaf := at.bare) is not None:  # (inlined: most list elements are such structs, and complete)
            done = item if item.keys() >= leaf.keys else _filled(item, leaf)
        else:
            done = _fill(item, at)
        if done is not item:
            if new is None:
                new = list(items)
            new[i] = done
    return items if new is None else new


def _fill(value: Obj, node: Node) -> Obj:
    """The struct ``value`` with what ``node`` reaches filled, innermost first; shares whatever it
    does not change."""
    out = value
    fields = node.fields
    for key in node.keys & value.keys():  # (any order: each key is rewritten in place)
        inner, sub = value[key], fields[key]
        if type(inner) is dict:
            if (leaf := sub.bare) is not None:  # (inlined, as for list elements)
                new: Any = inner if inner.keys() >= leaf.keys else _filled(inner, leaf)
            else:
                new = _fill(inner, sub)
        elif type(inner) is list and sub.each is not None:
            new = _filled_list(inner, sub.each)
        else:
            continue
        if new is not inner:
            out = {**out, key: new}
    if node.values is not None:
        values = {k: _fill(v, node.values) if type(v) is dict else v for k, v in out.items()}
        if any(values[k] is not v for k, v in out.items()):
            out = values
    own = node.leaf
    return out if own is None or out.keys() >= own.keys else _filled(out, own)


def _filled(struct: Obj, leaf: Leaf) -> Obj:
    """The struct with its missing keys as Go writes them, each placed before the first present key
    that Go declares after it; the present keys keep their order."""
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
    """A copy of a zero value (``None``, a scalar or nested dicts), so no two answers share one."""
    return {k: _fresh(v) for k, v in zero.items()} if type(zero) is dict else zero
