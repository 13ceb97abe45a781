"""A CRD structural schema, as kube-apiextensions-apiserver enforces it: defaults, the OpenAPI value
checks and the CEL rules (``x-kubernetes-validations``), on typed objects.

Kueue's kinds are custom resources: what the API server itself guarantees about them is their CRD's
``openAPIV3Schema`` (generated from the ``+kubebuilder`` markers of ``apis/kueue/v1beta2/*.go``).
:mod:`.schemas` transcribes those schemas into :class:`Node` values (constraints only) with each CEL
rule as a Python predicate; this module applies them:

* :func:`apply_defaults` is structural defaulting (``default:`` values, applied recursively, also
  inside a defaulted object), in place;
* :func:`validate` is the schema validation of ``k8s.io/kube-openapi/pkg/validation`` and the CEL
  validator of ``apiextensions-apiserver/pkg/apiserver/schema/cel``, with their messages:
  ``Required value``, ``Unsupported value: "x": supported values: ...``, ``... in body should match
  '...'``, ``Too long: may not be more than N bytes``, ``Too many: N: must have at most M items``,
  ``... in body should have at least N items``, ``... in body should be greater than or equal to N``,
  ``Duplicate value``, and for a failed rule ``Invalid value: "object": <message>``; an object's or a
  map's ``maxProperties`` as ``Too many: N: must have at most M items`` and ``minProperties`` as
  ``Invalid value: N: ... in body should have at least M properties`` (k8s.io/kube-openapi
  ``pkg/validation/validate/object_validator.go`` and ``errors/schema.go`` ``TooManyProperties``,
  ``TooFewProperties``; apiextensions-apiserver ``pkg/apiserver/validation/validation.go``
  ``kubeOpenAPIResultToFieldErrors`` maps the first to ``field.TooMany``, the second to
  ``field.Invalid``), before the properties' own errors.

Rules that read ``oldSelf`` (transition rules) run only on updates where the old value exists, as
upstream. Values are walked through the models' attributes (wire names resolved once per model
class), never through a dict dump.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, TypeAdapter

from kbatch.api.errors import FieldError
from kbatch.api.goregexp import compile_go
from kbatch.api.quantity import Quantity

__all__ = ["MISSING", "Node", "Rule", "apply_defaults", "validate", "validate_transitions"]

MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``x-kubernetes-validations`` entry: ``check(self, old_self)``; ``transition`` rules read
    ``oldSelf`` and are skipped when there is no old value."""

    check: Callable[[Any, Any], bool]
    message: str
    transition: bool = False


@dataclass(frozen=True, slots=True)
class Node:
    """A schema node. ``type``: object | array | map | string | integer | boolean | quantity | any."""

    type: str = "object"
    props: Mapping[str, Node] = field(default_factory=dict)
    items: Node | None = None
    values: Node | None = None
    required: tuple[str, ...] = ()
    enum: tuple[Any, ...] | None = None
    pattern: str | None = None
    max_length: int | None = None
    min_length: int | None = None
    minimum: int | None = None
    max_items: int | None = None
    min_items: int | None = None
    max_properties: int | None = None  # an object's or a map's maxProperties / minProperties
    min_properties: int | None = None
    map_keys: tuple[str, ...] = ()
    set_list: bool = False
    default: Any = MISSING
    rules: tuple[Rule, ...] = ()


# --- attribute access ----------------------------------------------------------------------------


@functools.cache
def _attrs(model: type[BaseModel]) -> dict[str, str]:
    """Wire name → attribute name of a model class."""
    return {(f.alias or name): name for name, f in model.model_fields.items()}


@functools.cache
def _adapter(model: type[BaseModel], attr: str) -> TypeAdapter[Any]:
    annotation = model.model_fields[attr].annotation
    assert annotation is not None, (model, attr)  # every field of the models is annotated
    return TypeAdapter(annotation)


def _get(obj: Any, wire: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, BaseModel):
        return getattr(obj, _attrs(type(obj))[wire], None)
    if isinstance(obj, Mapping):
        return obj.get(wire)
    return None


