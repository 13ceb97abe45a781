"""Merge and strategic merge patches applied to a held typed object, re-validating only what changed.

The general patch path (:mod:`kbatch.apiserver.patch`) merges the patch into the stored JSON of the
whole object and decodes all of it. When the decode cache holds the object decoded from exactly the
stored bytes, the same result is reached level by level on the typed object, without parsing the
stored bytes:

* a patch value that is a JSON object, for a field whose type is one model, recurses into that model
  (upstream: strategic ``mergeMap`` recursing into a map value, ``staging/src/k8s.io/apimachinery/
  pkg/util/strategicpatch/patch.go``; RFC 7386 ``MergePatch(Target[name], value)``, as
  ``evanphx/json-patch``'s MergePatch, which kube-apiserver uses, implements it);
* every other patched key of a level (scalars, ``null``, lists, maps that are not models, and the
  ``$deleteFromPrimitiveList/<f>`` and ``$setElementOrder/<f>`` directives with their field) is merged
  by the general merge (:func:`~kbatch.apiserver.strategic.merge_map` /
  :func:`~kbatch.apiserver.jsonpatch.apply_merge_patch`) on the *view* of just those fields of the
  held object that the merge reads (:func:`view`: the stored JSON, but with times and quantities
  as the typed values they decode to);
* a level carrying ``$patch`` or ``$retainKeys`` is merged whole, on its view;
* each level is validated from a dict holding the merged values and copies of the held values of the
  untouched fields (a validated model instance, a ``datetime`` for a time and a ``Quantity`` pass
  pydantic's validation as they are; kbatch models have no validators that would treat them
  differently from their JSON); a level whose merged values are all plain JSON (finalizers, labels,
  a phase) is a copy of the held one with just those values validated.

The keys of a map merge independently (only the directives above tie keys together, and they stay
together), so the result is the general path's. Anything unusual — a key that is not a field alias,
an unknown ``$`` key, a merge error, a value that does not validate — raises :class:`Fallback`: the
caller takes the general path, which reports the error exactly as it always does.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError

from kbatch.api.base import KubeModel, _fields_set_of, _set_fields_set, wire_validate
from kbatch.api.errors import StatusError
from kbatch.api.model_copy import alternatives, copy_value, generated
from kbatch.api.quantity import Quantity
from kbatch.apiserver.jsonpatch import apply_merge_patch
from kbatch.apiserver.strategic import DELETE, MERGE_PRIMITIVES, merge_key, merge_map

__all__ = ["Fallback", "merge_typed", "plain_fields", "view"]

M = TypeVar("M", bound=KubeModel)

_LINKED = ("$deleteFromPrimitiveList", "$setElementOrder")  # directives tied to one field of the level
_PLAIN = (str, int, bool, type(None))
_IMMUTABLE = (*_PLAIN, float, datetime, Quantity)
_SCALARS = (str, int, float, bool)


class Fallback(Exception):
    """Not a patch this path shortcuts: take the general path."""


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    alias: str  # the wire name
    model: type[KubeModel] | None  # the field's model class when its type is exactly one model
    plain: bool  # its values are their own JSON: str/int/bool, lists and string maps of them
    mutable: bool  # its values may be mutable (models, lists, maps): copied, not shared


def _is_plain(annotation: Any) -> bool:
    for alt in alternatives(annotation):
        origin, args = get_origin(alt), get_args(alt)
        if alt in _PLAIN or origin is Literal:
            continue
        if origin is list and len(args) == 1 and args[0] in _PLAIN:
            continue
        if origin is dict and args == (str, str):
            continue
        return False
    return True


@functools.cache
def _fields(model: type[KubeModel]) -> dict[str, _Field]:
    """Wire name (alias) → field, for one model class."""
    out = {}
    for name, info in model.model_fields.items():
        alts = [a for a in alternatives(info.annotation) if a is not type(None)]
        only = alts[0] if len(alts) == 1 else None
        sub = only if isinstance(only, type) and issubclass(only, KubeModel) else None
        alias = info.alias or name
        mutable = not all(a in _IMMUTABLE or get_origin(a) is Literal for a in alternatives(info.annotation))
        out[alias] = _Field(name, alias, sub, _is_plain(info.annotation), mutable)
    return out


@functools.cache
def _wire_names(model: type[KubeModel]) -> dict[str, tuple[str, bool]]:
    """Field name → (wire name, whether its values may be mutable)."""
    return {f.name: (f.alias, f.mutable) for f in _fields(model).values()}


def plain_fields(model: type[KubeModel], patch: dict[str, Any]) -> bool:
    """Whether every key of ``patch`` names a field of ``model`` whose values are their own JSON."""
    fields = _fields(model)
    for key in patch:
        field = fields.get(key)
        if field is None or not field.plain:
            return False
    return True


# --- the view: the stored JSON of a held object -----------------------------------------------------


def view(value: Any) -> Any:
    """The JSON a held (validated, decoded) value was decoded from, as the merge reads it: models as
    dicts of their set fields by wire name (a field is set exactly when its key is present), lists
    and maps as new containers; times and quantities stay typed (they validate to themselves, and no
    merge compares or descends into them); ``metadata.resourceVersion`` is the held one, as the
    general path's base has it. Shares nothing mutable with ``value``."""
    t = type(value)
    if t in _IMMUTABLE:
        return value
    if t is list:
        return [v if type(v) in _IMMUTABLE else view(v) for v in value]
    if t is dict:
        return {k: v if type(v) in _IMMUTABLE else view(v) for k, v in value.items()}
    if isinstance(value, KubeModel):
        names, values = _wire_names(t), value.__dict__  # type: ignore[arg-type]  # (type[Any] is Hashable)
        out = {}
        for name in _fields_set_of(value):
            v = values[name]
            out[names[name][0]] = v if type(v) in _IMMUTABLE else view(v)
        return out
    return copy.deepcopy(value)


