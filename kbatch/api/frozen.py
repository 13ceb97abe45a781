"""Shared read objects are read only: :func:`edit` gives a private copy to change; strict mode enforces it.

The object a write validated is, unchanged, the writer's answer, the watch event's object and what
gets, lists and informers hand out to everyone (controller-runtime: "objects from the cache are read
only, DeepCopy before you change them"). Changing one would change every reader's view without a
write, so code that wants to change an object it read copies it first::

    job = edit(cache.get(Job, name, ns))   # a private deep copy
    job.spec.suspend = False
    client.update(job)

**Strict mode** (``KBATCH_STRICT=1`` in the environment, or :func:`set_strict`; CI runs the suite so)
makes the mistake fail loudly. Every object that becomes shared is :func:`freeze`-d: an attribute
assignment on any model in it raises :class:`FrozenObjectError` where it happens; a change inside one
of its lists or dicts (which keep their types: fast paths test ``type(v) is list``) is found by
:func:`changed_since_frozen`, which compares each frozen object with the encoding it had when frozen
(the test suite checks after every test). Outside strict mode :func:`freeze` does nothing and costs
nothing. Frozen objects are remembered by identity (strict mode keeps them alive until
:func:`reset_frozen`, so an ``id`` is never reused); copies (:func:`edit`, ``copy_model``,
``copy.deepcopy``) are plain, unfrozen objects.
"""

from __future__ import annotations

import os
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel

from kbatch.api.base import KubeModel

__all__ = ["FrozenObjectError", "changed_since_frozen", "edit", "freeze", "is_frozen", "reset_frozen",
           "set_strict", "strict"]

M = TypeVar("M", bound=BaseModel)

_FROZEN: dict[int, BaseModel] = {}  # strict mode only: id -> the frozen model (kept alive)
_ROOTS: list[tuple[BaseModel, bytes]] = []  # strict mode only: each frozen object, its encoding then
_STATE = {"strict": False}


class FrozenObjectError(TypeError):
    """A shared read-only object was changed (strict mode)."""


def _refuse(what: str) -> NoReturn:
    raise FrozenObjectError(f"{what} belongs to a shared read-only object (a get, list, watch or write "
                            "result, or an informer's object): copy it with kbatch.api.edit() first")


_PLAIN_SETATTR = KubeModel.__setattr__


def _strict_setattr(self: KubeModel, name: str, value: Any) -> None:
    if id(self) in _FROZEN and _FROZEN[id(self)] is self:
        _refuse(f"{type(self).__name__}.{name}: {type(self).__name__}")
    _PLAIN_SETATTR(self, name, value)


def _strict_delattr(self: KubeModel, name: str) -> None:
    if id(self) in _FROZEN and _FROZEN[id(self)] is self:
        _refuse(f"{type(self).__name__}.{name}: {type(self).__name__}")
    BaseModel.__delattr__(self, name)


def set_strict(on: bool) -> None:
    """Turn strict mode on or off for this process (tests; ``KBATCH_STRICT=1`` at import)."""
    _STATE["strict"] = on
    KubeModel.__setattr__ = _strict_setattr if on else _PLAIN_SETATTR  # type: ignore[method-assign]
    KubeModel.__delattr__ = _strict_delattr if on else BaseModel.__delattr__  # type: ignore[method-assign, assignment]
    if not on:
        reset_frozen()


def strict() -> bool:
    return _STATE["strict"]


def is_frozen(obj: Any) -> bool:
    return _FROZEN.get(id(obj)) is obj


def freeze(obj: M, stored: bytes | None = None) -> M:
    """``obj``, frozen in strict mode (a no-op otherwise); returns it. ``stored``: its encoding without
    ``metadata.resourceVersion`` when the caller has it (the stored bytes), else it is computed."""
    if _STATE["strict"] and _FROZEN.get(id(obj)) is not obj:
        _ROOTS.append((obj, stored if stored is not None else _encoding(obj)))
        _freeze(obj)
    return obj


_NO_RV = {"metadata": {"resource_version"}}


def _encoding(obj: BaseModel) -> bytes:
    """Compact JSON without ``metadata.resourceVersion`` (the store's form of a top-level object)."""
    exclude = _NO_RV if "metadata" in type(obj).__pydantic_fields__ else None
    return obj.__pydantic_serializer__.to_json(obj, by_alias=True, exclude_none=True, exclude=exclude,
                                               warnings=False)


def _freeze(value: Any) -> None:
    if isinstance(value, BaseModel):
        if _FROZEN.get(id(value)) is value:
            return
        _FROZEN[id(value)] = value
        for item in value.__dict__.values():
            _freeze(item)
    elif isinstance(value, list):
        for item in value:
            _freeze(item)
    elif isinstance(value, dict):
        for item in value.values():
            _freeze(item)


def changed_since_frozen() -> list[str]:
    """Strict mode: the frozen objects whose encoding changed since they were frozen (a change inside
    a list or dict of a shared object), as ``Kind namespace/name`` lines."""
    out = []
    for obj, before in _ROOTS:
        if _encoding(obj) != before:
            meta = getattr(obj, "metadata", None)
            where = f"{getattr(meta, 'namespace', None) or ''}/{getattr(meta, 'name', None) or ''}"
            out.append(f"{type(obj).__name__} {where.lstrip('/')}")
    return out


def reset_frozen() -> None:
    """Forget every frozen object (they become ordinary objects again)."""
    _FROZEN.clear()
    _ROOTS.clear()


def edit(obj: M) -> M:
    """A private deep copy of ``obj`` to change (a shared object must never be changed in place)."""
    from kbatch.api.model_copy import copy_model

    return copy_model(obj)


if os.environ.get("KBATCH_STRICT", "") not in ("", "0"):
    set_strict(True)