# --- defaulting --------------------------------------------------------------------------------


def apply_defaults(node: Node, value: Any) -> None:
    """Structural defaulting of ``value`` (a model, list or dict) in place."""
    if value is None:
        return
    if node.type == "object" and isinstance(value, BaseModel):
        attrs = _attrs(type(value))
        for wire, child in node.props.items():
            attr = attrs[wire]
            current = getattr(value, attr, None)
            if current is None and child.default is not MISSING:
                current = _adapter(type(value), attr).validate_python(_fresh(child.default))
                setattr(value, attr, current)
            apply_defaults(child, current)
    elif node.type == "array" and node.items is not None and isinstance(value, list):
        for item in value:
            apply_defaults(node.items, item)
    elif node.type == "map" and node.values is not None and isinstance(value, dict):
        for item in value.values():
            apply_defaults(node.values, item)


def _fresh(default: Any) -> Any:
    if isinstance(default, dict):
        return {k: _fresh(v) for k, v in default.items()}
    if isinstance(default, list):
        return [_fresh(v) for v in default]
    return default


# --- validation ----------------------------------------------------------------------------------

Errors = list[FieldError]


def validate(
    node: Node, value: Any, old: Any = None, path: str = "", *, has_old: bool = False, ratchet: bool = False
) -> Errors:
    """Every schema error of ``value`` at ``path`` but the transition rules' (a create's checks, and
    an update's checks of the new object alone). ``ratchet``: a value equal to its correlated old
    value (same path; list items of ``listType=map`` by key) is not checked again, as
    apiextensions' validation ratcheting (KEP-4008, GA in 1.33) drops its errors."""
    return _validate(node, value, old, path, has_old=has_old, transitions=False, ratchet=ratchet)


def validate_transitions(node: Node, value: Any, old: Any, path: str = "") -> Errors:
    """The transition rules' errors only (an update's checks against the stored object)."""
    return _validate(node, value, old, path, has_old=True, transitions=True)


_TRANSITIONS: dict[int, tuple[Node, bool]] = {}
_INERT: dict[int, tuple[Node, bool]] = {}


def _children(node: Node) -> list[Node]:
    return [*node.props.values(), *(c for c in (node.items, node.values) if c is not None)]


def _has_transitions(node: Node) -> bool:
    """Whether a transition rule sits anywhere in ``node``'s subtree (memoised per node; the entry
    keeps its node, so a new node at a freed one's address is not taken for it)."""
    known = _TRANSITIONS.get(id(node))
    if known is None or known[0] is not node:
        answer = any(r.transition for r in node.rules) or any(_has_transitions(c) for c in _children(node))
        known = _TRANSITIONS[id(node)] = (node, answer)
    return known[1]


def _inert(node: Node) -> bool:
    """Whether nothing in ``node``'s subtree can fail: no rule, no value constraint, no required
    property, no uniqueness (a ``Quantity`` map, an unconstrained string or integer): the walk
    skips such a subtree, whose every value passes (memoised per node, as :func:`_has_transitions`)."""
    known = _INERT.get(id(node))
    if known is None or known[0] is not node:
        constrained = (
            node.rules or node.required or node.map_keys or node.set_list or node.enum is not None
            or node.pattern is not None or node.max_length is not None or node.min_length is not None
            or node.minimum is not None or node.max_items is not None or node.min_items is not None
            or node.max_properties is not None or node.min_properties is not None
        )
        answer = not constrained and all(_inert(c) for c in _children(node))
        known = _INERT[id(node)] = (node, answer)
    return known[1]


