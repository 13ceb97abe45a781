"""Go's ``UnmarshalTypeError``: what a Go decoder says of a JSON value of the wrong type.

Kubernetes and Kueue decode with sigs.k8s.io/json, a fork of Go's ``encoding/json``
(``internal/golang/encoding/json/decode.go``). A value of the wrong JSON type does not stop it:
``literalStore``, ``array`` and ``object`` save the first such error (``saveError``), in document
order, and decoding goes on; ``addErrorContext`` records the innermost struct being decoded and the
JSON names of the fields from the top of the document. Its text::

    json: cannot unmarshal <value> into Go struct field <Struct>.<path> of type <type>

* ``<value>``: the JSON kind found (``object``, ``array``, ``string``, ``number``, ``bool``), or
  ``number <text>`` when the target is an integer or a float (a fraction, out of range);
* ``<Struct>.<path>``: the struct that declares the field, then the path, dots between, with neither
  list indexes nor map keys (``ClientConnection.clientConnection.burst``);
* ``<type>``: the type expected where the value was, as ``reflect.Type.String`` prints it
  (``int32``, ``[]string``, ``v1beta2.WaitForPodsReady``): the item's when an item of a list or a
  value of a map was wrong.

The pieces here serve two decoders: the API server's (:mod:`kbatch.apiserver.go_json`, which names
k8s.io/api's types itself) and Kueue's Configuration (:func:`declared_type_error`, whose models say
their Go types with :class:`~kbatch.api.gotypes.GoType`).
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from kbatch.api.gotypes import MAX_FLOAT32, GoType

__all__ = [
    "RANGE_ERRORS",
    "TYPE_ERRORS",
    "JsonNumber",
    "Spot",
    "cannot_unmarshal",
    "declared_type_error",
    "go_number",
    "is_int_limit",
    "is_model",
    "is_union",
    "json_kind",
    "json_loads",
    "locate",
    "marshalled",
    "marshalled_numbers",
    "unwrap",
    "wire_fields",
]

# pydantic error types that mean "this JSON value has the wrong type"
TYPE_ERRORS = frozenset({
    "model_type", "model_attributes_type", "dict_type", "list_type", "string_type", "int_type",
    "int_parsing", "int_from_float", "float_type", "float_parsing", "bool_type", "bool_parsing",
    "is_instance_of",
})
RANGE_ERRORS = frozenset({"less_than_equal", "greater_than_equal", "less_than", "greater_than"})
_INT32_MAX = 2**31 - 1


def json_kind(value: Any) -> str:
    """The JSON kind Go names for a decoded value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


def cannot_unmarshal(value: Any, struct: str, path: str, go_type: str, *, integer: bool = False,
                     text: Callable[[Any], str] = repr) -> str:
    """``json: cannot unmarshal <value> into Go struct field <struct>.<path> of type <go_type>``;
    ``integer``: the target is a number, so a number names itself (``number 1.5``), as ``text``
    spells it (the JSON text Go read)."""
    kind = json_kind(value)
    if integer and kind == "number":
        kind = f"number {text(value)}"
    return f"json: cannot unmarshal {kind} into Go struct field {struct}.{path} of type {go_type}"


class JsonNumber(float):
    """A number of JSON text written with a fraction or an exponent, which keeps its literal: Go's
    decoder names a number it cannot store by its text (``literalStore``: ``"number " + literal``),
    and ``3.0``, ``3.00`` and ``3e0`` are one float."""

    __slots__ = ("literal",)
    literal: str

    def __new__(cls, literal: str) -> JsonNumber:
        number = super().__new__(cls, literal)
        number.literal = literal
        return number

    def __reduce__(self) -> tuple[type[JsonNumber], tuple[str]]:
        return (JsonNumber, (self.literal,))


def json_loads(text: str) -> Any:
    """JSON text as Go's decoder reads it: an integer literal an ``int``, any other number a
    :class:`JsonNumber` (no YAML conversion comes between: see :func:`marshalled`)."""
    return json.loads(text, parse_float=JsonNumber)


