"""The pickler of control-plane images: the state of the bulk of objects as columns, written last.

Much of the runtime's state is one or more objects per pod: the API models the informers share, the
scheduler's ``PodInfo``, the kubelet's ``PodRun`` and ``Proc``, store ``KeyValue``s in watch backlogs.
CPython's pickler keeps every object it writes in its memo until the save ends (a table of 16-byte
slots, sized to the next power of two of twice its entries, each entry keeping its object alive), and
the reduce protocol gives every object an argument tuple that the memo then holds too: at 100,000
pods that was ~7 M entries, a 256 MiB table copied from a 128 MiB one and ~150 MiB of argument tuples
kept only by the memo (docs/performance.md, "Session 42: CLI peak").

:class:`ImagePickler` therefore writes an object whose state nothing reads while an image loads as
``(new, (cls,))`` (one shared argument tuple per class) and queues it; :meth:`ImagePickler.dump`
writes the root, then the queued objects' states class by class in chunks of up to :data:`CHUNK`
objects, column after column, as one stream of items appended to a :class:`Filler` (no container of
them, so nothing the memo keeps), which fills the objects in through the slot descriptors as each
chunk completes. The objects are the pickle's own, so an object reachable from two places, or from
itself, loads as one object (a memo reference in the chunk's objects). Deferred are:

* KubeModels pickled through ``KubeModel.__reduce__`` (their ``__dict__`` and fields set as
  columns; a model with extra or private attributes keeps its reduce);
* slotted objects that cannot be dict keys or set members by value: no ``__hash__`` (a non-frozen
  dataclass) or ``object``'s (the identity), as a load builds a dict or set by hashing its members
  before their state is filled in;

and not a frozen dataclass (hashed by its fields), which keeps a reduce to its class and field values
(without ``fields()`` per object as the generated ``__getstate__`` does). A class with its own
pickling, ``__new__``, ``__setstate__`` or ``__setattr__`` keeps pickle's path, and so must any
``__setstate__`` that reads a deferred object's state: none does (tests/runtime/test_image.py
round-trips a control plane running every controller). Datetimes of one instant share one argument
tuple on save and load as one object.

The bytes do not depend on the hash seed: pickle writes a set's members (and a dict's keys) in their
order in memory, which for strings and bytes follows ``PYTHONHASHSEED``, and the C pickler offers no
hook for a plain ``set``; so what the image holds is ordered without it: a model's own fields set is
written as a sorted list (shared ones reduce to their sorted names), and the runtime stores sorted
tuples or dicts where a set would reach the image (tests/runtime/test_image_columns.py).
"""

from __future__ import annotations

import copyreg
import dataclasses
import pickle
from collections.abc import Callable, Iterator
from datetime import datetime
from operator import attrgetter
from typing import Any, Protocol

from pydantic import BaseModel

__all__ = ["CHUNK", "MISSING", "Filler", "ImagePickler", "first", "instant", "loaded", "marker", "new",
           "restore", "restore_slots"]

CHUNK = 8192  # objects per chunk: its columns are temporaries of the save and buffered by the load

_Plan = Callable[["ImagePickler", Any], Any]


class _Writable(Protocol):
    def write(self, data: bytes, /) -> Any: ...
_PLANS: dict[type, _Plan | None] = {}  # a cache of a pure function of the class
_SETTERS: dict[type, tuple[Callable[[Any, Any], None], ...]] = {}
_MODEL_REDUCE: tuple[Any, Any] | None = None  # KubeModel's __reduce__ and __reduce_ex__, on first use


