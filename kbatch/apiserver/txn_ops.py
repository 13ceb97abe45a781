"""The guard and the write of the API server's transactions, built without the frozen-init cost.

``Compare`` and ``PutOp`` (``kbatch/store/kv.py``) are frozen slotted dataclasses, whose generated
``__init__`` goes through ``object.__setattr__`` once per field (~0.9 µs for the pair every create
and update builds). As ``kbatch/store/records.py`` does for the store's own values, the slots are
filled through their member descriptors; the objects are ordinary instances, equal and hashable
exactly like ones built with the constructors (property-tested).
"""

from __future__ import annotations

from kbatch.store.kv import Compare, CompareOp, CompareTarget, PutOp

__all__ = ["make_compare", "make_put"]

_new = object.__new__
_c_key = Compare.key.__set__  # type: ignore[attr-defined]
_c_target = Compare.target.__set__  # type: ignore[attr-defined]
_c_op = Compare.op.__set__  # type: ignore[attr-defined]
_c_value = Compare.value.__set__  # type: ignore[attr-defined]
_p_key = PutOp.key.__set__  # type: ignore[attr-defined]
_p_value = PutOp.value.__set__  # type: ignore[attr-defined]
_p_prev = PutOp.prev_kv.__set__  # type: ignore[attr-defined]


def make_compare(key: bytes, target: CompareTarget, op: CompareOp, value: int) -> Compare:
    """``Compare(key, target, op, value)`` (``target`` "create" or "mod" for the server's guards)."""
    c = _new(Compare)
    _c_key(c, key)
    _c_target(c, target)
    _c_op(c, op)
    _c_value(c, value)
    return c


def make_put(key: bytes, value: bytes) -> PutOp:
    """``PutOp(key, value)`` (no previous value wanted)."""
    p = _new(PutOp)
    _p_key(p, key)
    _p_value(p, value)
    _p_prev(p, False)
    return p
