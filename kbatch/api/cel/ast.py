"""The checked CEL syntax tree as protobuf messages, so that kbatch can rewrite a compiled
expression (:mod:`.iteration`) and hand it back to the runtime (``Env.deserialize``).

The runtime serializes a compiled expression as a ``google.protobuf.Any`` holding a
``cel.expr.CheckedExpr`` (cel-spec ``proto/cel/expr/checked.proto`` and ``syntax.proto``). The
Python protobuf package does not ship those files, so this module declares the part kbatch reads and
writes (``Expr`` and its kinds, ``Constant``'s bool and int, ``CheckedExpr.expr`` and ``type_map``)
with cel-spec's field numbers in a private descriptor pool; every other field travels through as an
unknown field, unchanged.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["CHECKED_EXPR_URL", "checked_expr_class", "expr_class"]

CHECKED_EXPR_URL = "type.googleapis.com/cel.expr.CheckedExpr"
_PACKAGE = "kbatch.celast"

# (message, [(field, number, type, label, message type or "", oneof index or None)], oneofs)
_OPTIONAL, _REPEATED = 1, 3
_INT64, _BOOL, _STRING, _MESSAGE, _INT32 = 3, 8, 9, 11, 5
_EXPR_KINDS = ("const_expr", "ident_expr", "select_expr", "call_expr", "list_expr", "struct_expr",
               "comprehension_expr")
_MESSAGES: tuple[tuple[str, tuple[tuple[str, int, int, int, str, int | None], ...], tuple[str, ...]], ...] = (
    ("Constant", (("bool_value", 2, _BOOL, _OPTIONAL, "", 0),
                  ("int64_value", 3, _INT64, _OPTIONAL, "", 0)), ("constant_kind",)),
    ("Ident", (("name", 1, _STRING, _OPTIONAL, "", None),), ()),
    ("Select", (("operand", 1, _MESSAGE, _OPTIONAL, "Expr", None),
                ("field", 2, _STRING, _OPTIONAL, "", None),
                ("test_only", 3, _BOOL, _OPTIONAL, "", None)), ()),
    ("Call", (("target", 1, _MESSAGE, _OPTIONAL, "Expr", None),
              ("function", 2, _STRING, _OPTIONAL, "", None),
              ("args", 3, _MESSAGE, _REPEATED, "Expr", None)), ()),
    ("CreateList", (("elements", 1, _MESSAGE, _REPEATED, "Expr", None),
                    ("optional_indices", 2, _INT32, _REPEATED, "", None)), ()),
    ("Entry", (("id", 1, _INT64, _OPTIONAL, "", None),
               ("field_key", 2, _STRING, _OPTIONAL, "", 0),
               ("map_key", 3, _MESSAGE, _OPTIONAL, "Expr", 0),
               ("value", 4, _MESSAGE, _OPTIONAL, "Expr", None),
               ("optional_entry", 5, _BOOL, _OPTIONAL, "", None)), ("key_kind",)),
    ("CreateStruct", (("message_name", 1, _STRING, _OPTIONAL, "", None),
                      ("entries", 2, _MESSAGE, _REPEATED, "Entry", None)), ()),
    ("Comprehension", (("iter_var", 1, _STRING, _OPTIONAL, "", None),
                       ("iter_range", 2, _MESSAGE, _OPTIONAL, "Expr", None),
                       ("accu_var", 3, _STRING, _OPTIONAL, "", None),
                       ("accu_init", 4, _MESSAGE, _OPTIONAL, "Expr", None),
                       ("loop_condition", 5, _MESSAGE, _OPTIONAL, "Expr", None),
                       ("loop_step", 6, _MESSAGE, _OPTIONAL, "Expr", None),
                       ("result", 7, _MESSAGE, _OPTIONAL, "Expr", None),
                       ("iter_var2", 8, _STRING, _OPTIONAL, "", None)), ()),
    ("Expr", (("id", 2, _INT64, _OPTIONAL, "", None),
              *((kind, number, _MESSAGE, _OPTIONAL, message, 0) for kind, number, message in zip(
                  _EXPR_KINDS, range(3, 10),
                  ("Constant", "Ident", "Select", "Call", "CreateList", "CreateStruct", "Comprehension"),
                  strict=True))), ("expr_kind",)),
    ("ListType", (), ()),
    ("Type", (("list_type", 6, _MESSAGE, _OPTIONAL, "ListType", None),), ()),
    ("TypeMapEntry", (("key", 1, _INT64, _OPTIONAL, "", None),
                      ("value", 2, _MESSAGE, _OPTIONAL, "Type", None)), ()),
    ("CheckedExpr", (("type_map", 3, _MESSAGE, _REPEATED, "TypeMapEntry", None),
                     ("expr", 4, _MESSAGE, _OPTIONAL, "Expr", None)), ()),
)


@functools.cache
def _classes() -> dict[str, Any]:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    proto = descriptor_pb2.FileDescriptorProto(name="kbatch/cel_ast.proto", package=_PACKAGE,
                                               syntax="proto3")
    for name, fields, oneofs in _MESSAGES:
        message = proto.message_type.add(name=name)
        for oneof in oneofs:
            message.oneof_decl.add(name=oneof)
        for field, number, kind, label, type_name, oneof_index in fields:
            added = message.field.add(name=field, number=number, type=kind, label=label)  # type: ignore[arg-type]
            if type_name:
                added.type_name = f".{_PACKAGE}.{type_name}"
            if oneof_index is not None:
                added.oneof_index = oneof_index
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
            for name, _, _ in _MESSAGES}


def checked_expr_class() -> Any:
    """``cel.expr.CheckedExpr`` (the subset above)."""
    return _classes()["CheckedExpr"]


def expr_class() -> Any:
    """``cel.expr.Expr`` (the subset above)."""
    return _classes()["Expr"]