class ImagePickler(pickle.Pickler):
    def __init__(self, file: _Writable, protocol: int | None = None) -> None:
        super().__init__(file, protocol)
        self.deferred: list[Any] = []  # objects written as (new, (cls,)), their state still to write
        self.taken = 0  # deferred[:taken] are in the stream of states
        self.marks = self.written_marks = 0  # marks handed out, and written
        self.instants: dict[tuple[datetime, Any, int], tuple[Any, ...]] = {}

    def dump(self, obj: Any) -> None:
        """Write ``obj``, then every deferred object's state (module docstring); a load returns ``obj``."""
        super().dump(_Root(obj, self))

    def reducer_override(self, obj: Any) -> Any:
        cls = obj.__class__
        try:
            plan = _PLANS[cls]
        except KeyError:
            plan = _PLANS[cls] = _plan_for(cls)
        return NotImplemented if plan is None else plan(self, obj)

    def states(self) -> Iterator[Any]:
        """The deferred objects' states as one stream of items, chunk after chunk: the class, the
        count, the objects, then each column's values (pickle writes each item on its own, so no
        container of them is memoized and kept until the save ends). Writing an item may defer more
        objects, and pickle asks for an item before it has written the one before it (the C pickler
        one item ahead at each batch of 1,000, the Python one a whole batch ahead): when nothing is
        queued, a :class:`_Mark` goes out, and the stream ends only once every mark is written and
        still nothing is queued."""
        while True:
            if self.taken < len(self.deferred):
                batch = self.deferred[self.taken:self.taken + CHUNK]
                self.taken += len(batch)
                by_class: dict[type, list[Any]] = {}
                for obj in batch:
                    by_class.setdefault(obj.__class__, []).append(obj)
                for cls, objs in by_class.items():  # first appearance order: deterministic
                    yield cls
                    yield len(objs)
                    yield from objs
                    for column in _columns(cls, objs):
                        yield from column
                continue
            if self.marks == self.written_marks and self.marks:
                return
            self.marks += 1
            yield _Mark(self)


class _Missing:
    """An unset slot (pickled by reference: one object in every image)."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "MISSING"


MISSING = _Missing()


# --- plans: how an object of a class is written -----------------------------------------------------
def _plan_for(cls: type) -> _Plan | None:
    """How ``cls``'s instances are written; ``None``: pickle's own way."""
    if not isinstance(cls, type):
        return None
    if cls is datetime:
        return _instant_plan
    if issubclass(cls, BaseModel):
        return _model_plan(cls)
    if "__reduce__" in vars(cls) or "__reduce_ex__" in vars(cls):
        return None  # the class says how it pickles (kueue's ResourceGroup: a frozenset written sorted)
    getstate = getattr(cls, "__getstate__", None)
    if dataclasses.is_dataclass(cls) and getattr(getstate, "__name__", "") == "_dataclass_getstate":
        return _dataclass_plan(cls)  # frozen (Python adds that __getstate__ to frozen slotted ones only)
    if _plainly_slotted(cls) and cls.__hash__ in (None, object.__hash__):
        return _deferring(cls)
    return _slots_plan(cls) if _plainly_slotted(cls) else None


def _deferring(cls: type) -> _Plan:
    head = (new, (cls,))

    def plan(pickler: ImagePickler, obj: Any) -> Any:
        pickler.deferred.append(obj)
        return head

    return plan


def _model_plan(cls: type) -> _Plan | None:
    global _MODEL_REDUCE
    if _MODEL_REDUCE is None:
        from kbatch.api.base import KubeModel

        _MODEL_REDUCE = (KubeModel.__reduce__, KubeModel.__reduce_ex__)
    if (cls.__reduce__, cls.__reduce_ex__) != _MODEL_REDUCE:
        return None  # a model with pickling of its own, or not a KubeModel
    defer = _deferring(cls)

    def plan(pickler: ImagePickler, obj: Any) -> Any:
        if obj.__pydantic_extra__ is not None or obj.__pydantic_private__ is not None:
            return NotImplemented
        return defer(pickler, obj)

    return plan


def _instant_plan(pickler: ImagePickler, obj: datetime) -> Any:
    key = (obj, obj.tzinfo, obj.fold)  # equal instants in other zones are other values
    args = pickler.instants.get(key)
    if args is None:
        args = pickler.instants[key] = obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)[1]  # type: ignore[assignment]
    return instant, args


def _plainly_slotted(cls: type) -> bool:
    """Instances hold only slots (no ``__dict__``) and nothing in the class changes how ``object``
    pickles them."""
    bases = cls.__mro__[:-1]  # a class without __slots__ anywhere in the chain gives instances a __dict__
    if not all("__slots__" in vars(c) for c in bases) or any("__dict__" in _declared(c) for c in bases):
        return False
    return (cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
            and cls.__getstate__ is object.__getstate__ and cls.__setattr__ is object.__setattr__
            and cls.__new__ is object.__new__
            and getattr(cls, "__setstate__", None) is None and copyreg.dispatch_table.get(cls) is None)


def _declared(c: type) -> tuple[str, ...]:
    slots = vars(c).get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _slots_plan(cls: type) -> _Plan:
    names = _slot_names(cls)
    values = _values_of(names)
    head = (cls,)

    def plan(pickler: ImagePickler, obj: Any) -> Any:
        try:
            return restore_slots, head + values(obj)
        except AttributeError:  # a slot left unset
            return restore_slots, (cls, *[getattr(obj, n, MISSING) for n in names])

    return plan


def _dataclass_plan(cls: type) -> _Plan:
    values = _values_of(_field_names(cls))
    head = (cls,)

    def plan(pickler: ImagePickler, obj: Any) -> Any:
        return restore, head + values(obj)

    return plan


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The attributes ``names`` of an object as a tuple, read in C (``attrgetter``): the plans run
    once per object of a multi-million-object image."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


# --- columns: the state of deferred objects ---------------------------------------------------------
_MODEL_STATE = attrgetter("__dict__", "__pydantic_fields_set__")


def _columns(cls: type, objs: list[Any]) -> Iterator[tuple[Any, ...]]:
    """One tuple per field of ``objs`` (instances of ``cls``): a model's ``__dict__`` and fields set,
    a slotted object's slots in ``copyreg._slotnames`` order (:data:`MISSING` for an unset one)."""
    if issubclass(cls, BaseModel):
        dicts, fields_sets = zip(*map(_MODEL_STATE, objs), strict=True)
        return iter((dicts, tuple(map(_ordered, fields_sets))))
    names = _slot_names(cls)
    if not names:
        return iter(())
    values = _values_of(names)
    try:
        rows = list(map(values, objs))
    except AttributeError:
        rows = [tuple(getattr(obj, n, MISSING) for n in names) for obj in objs]
    return zip(*rows, strict=True)


