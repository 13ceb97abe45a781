"""The image's writer writes the same bytes, starts background syncs as it goes, and reports a failed
one (kbatch/runtime/image_writer.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.runtime import image_writer
from kbatch.runtime.image_writer import SyncingWriter


@settings(max_examples=30, deadline=None)
@given(chunks=st.lists(st.binary(max_size=40), max_size=30), every=st.integers(1, 64))
def test_the_bytes_written_are_the_bytes_given(tmp_path_factory, chunks: list[bytes], every: int) -> None:
    path = tmp_path_factory.mktemp("w") / "image"
    with open(path, "wb") as out:
        writer = SyncingWriter(out, sync_every=every)
        for chunk in chunks:
            assert writer.write(chunk) == len(chunk)
        writer.finish()
    assert path.read_bytes() == b"".join(chunks)


def test_syncs_start_while_writing_and_finish_syncs_the_rest(tmp_path: Path, monkeypatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(image_writer.os, "fdatasync", lambda fd: calls.append("datasync"))
    monkeypatch.setattr(image_writer.os, "fsync", lambda fd: calls.append("fsync"))
    with open(tmp_path / "image", "wb") as out:
        writer = SyncingWriter(out, sync_every=10)
        writer.write(b"x" * 4)
        assert calls == []  # below the step: nothing yet
        writer.write(b"x" * 8)
        writer.wait()
        assert calls == ["datasync"]
        writer.finish()
    assert calls == ["datasync", "fsync"]


def test_a_failed_background_sync_fails_the_save(tmp_path: Path, monkeypatch) -> None:
    def broken(fd: int) -> None:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(image_writer.os, "fdatasync", broken)
    with open(tmp_path / "image", "wb") as out:
        writer = SyncingWriter(out, sync_every=1)
        writer.write(b"abc")
        with pytest.raises(OSError, match="I/O error"):
            writer.finish()
    assert os.path.exists(tmp_path / "image")
