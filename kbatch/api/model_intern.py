"""Structural sharing of equal nested models between long-lived read-only objects (hash-consing).

An informer holds every object of its kind, and the objects of one kind repeat themselves: every
Pod of a Job has the same container, tolerations and owner reference, and Pods that started in the
same second have the same conditions and container statuses (measured on the Job benchmark: one
distinct ``status`` for 400 running Pods). :func:`share_structure` makes such objects *share* one
instance of each equal nested model, as :func:`kbatch.api.model_copy.share_fields_sets` (which it
includes) shares their fields sets: fewer bytes and fewer objects for the cyclic GC per held object.

How: one generated function per model class walks an object bottom-up. Each nested model first
shares its fields set and interns its own nested values, then is looked up in a table under a key
made of its fields set and its field values (nested models by identity: they are canonical
instances already, kept alive by the canonical parent holding them, so an ``id`` in a key cannot be
reused while the key is in the table). A hit replaces the nested model by the canonical instance.

A model that holds models (``PodStatus``, ``Container``, a Job's ``PodTemplateSpec``) is first looked
up by its *structural* key: the same key with each nested model by its own structural key instead of
its identity. A hit takes the whole subtree's canonical instance without interning its parts (a
status write repeats the conditions and container statuses of other Pods: replayed Job-benchmark
pod stream, interning ~25% less CPU); on a miss the parts are interned and the model is entered under
both keys. Both keys hold the same information, so both are exact.

Exactness: a key holds everything that is observable: the fields set, each scalar exactly (``bool``
and ``int`` never meet in one key position: a field whose annotation allows several scalar types
keys on the value's type too; values have their field's annotated type, as in any decoded or
validated object), times with their time zone, quantities by their text (``Quantity`` equality
ignores the format), containers by content and order. Classes whose field shapes are not understood
are walked but never replaced, except for an opaque ``dict[str, Any]`` field (the volume sources kbatch
does not model, ``Volume.cephfs``): it is keyed while unset, and only an object that sets one is walked
but not replaced (without this every ``Volume`` was unkeyed, and a pod holding one, such as the
ServiceAccount plugin's ``kube-api-access`` volume, turned ``PodSpec``'s structural lookups off).
Top-level objects (``api_info``) are never replaced.
:func:`mutated_shared_instances` finds shared instances changed since (a broken read-only contract).

Only for objects that are read only by contract (the informer's cache, the API server's decoded
cache): an interned model may be held by many objects. Everything handed out for mutation is a deep
copy (:func:`kbatch.api.model_copy.copy_model` copies nested models; a decode is fresh).

Cost control: a class whose lookups mostly miss (``ObjectMeta``: one ``uid`` per object) stops being
looked up when fewer than :data:`_MIN_HITS` lookups found another instance while :data:`_PROBE` missed; the
table is emptied when it reaches :data:`_MAX_ENTRIES` (entries are only a cache: an object keeps the
instances it holds; a structural key holds one tuple per nested model, bounded the same way). Such a
class is not looked up structurally either; nor is a class with a part whose shape is not understood
(found on its first structural lookup).

Objects of one holder: a class may name, in ``intern_identified_by``, fields that once set make an
object belong to one holder (``PodStatus.pod_ip``: no two live pods share an address). Such an
object is never looked up nor entered (its keys would only fill the table: a miss every time, two
keys each); its nested models are interned, and its lists of canonical models and its strings are
shared with other such objects through two small bounded tables (the pods of a node show one
``hostIPs`` list, the pods started at one instant one ``conditions`` list); and the last such object
of each identity (its ``intern_identified_by`` values) is kept per class: an object exactly equal
to it (equal values, then the same structural key: nested classes that are no longer looked up
leave fresh parts, so identities cannot decide) is replaced by it, as an update that carries the
status over hands back a copy of it.
Without this, a Job benchmark pod's status costs ~1 KB more than the shared status of the pods
started with it.

Measured and not kept (replayed Job-benchmark pod stream, 15k informer events, CPU time): reusing
the previous cached version's parts, comparing an update's nested models with the ones at the same
place in the old object instead of keying them, was ~8% slower (a comparison visits every nested
model and field as keying does, and a fresh decode shares no instance with the old version to stop
at); sharing equal *lists* of canonical models between objects (a Job's Pods' ``containers``,
``tolerations``, ``ownerReferences``) saved 3 GC-tracked objects per Pod but cost ~15% more time.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from datetime import datetime
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from kbatch.api.model_copy import (
    SHARE_LINES,
    PerClass,
    alternatives,
    each_nested_model,
    generated,
    share_namespace,
)
from kbatch.api.quantity import Quantity

__all__ = ["mutated_shared_instances", "reset_interning", "share_structure"]

_PROBE = 512  # a class's hit rate is judged after each _PROBE misses
_MIN_HITS = _PROBE // 8  # fewer hits (of another instance) meanwhile: stop looking the class up
_MAX_ENTRIES = 1 << 15  # bounds what the table alone keeps alive

_TABLE: dict[tuple[Any, ...], BaseModel] = {}
_MAX_PARTS = 1 << 12  # bounds each of the two tables below
# lists of canonical models held by objects of one holder, by their items' identities (kept alive by
# the list itself, so an id in a key cannot be reused while the key is in here)
_LISTS: dict[tuple[int, ...], list[Any]] = {}
_STRS: dict[str, str] = {}  # the strings of such objects, one instance of each
# per such class, the last object seen of each identity (one per pod address: bounded by the addresses
# in use, not the pods seen): an equal one (a copy an update carried over, a decode of the same
# version) is replaced by it
_HOLDERS: list[dict[Any, BaseModel]] = []
_MAX_HOLDERS = 1 << 16
# id -> each instance entered in _TABLE (emptied with it, so an id is never reused while in here): an
# object that already holds a canonical instance (a status write shares the stored object's spec,
# apiserver/update.py) is recognised at once instead of by keying its whole subtree again.
_CANON: dict[int, BaseModel] = {}
_STATS: list[list[Any]] = []  # each interned class's [misses, hits, still looked up] (see Cost control)
_KEYS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}  # class -> its key function
_SCALARS = (str, int, float, bool)


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _scalar_types(annotation: Any) -> set[type] | None:
    """The Python types a scalar annotation admits (``None`` excluded), or ``None`` if not scalar."""
    out: set[type] = set()
    for alt in alternatives(annotation):
        if alt is type(None):
            continue
        if get_origin(alt) is typing.Literal:
            out.update(type(v) for v in get_args(alt))
        elif alt in _SCALARS or alt in (datetime, Quantity):
            out.add(alt)
        else:
            return None
    return out


def _scalar_key(expr: str, types: set[type]) -> str:
    """Key expression of one scalar value ``expr`` of the given admitted types (inline: no call
    unless the value is a quantity or a float)."""
    if types == {datetime}:
        return f"(None if (v := {expr}) is None else (v, v.tzinfo))"
    if types == {Quantity}:
        return f"(None if (v := {expr}) is None else str(v))"
    if len(types) == 1 and types <= {str, int, bool}:
        return expr
    if float in types or Quantity in types or datetime in types:
        return f"TYPED({expr})"
    return f"(type(v := {expr}), v)"


def _field_code(name: str, annotation: Any) -> tuple[list[str], str | None]:
    """Lines interning the models held by ``d[name]``, and the field's key expression (``None``: a
    shape not understood; the class is then walked but not interned)."""
    get = f"d[{name!r}]"
    scalar = _scalar_types(annotation)
    if scalar is not None:
        return [], _scalar_key(get, scalar)
    alts = [a for a in alternatives(annotation) if a is not type(None)]
    walk = [f"    v = {get}", "    if v is not None: ANY(v)"]
    if len(alts) != 1:
        return walk, None
    alt = alts[0]
    origin, args = get_origin(alt), get_args(alt)
    if _is_model(alt):
        return [f"    v = {get}", "    if v is not None:", "        c = I[type(v)](v)",
                f"        if c is not v: d[{name!r}] = c"], f"id({get})"
    if origin not in (list, dict) or not args:
        return walk, None
    item = args[-1]
    if _is_model(item):
        items = "enumerate(v)" if origin is list else "v.items()"
        return [f"    v = {get}", f"    if type(v) is {origin.__name__}:", f"        for i, x in {items}:",
                "            c = I[type(x)](x)", "            if c is not x: v[i] = c",
                "    elif v is not None: ANY(v)"], _ids_key(get, origin is list)
    item_scalar = _scalar_types(item)
    if item_scalar is None and origin is dict and item is Any:
        return walk, f"(None if (v := {get}) is None else OPAQUE(v))"
    if item_scalar is None:
        return walk, None
    plain = len(item_scalar) == 1 and item_scalar <= {str, int, bool}
    if origin is list:
        return [], f"(None if (v := {get}) is None else tuple(v))" if plain else None
    if item_scalar == {Quantity}:
        return [], f"(None if (v := {get}) is None else tuple([(k, str(q)) for k, q in v.items()]))"
    return [], f"(None if (v := {get}) is None else tuple(v.items()))" if plain else None


def _ids_key(get: str, is_list: bool) -> str:
    """Key expression of a list or dict of (already canonical) models: their identities, in order."""
    if is_list:
        return f"(None if (v := {get}) is None else tuple(map(id, v)))"
    return f"(None if (v := {get}) is None else tuple([(k, id(x)) for k, x in v.items()]))"


def _typed_key(v: Any) -> tuple[type, Any]:
    t = type(v)
    return (t, repr(v)) if t is float else (t, v)  # -0.0 == 0.0 but prints differently


def _structural_part(name: str, part: str) -> tuple[str, bool]:
    """The structural key expression of a field whose (identity) key expression is ``part``: nested
    models by their own structural keys instead of their identities; and whether it is nested."""
    get = f"d[{name!r}]"
    if part == f"id({get})":
        return f"(None if (v := {get}) is None else SK[type(v)](v))", True
    if part == _ids_key(get, True):
        return f"(None if (v := {get}) is None else tuple([SK[type(x)](x) for x in v]))", True
    if part == _ids_key(get, False):
        return f"(None if (v := {get}) is None else tuple([(k, SK[type(x)](x)) for k, x in v.items()]))", True
    return part, False


def _generate(cls: type) -> Callable[[Any], Any]:
    if not generated(cls):
        _SK_FNS[cls] = _no_structural_key
        return lambda obj: obj  # left as pydantic made it
    parts: list[str | None] = []
    body: list[str] = []
    for name, field in cls.model_fields.items():
        code, part = _field_code(name, field.annotation)
        body += code
        parts.append(part)
    if hasattr(cls, "api_info") or None in parts:
        lines = ["def intern(obj):", *SHARE_LINES, "    d = obj.__dict__", *body, "    return obj"]
        _SK_FNS[cls] = _no_structural_key
    else:
        key = ", ".join(typing.cast(list[str], parts))
        structural = [_structural_part(name, typing.cast(str, part))
                      for name, part in zip(cls.model_fields, parts, strict=True)]
        nested = any(n for _, n in structural)
        lines = ["def intern(obj):", "    if CANON.get(id(obj)) is obj: return obj", "    sk = None",
                 *_unique_check(cls)]
        if nested:  # a whole subtree found by one lookup, without interning (or visiting) it
            lines += ["    if ST[2] and SUB[0]:",
                      "        try:",
                      "            sk = skey(obj)",
                      "        except NoValueKey:",
                      "            sk = None",
                      "        except NoKey:",
                      "            SUB[0] = False",
                      "        else:",
                      "            hit = TABLE.get(sk)",
                      "            if hit is not None:",
                      "                if hit is not obj: ST[1] += 1",
                      "                return hit"]
        lines += [*SHARE_LINES, "    d = obj.__dict__", *body,
                  "    fs = GET(obj)",
                  "    if not ST[2] or type(fs) is not SHARED: return obj",
                  "    try:",
                  f"        k = (CLS, fs, {key})",
                  "    except NoValueKey:",
                  "        return obj",
                  "    hit = TABLE.get(k)",
                  "    if hit is not None:",
                  "        if hit is not obj: ST[1] += 1",
                  "        if sk is not None: TABLE[sk] = hit",
                  "        return hit",
                  "    ST[0] += 1",
                  "    if ST[0] >= PROBE:",
                  "        if ST[1] < MIN_HITS: ST[2] = False",
                  "        ST[0] = ST[1] = 0",
                  "    if len(TABLE) >= MAX - 1:",
                  "        TABLE.clear()",
                  "        CANON.clear()",
                  "    TABLE[k] = obj",
                  "    CANON[id(obj)] = obj",
                  "    if sk is not None: TABLE[sk] = obj",
                  "    return obj",
                  "def key(obj):",  # the same key, for checks (tests: canonical instances never change)
                  "    d = obj.__dict__",
                  f"    return (CLS, GET(obj), {key})",
                  "def skey(obj):",
                  "    fs = GET(obj)",
                  "    if type(fs) is not SHARED: fs = LAST[0] if fs == LAST[0] else SHARED(fs)",
                  "    d = obj.__dict__",
                  f"    return (CLS, STRUCTURAL, fs, {', '.join(p for p, _ in structural)})",
                  *_unique_code(cls, body)]
    stats: list[Any] = [0, 0, True]
    _STATS.append(stats)
    namespace: dict[str, Any] = {
        **share_namespace(), "I": _INTERNERS, "ANY": _intern_any, "CLS": cls, "TABLE": _TABLE,
        "ST": stats, "PROBE": _PROBE, "MIN_HITS": _MIN_HITS, "MAX": _MAX_ENTRIES, "TYPED": _typed_key,
        "SK": _SKEYS, "SUB": [True], "NoKey": _NoKey, "NoValueKey": _NoValueKey,
        "OPAQUE": _opaque_key, "STRUCTURAL": _STRUCTURAL, "CANON": _CANON, "LISTS": _LISTS,
        "STRS": _STRS, "LATEST": {}, "MAX_PARTS": _MAX_PARTS, "MAX_HOLDERS": _MAX_HOLDERS}
    _HOLDERS.append(namespace["LATEST"])
    exec(compile("\n".join(lines), f"<intern {cls.__name__}>", "exec"), namespace)  # named in profiles
    if "key" in namespace:
        _KEYS[cls] = namespace["key"]
        _SK_FNS[cls] = namespace["skey"]
    return namespace["intern"]  # type: ignore[no-any-return]


class _NoKey(Exception):
    """A class whose values have no key (shapes not understood) is nested in the subtree."""


def _no_structural_key(obj: Any) -> Any:
    raise _NoKey(type(obj).__name__)


class _NoValueKey(_NoKey):
    """One object holds a value that has no key (an opaque ``dict[str, Any]`` that is set): that object
    is walked but not interned; the class, and its other objects, still are."""


def _opaque_key(value: Any) -> Any:
    raise _NoValueKey(type(value).__name__)


_STRUCTURAL = object()  # marks a structural key in the table (vs a key of nested identities)


def _unique_check(cls: type) -> list[str]:
    """The line sending an object one of whose ``intern_identified_by`` fields is set to
    :func:`_unique_code`'s function (see "Objects of one holder" in the module docstring)."""
    names = getattr(cls, "intern_identified_by", ())
    if not names:
        return []
    test = " or ".join(f"d[{n!r}] is not None" for n in names)
    return ["    d = obj.__dict__", f"    if {test}: return unique(obj)"]