def _ordered(fields_set: Any) -> Any:
    """A model's own fields set as a sorted list (:func:`_fill_models` makes it a set again): pickle
    writes a set's members in iteration order, which for strings follows the hash seed. A shared
    one (``SharedFieldsSet``) reduces to its sorted names itself; an empty or single one has one order."""
    return sorted(fields_set) if fields_set.__class__ is set and len(fields_set) > 1 else fields_set


class _Root:
    """What :meth:`ImagePickler.dump` writes: ``first(obj, filler)``, the filler appended every chunk
    (pickle writes a call's arguments in order, so the chunks follow everything ``obj`` reaches)."""

    __slots__ = ("obj", "pickler")

    def __init__(self, obj: Any, pickler: ImagePickler) -> None:
        self.obj, self.pickler = obj, pickler

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return first, (self.obj, _Fill(self.pickler))


class _Fill(_Root):
    __slots__ = ()

    def __init__(self, pickler: ImagePickler) -> None:
        super().__init__(None, pickler)

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return Filler, (), None, self.pickler.states()


class _Mark:
    """A point of the stream of states (:meth:`ImagePickler.states`): written, everything before it is."""

    __slots__ = ("pickler",)

    def __init__(self, pickler: ImagePickler) -> None:
        self.pickler = pickler

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        self.pickler.written_marks += 1
        return marker, ()


def marker() -> _Missing:
    """A loaded mark: :data:`MISSING`, which no chunk starts with."""
    return MISSING


def first(obj: Any, _: Filler) -> Any:
    """The root of a loaded image (its deferred objects filled in by then)."""
    return obj


