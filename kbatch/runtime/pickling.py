"""The pickler of control-plane images: slotted objects as (class, slot values).

Much of the runtime's state is slotted objects, one or more per pod (store ``KeyValue``s in watch
backlogs, the garbage collector's graph nodes, work-queue requests, timers, the scheduler's
``PodInfo``, the kubelet's ``PodRun`` and ``Proc``). Python pickles a frozen slotted dataclass through
the ``__getstate__`` that ``dataclass`` generates, which builds a dict per object by calling
``fields()`` (about 10 µs each, a tenth of a 100k-pod image's save time), and any other slotted
object as ``(None, {slot: value})``: a tuple and a dict per object that the pickler's memo keeps alive
until the save ends (~500,000 of each at 100k pods). :class:`ImagePickler` reduces both kinds to the
class and its slot values instead (one argument tuple); :func:`restore` and :func:`restore_slots`
fill the slots through their descriptors, the state the frozen ``__init__`` or pickle's own
``setattr`` loop leaves. A class with its own pickling, ``__new__``, ``__setstate__`` or
``__setattr__`` keeps pickle's path.
"""

from __future__ import annotations

import copyreg
import dataclasses
import pickle
from collections.abc import Callable
from operator import attrgetter
from typing import Any

__all__ = ["MISSING", "ImagePickler", "restore", "restore_slots"]

_Reducer = Callable[[Any], tuple[Any, ...]] | None
_REDUCERS: dict[type, _Reducer] = {}  # a cache of a pure function of the class
_SETTERS: dict[type, tuple[Callable[[Any, Any], None], ...]] = {}


class ImagePickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        cls = obj.__class__
        try:
            reduce = _REDUCERS[cls]
        except KeyError:
            reduce = _REDUCERS[cls] = _reducer_for(cls)
        return NotImplemented if reduce is None else reduce(obj)


class _Missing:
    """An unset slot (pickled by reference: one object in every image)."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def _reducer_for(cls: type) -> _Reducer:
    """The fast reducer of ``cls``: for a dataclass pickled through its generated ``__getstate__``, or a
    slotted class pickled through ``object``'s defaults; ``None`` for any other class."""
    if not isinstance(cls, type):
        return None
    getstate = getattr(cls, "__getstate__", None)
    if dataclasses.is_dataclass(cls) and getattr(getstate, "__name__", "") == "_dataclass_getstate":
        return _dataclass_reducer(cls)
    if _plainly_slotted(cls):
        return _slots_reducer(cls)
    return None


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


def _slots_reducer(cls: type) -> _Reducer:
    names = tuple(copyreg._slotnames(cls))  # type: ignore[attr-defined]  # mangled, every base's
    values = _values_of(names)
    head = (cls,)

    def reduce(obj: Any) -> tuple[Any, ...]:
        try:
            return restore_slots, head + values(obj)
        except AttributeError:  # a slot left unset
            return restore_slots, (cls, *[getattr(obj, n, MISSING) for n in names])

    return reduce


def _dataclass_reducer(cls: type) -> _Reducer:
    values = _values_of(_field_names(cls))
    head = (cls,)

    def reduce(obj: Any) -> tuple[Any, ...]:
        return restore, head + values(obj)

    return reduce


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The attributes ``names`` of an object as a tuple, read in C (``attrgetter``): the reducers run
    once per object of a 7-million-object image."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


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
    for set_, value in zip(_setters(cls, copyreg._slotnames), values, strict=True):  # type: ignore[attr-defined]
        if value is not MISSING:
            set_(obj, value)
    return obj


def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _setters(cls: type, names: Callable[[type], Any]) -> tuple[Callable[[Any, Any], None], ...]:
    """The ``__set__`` of each slot descriptor of ``cls``, in the order ``names(cls)`` gives (a class
    is restored by one of the two functions above, so one cache serves both)."""
    try:
        return _SETTERS[cls]
    except KeyError:
        setters = _SETTERS[cls] = tuple(getattr(cls, n).__set__ for n in names(cls))
        return setters