def _validate(
    node: Node,
    value: Any,
    old: Any,
    path: str,
    *,
    has_old: bool,
    transitions: bool,
    ratchet: bool = False,
    unequal: bool = False,
) -> Errors:
    """``unequal``: the caller found ``value`` differs from ``old`` already."""
    if value is None or (transitions and not _has_transitions(node)):
        return []
    if ratchet and not unequal and old is not None and (value is old or value == old):
        return []
    errs: Errors = []
    kind = node.type
    if kind == "object":
        errs += _object(node, value, old, path, has_old, transitions, ratchet)
    elif kind == "array":
        errs += _array(node, value, old, path, has_old, transitions, ratchet)
    elif kind == "map":
        errs += _map(node, value, old, path, has_old, transitions, ratchet)
    elif not transitions:
        errs += _scalar(node, value, path)
    for rule in node.rules:
        if rule.transition != transitions or (rule.transition and not (has_old and old is not None)):
            continue
        if not rule.check(value, old):
            errs.append(FieldError.invalid(path, _type_name(node), rule.message))
    return errs


def _type_name(node: Node) -> str:
    return {"map": "object", "quantity": "string", "any": "object"}.get(node.type, node.type)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _properties(
    node: Node, value: Any, old: Any, path: str, has_old: bool, transitions: bool, ratchet: bool
) -> Errors:
    """Every property's errors, the general way (any value :func:`_get` reads): the reference the
    model fast path of :func:`_object` must agree with."""
    errs: Errors = []
    for wire, child in node.props.items():
        v = _get(value, wire)
        if v is not None:
            errs += _validate(
                child,
                v,
                _get(old, wire),
                _join(path, wire),
                has_old=has_old,
                transitions=transitions,
                ratchet=ratchet,
            )
    return errs


Props = tuple[tuple[str, str, Node, bool], ...]  # (wire name, attribute, child, plain scalar)


@dataclass(frozen=True, slots=True)
class _ModelNode:
    """``node`` read on one model class: its required properties as (wire name, attribute), the
    properties a value check may fail on, and those holding a transition rule, each as (wire name,
    attribute, child, whether the child is a plain scalar: checked by :func:`_scalar_ok` in place,
    its path built only for an error); the rest (inert, or without a transition rule) is never
    visited."""

    node: Node
    required: tuple[tuple[str, str], ...]
    checked: Props
    transitional: Props


_PROPS: dict[tuple[type, int], _ModelNode] = {}


def _props(model: type[BaseModel], node: Node) -> _ModelNode:
    """``node``'s properties on ``model`` (memoised per pair; the entry keeps its node, so a new
    node at a reused address is not taken for it)."""
    key = (model, id(node))
    known = _PROPS.get(key)
    if known is None or known.node is not node:
        attrs = _attrs(model)
        every = tuple((wire, attrs[wire], child, _plain(child)) for wire, child in node.props.items())
        known = _PROPS[key] = _ModelNode(
            node,
            tuple((wire, attrs[wire]) for wire in node.required),
            tuple(p for p in every if not _inert(p[2])),
            tuple(p for p in every if _has_transitions(p[2])),
        )
    return known


def _object(
    node: Node, value: Any, old: Any, path: str, has_old: bool, transitions: bool, ratchet: bool = False
) -> Errors:
    if not isinstance(value, BaseModel):
        errs: Errors = [] if transitions else _property_count(node, value, path)
        if not transitions:
            for wire in node.required:
                if _get(value, wire) is None:
                    errs.append(FieldError.required(_join(path, wire)))
        return errs + _properties(node, value, old, path, has_old, transitions, ratchet)
    # a model (every stored value): attributes resolved once per (model, node); the cheap skips
    # (absent, unchanged under ratcheting, inert, no transition rule below) before any call
    shape = _props(type(value), node)
    if transitions:
        errs = []
        props = shape.transitional
    else:
        counted = node.max_properties is not None or node.min_properties is not None
        errs = _property_count(node, value, path) if counted else []
        for wire, attr in shape.required:
            if getattr(value, attr, None) is None:
                errs.append(FieldError.required(_join(path, wire)))
        props = shape.checked
    same_model = type(old) is type(value)
    for wire, attr, child, plain in props:
        v = getattr(value, attr, None)
        if v is None:
            continue
        o = getattr(old, attr, None) if same_model else None if old is None else _get(old, wire)
        if ratchet and not transitions and o is not None and (v is o or v == o):
            continue
        if plain and not transitions:  # what _validate would do for it, without the call
            if not _scalar_ok(child, v):
                errs += _scalar(child, v, f"{path}.{wire}" if path else wire)
            continue
        errs += _validate(
            child,
            v,
            o,
            f"{path}.{wire}" if path else wire,
            has_old=has_old,
            transitions=transitions,
            ratchet=ratchet,
            unequal=ratchet and not transitions,
        )
    return errs


