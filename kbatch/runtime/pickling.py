"""The pickler of control-plane images: slotted dataclasses as (class, field values).

Much of the runtime's state is slotted dataclasses (store ``KeyValue``s in watch backlogs, the garbage
collector's graph nodes, work-queue requests, timers). Python pickles those through the ``__getstate__``
that ``dataclass(slots=True)`` generates, which builds a dict per object by calling ``fields()``: about
10 µs each, a tenth of a 100k-pod image's save time. :class:`ImagePickler` reduces them to the class
and its field values instead, and :func:`restore` fills the slots through their descriptors
(what the class's frozen ``__init__`` would do, without its per-field ``object.__setattr__``).
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

__all__ = ["ImagePickler", "restore"]

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


def _reducer_for(cls: type) -> _Reducer:
    """The fast reducer of ``cls`` when it pickles through the dataclass-generated ``__getstate__``."""
    getstate = getattr(cls, "__getstate__", None)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)
            and getattr(getstate, "__name__", "") == "_dataclass_getstate"):
        return None
    names = tuple(f.name for f in dataclasses.fields(cls))

    def reduce(obj: Any) -> tuple[Any, ...]:
        return restore, (cls, *[getattr(obj, n) for n in names])

    return reduce


def restore(cls: type, *values: Any) -> Any:
    """An instance of the slotted dataclass ``cls`` with its fields set to ``values``, in field order."""
    try:
        setters = _SETTERS[cls]
    except KeyError:
        setters = _SETTERS[cls] = tuple(getattr(cls, f.name).__set__ for f in dataclasses.fields(cls))
    obj = object.__new__(cls)
    for set_, value in zip(setters, values, strict=True):
        set_(obj, value)
    return obj