def _unique_code(cls: type, body: list[str]) -> list[str]:
    """``unique(obj)``: intern the nested models of an object that is never looked up itself, then
    share its lists of canonical models and its strings with other such objects."""
    if not getattr(cls, "intern_identified_by", ()):
        return []
    lines = ["def unique(obj):", *SHARE_LINES, "    d = obj.__dict__", *body]
    for name, field in typing.cast(type[BaseModel], cls).model_fields.items():
        alts = [a for a in alternatives(field.annotation) if a is not type(None)]
        origin, args = (get_origin(alts[0]), get_args(alts[0])) if len(alts) == 1 else (None, ())
        if origin is list and args and _is_model(args[0]):
            lines += [f"    v = d[{name!r}]",
                      "    if type(v) is list and v:",
                      "        k = tuple(map(id, v))",
                      "        hit = LISTS.get(k)",
                      f"        if hit is not None: d[{name!r}] = hit",
                      "        elif all(CANON.get(id(x)) is x for x in v):",
                      "            if len(LISTS) >= MAX_PARTS: LISTS.clear()",
                      "            LISTS[k] = v"]
        elif alts == [str]:
            lines += [f"    v = d[{name!r}]",
                      "    if v is not None:",
                      "        if len(STRS) >= MAX_PARTS: STRS.clear()",
                      f"        d[{name!r}] = STRS.setdefault(v, v)"]
    names = cls.intern_identified_by  # type: ignore[attr-defined]
    ident = f"d[{names[0]!r}]" if len(names) == 1 else f"({', '.join(f'd[{n!r}]' for n in names)})"
    lines += [f"    k = {ident}",
              "    hit = LATEST.get(k)",
              "    if hit is not None and hit is not obj and hit.__dict__ == d:",  # equal: then exactly?
              "        try:",
              "            if skey(hit) == skey(obj): return hit",  # fields sets, typed scalars, zones
              "        except NoKey:",
              "            return obj",
              "    if len(LATEST) >= MAX_HOLDERS: LATEST.clear()",
              "    LATEST[k] = obj",
              "    return obj"]
    return lines
