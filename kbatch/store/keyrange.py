"""Key and range arguments, checked and normalised once at the store's edge.

etcd's conventions (https://etcd.io/docs/v3.5/learning/api/#key-value-api): a request names ``key``
and an optional ``range_end``. No ``range_end`` (or an empty one) means the single key; ``b"\\0"``
means every key ``>= key``; otherwise the half-open interval ``[key, range_end)`` (empty when
``range_end <= key``). Keys must be non-empty (etcd's ``ErrEmptyKey``).

Internally every request becomes ``(start, end)`` with ``end is None`` for "unbounded": the single key
``k`` is ``[k, k + b"\\0")`` because ``k + b"\\0"`` is the smallest key greater than ``k``.
"""

from __future__ import annotations

__all__ = ["as_bytes", "contains", "key_range"]


def as_bytes(value: object, what: str) -> bytes:
    """``value`` as immutable ``bytes``: a ``bytearray`` or ``memoryview`` is copied, so the caller
    keeps no handle on what the store holds; anything else is a ``TypeError``."""
    if type(value) is bytes:
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    raise TypeError(f"{what} must be bytes, got {type(value).__name__}")


def key_range(key: object, range_end: object | None) -> tuple[bytes, bytes | None]:
    """Check ``key``/``range_end`` and return ``(start, end)``; ``end is None`` means unbounded."""
    start = as_bytes(key, "key")
    if not start:
        raise ValueError("key must not be empty (etcd: ErrEmptyKey)")
    if range_end is None:
        return start, start + b"\0"
    end = as_bytes(range_end, "range_end")
    if not end:
        return start, start + b"\0"
    if end == b"\0":
        return start, None
    return start, end


def contains(start: bytes, end: bytes | None, key: bytes) -> bool:
    return start <= key and (end is None or key < end)
