"""Comprehensions that iterate maps in key order and pay for their work: a rewrite of the checked
syntax tree before the runtime plans it.

Why. The runtime (cel-expr-python, over the C++ runtime) keeps maps in hash tables seeded per process
and per table, so ``labels.map(k, k)``, ``extra.exists(k, ...)`` or ``m.all(k, v, ...)`` visited keys in
an order that changed between runs and even between two evaluations in one process. Go's cel-go
randomizes map iteration as well; kbatch's rule is that the same inputs give the same bytes, so every
comprehension whose range turns out to be a map visits its keys sorted (by type, then value).

How. Each comprehension (a macro: ``all``, ``exists``, ``exists_one``, ``map``, ``filter``, the
two-variable forms, ``transformList``/``transformMap``; see cel-spec ``syntax.proto``
``Comprehension``) over a range ``R`` becomes, with fresh variables::

    cel.bind(@r, R,
      (type(@r) != map && type(@r) != list) || @kbatch.spend(size(@r), C)   # the cost meter
        ? (type(@r) == map ? <same comprehension over the sorted keys> : <the comprehension over @r>)
        : false)

The sorted keys are ``cel.bind(@k, @r.map(x, x), @kbatch.order(@k).map(i, @k[i]))``: the runtime lists
the keys, :func:`order` (Python) answers the permutation that sorts them, the runtime picks the keys
in that order, so keys keep their CEL types (``1u`` stays a ``uint``). A two-variable comprehension over
a map iterates the sorted keys with one variable and binds the second to ``@r[key]`` in its loop
condition and step. ``C`` is the loop body's cost (:func:`body_cost`, cel-go's per-node costs):
``size(@r) * C`` is what the iterations cost, the approximation of cel-go's actual cost that
:mod:`.budget` meters.
Comprehensions over an empty list literal (``cel.bind``'s expansion) are left alone. A map that
leaves the runtime as a Python dict is re-keyed in the same order (:func:`ordered_plain`).
"""

from __future__ import annotations

import functools
from typing import Any

from kbatch.api.cel.ast import CHECKED_EXPR_URL, checked_expr_class, expr_class

__all__ = ["ORDER_FUNCTION", "SPEND_FUNCTION", "body_cost", "cost", "order", "ordered_plain", "rewrite",
           "sort_key"]

ORDER_FUNCTION = "@kbatch.order"
SPEND_FUNCTION = "@kbatch.spend"

_KIND_RANK = {bool: 0, int: 1, float: 2, str: 3, bytes: 4}


def sort_key(key: Any) -> tuple[int, Any]:
    """A map key's place: booleans, then numbers, then strings, then bytes; by value within a type
    (CEL map keys are bool, int, uint or string)."""
    return (_KIND_RANK.get(type(key), 5), key if type(key) in _KIND_RANK else repr(key))


def order(keys: list[Any]) -> list[int]:
    """The permutation (indices into ``keys``) that sorts them by :func:`sort_key`."""
    return sorted(range(len(keys)), key=lambda i: sort_key(keys[i]))


def ordered_plain(value: Any) -> Any:
    """A result converted to Python (``Value.plain_value()``) with every dict's keys in
    :func:`sort_key` order: the runtime builds them in its hash order (a mutation's object, a
    variable's map), and Go encodes a map's keys sorted."""
    if isinstance(value, dict):
        return {k: ordered_plain(value[k]) for k in sorted(value, key=sort_key)}
    if isinstance(value, list):
        return [ordered_plain(v) for v in value]
    return value


def _children(expr: Any) -> list[Any]:
    kind = expr.WhichOneof("expr_kind")
    if kind == "select_expr":
        return [expr.select_expr.operand]
    if kind == "call_expr":
        call = expr.call_expr
        return [*([call.target] if call.HasField("target") else []), *call.args]
    if kind == "list_expr":
        return list(expr.list_expr.elements)
    if kind == "struct_expr":
        return [part for entry in expr.struct_expr.entries
                for part in ([entry.map_key] if entry.HasField("map_key") else []) + [entry.value]]
    if kind == "comprehension_expr":
        c = expr.comprehension_expr
        return [c.iter_range, c.accu_init, c.loop_condition, c.loop_step, c.result]
    return []