_INTERNERS = PerClass(_generate)
_SK_FNS: dict[type, Callable[[Any], Any]] = {}


def _skey_of(cls: type) -> Callable[[Any], Any]:
    _INTERNERS[cls]  # generates both
    return _SK_FNS.pop(cls)


_SKEYS = PerClass(_skey_of)


def _intern_any(value: Any) -> None:
    """Intern inside a value of a shape the generated code does not know (it is not replaced)."""
    each_nested_model(value, _INTERNERS)


def share_structure(obj: BaseModel) -> None:
    """Share ``obj``'s fields sets and replace each nested model equal to one seen before by that
    instance (see the module docstring). ``obj`` must be read only from now on, as must the objects
    it now shares models with. Nothing observable changes: values, equality, ``model_fields_set``
    and serialization stay; only identities of nested models do."""
    _INTERNERS[type(obj)](obj)


def mutated_shared_instances() -> list[BaseModel]:
    """The shared instances whose values no longer match the key they were entered under: someone
    mutated an object that is read only by contract (every holder would see it). Empty when sound."""
    return [obj for k, obj in list(_TABLE.items())
            if (_SKEYS[type(obj)] if k[1] is _STRUCTURAL else _KEYS[type(obj)])(obj) != k]


def reset_interning() -> None:
    """Forget every canonical instance and every class's hit statistics: interning starts afresh (the
    test suite resets it between tests, so no test sees another's instances or statistics)."""
    _TABLE.clear()
    _CANON.clear()
    _LISTS.clear()
    _STRS.clear()
    for latest in _HOLDERS:
        latest.clear()
    for stats in _STATS:
        stats[:] = [0, 0, True]