def go_number(value: int | float) -> str:
    """A number as Go's ``json.Marshal`` writes it, which is how a YAML file's number reaches the
    decoder (sigs.k8s.io/yaml converts YAML to JSON that way): an integral float without a fraction,
    ``1e+21`` and up and below ``1e-6`` in exponent form (``encoding/json/encode.go``
    ``floatEncoder``: ``1e-07`` written ``1e-7``). A :class:`JsonNumber` reached the decoder as its
    own text."""
    if isinstance(value, JsonNumber):
        return value.literal
    if isinstance(value, int):
        return str(value)
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, _, exponent = repr(value).partition("e")
        sign, digits = exponent[:1], exponent[1:].lstrip("0")
        return f"{mantissa}e{sign}{digits.zfill(2) if sign == '+' else digits}"
    text = format(Decimal(repr(value)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def marshalled(value: Any) -> Any:
    """A YAML value as the decoder gets it: sigs.k8s.io/yaml ``YAMLToJSON`` reads a YAML number into
    a float64 or an int and writes it back with ``json.Marshal``, so a whole-number float below
    ``1e21`` is the integer of its text (``3.0`` → ``3``, which an ``int32`` field takes); any other
    value, and a :class:`JsonNumber` (JSON text, decoded as written), is itself."""
    if type(value) is float and value.is_integer() and abs(value) < 1e21:
        return int(go_number(value))
    return value


def marshalled_numbers(data: Any) -> Any:
    """``data`` (a YAML document, or a mapping taken as one) with every number :func:`marshalled`;
    copied where it changes, never changed in place."""
    if isinstance(data, Mapping):
        return {k: marshalled_numbers(v) for k, v in data.items()}
    if isinstance(data, list):
        return [marshalled_numbers(v) for v in data]
    return marshalled(data)


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a pydantic error happened, in Go's terms."""

    struct: str
    path: tuple[str, ...]
    expected: Any  # the annotation expected there (Optional and Annotated removed)
    metadata: tuple[Any, ...]  # the Annotated metadata (integer bounds, GoType)


def locate(model: type[BaseModel], loc: tuple[Any, ...], struct: str | None,
           prefix: tuple[str, ...]) -> Spot | None:
    """The :class:`Spot` of a pydantic error location in ``model`` (``None``: not a place Go's
    decoder reaches). ``struct``/``prefix``: the Go struct and JSON path of ``model`` itself when it
    is decoded as a field of something else."""
    name = struct or _struct_name(model)
    path = list(prefix)
    tp: Any = model
    meta: tuple[Any, ...] = ()
    for part in loc:
        tp, meta = unwrap(tp, meta)
        if is_union(tp):
            break  # the rest of the location names pydantic's union members
        if is_model(tp):
            field = wire_fields(tp).get(part) if isinstance(part, str) else None
            if field is None:
                return None
            name = _struct_name(tp)
            path.append(field[0])
            tp, meta = field[1].annotation, tuple(field[1].metadata)
            continue
        origin = typing.get_origin(tp)
        if origin is list and isinstance(part, int):
            tp, meta = typing.get_args(tp)[0], ()
        elif origin is dict:  # a map key is no part of Go's path
            tp, meta = typing.get_args(tp)[1], ()
        else:
            return None
    tp, meta = unwrap(tp, meta)
    return Spot(name, tuple(path), tp, meta)


def _struct_name(model: type[BaseModel]) -> str:
    declared = getattr(model, "go_type", None)
    return declared.name if isinstance(declared, GoType) else model.__name__


def unwrap(tp: Any, meta: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """``tp`` without ``Optional`` and ``Annotated``, and the metadata met on the way (appended to
    ``meta``; a ``Field``'s constraints flattened)."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            args = typing.get_args(tp)
            extra: list[Any] = []
            for arg in args[1:]:
                extra.extend(getattr(arg, "metadata", None) or [arg])
            tp, meta = args[0], (*meta, *extra)
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(members) != 1:
                return tp, meta
            tp = members[0]
        else:
            return tp, meta


def is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


@cache
def wire_fields(model: type[BaseModel]) -> dict[str, tuple[str, Any]]:
    """Wire name and Python name → (wire name, FieldInfo)."""
    out: dict[str, tuple[str, Any]] = {}
    for py_name, info in model.model_fields.items():
        wire = info.alias or py_name
        out[wire] = out[py_name] = (wire, info)
    return out


def is_int_limit(ctx: dict[str, Any]) -> bool:
    """The bound a range error names is an integer type's own (Go's overflow), not a check's."""
    bound = next((v for k, v in ctx.items() if k in ("le", "ge", "lt", "gt")), None)
    return isinstance(bound, int) and abs(bound) in (_INT32_MAX, 2**31, 2**63 - 1, 2**63)


def _is_float_limit(ctx: dict[str, Any]) -> bool:
    bound = next((v for k, v in ctx.items() if k in ("le", "ge")), None)
    return isinstance(bound, float) and abs(bound) == MAX_FLOAT32


# -- models that declare their Go types (GoType) ------------------------------------------------------
def declared_type_error(model: type[BaseModel], error: ErrorDetails, package: str) -> str | None:
    """Go's text for a pydantic ``error`` raised validating ``model``, whose fields and structs say
    their Go types with :class:`~kbatch.api.gotypes.GoType` (``package``: the API version's Go
    package, ``v1beta2``); ``None`` when the error is no JSON type mismatch (a failed check, a
    missing field, a value's own decoder failing). A number reads as the YAML file gave it
    (:func:`go_number`)."""
    spot = locate(model, tuple(error.get("loc") or ()), None, ())
    if spot is None or not spot.path:
        return None
    kind = error.get("type", "")
    numeric = spot.expected in (int, float)
    if kind in RANGE_ERRORS:
        ctx = error.get("ctx") or {}
        if not (numeric and (is_int_limit(ctx) or _is_float_limit(ctx))):
            return None
    elif kind not in TYPE_ERRORS:
        return None
    go_type = _declared(spot.expected, spot.metadata, package)
    return cannot_unmarshal(error.get("input"), spot.struct, ".".join(spot.path), go_type, integer=numeric,
                            text=go_number)


def _declared(tp: Any, meta: tuple[Any, ...], package: str) -> str:
    """The Go type of an annotation: its last :class:`GoType`, a model's ``go_type`` (its class name
    in the version's package by default), or built from the list, map and scalar it is."""
    tp, meta = unwrap(tp, meta)
    marker = next((m for m in reversed(meta) if isinstance(m, GoType)), None)
    if marker is not None:
        return marker.qualified(package)
    if is_model(tp):
        declared = getattr(tp, "go_type", None)
        return (declared if isinstance(declared, GoType) else GoType(tp.__name__)).qualified(package)
    origin = typing.get_origin(tp)
    if origin is list:
        return "[]" + _declared(typing.get_args(tp)[0], (), package)
    if origin is dict:
        key, value = typing.get_args(tp)
        return f"map[{_declared(key, (), package)}]{_declared(value, (), package)}"
    simple = {str: "string", bool: "bool", int: "int", float: "float64"}
    return simple.get(tp, "interface {}")