def _array(
    node: Node, value: list[Any], old: Any, path: str, has_old: bool, transitions: bool, ratchet: bool = False
) -> Errors:
    errs: Errors = []
    keys = _keys(value, node.map_keys) if node.map_keys else None
    if not transitions:
        if node.max_items is not None and len(value) > node.max_items:
            errs.append(FieldError.too_many(path, len(value), node.max_items))
        if node.min_items is not None and len(value) < node.min_items:
            errs.append(
                FieldError.invalid(
                    path, len(value), f"{path} in body should have at least {node.min_items} items"
                )
            )
        errs += _duplicates(node, value, keys, path)
    if node.items is not None and (transitions or not _inert(node.items)):
        olds = _old_items(node, old, keys)
        for i, item in enumerate(value):
            o = olds[i]
            if ratchet and o is not None and (item is o or item == o):  # _validate's ratchet, before the call
                continue
            errs += _validate(
                node.items,
                item,
                o,
                f"{path}[{i}]",
                has_old=has_old,
                transitions=transitions,
                ratchet=ratchet,
                unequal=ratchet,
            )
    return errs


def _map_key(item: Any, map_keys: tuple[str, ...]) -> tuple[Any, ...]:
    """A ``listType=map`` item's key values (a model's attributes resolved once per class)."""
    if isinstance(item, BaseModel):
        attrs = _attrs(type(item))
        return tuple(getattr(item, attrs[k], None) if k in attrs else None for k in map_keys)
    return tuple(_get(item, k) for k in map_keys)


@functools.cache
def _key_getter(model: type[BaseModel], map_keys: tuple[str, ...]) -> Callable[[Any], Any] | None:
    """The attribute getter of ``map_keys`` on ``model`` (a tuple for several keys, the value for
    one), or ``None`` when one of the keys is no property of the model (:func:`_map_key` reads
    ``None`` for it)."""
    attrs = _attrs(model)
    if not all(k in attrs for k in map_keys):
        return None
    return operator.attrgetter(*(attrs[k] for k in map_keys))


