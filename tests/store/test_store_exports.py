"""The public surface of kbatch.store: what __all__ promises is there, and nothing private leaks."""

from __future__ import annotations

import kbatch.store as store


def test_all_names_are_exported_and_public() -> None:
    for name in store.__all__:
        assert hasattr(store, name), name
        assert not name.startswith("_")
    assert sorted(store.__all__, key=str.lower) == sorted(set(store.__all__), key=str.lower)


def test_documented_entry_points_are_exported() -> None:
    wanted = {"MemoryStore", "KV", "Watcher", "KeyValue", "Event", "EventType", "RangeResult", "PutResult"}
    wanted |= {"DeleteResult", "TxnResult", "Compare", "RangeOp", "PutOp", "DeleteOp", "prefix_end"}
    wanted |= {"CompactedError", "FutureRevisionError", "StoreError", "DuplicateKeyError", "SnapshotError"}
    assert wanted <= set(store.__all__)
