"""A copy of a typed object that equals its wire round trip, made without the round trip.

The API server validates an object a caller hands it as a request body would be
(:func:`kbatch.apiserver.codec.checked_clone`): ``validate_json(to_json(obj))``, ~13-20 µs for a Pod.
pydantic does not validate assignment, so that round trip is what catches a wrong type a caller put
into a typed object. :func:`wire_copy` is its fast path: one generated function per model class
walks the object, checks that every value already is what decoding its own encoding gives back (the
exact type, in range, a ``metav1.Time`` at whole seconds in UTC, a string JSON can encode, no ``None``
where the field is not optional), and copies it as :func:`kbatch.api.model_copy.copy_model` does.
The fields set is the decode's too: the fields whose value is not ``None`` (the encoding omits
``None``). Anything it cannot vouch for raises :class:`NotCanonical` and the caller takes the round
trip, so the set of objects accepted, the errors, and the objects produced are the round trip's
(property-tested in ``tests/apiserver/test_wire_copy.py``).
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

from annotated_types import Ge, Le
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from kbatch.api.base import _set_fields_set
from kbatch.api.quantity import Quantity

__all__ = ["COPIERS", "NOT_COPIED", "NotCanonical", "wire_copy"]

M = TypeVar("M", bound=BaseModel)
Copier = Callable[[Any], Any]

_NEW = object.__new__
_SET = object.__setattr__
_SLOT_SET = {name: BaseModel.__dict__[name].__set__
             for name in ("__pydantic_extra__", "__pydantic_private__")}


class NotCanonical(Exception):
    """A value whose wire round trip is not the identity (or not known to be): take the round trip."""


def _bail(*_: Any) -> Any:
    raise NotCanonical


def _encodable(s: str) -> bool:
    """Whether JSON encoding can write ``s`` (a lone surrogate makes the serializer fail)."""
    try:
        s.encode()
    except UnicodeEncodeError:
        return False
    return True


def _json_value(v: Any) -> Any:
    """A copy of a JSON-native value (``Any`` fields decode to exactly these types)."""
    t = type(v)
    if t is str:
        if v.isascii() or _encodable(v):
            return v
    elif t is bool or t is int or v is None:
        return v
    elif t is float:
        if math.isfinite(v):
            return v
    elif t is list:
        return [_json_value(x) for x in v]
    elif t is dict:
        return {_str(k): _json_value(x) for k, x in v.items()}
    raise NotCanonical


def _str(v: Any) -> str:
    if type(v) is str and (v.isascii() or _encodable(v)):
        return v  # type: ignore[no-any-return]
    raise NotCanonical


# --- rules: annotation -> (inline check expression on ``v`` | None, copier function | None) --------
# A rule is ("inline", condition that is true for a *bad* value) for immutable values, or
# ("call", copier) for values that need a recursive check and copy.

_INLINE_STR = "type(v) is not str or not (v.isascii() or ENC(v))"


# years before 1000 print unpadded (base.format_time) and do not parse back
_TIME_RULE = "type(v) is not datetime or v.tzinfo is not UTC or v.fold or v.year < 1000"


def _inline(rule: tuple[str, Any]) -> tuple[str, Any]:
    """A ``time`` rule as an inline check (a value with a sub-second part is not copied: it bails),
    for the places that cannot replace a value (items of lists and maps, union members)."""
    return ("inline", f"{rule[1]} or v.microsecond") if rule[0] == "time" else rule


def _int_rule(metadata: list[Any]) -> str:
    cond = "type(v) is not int"
    for m in metadata:
        if isinstance(m, Ge):
            cond += f" or v < {m.ge!r}"
        elif isinstance(m, Le):
            cond += f" or v > {m.le!r}"
    return cond


def _unwrap(annotation: Any, metadata: list[Any]) -> tuple[Any, list[Any]]:
    while get_origin(annotation) is Annotated:
        args = get_args(annotation)
        annotation, extra = args[0], list(args[1:])
        for m in extra:
            metadata = [*metadata, *m.metadata] if isinstance(m, FieldInfo) else [*metadata, m]
    return annotation, metadata


def _rule(annotation: Any, metadata: list[Any]) -> tuple[str, Any]:
    """The check for a non-``None`` value of ``annotation``."""
    annotation, metadata = _unwrap(annotation, metadata)
    time = next((m for m in metadata if type(m).__name__ == "_TimeType"), None)
    if time is not None:
        from kbatch.api.base import format_micro_time

        # a metav1.Time decodes at whole seconds: a model field's copy drops the fraction (the
        # "time" rule); a MicroTime keeps its microseconds
        return ("inline", _TIME_RULE) if time.serialize is format_micro_time else ("time", _TIME_RULE)
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return _union_rule(annotation, metadata)
    if annotation is str:
        return "inline", _INLINE_STR
    if annotation is bool:
        return "inline", "type(v) is not bool"
    if annotation is int:
        return "inline", _int_rule(metadata)
    if annotation is float:
        return "inline", "type(v) is not float or not ISFINITE(v)"
    if annotation is Quantity:
        return "inline", "type(v) is not Quantity"
    if annotation is Any:
        return "call", _json_value
    if get_origin(annotation) is Literal:
        values = get_args(annotation)
        if all(type(x) is str for x in values):
            return "inline", f"type(v) is not str or v not in {frozenset(values)!r}"
        return "call", _bail
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "model", annotation
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is list and len(args) == 1:
        item = _inline(_rule(args[0], []))
        if item[0] == "model":
            return "models", item[1]
        return "call", _list_copier(item)
    if origin is dict and len(args) == 2 and args[0] is str:
        return "call", _dict_copier(_inline(_rule(args[1], [])))
    return "call", _bail


def _union_rule(annotation: Any, metadata: list[Any]) -> tuple[str, Any]:
    alts = [a for a in get_args(annotation) if a is not type(None)]
    if len(alts) == 1:
        return _rule(alts[0], metadata)  # (a "time" rule stays one: the field is just optional)
    if set(alts) == {int, str}:
        # IntOrString (left_to_right): a string of digits would decode as an int
        return "inline", ("not (type(v) is int or type(v) is str and v.isascii() "
                          "and not any(c.isdigit() for c in v))")
    return "call", _bail


def _item_function(rule: tuple[str, Any]) -> Copier:
    kind, body = rule
    if kind == "call":
        return body  # type: ignore[no-any-return]
    if kind == "model":
        return lambda v: _COPIERS[body](v)
    return _generated(f"def f(v):\n    if {body}: raise NC\n    return v")


def _list_copier(rule: tuple[str, Any]) -> Copier:
    if rule[0] == "inline":  # immutable items: check them in one loop, copy the list in one call
        return _generated(f"""def f(items):
    if type(items) is not list: raise NC
    for v in items:
        if {rule[1]}: raise NC
    return items.copy()""")
    item = _item_function(rule)

    def copy_list(v: Any) -> list[Any]:
        if type(v) is not list:
            raise NotCanonical
        return [item(x) for x in v]
    return copy_list


def _dict_copier(rule: tuple[str, Any]) -> Copier:
    if rule[0] == "inline":
        return _generated(f"""def f(items):
    if type(items) is not dict: raise NC
    for k, v in items.items():
        if type(k) is not str or not (k.isascii() or ENC(k)) or {rule[1]}: raise NC
    return items.copy()""")
    item = _item_function(rule)

    def copy_dict(v: Any) -> dict[str, Any]:
        if type(v) is not dict:
            raise NotCanonical
        return {_str(k): item(x) for k, x in v.items()}
    return copy_dict


def _generated(code: str) -> Copier:
    namespace = _namespace()
    exec(code, namespace)
    return namespace["f"]  # type: ignore[no-any-return]


def _namespace() -> dict[str, Any]:
    return {"NC": NotCanonical, "ENC": _encodable, "UTC": UTC, "datetime": datetime, "Quantity": Quantity,
            "ISFINITE": math.isfinite}


def _optional(field: FieldInfo) -> bool:
    return any(a is type(None) for a in _flat_alternatives(field.annotation))


def _flat_alternatives(annotation: Any) -> list[Any]:
    annotation, _ = _unwrap(annotation, [])
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return [x for a in get_args(annotation) for x in _flat_alternatives(a)]
    return [annotation]


def _generate(cls: type[BaseModel]) -> Copier:
    if cls.model_config.get("extra") not in (None, "forbid", "ignore") or cls.__private_attributes__:
        return _bail
    fields = cls.model_fields
    required = [n for n, f in fields.items() if not _optional(f)]
    lines = ["def copy(src):",
             "    if type(src) is not CLS: raise NC",
             "    d = src.__dict__",
             f"    if len(d) != {len(fields)}: raise NC",
             "    out = d.copy()",
             f"    fs = {set(required)!r}" if required else "    fs = set()",
             "    A = fs.add"]
    namespace = _namespace()
    for i, (name, field) in enumerate(fields.items()):
        kind, body = _rule(field.annotation, list(field.metadata))
        optional = name not in required
        lines.append(f"    v = d[{name!r}]")
        indent = "    "
        if optional:
            lines.append("    if v is not None:")
            indent = "        "
            lines.append(f"{indent}A({name!r})")
        if kind == "inline":
            lines.append(f"{indent}if {body}: raise NC")
            continue
        if kind == "time":  # what the wire keeps of a metav1.Time: whole seconds
            lines.append(f"{indent}if {body}: raise NC")
            lines.append(f"{indent}if v.microsecond: out[{name!r}] = v.replace(microsecond=0)")
            continue
        namespace[f"F{i}"] = body
        if kind == "model":
            lines.append(f"{indent}out[{name!r}] = P[F{i}](v)")
        elif kind == "models":
            lines.append(f"{indent}if type(v) is not list: raise NC")
            lines.append(f"{indent}C = P[F{i}]")
            lines.append(f"{indent}out[{name!r}] = [C(x) for x in v]")
        else:
            if not optional:
                lines.append(f"{indent}if v is None: raise NC")
            lines.append(f"{indent}out[{name!r}] = F{i}(v)")
    post_init = cls.model_post_init is not BaseModel.model_post_init
    lines += ["    new = NEW(CLS)", "    SET(new, '__dict__', out)", "    FS_SET(new, fs)",
              "    EXTRA_SET(new, None)", "    PRIVATE_SET(new, None)"]
    if post_init:
        lines.append("    new.model_post_init(None)")
    lines.append("    return new")
    namespace.update(NEW=_NEW, SET=_SET, CLS=cls, P=_COPIERS, FS_SET=_set_fields_set,
                     EXTRA_SET=_SLOT_SET["__pydantic_extra__"], PRIVATE_SET=_SLOT_SET["__pydantic_private__"])
    exec("\n".join(lines), namespace)
    return namespace["copy"]  # type: ignore[no-any-return]


class _Copiers(dict[type, Copier]):
    def __missing__(self, cls: type) -> Copier:
        fn = self[cls] = _generate(cls)
        return fn


_COPIERS = _Copiers()


# ``COPIERS[type(obj)](obj)`` is :func:`wire_copy` without its frame, for the API server's hot paths: it
# raises one of NOT_COPIED (NotCanonical, or these for a tampered instance: a missing field, a non-dict
# __dict__) where wire_copy raises NotCanonical.
COPIERS = _COPIERS
NOT_COPIED = (NotCanonical, KeyError, AttributeError, TypeError)


def wire_copy(obj: M) -> M:
    """``obj`` copied as decoding its encoding would give it back; :class:`NotCanonical` when some
    value would come back different, or rejected (the caller then takes the round trip)."""
    try:
        return _COPIERS[type(obj)](obj)  # type: ignore[no-any-return]
    except (KeyError, AttributeError, TypeError):  # a tampered instance: let the round trip judge it
        raise NotCanonical from None
