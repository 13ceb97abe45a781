"""The same scenarios through two paths, as etcd's kv_test.go does: the plain calls, and the same
operations wrapped in ``txn`` (one op per transaction). Both must give identical results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from kbatch.store import (
    DeleteOp,
    DeleteResult,
    MemoryStore,
    PutOp,
    PutResult,
    RangeOp,
    RangeResult,
    prefix_end,
)


@dataclass
class Path:
    put: Callable[[MemoryStore, bytes, bytes, bool], PutResult]
    delete: Callable[[MemoryStore, bytes, bytes | None, bool], DeleteResult]
    range: Callable[[MemoryStore, bytes, bytes | None, int | None, bool, bool], RangeResult]


PLAIN = Path(
    put=lambda s, k, v, p: s.put(k, v, prev_kv=p),
    delete=lambda s, k, e, p: s.delete_range(k, e, prev_kv=p),
    range=lambda s, k, e, lim, ko, co: s.range(k, e, limit=lim, keys_only=ko, count_only=co),
)
IN_TXN = Path(
    put=lambda s, k, v, p: s.txn(success=[PutOp(k, v, p)]).responses[0],  # type: ignore[return-value]
    delete=lambda s, k, e, p: s.txn(success=[DeleteOp(k, e, p)]).responses[0],  # type: ignore[return-value]
    range=lambda s, k, e, lim, ko, co: s.txn(success=[RangeOp(k, e, lim, ko, co)]).responses[0],  # type: ignore[return-value]
)


def scenario(path: Path, s: MemoryStore) -> list[object]:
    out: list[object] = []
    for i in range(6):
        out.append(path.put(s, b"k%d" % (i % 4), b"v%d" % i, True))
    out.append(path.delete(s, b"k1", None, True))
    out.append(path.delete(s, b"missing", None, True))
    out.append(path.range(s, b"k", prefix_end(b"k"), 2, False, False))
    out.append(path.range(s, b"k", prefix_end(b"k"), None, True, False))
    out.append(path.range(s, b"k", b"\0", None, False, True))
    out.append(path.delete(s, b"k", prefix_end(b"k"), True))
    out.append(path.range(s, b"\0", b"\0", None, False, False))
    out.append(s.revision)
    return out


@pytest.mark.parametrize("path", [PLAIN, IN_TXN], ids=["plain", "txn"])
def test_scenario_results_are_as_expected(path: Path, store: MemoryStore) -> None:
    out = scenario(path, store)
    assert out[-1] == 9  # 6 puts, 1 delete, 1 empty delete (no revision), 1 range delete
    assert out[6].deleted == 1 and out[7].deleted == 0  # type: ignore[attr-defined]
    limited = out[8]
    assert (limited.count, limited.more, len(limited.kvs)) == (3, True, 2)  # type: ignore[attr-defined]


def test_plain_calls_and_one_op_txns_give_identical_results(new_store: Callable[[], MemoryStore]) -> None:
    assert scenario(PLAIN, new_store()) == scenario(IN_TXN, new_store())