# --- merging ----------------------------------------------------------------------------------------


def _merge(base: Any, patch: dict[str, Any], strategic: bool, parent: str) -> Any:
    try:
        return merge_map(base, patch, parent) if strategic else apply_merge_patch(base, patch)
    except StatusError:
        raise Fallback from None  # the general path raises it, in its own order


def _validate(model: type[M], data: dict[str, Any]) -> M:
    try:
        return wire_validate(model, data)
    except ValidationError:
        raise Fallback from None


def merge_typed(model: type[M], old: M | None, patch: dict[str, Any], *, strategic: bool,
                parent: str) -> M:
    """``old`` (a held, read-only object; ``None``: absent) with ``patch`` merged in, as a new object
    sharing nothing with ``old``. ``parent``: the wire name of the field holding this level (the
    strategic merge-key table is keyed by it; ``""``: the object itself)."""
    if old is None:
        return _validate(model, _merge({}, patch, strategic, parent))
    if strategic and ("$patch" in patch or "$retainKeys" in patch):
        merged = _merge(view(old), patch, strategic, parent)
        if merged is DELETE:
            raise Fallback  # removes the field: its default is the decode's business
        return _validate(model, merged)
    fields = _fields(model)
    linked = _linked(fields, patch, strategic)
    typed: list[tuple[_Field, KubeModel]] = []
    touched: list[_Field] = []
    for key, value in patch.items():
        field = fields.get(key)
        if field is None:
            if key[:1] != "$":
                raise Fallback  # unknown field (or a python name): Strict/Warn/Ignore: the decode's business
        elif field.model is not None and type(value) is dict and key not in linked:
            held = old.__dict__[field.name] if field.name in _fields_set_of(old) else None
            typed.append((field, merge_typed(field.model, held, value, strategic=strategic, parent=key)))
        elif key not in linked:
            touched.append(field)
    touched += [fields[k] for k in linked]
    if not touched:  # nothing to validate at this level: a copy with the merged models in
        return _with_values(model, old, typed, ())
    rest = patch if not typed else {k: v for k, v in patch.items() if k not in {f.alias for f, _ in typed}}
    merged = _merge(_base(old, touched, patch, linked, strategic, parent), rest, strategic, parent)
    if all(f.plain and f.alias in merged for f in touched):  # (a removed field: its default is the decode's)
        return _with_values(model, old, typed, [(f, merged[f.alias]) for f in touched])
    data = _data(model, old, {f.alias for f in touched})
    data.update((f.alias, value) for f, value in typed)
    data.update((f.alias, merged[f.alias]) for f in touched if f.alias in merged)
    return _validate(model, data)


def _linked(fields: dict[str, _Field], patch: dict[str, Any], strategic: bool) -> dict[str, None]:
    """The fields named by the patch's ``$deleteFromPrimitiveList/<f>`` / ``$setElementOrder/<f>``."""
    linked: dict[str, None] = {}
    for key in patch:
        if key[:1] == "$":
            prefix, _, target = key.partition("/")
            if not strategic or prefix not in _LINKED or target not in fields:
                raise Fallback  # a merge patch's "$x" or an unknown directive is a field: the decode's error
            linked[target] = None
    return linked


