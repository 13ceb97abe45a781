"""Transactions: the only way the store is written (etcd ``server/storage/mvcc/kvstore_txn.go``,
``kv_view.go``, and the compare rules of ``server/etcdserver/txn/txn.go``).

A ``WriteTxn`` stamps every write with one new revision and commits them together in ``end()``; a
transaction that writes nothing leaves the revision alone. ``put`` and ``delete_range`` are one-op
transactions, ``execute`` runs a full ``txn(compare, success, failure)``:

1. both branches are checked first (types, empty keys, and etcd's rule that one branch may not write
   the same key twice: two puts of a key, or a put inside a deleted range, is ``DuplicateKeyError``),
   so a bad request changes nothing;
2. every compare is evaluated against the current state (a missing key has version, create and mod
   revision 0, and a value compare on it is false);
3. the chosen branch runs; its ranges see the branch's earlier writes; all responses carry the
   transaction's resulting revision.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from kbatch.store.delta import encode
from kbatch.store.errors import DuplicateKeyError
from kbatch.store.keyrange import as_bytes, contains, key_range
from kbatch.store.kv import (
    Compare,
    DeleteOp,
    DeleteResult,
    KeyValue,
    Op,
    PutOp,
    PutResult,
    RangeOp,
    RangeResult,
    TxnResult,
)
from kbatch.store.kvstore import MVCCStore
from kbatch.store.records import make_kv, make_put_result, make_tombstone, make_txn_result

__all__ = ["WriteTxn", "check_compare", "execute", "prepare_branch"]

_OPS: dict[str, Callable[[Any, Any], bool]] = {  # on ints (revisions) or bytes (values)
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
}
_INT_TARGETS = {"version": "version", "create": "create_revision", "mod": "mod_revision"}


class WriteTxn:
    """One atomic change set at revision ``store.rev + 1``."""

    __slots__ = ("changes", "prevs", "rev", "store")

    def __init__(self, store: MVCCStore) -> None:
        self.store = store
        self.rev = store.rev + 1
        self.changes: list[KeyValue] = []
        self.prevs: list[KeyValue | None] = []

    def put(self, key: bytes, value: bytes, want_prev: bool) -> PutResult:
        """Write ``value`` under ``key`` (both already plain ``bytes``)."""
        rev = self.rev
        ki = self.store.index.by_key.get(key)
        if ki is None:
            ki = self.store.index.create(key)
        gen = ki.generations[-1]
        # the last entry of a generation is always a full KeyValue, never a delta (key_index.py)
        prev: KeyValue | None = gen[-1] if gen else None  # type: ignore[assignment]
        if prev is not None:
            kv = make_kv(key, value, prev.create_revision, rev, prev.version + 1)
            gen[-1] = encode(prev, value)  # keep the superseded value as a delta (delta.py)
        else:
            kv = make_kv(key, value, rev, rev, 1)
        gen.append(kv)
        self.changes.append(kv)
        self.prevs.append(prev)
        return make_put_result(rev, prev if want_prev else None)

    def delete(self, start: bytes, end: bytes | None, want_prev: bool) -> DeleteResult:
        """Tombstone every live key in ``[start, end)``, in key order."""
        store = self.store
        index = store.index.by_key
        deleted: list[KeyValue] = []
        for key in store.keys_in(start, end):
            ki = index[key]
            gen = ki.generations[-1]
            if gen:
                prev: KeyValue = gen[-1]  # type: ignore[assignment]  # a generation ends with a KeyValue
                tomb = make_tombstone(key, self.rev)
                ki.tombstone(tomb)
                self.changes.append(tomb)
                self.prevs.append(prev)
                deleted.append(prev)
        rev = self.rev if self.changes else store.rev
        return DeleteResult(rev, len(deleted), tuple(deleted) if want_prev else ())

    def end(self) -> int:
        """Commit: bump the revision once if anything was written, log it, tell the hook."""
        store = self.store
        if self.changes:
            store.rev = self.rev
            store.log_writes(self.changes)
            if store.on_commit is not None:
                store.on_commit(self.rev, self.changes, self.prevs)
        return store.rev


# -- full transactions -----------------------------------------------------------------------------

_Prepared = tuple  # ("range", start, end, RangeOp) | ("put", key, value, prev) | ("delete", start, end, prev)


def prepare_branch(ops: Sequence[Op]) -> list[_Prepared]:
    """Normalise one branch and enforce etcd's no-duplicate-write rule (``checkIntervals``)."""
    out: list[_Prepared] = []
    puts: list[bytes] = []
    deletes: list[tuple[bytes, bytes | None]] = []
    for op in ops:
        if isinstance(op, PutOp):
            key, _ = key_range(op.key, None)
            if key in puts:
                raise DuplicateKeyError(key, "put twice")
            puts.append(key)
            out.append(("put", key, as_bytes(op.value, "value"), op.prev_kv))
        elif isinstance(op, DeleteOp):
            start, end = key_range(op.key, op.range_end)
            deletes.append((start, end))
            out.append(("delete", start, end, op.prev_kv))
        elif isinstance(op, RangeOp):
            if op.limit is not None and op.limit < 0:
                raise ValueError(f"limit must be >= 0, got {op.limit}")
            start, end = key_range(op.key, op.range_end)
            out.append(("range", start, end, op))
        else:
            raise TypeError(f"txn operations must be RangeOp, PutOp or DeleteOp, got {type(op).__name__}")
    for key in puts:
        for start, end in deletes:
            if contains(start, end, key):
                raise DuplicateKeyError(key, "put and deleted")
    return out


