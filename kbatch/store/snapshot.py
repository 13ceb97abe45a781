"""Snapshot file format and atomic write (the role of etcd's ``snapshot save`` / ``restore``).

File layout (all integers big-endian)::

    magic    8 bytes   b"KBSTORE\\n"
    version  u32       FORMAT_VERSION
    length   u64       payload length in bytes
    sha256   32 bytes  digest of the payload
    payload  marshal (format 2: no back-references, so equal states give equal bytes) of tuples:
             (revision, compact_revision,
              ((key, ((value, create, mod, version), ...per write), ...per generation), ...per key),
              ((key, mod_revision), ...per log entry, in commit order))

The payload holds only ints, bytes and tuples (``marshal``, never ``pickle``: loading cannot build
arbitrary objects), and is type-checked after the checksum passes. Writing goes to a temporary file in
the target's directory, is flushed and fsynced, then ``os.replace``-d over the target (and the
directory fsynced), so a crash leaves either the old file or the complete new one.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import struct
import tempfile
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kbatch.store import delta
from kbatch.store.delta import Delta
from kbatch.store.errors import StoreError
from kbatch.store.index import TreeIndex
from kbatch.store.kv import KeyValue
from kbatch.store.kvstore import MVCCStore
from kbatch.store.records import make_kv

__all__ = ["FORMAT_VERSION", "MAGIC", "SnapshotError", "State", "decode", "encode", "read", "write",
           "write_atomically"]

MAGIC = b"KBSTORE\n"
FORMAT_VERSION = 1
_HEADER = struct.Struct(">8sIQ32s")


class SnapshotError(StoreError):
    """The snapshot file is not one this version can load (bad magic, version, checksum or shape)."""


@dataclass(slots=True)
class State:
    rev: int
    compacted: int
    index: TreeIndex
    log_keys: list[bytes]
    log_revs: array[int]
    log_updates: bytearray


def encode(kv: MVCCStore) -> bytes:
    keys = tuple(
        (
            key,
            tuple(
                tuple((e.value, e.create_revision, e.mod_revision, e.version) for e in g)
                for g in ki.entries()
            ),
        )
        for key, ki in kv.index.items()
    )
    log = tuple(zip(kv.log_keys, kv.log_revs, strict=True))
    payload = marshal.dumps((kv.rev, kv.compacted, keys, log), 2)  # 2: no object refs, so deterministic
    return _HEADER.pack(MAGIC, FORMAT_VERSION, len(payload), hashlib.sha256(payload).digest()) + payload


def decode(data: bytes) -> State:
    if len(data) < _HEADER.size:
        raise SnapshotError("snapshot truncated: no header")
    magic, version, length, digest = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise SnapshotError("not a kbatch store snapshot (bad magic)")
    if version != FORMAT_VERSION:
        raise SnapshotError(f"snapshot format {version} is not supported (expected {FORMAT_VERSION})")
    payload = data[_HEADER.size :]
    if len(payload) != length or hashlib.sha256(payload).digest() != digest:
        raise SnapshotError("snapshot is corrupt (length or checksum mismatch)")
    try:
        return _build(marshal.loads(payload))
    except (TypeError, ValueError, KeyError, EOFError) as e:
        raise SnapshotError(f"snapshot payload is malformed: {e}") from e


def _int(x: object) -> int:
    if type(x) is not int:
        raise TypeError(f"expected int, got {type(x).__name__}")
    return x


def _bytes(x: object) -> bytes:
    if type(x) is not bytes:
        raise TypeError(f"expected bytes, got {type(x).__name__}")
    return x


def _build(raw: Any) -> State:  # marshal's output, checked below piece by piece
    rev, compacted, keys, log = raw
    index = TreeIndex()
    by_rev: dict[tuple[bytes, int], KeyValue] = {}
    for key, gens in keys:
        if _bytes(key) in index:
            raise ValueError(f"key {key!r} appears twice")
        ki = index.create(key)
        full = [[make_kv(key, _bytes(v), _int(c), _int(m), _int(ver)) for v, c, m, ver in g] for g in gens]
        if not full:
            raise ValueError(f"key {key!r} has no generation")
        for g in full:
            for e in g:
                by_rev[(key, e.mod_revision)] = e
        ki.generations = [_stored(g) for g in full]
    entries = [by_rev[(_bytes(k), _int(m))] for k, m in log]
    if not 0 <= _int(compacted) <= _int(rev) or any(m > rev for _, m in by_rev):
        raise ValueError(f"revisions out of order (revision {rev}, compacted {compacted})")
    return State(
        rev,
        compacted,
        index,
        [e.key for e in entries],
        array("q", [e.mod_revision for e in entries]),
        bytearray(e.version != 1 for e in entries),
    )


def _stored(g: list[KeyValue]) -> list[KeyValue | Delta]:
    """One generation as the store keeps it: each value superseded by a put as a delta (as the
    writes themselves would have left it)."""
    out: list[KeyValue | Delta] = list(g)
    for i in range(len(g) - 1):
        if g[i].version and g[i + 1].version:
            out[i] = delta.encode(g[i], g[i + 1].value)
    return out


def write(path: str, kv: MVCCStore) -> None:
    """Write the snapshot of ``kv`` to ``path`` atomically."""
    write_atomically(path, [encode(kv)])


def write_atomically(path: str, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to a temporary file beside ``path``, fsync it, rename it over ``path`` and
    fsync the directory: a crash (or an exception from ``chunks``) leaves the old file or the new."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".kbstore-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def _fsync_dir(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # e.g. platforms that cannot open directories
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def read(path: str) -> State:
    with open(path, "rb") as fh:
        return decode(fh.read())