# cel-go's runtime costs (interpreter/runtimecost.go, common/cost.go): a constant is free, reading a
# variable or a field costs 1, a call 1, the logical operators and the conditional nothing, creating a
# list 10, a map 30, a message 40
_NODE_COST = {"const_expr": 0, "ident_expr": 1, "select_expr": 1, "call_expr": 1, "list_expr": 10,
              "struct_expr": 30, "comprehension_expr": 0}
_FREE_CALLS = frozenset({"_&&_", "_||_", "_?_:_", "@not_strictly_false"})


def _own_cost(expr: Any) -> int:
    kind = expr.WhichOneof("expr_kind")
    if kind == "call_expr" and expr.call_expr.function in _FREE_CALLS:
        return 0
    if kind == "struct_expr" and expr.struct_expr.message_name:
        return 40
    return _NODE_COST.get(kind or "", 1)


def cost(expr: Any) -> int:
    """``expr``'s cost outside comprehension bodies (a comprehension's range, initial value and
    result count once; its loop condition and step count per iteration, at run time)."""
    if expr.WhichOneof("expr_kind") == "comprehension_expr":
        c = expr.comprehension_expr
        ranged = 0 if _is_empty_list(c.iter_range) else cost(c.iter_range)  # cel.bind's expansion
        return ranged + cost(c.accu_init) + cost(c.result)
    return _own_cost(expr) + sum(cost(child) for child in _children(expr))


def body_cost(expr: Any) -> int:
    """The cost of one iteration of comprehension ``expr`` (its loop condition and step, nested
    comprehensions' bodies excluded: they report their own iterations)."""
    c = expr.comprehension_expr
    return max(1, cost(c.loop_condition) + cost(c.loop_step))


class _Builder:
    """Fresh nodes for one tree: ids above the tree's largest."""

    def __init__(self, first_id: int) -> None:
        self.next_id = first_id
        self.Expr = expr_class()

    def node(self) -> Any:
        self.next_id += 1
        return self.Expr(id=self.next_id)

    def ident(self, name: str) -> Any:
        e = self.node()
        e.ident_expr.name = name
        return e

    def const(self, value: bool | int) -> Any:
        e = self.node()
        if isinstance(value, bool):
            e.const_expr.bool_value = value
        else:
            e.const_expr.int64_value = value
        return e

    def call(self, function: str, *args: Any, target: Any = None) -> Any:
        e = self.node()
        e.call_expr.function = function
        if target is not None:
            e.call_expr.target.CopyFrom(target)
        for arg in args:
            e.call_expr.args.add().CopyFrom(arg)
        return e

    def empty_list(self) -> Any:
        e = self.node()
        e.list_expr.SetInParent()
        return e

    def comprehension(self, **fields: Any) -> Any:
        e = self.node()
        c = e.comprehension_expr
        for name, value in fields.items():
            if isinstance(value, str):
                setattr(c, name, value)
            else:
                getattr(c, name).CopyFrom(value)
        return e

    def bind(self, name: str, value: Any, body: Any) -> Any:
        """``cel.bind(name, value, body)`` as the bindings extension expands it."""
        return self.comprehension(iter_var="#unused", iter_range=self.empty_list(), accu_var=name,
                                  accu_init=value, loop_condition=self.const(False),
                                  loop_step=self.ident(name), result=body)

    def copy(self, expr: Any) -> Any:
        """``expr`` with fresh ids (a subtree used twice)."""
        fresh = self.Expr()
        fresh.CopyFrom(expr)
        _renumber(fresh, self)
        return fresh


def _renumber(expr: Any, builder: _Builder) -> None:
    builder.next_id += 1
    expr.id = builder.next_id
    for child in _children(expr):
        _renumber(child, builder)
    if expr.WhichOneof("expr_kind") == "struct_expr":
        for entry in expr.struct_expr.entries:
            builder.next_id += 1
            entry.id = builder.next_id


def _max_id(expr: Any) -> int:
    ids = [expr.id, *(_max_id(child) for child in _children(expr))]
    if expr.WhichOneof("expr_kind") == "struct_expr":
        ids += [entry.id for entry in expr.struct_expr.entries]
    return max(ids)


def _sorted_keys(b: _Builder, ranged: str, depth: int) -> Any:
    """The keys of map ``ranged`` in :func:`order`."""
    keys, key, index = f"@kbatch.keys{depth}", f"@kbatch.key{depth}", f"@kbatch.index{depth}"
    listed = _map_macro(b, b.ident(ranged), key, b.ident(key))
    picked = _map_macro(b, b.call(ORDER_FUNCTION, b.ident(keys)), index,
                        b.call("_[_]", b.ident(keys), b.ident(index)))
    return b.bind(keys, listed, picked)


