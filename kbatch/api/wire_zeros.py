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
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["with_wire_zeros"]

Obj = dict[str, Any]


class _Leaf:
    """A struct to fill: the keys Go writes when unset, each with its zero and its place."""

    __slots__ = ("fills", "later", "order")

    def __init__(self, order: list[str], fills: Mapping[str, Any]) -> None:
        self.fills = fills
        self.order = tuple(key for key in order if key in fills)
        # each filled key goes before the first present key Go declares after it
        self.later = {key: frozenset(order[order.index(key) + 1:]) for key in self.order}


# A tree per kind: a dict step -> subtree, "[]" for each element of a list, "{}" for each value of a
# map, a _Leaf under "" where a struct is filled (a node may hold a leaf and deeper steps).
_Tree = dict[str, Any]


def _tree(structs: list[Obj]) -> _Tree:
    root: _Tree = {}
    for struct in structs:
        node = root
        for step in struct["path"]:
            node = node.setdefault(step, {})
        node[""] = _Leaf(struct["order"], struct["fill"])
    return root


@cache
def _trees() -> Mapping[tuple[str, str], _Tree]:
    doc = json.loads(Path(__file__).with_name("wire_zeros.json").read_text())
    out: dict[tuple[str, str], _Tree] = {}
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


def _one(obj: Any, version: Any, kind: str) -> Any:
    if not isinstance(obj, dict):
        return obj
    tree = _trees().get((obj.get("apiVersion", version), obj.get("kind", kind)))
    return obj if tree is None else _walk(obj, tree)


def _walk(value: Any, tree: _Tree) -> Any:
    """``value`` with every struct ``tree`` reaches filled; shares whatever it does not change."""
    if isinstance(value, list):
        each = tree.get("[]")
        if each is None:
            return value
        new = [_walk(v, each) for v in value]
        return new if any(n is not v for n, v in zip(new, value, strict=True)) else value
    if not isinstance(value, dict):
        return value
    out = value
    for step, sub in tree.items():
        if step == "":
            out = _filled(out, sub)
        elif step == "{}":
            values = {k: _walk(v, sub) for k, v in out.items()}
            if any(values[k] is not v for k, v in out.items()):
                out = values
        elif step in out:
            inner = _walk(out[step], sub)
            if inner is not out[step]:
                out = {**out, step: inner}
    return out


def _filled(struct: Obj, leaf: _Leaf) -> Obj:
    """The struct with its missing keys as Go writes them, each placed before the first present key
    that Go declares after it; the present keys keep their order."""
    if leaf.fills.keys() <= struct.keys():
        return struct
    items = list(struct.items())
    for key in leaf.order:
        if key in struct:
            continue
        later = leaf.later[key]
        at = next((i for i, (k, _) in enumerate(items) if k in later), len(items))
        items.insert(at, (key, _fresh(leaf.fills[key])))
    return dict(items)


def _fresh(zero: Any) -> Any:
    """A copy of a zero value (``None`` or nested dicts), so no two answers share one."""
    return {k: _fresh(v) for k, v in zero.items()} if isinstance(zero, dict) else zero