def _base(old: KubeModel, touched: list[_Field], patch: dict[str, Any], linked: dict[str, None],
          strategic: bool, parent: str) -> dict[str, Any]:
    """The view of ``old``'s fields ``touched`` that the merge reads (a value it replaces is left out:
    the merge gives the same without it)."""
    fields_set, values = _fields_set_of(old), old.__dict__
    base = {}
    for field in touched:
        if field.name in fields_set and (field.alias in linked
                                         or _reads_old(field, patch[field.alias], parent, strategic)):
            value = values[field.name]
            base[field.alias] = value if field.plain else view(value)  # (the merge mutates neither)
    return base


def _reads_old(field: _Field, value: Any, parent: str, strategic: bool) -> bool:
    """Whether merging the patch value ``value`` into the field reads its old value: not for a scalar
    or ``null`` (set or removed), nor a list but a merged one (strategic: a primitive list merged as a
    set, a list of objects with a merge key; RFC 7386 replaces every list)."""
    if value is None or type(value) in _SCALARS:
        return False
    if type(value) is not list:
        return True
    if not strategic:
        return False
    if field.alias in MERGE_PRIMITIVES:
        return True
    return merge_key(parent, field.alias) is not None and all(isinstance(item, dict) for item in value)


# --- building the merged level ------------------------------------------------------------------------


def _with_values(model: type[M], old: M, models: Any, raw: list[tuple[_Field, Any]] | tuple[()]) -> M:
    """A copy of ``old`` with the (field, merged model) pairs of ``models`` and the (field, merged JSON)
    pairs of ``raw`` in, those fields set: what validating the level's JSON gives. Only the ``raw``
    values are validated (each against its field's schema, as validating the level does), then
    ``model_post_init`` runs."""
    if not _constructible(model):
        raise Fallback
    values = _values(model, old, {f.name for f, _ in models} | {f.name for f, _ in raw})
    fields_set = set(_fields_set_of(old))
    for field, value in models:
        values[field.name] = value
        fields_set.add(field.name)
    new = _instance(model, values, fields_set)
    try:
        for field, value in raw:
            model.__pydantic_validator__.validate_assignment(new, field.name, value)
    except ValidationError:
        raise Fallback from None
    if _post_init(model):
        new.model_post_init(None)
    return new


_NEW = object.__new__
_SET_DICT = BaseModel.__dict__["__dict__"].__set__
_SET_EXTRA = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE = BaseModel.__dict__["__pydantic_private__"].__set__


@functools.cache
def _constructible(model: type[KubeModel]) -> bool:
    return generated(model)  # plain fields only: what _instance builds is what validation does


@functools.cache
def _post_init(model: type[KubeModel]) -> bool:
    """Whether validating ``model`` runs a ``model_post_init`` of its own."""
    return model.model_post_init is not BaseModel.model_post_init


def _instance(model: type[M], values: dict[str, Any], fields_set: set[str]) -> M:
    """An instance holding ``values`` (every field, in declaration order) with ``fields_set`` set, as
    validation leaves it (no extras, no private attributes: kbatch models have neither)."""
    new = _NEW(model)
    _SET_DICT(new, values)
    _set_fields_set(new, fields_set)
    _SET_EXTRA(new, None)
    _SET_PRIVATE(new, None)
    return new  # type: ignore[no-any-return]


@functools.cache
def _mutable(model: type[KubeModel]) -> tuple[str, ...]:
    return tuple(f.name for f in _fields(model).values() if f.mutable)


def _values(model: type[KubeModel], old: KubeModel, skip: set[str]) -> dict[str, Any]:
    """``old``'s field values, copies where mutable, but those named in ``skip`` (the caller replaces
    them, they are shared as they are until then)."""
    values = old.__dict__.copy()
    for name in _mutable(model):
        value = values[name]
        if value is not None and name not in skip:
            values[name] = copy_value(value)
    return values


def _data(model: type[KubeModel], old: KubeModel, skip: set[str]) -> dict[str, Any]:
    """``old`` as the dict validating it would take (wire name → value; copies where mutable) of its
    set fields (the keys its stored JSON has), without the wire names in ``skip``."""
    names, values = _wire_names(model), old.__dict__
    data = {}
    for name in _fields_set_of(old):
        alias, mutable = names[name]
        if alias not in skip:
            value = values[name]
            data[alias] = copy_value(value) if mutable and value is not None else value
    return data