def _map_macro(b: _Builder, source: Any, var: str, value: Any) -> Any:
    """``source.map(var, value)`` as the parser expands it."""
    accu = "@result"
    single = b.node()
    single.list_expr.elements.add().CopyFrom(value)
    return b.comprehension(iter_var=var, iter_range=source, accu_var=accu, accu_init=b.empty_list(),
                           loop_condition=b.const(True), loop_step=b.call("_+_", b.ident(accu), single),
                           result=b.ident(accu))


def _over(b: _Builder, original: Any, iter_range: Any, second: tuple[str, Any] | None) -> Any:
    """``original`` (a comprehension node) over ``iter_range``; ``second``: bind that variable to that
    value around the loop condition and step (instead of a second iteration variable)."""
    fresh = b.copy(original)
    c = fresh.comprehension_expr
    c.iter_range.CopyFrom(iter_range)
    if second is not None:
        name, value = second
        c.iter_var2 = ""
        c.loop_condition.CopyFrom(b.bind(name, b.copy(value), c.loop_condition))
        c.loop_step.CopyFrom(b.bind(name, b.copy(value), c.loop_step))
    return fresh


def _wrapped(b: _Builder, expr: Any, depth: int, per_iteration: int) -> Any:
    """The comprehension ``expr`` (children already rewritten) as the module docstring shows."""
    c = expr.comprehension_expr
    ranged = f"@kbatch.range{depth}"
    second = None
    if c.iter_var2:
        second = (c.iter_var2, b.call("_[_]", b.ident(ranged), b.ident(c.iter_var)))
    as_map = _over(b, expr, _sorted_keys(b, ranged, depth), second)
    as_list = _over(b, expr, b.ident(ranged), None)
    is_map = b.call("_==_", b.call("type", b.ident(ranged)), b.ident("map"))
    chosen = b.call("_?_:_", is_map, as_map, as_list)
    # a range that is neither a map nor a list keeps the runtime's own error (size() has none for it)
    neither = b.call("_&&_", b.call("_!=_", b.call("type", b.ident(ranged)), b.ident("map")),
                     b.call("_!=_", b.call("type", b.ident(ranged)), b.ident("list")))
    spend = b.call(SPEND_FUNCTION, b.call("size", b.ident(ranged)), b.const(per_iteration))
    go_on = b.call("_||_", neither, spend)
    return b.bind(ranged, c.iter_range, b.call("_?_:_", go_on, chosen, b.const(False)))


def _is_empty_list(expr: Any) -> bool:
    return expr.WhichOneof("expr_kind") == "list_expr" and not expr.list_expr.elements


def _rewrite(expr: Any, b: _Builder, depth: int) -> Any:
    is_loop = expr.WhichOneof("expr_kind") == "comprehension_expr"
    per_iteration = body_cost(expr) if is_loop else 0  # before the body's own loops are rewritten
    for child in _children(expr):
        child.CopyFrom(_rewrite(child, b, depth + is_loop))
    if is_loop and not _is_empty_list(expr.comprehension_expr.iter_range):
        return _wrapped(b, expr, depth, per_iteration)
    return expr


@functools.lru_cache(maxsize=4096)
def _rewritten(serialized: bytes) -> tuple[bytes, int]:
    from google.protobuf import any_pb2

    packed = any_pb2.Any.FromString(serialized)
    if packed.type_url != CHECKED_EXPR_URL:
        return serialized, 1  # not a checked expression: nothing to rewrite
    checked = checked_expr_class().FromString(packed.value)
    base = cost(checked.expr)
    root = checked.expr.id
    builder = _Builder(_max_id(checked.expr))
    checked.expr.CopyFrom(_rewrite(checked.expr, builder, 0))
    checked.expr.id = root  # the checker's type of the whole expression stays its type
    packed.value = checked.SerializeToString()
    return bytes(packed.SerializeToString()), base


def rewrite(env: Any, compiled: Any) -> tuple[Any, int]:
    """``compiled`` (a runtime ``Expression`` of ``env``) with every comprehension ordered and
    metered (the same expression when it has none), and its cost outside comprehension bodies
    (:func:`cost`)."""
    serialized = compiled.serialize()
    changed, cost = _rewritten(serialized)
    return (compiled if changed == serialized else env.deserialize(changed)), cost
