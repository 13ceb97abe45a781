"""Example tests for snapshot/restore: exact round trip, atomic write, rejected corrupt files."""

from __future__ import annotations

import marshal
import os
import struct
from pathlib import Path

import pytest

from kbatch.store import (
    CompactedError,
    MemoryStore,
    SnapshotError,
    WatchCancelledError,
    prefix_end,
)
from kbatch.store import snapshot as snapshot_format


def busy_store() -> MemoryStore:
    s = MemoryStore()
    for i in range(20):
        s.put(b"k%d" % (i % 4), b"v%d" % i)
        if i % 5 == 4:
            s.delete_range(b"k%d" % (i % 3))
    s.compact(10)
    s.put(b"after", b"x")
    return s


def test_snapshot_restore_round_trips_state_history_and_revision(tmp_path: Path) -> None:
    s = busy_store()
    path = str(tmp_path / "snap")
    s.snapshot(path)
    r = MemoryStore()
    r.restore(path)
    assert (r.revision, r.compact_revision) == (s.revision, s.compact_revision)
    for at in range(s.compact_revision, s.revision + 1):
        assert r.range(b"\0", b"\0", revision=at) == s.range(b"\0", b"\0", revision=at)
    with pytest.raises(CompactedError):
        r.range(b"k1", revision=9)
    want = s.watch(b"k", prefix_end(b"k"), start_revision=10, prev_kv=True).poll()
    assert r.watch(b"k", prefix_end(b"k"), start_revision=10, prev_kv=True).poll() == want
    assert r.put(b"k1", b"new").revision == s.put(b"k1", b"new").revision


def test_snapshot_of_restored_store_is_byte_identical(tmp_path: Path) -> None:
    s = busy_store()
    s.snapshot(str(tmp_path / "a"))
    r = MemoryStore()
    r.restore(str(tmp_path / "a"))
    r.snapshot(str(tmp_path / "b"))
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_snapshot_is_atomic_when_write_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "snap"
    old = MemoryStore()
    old.put(b"a", b"old")
    old.snapshot(str(path))
    before = path.read_bytes()

    def fail_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(snapshot_format.os, "fsync", fail_fsync)
    with pytest.raises(OSError, match="disk full"):
        busy_store().snapshot(str(path))
    assert path.read_bytes() == before  # the old snapshot is untouched
    assert os.listdir(tmp_path) == ["snap"]  # no temporary file left behind


def test_restore_cancels_open_watchers(tmp_path: Path) -> None:
    s = MemoryStore()
    s.snapshot(str(tmp_path / "snap"))
    w = s.watch(b"a")
    s.restore(str(tmp_path / "snap"))
    with pytest.raises(WatchCancelledError):
        w.poll()


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda b: b"NOTASNAP" + b[8:], "bad magic"),
        (lambda b: b[:8] + struct.pack(">I", 99) + b[12:], "format 99"),
        (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "checksum"),
        (lambda b: b[:-3], "length"),
        (lambda b: b[:5], "truncated"),
    ],
    ids=["magic", "version", "flipped-bit", "truncated-payload", "truncated-header"],
)
def test_restore_rejects_corrupt_snapshot_and_keeps_state(tmp_path: Path, mangle, message: str) -> None:
    path = tmp_path / "snap"
    busy_store().snapshot(str(path))
    path.write_bytes(mangle(path.read_bytes()))
    s = MemoryStore()
    s.put(b"keep", b"me")
    with pytest.raises(SnapshotError, match=message):
        s.restore(str(path))
    assert s.range(b"keep").kvs[0].value == b"me"


def test_restore_rejects_well_checksummed_payload_of_wrong_shape(tmp_path: Path) -> None:
    import hashlib

    payload = marshal.dumps((2, 0, ((b"k", ((("not-bytes", 2, 2, 1),), ())),), ()), 2)
    header = struct.pack(">8sIQ32s", snapshot_format.MAGIC, 1, len(payload), hashlib.sha256(payload).digest())
    path = tmp_path / "snap"
    path.write_bytes(header + payload)
    with pytest.raises(SnapshotError, match="malformed"):
        MemoryStore().restore(str(path))