def check_compare(c: Compare) -> None:
    if not isinstance(c, Compare):
        raise TypeError(f"compare must be Compare, got {type(c).__name__}")
    if c.op not in _OPS:
        raise ValueError(f"unknown compare op {c.op!r}")
    if c.target == "value":
        as_bytes(c.value, "value compare")
    elif c.target not in _INT_TARGETS:
        raise ValueError(f"unknown compare target {c.target!r}")
    elif type(c.value) is not int:
        raise TypeError(f"{c.target} compare needs an int, got {type(c.value).__name__}")
    key_range(c.key, None)


def _holds(store: MVCCStore, c: Compare) -> bool:
    ki = store.index.by_key.get(as_bytes(c.key, "key"))
    kv = None if ki is None else ki.latest()
    if c.target == "value":
        return kv is not None and _OPS[c.op](kv.value, as_bytes(c.value, "value"))
    actual = 0 if kv is None else getattr(kv, _INT_TARGETS[c.target])
    return _OPS[c.op](actual, c.value)


def _apply(tw: WriteTxn, op: _Prepared) -> RangeResult | PutResult | DeleteResult:
    kind = op[0]
    if kind == "put":
        return tw.put(op[1], op[2], op[3])
    if kind == "delete":
        return tw.delete(op[1], op[2], op[3])
    r: RangeOp = op[3]
    return tw.store.range(op[1], op[2], None, r.limit, r.keys_only, r.count_only, 0)


def _guarded_put(
    store: MVCCStore, compare: Sequence[Compare], success: Sequence[Op], failure: Sequence[Op]
) -> TxnResult | None:
    """The API server's transaction (a create, update or bind: revision compares guarding one put,
    nothing on failure) without the general machinery; ``None`` for any other shape, or any
    argument the general path would have to check or convert, so errors come from one place."""
    if failure or len(success) != 1:
        return None
    op = success[0]
    if type(op) is not PutOp or type(op.key) is not bytes or not op.key or type(op.value) is not bytes:
        return None
    by_key = store.index.by_key
    ok = True
    for c in compare:
        if type(c) is not Compare or type(c.key) is not bytes or not c.key or type(c.value) is not int:
            return None
        attr, fn = _INT_TARGETS.get(c.target), _OPS.get(c.op)
        if attr is None or fn is None:
            return None
        if ok:
            ki = by_key.get(c.key)
            kv = None if ki is None else ki.latest()
            ok = fn(0 if kv is None else getattr(kv, attr), c.value)
    if not ok:
        return make_txn_result(False, store.rev, ())
    tw = WriteTxn(store)
    result = tw.put(op.key, op.value, op.prev_kv)
    return make_txn_result(True, tw.end(), (result,))


def execute(
    store: MVCCStore, compare: Sequence[Compare], success: Sequence[Op], failure: Sequence[Op]
) -> TxnResult:
    """Run ``txn(compare, success, failure)`` atomically."""
    fast = _guarded_put(store, compare, success, failure)
    return fast if fast is not None else execute_general(store, compare, success, failure)


def execute_general(
    store: MVCCStore, compare: Sequence[Compare], success: Sequence[Op], failure: Sequence[Op]
) -> TxnResult:
    """:func:`execute` for any shape (the fast path must agree with it: tests/store)."""
    for c in compare:
        check_compare(c)
    then_ops, else_ops = prepare_branch(success), prepare_branch(failure)
    ok = all(_holds(store, c) for c in compare)
    tw = WriteTxn(store)
    responses = [_apply(tw, op) for op in (then_ops if ok else else_ops)]
    rev = tw.end()
    fixed = tuple(r if r.revision == rev else replace(r, revision=rev) for r in responses)
    return TxnResult(ok, rev, fixed)