def _keys(items: list[Any], map_keys: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """Every item's :func:`_map_key`, read in one pass when the items are models of one class (a
    stored or validated list always is: the getter is resolved once per class, not per item)."""
    getter = _key_getter(type(items[0]), map_keys) if items and isinstance(items[0], BaseModel) else None
    if getter is None or len(set(map(type, items))) != 1:
        return [_map_key(item, map_keys) for item in items]
    if len(map_keys) == 1:
        return [(k,) for k in map(getter, items)]
    return list(map(getter, items))


def _old_items(node: Node, old: Any, keys: list[tuple[Any, ...]] | None) -> list[Any] | _NoOlds:
    """Each item's old value: by map keys for ``listType=map`` (correlation by key, as CEL
    transition rules do), else none (atomic lists are not correlated)."""
    if keys is None or not isinstance(old, list):
        return _NO_OLDS
    by_key = dict(zip(_keys(old, node.map_keys), old, strict=True))
    return [by_key.get(k) for k in keys]


class _NoOlds:
    """No item has an old value (any index reads ``None``)."""

    def __getitem__(self, i: int) -> None:
        return None


_NO_OLDS = _NoOlds()


def _duplicates(node: Node, value: list[Any], keys: list[tuple[Any, ...]] | None, path: str) -> Errors:
    if keys is None and not node.set_list:
        return []
    if keys is not None and len(set(keys)) == len(keys):  # the usual answer, without a loop
        return []
    errs: Errors = []
    seen: set[Any] = set()
    for i, item in enumerate(value):
        key = keys[i] if keys is not None else _hashable(item)
        if key in seen:
            shown = dict(zip(node.map_keys, key, strict=True)) if keys is not None else item
            errs.append(FieldError.duplicate(f"{path}[{i}]", shown))
        seen.add(key)
    return errs


def _hashable(item: Any) -> Any:
    return item.model_dump_json() if isinstance(item, BaseModel) else item


def _map(
    node: Node,
    value: dict[str, Any],
    old: Any,
    path: str,
    has_old: bool,
    transitions: bool,
    ratchet: bool = False,
) -> Errors:
    errs: Errors = [] if transitions else _property_count(node, value, path)
    if node.values is not None and (transitions or not _inert(node.values)):
        for k in sorted(value):
            errs += _validate(
                node.values,
                value[k],
                _get(old, k),
                f"{path}[{k}]",
                has_old=has_old,
                transitions=transitions,
                ratchet=ratchet,
            )
    return errs


def _property_count(node: Node, value: Any, path: str) -> Errors:
    """``maxProperties`` / ``minProperties`` of an object or map: how many properties it has on the
    wire (a model's set attributes, a dict's keys)."""
    if node.max_properties is None and node.min_properties is None:
        return []
    if isinstance(value, BaseModel):
        count = sum(1 for attr in _attrs(type(value)).values() if getattr(value, attr, None) is not None)
    else:
        count = len(value) if isinstance(value, Mapping) else 0
    errs: Errors = []
    if node.min_properties is not None and count < node.min_properties:
        errs.append(FieldError.invalid(path, count, f"{path} in body should have at least "
                                                    f"{node.min_properties} properties"))
    if node.max_properties is not None and count > node.max_properties:
        errs.append(FieldError.too_many(path, count, node.max_properties))
    return errs


def _plain(node: Node) -> bool:
    """A scalar node without rules: its whole check is :func:`_scalar` (no transition rule below)."""
    return node.type not in ("object", "array", "map") and not node.rules


def _scalar_ok(node: Node, value: Any) -> bool:
    """Whether :func:`_scalar` finds no error (the same checks, without building any)."""
    if node.enum is not None and value not in node.enum:
        return False
    if isinstance(value, str):
        n = len(value)
        return ((node.max_length is None or n <= node.max_length)
                and (node.min_length is None or n >= node.min_length)
                and (node.pattern is None or _matches(node.pattern, value)))
    if isinstance(value, int) and not isinstance(value, bool) and node.minimum is not None:
        return value >= node.minimum
    return True


def _scalar(node: Node, value: Any, path: str) -> Errors:
    errs: Errors = []
    if node.enum is not None and value not in node.enum:
        errs.append(FieldError.not_supported(path, value, [str(v) for v in node.enum]))
        return errs
    if isinstance(value, str):
        if node.max_length is not None and len(value) > node.max_length:
            errs.append(FieldError.too_long(path, node.max_length))
        if node.min_length is not None and len(value) < node.min_length:
            errs.append(
                FieldError.invalid(
                    path, value, f"{path} in body should be at least {node.min_length} chars long"
                )
            )
        if node.pattern is not None and not _matches(node.pattern, value):
            errs.append(FieldError.invalid(path, value, f"{path} in body should match '{node.pattern}'"))
    elif (
        isinstance(value, int)
        and not isinstance(value, bool)
        and node.minimum is not None
        and value < node.minimum
    ):
        errs.append(
            FieldError.invalid(
                path, value, f"{path} in body should be greater than or equal to {node.minimum}"
            )
        )
    elif isinstance(value, Quantity):
        pass
    return errs


@functools.lru_cache(maxsize=8192)
def _matches(pattern: str, value: str) -> bool:
    # kube-openapi's validator compiles a schema pattern with Go's regexp and searches the value
    return compile_go(pattern).match_string(value)