class Filler:
    """Fills in the deferred objects of a loading image from the stream of their states, which pickle
    appends to it in batches: each complete chunk as soon as all its items are in."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[Any] = []

    def append(self, item: Any) -> None:
        self.extend([item])

    def extend(self, items: list[Any]) -> None:
        buffer = self._items
        buffer.extend(items)
        at, end = 0, len(buffer)
        while at < end:
            if buffer[at] is MISSING:  # a mark
                at += 1
                continue
            if end - at < 2:
                break
            cls, count = buffer[at], buffer[at + 1]
            columns = 2 if issubclass(cls, BaseModel) else len(_slot_names(cls))
            size = 2 + count * (1 + columns)
            if end - at < size:
                break
            _fill(cls, buffer, at + 2, count, columns)
            at += size
        if at:
            self._items = buffer[at:]


def _fill(cls: type, items: list[Any], start: int, count: int, columns: int) -> None:
    """Fill in the ``count`` objects at ``items[start:]`` from the ``columns`` columns after them."""
    objs = items[start:start + count]
    values = [items[start + (1 + i) * count:start + (2 + i) * count] for i in range(columns)]
    if issubclass(cls, BaseModel):
        _fill_models(objs, *values)
        return
    for set_, column in zip(_setters(cls, _slot_names), values, strict=True):
        for obj, value in zip(objs, column, strict=True):
            if value is not MISSING:
                set_(obj, value)


_MODEL_SLOTS = BaseModel.__dict__
_SET_DICT = _MODEL_SLOTS["__dict__"].__set__
_SET_FIELDS_SET = _MODEL_SLOTS["__pydantic_fields_set__"].__set__
_SET_EXTRA = _MODEL_SLOTS["__pydantic_extra__"].__set__
_SET_PRIVATE = _MODEL_SLOTS["__pydantic_private__"].__set__


def _fill_models(objs: list[Any], dicts: list[Any], fields_sets: list[Any]) -> None:
    """The state ``KubeModel.__reduce__``'s ``_unpickle`` gives (kbatch/api/base.py)."""
    for obj, values, fields_set in zip(objs, dicts, fields_sets, strict=True):
        _SET_DICT(obj, values)
        _SET_FIELDS_SET(obj, set(fields_set) if fields_set.__class__ is list else fields_set)
        _SET_EXTRA(obj, None)
        _SET_PRIVATE(obj, None)


# --- load side ----------------------------------------------------------------------------------------
def new(cls: type) -> Any:
    """An instance of ``cls`` whose state a later chunk fills in."""
    return object.__new__(cls)


_INSTANTS: dict[tuple[Any, ...], datetime] = {}  # one load's datetimes by their state (cleared after it)


def instant(*args: Any) -> datetime:
    """The datetime of pickled state ``args``: one object per state within a load."""
    found = _INSTANTS.get(args)
    if found is None:
        found = _INSTANTS[args] = datetime(*args)
    return found


def loaded() -> None:
    """A load has ended: forget its datetimes."""
    _INSTANTS.clear()


def restore(cls: type, *values: Any) -> Any:
    """An instance of the slotted dataclass ``cls`` with its fields set to ``values``, in field order."""
    obj: Any = object.__new__(cls)
    for set_, value in zip(_setters(cls, _field_names), values, strict=True):
        set_(obj, value)
    return obj


def restore_slots(cls: type, *values: Any) -> Any:
    """An instance of the slotted class ``cls`` with each slot (in ``copyreg._slotnames`` order) set
    to its value, or left unset for :data:`MISSING`."""
    obj: Any = object.__new__(cls)
    for set_, value in zip(_setters(cls, _slot_names), values, strict=True):
        if value is not MISSING:
            set_(obj, value)
    return obj


def _slot_names(cls: type) -> tuple[str, ...]:
    return tuple(copyreg._slotnames(cls))  # type: ignore[attr-defined]  # mangled, every base's


def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _setters(cls: type, names: Callable[[type], Any]) -> tuple[Callable[[Any, Any], None], ...]:
    """The ``__set__`` of each slot descriptor of ``cls``, in the order ``names(cls)`` gives (a class
    is restored by one of :func:`restore` and :func:`restore_slots` or filled in by :class:`Filler`:
    the latter two share :func:`_slot_names`, so one cache serves all)."""
    try:
        return _SETTERS[cls]
    except KeyError:
        setters = _SETTERS[cls] = tuple(getattr(cls, n).__set__ for n in names(cls))
        return setters
