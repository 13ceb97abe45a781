"""Superseded revisions kept as deltas against the next revision of the same key.

etcd keeps every revision until compaction (kube-apiserver compacts every 5 minutes, so a busy
cluster holds minutes of history: ``staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go``).
Consecutive versions of an object usually differ in a few bytes (a status write), so once a key gets
a newer version the older value is kept as ``(head, mid, tail)``: it is the newer value's first
``head`` bytes, then ``mid``, then the newer value's last ``tail`` bytes. Reading an old revision
walks forward to the nearest full value and rebuilds it back, byte-exact.

A delta is one ``bytes`` object: a fixed header (``mod_revision``, ``create_revision``, ``version``,
``head``, ``tail``) followed by ``mid``. One object with no int objects of its own: about 60 bytes
plus ``mid``, where a ``KeyValue`` is ~140 bytes plus the whole value (measured per revision in
``benchmarks/store_bench.py``); ``bytes`` are not tracked by the garbage collector either. The store
never hands a delta out: readers always get a rebuilt ``KeyValue``.

``head`` and ``tail`` are found by bisecting with slice comparisons (``memcmp`` in C) down to
``GRAIN`` bytes, not to the byte: a few more bytes in ``mid`` cost less than more bisection steps.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from kbatch.store.kv import KeyValue
from kbatch.store.records import make_kv

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs is Python 3.13+

__all__ = [
    "CHECKPOINT", "GRAIN", "HEADER", "MIN_SAVING", "Delta", "encode", "entry_revision", "is_delta", "rebuild",
    "rebuild_from",
]

Delta = bytes
"""``HEADER`` (mod_revision, create_revision, version, head, tail), then ``mid``."""

HEADER = struct.Struct("<QQIII")
_pack = HEADER.pack
_unpack = HEADER.unpack_from
_SIZE = HEADER.size
_REVISION = struct.Struct("<Q").unpack_from
_FITS = 1 << 32  # version, head and tail are stored as u32: anything larger stays a KeyValue

GRAIN = 32
"""Bisection stops when the common prefix (suffix) is known to within this many bytes."""

MIN_SAVING = 64
"""A value is delta-encoded only when that drops at least this many bytes (below that, the delta's
header and object cost about what the ``KeyValue`` it replaces does)."""

CHECKPOINT = 16
"""Every version divisible by this stays full, so rebuilding an old revision of a key written many
times (a Job's status, a Lease) walks at most this many deltas."""


def is_delta(entry: KeyValue | Delta) -> TypeIs[Delta]:
    return entry.__class__ is bytes


def entry_revision(entry: KeyValue | Delta) -> int:
    """The ``mod_revision`` of a stored entry (the bisection key of a generation)."""
    if entry.__class__ is bytes:
        return _REVISION(entry)[0]  # type: ignore[arg-type]
    return entry.mod_revision  # type: ignore[union-attr]


def encode(old: KeyValue, new: bytes) -> KeyValue | Delta:
    """``old`` (a live value superseded by ``new``) as a delta against ``new``, or ``old`` itself
    when that would not save ``MIN_SAVING`` bytes."""
    x = old.value
    lx, ly = len(x), len(new)
    n = lx if lx < ly else ly
    if n < MIN_SAVING or not old.version % CHECKPOINT or lx >= _FITS or old.version >= _FITS:
        return old
    lo, hi = 0, n  # invariant: x[:lo] == new[:lo], and the common prefix is at most hi
    startswith = new.startswith
    while hi - lo > GRAIN:
        m = (lo + hi + 1) >> 1
        if startswith(x[lo:m], lo):
            lo = m
        else:
            hi = m - 1
    head = lo
    lo, hi = 0, n - head  # the suffix never overlaps the prefix
    endswith = new.endswith
    if hi > GRAIN and not endswith(x[lx - GRAIN :], 0, ly):
        hi = 0  # the values end differently: one compare instead of a bisection to find < GRAIN
    while hi - lo > GRAIN:
        m = (lo + hi + 1) >> 1
        if endswith(x[lx - m : lx - lo], 0, ly - lo):
            lo = m
        else:
            hi = m - 1
    if head + lo < MIN_SAVING:
        return old
    return _pack(old.mod_revision, old.create_revision, old.version, head, lo) + x[head : lx - lo]


def _apply(delta: Delta, value: bytes) -> bytes:
    """The value ``delta`` was taken from, given the value it was taken against."""
    head, tail = _unpack(delta)[3:]
    return value[:head] + delta[_SIZE:] + value[len(value) - tail :]


def rebuild(key: bytes, entries: list, i: int) -> KeyValue:
    """``entries[i]`` (one generation's entries) as a ``KeyValue``. A delta is always followed, in its
    generation, by the full value it was taken against or by another delta."""
    e = entries[i]
    if e.__class__ is not bytes:
        return e
    j = i + 1
    while entries[j].__class__ is bytes:
        j += 1
    value = entries[j].value
    for k in range(j - 1, i - 1, -1):
        value = _apply(entries[k], value)
    return _kv(key, e, value)


def rebuild_from(key: bytes, entries: list, i: int) -> list[KeyValue]:
    """``entries[i:]`` as ``KeyValue``s, rebuilding every delta in one backward sweep."""
    out = entries[i:]
    value = b""
    for k in range(len(out) - 1, -1, -1):
        e = out[k]
        if e.__class__ is bytes:
            value = _apply(e, value)
            out[k] = _kv(key, e, value)
        else:
            value = e.value
    return out


def _kv(key: bytes, d: Delta, value: bytes) -> KeyValue:
    mod, create, version, _, _ = _unpack(d)
    return make_kv(key, value, create, mod, version)
