"""Stateful property test: the store against a plain reference model (dicts + history list), on
both backends: ``MemoryStore`` and ``EtcdStore`` on a fresh etcd per example.

Rules are the store's verbs (put, delete_range, txn, compact, watch, poll, read at a revision,
snapshot/restore); values are short or long and related (long ones are kept as deltas once
superseded); a tiny ``max_backlog`` makes slow watchers go unsynced all the time. Invariants:
revisions never decrease, the current state matches the model, a read at a past revision equals what
was current then, errors happen exactly where the model says, a watch replay from ``r`` applied to
the state at ``r`` gives the current state, and a snapshot restores to an indistinguishable store.

On etcd the machine settles after every step that writes or watches (``EtcdStore.settle``: etcd's
stream delivers shortly after the write, ``MemoryStore`` synchronously), keeps etcd's default
``max_backlog`` (eviction there is covered by test_etcd_watch.py) and skips the two memory-only
parts: ``MemoryStore``'s snapshot format and its ``check_invariants``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from kbatch.store import (
    CompactedError,
    Compare,
    DeleteOp,
    DuplicateKeyError,
    EventType,
    FutureRevisionError,
    KeyValue,
    MemoryStore,
    PutOp,
    RangeOp,
    pending_batches,
    prefix_end,
)

KEYS = [b"a", b"ab", b"abc", b"b", b"ba", b"c"]
Row = tuple[bytes, int, int, int]  # value, create, mod, version
State = dict[bytes, Row]

keys = st.sampled_from(KEYS)
BODY = bytes(range(256)) * 2
values = st.binary(max_size=3) | st.builds(  # long values sharing prefixes/suffixes: stored as deltas
    lambda head, mid, tail: BODY[:head] + mid + BODY[len(BODY) - tail :],
    st.integers(0, len(BODY)),
    st.binary(max_size=40),
    st.integers(0, len(BODY)),
)


@st.composite
def key_ranges(draw: st.DrawFn) -> tuple[bytes, bytes | None]:
    key = draw(keys)
    kind = draw(st.sampled_from(["single", "prefix", "interval", "from"]))
    if kind == "single":
        return key, None
    if kind == "prefix":
        return key, prefix_end(key)
    if kind == "from":
        return key, b"\0"
    return key, draw(keys)


def in_range(k: bytes, start: bytes, end: bytes | None) -> bool:
    if end is None:
        return k == start
    return start <= k and (end == b"\0" or k < end)


def rows(kvs: tuple[KeyValue, ...] | list[KeyValue]) -> State:
    return {kv.key: (kv.value, kv.create_revision, kv.mod_revision, kv.version) for kv in kvs}


compares = st.builds(
    Compare,
    keys,
    st.sampled_from(["version", "create", "mod"]),
    st.sampled_from(["=", "!=", "<", ">"]),
    st.integers(0, 6),
) | st.builds(
    lambda k, op, v: Compare.value_is(k, op, v), keys, st.sampled_from(["=", "!=", "<", ">"]), values
)

ops = st.one_of(
    st.builds(PutOp, keys, values, st.booleans()),
    st.builds(lambda r, p: DeleteOp(r[0], r[1], p), key_ranges(), st.booleans()),
    st.builds(lambda r: RangeOp(r[0], r[1]), key_ranges()),
)


@dataclass
class ModelWatch:
    handle: object
    start: bytes
    end: bytes | None
    first: int
    got: list[tuple[int, bytes, EventType, bytes]] = field(default_factory=list)
    cancelled: bool = False
    woken: bool = False  # set by the notify callback, cleared by each poll
    # etcd's compaction drops a tombstone at exactly the compacted revision (MemoryStore keeps it
    # until the next compaction: docs/store.md), so a replay from there starts without it
    no_delete_at: int | None = None


class StoreMachine(RuleBasedStateMachine):
    # a replay of at most 2 events a poll: catching up takes several polls (pending_batches)
    new_store: Callable[[], Any] = staticmethod(lambda: MemoryStore(max_backlog=1, catch_up_batch=2))
    memory = True  # MemoryStore's own parts: its snapshot format and check_invariants

    def __init__(self) -> None:
        super().__init__()
        self.store = self.new_store()
        self.states: list[State] = [{}, {}]  # states[r] = state at revision r (index 0 unused)
        self.events: list[tuple[int, bytes, EventType, bytes]] = []
        self.compacted = 0
        self.last_seen_revision = 1
        self.watches: list[ModelWatch] = []
        self.tmp = tempfile.TemporaryDirectory()

    def teardown(self) -> None:
        self.tmp.cleanup()
        close = getattr(self.store, "close", None)
        if close is not None:
            close()

    def settle(self) -> None:
        """Wait until every watcher has every committed event (a no-op for MemoryStore)."""
        wait = getattr(self.store, "settle", None)
        if wait is not None:
            wait()

    @property
    def rev(self) -> int:
        return len(self.states) - 1

    # -- model ---------------------------------------------------------------------------------

    def model_apply(self, writes: list[tuple[str, bytes, bytes | None, bytes]]) -> None:
        """Apply one transaction's writes: ("put", key, None, value) | ("del", start, end, b"")."""
        state = dict(self.states[-1])
        rev = self.rev + 1
        new_events = []
        for kind, a, b, value in writes:
            if kind == "put":
                old = state.get(a)
                state[a] = (value, old[1], rev, old[3] + 1) if old else (value, rev, rev, 1)
                new_events.append((rev, a, EventType.PUT, value))
            else:
                for k in sorted(k for k in state if in_range(k, a, b)):
                    del state[k]
                    new_events.append((rev, k, EventType.DELETE, b""))
        if new_events:
            self.states.append(state)
            self.events.extend(new_events)

    def model_holds(self, c: Compare) -> bool:
        row = self.states[-1].get(c.key)
        ops = {
            "=": lambda x, y: x == y,
            "!=": lambda x, y: x != y,
            "<": lambda x, y: x < y,
            ">": lambda x, y: x > y,
        }
        if c.target == "value":
            return row is not None and ops[c.op](row[0], c.value)
        actual = 0 if row is None else {"create": row[1], "mod": row[2], "version": row[3]}[c.target]
        return ops[c.op](actual, c.value)

    # -- writes --------------------------------------------------------------------------------

    @rule(key=keys, value=values)
    def put(self, key: bytes, value: bytes) -> None:
        prev = self.states[-1].get(key)
        res = self.store.put(key, value, prev_kv=True)
        self.settle()
        self.model_apply([("put", key, None, value)])
        assert res.revision == self.rev
        assert (rows([res.prev_kv]) if res.prev_kv else {}) == ({key: prev} if prev else {})

    @rule(r=key_ranges())
    def delete_range(self, r: tuple[bytes, bytes | None]) -> None:
        before = self.states[-1]
        want = {k: v for k, v in before.items() if in_range(k, *r)}
        res = self.store.delete_range(r[0], r[1], prev_kv=True)
        self.settle()
        self.model_apply([("del", r[0], r[1], b"")])
        assert res.deleted == len(want) and rows(res.prev_kvs) == want
        assert res.revision == self.rev

    @rule(
        compare=st.lists(compares, max_size=2),
        success=st.lists(ops, max_size=3),
        failure=st.lists(ops, max_size=2),
    )
    def txn(self, compare: list[Compare], success: list, failure: list) -> None:
        if _has_duplicate(success) or _has_duplicate(failure):
            before = self.store.revision
            try:
                self.store.txn(compare, success, failure)
            except DuplicateKeyError:
                assert self.store.revision == before
                return
            raise AssertionError("a txn writing one key twice was accepted")
        ok = all(self.model_holds(c) for c in compare)
        res = self.store.txn(compare, success, failure)
        self.settle()
        assert res.succeeded is ok
        writes = []
        for op in success if ok else failure:
            if isinstance(op, PutOp):
                writes.append(("put", op.key, None, op.value))
            elif isinstance(op, DeleteOp):
                writes.append(("del", op.key, op.range_end, b""))
        self.model_apply(writes)
        assert res.revision == self.rev

    # -- compaction and reads ------------------------------------------------------------------

    @rule(data=st.data())
    def compact(self, data: st.DataObject) -> None:
        r = data.draw(st.integers(max(0, self.compacted - 1), self.rev + 1), label="compact_at")
        if r <= self.compacted or r > self.rev:
            error = CompactedError if r <= self.compacted else FutureRevisionError
            try:
                self.store.compact(r)
            except error:
                return
            raise AssertionError(f"compact({r}) should fail")
        self.store.compact(r)
        self.compacted = r

    @rule(data=st.data(), r=key_ranges())
    def read_at_revision(self, data: st.DataObject, r: tuple[bytes, bytes | None]) -> None:
        at = data.draw(st.integers(max(1, self.compacted - 1), self.rev + 1), label="revision")
        try:
            got = self.store.range(r[0], r[1], revision=at)
        except CompactedError:
            assert at < self.compacted
            return
        except FutureRevisionError:
            assert at > self.rev
            return
        assert self.compacted <= at <= self.rev
        want = {k: v for k, v in self.states[at].items() if in_range(k, *r)}
        assert rows(got.kvs) == want and got.count == len(want)
        assert [kv.key for kv in got.kvs] == sorted(want)

    @rule()
    def every_retained_revision_reads_back_exactly(self) -> None:
        """Superseded values are kept as deltas: each must rebuild byte-exact, at every revision."""
        for at in range(max(1, self.compacted), self.rev + 1):
            assert rows(self.store.range(b"\0", b"\0", revision=at).kvs) == self.states[at]

    # -- watches -------------------------------------------------------------------------------

    @rule(data=st.data(), r=key_ranges())
    def watch(self, data: st.DataObject, r: tuple[bytes, bytes | None]) -> None:
        start = data.draw(st.integers(max(1, self.compacted - 1), self.rev + 2), label="start_revision")
        try:
            handle = self.store.watch(r[0], r[1], start_revision=start)
        except CompactedError:
            assert start < self.compacted
            return
        assert start >= self.compacted
        mw = ModelWatch(handle, r[0], r[1], start,
                        no_delete_at=start if not self.memory and start == self.compacted else None)
        handle.set_notify(lambda: setattr(mw, "woken", True))
        self.watches.append(mw)
        self.settle()

    @precondition(lambda self: self.watches)
    @rule(data=st.data())
    def poll(self, data: st.DataObject) -> None:
        w = data.draw(st.sampled_from(self.watches), label="watcher")
        if w.cancelled:
            return
        w.woken = False
        drain = data.draw(st.booleans(), label="drain")  # every batch, or a single poll
        try:
            for evs in pending_batches(w.handle) if drain else [w.handle.poll()]:  # type: ignore[attr-defined]
                self.check_batch(evs)
                w.got.extend((e.kv.mod_revision, e.kv.key, e.type, e.kv.value) for e in evs)
        except CompactedError as e:
            # cancelled only if it still needed history that compaction dropped; it got all before
            assert e.requested < e.compact_revision <= self.compacted
            assert w.got == self.expected(w, upto=e.requested - 1)
            w.cancelled = True
            return
        expected = self.expected(w, upto=self.rev)
        assert w.got == (expected if drain else expected[: len(w.got)])  # a single poll: a prefix

    def check_batch(self, evs: list[Any]) -> None:
        """A poll replays at most ``catch_up_batch`` events, plus the rest of the last one's
        revision (a transaction is never split); a synced watcher is at most ``max_backlog`` behind."""
        limit = getattr(self.store, "catch_up_batch", None)
        if limit is None or len(evs) <= max(limit, self.store.max_backlog):
            return
        assert {e.kv.mod_revision for e in evs[limit - 1 :]} == {evs[limit - 1].kv.mod_revision}

    def expected(self, w: ModelWatch, upto: int) -> list[tuple[int, bytes, EventType, bytes]]:
        return [e for e in self.events if w.first <= e[0] <= upto and in_range(e[1], w.start, w.end)
                and not (e[0] == w.no_delete_at and e[2] is EventType.DELETE)]

    @rule(data=st.data())
    def watch_replay_rebuilds_current_state(self, data: st.DataObject) -> None:
        r = data.draw(st.integers(max(1, self.compacted), self.rev), label="replay_from")
        state = rows(self.store.range(b"\0", b"\0", revision=r).kvs)
        w = self.store.watch(b"\0", b"\0", start_revision=r + 1)
        self.settle()
        for ev in [ev for batch in pending_batches(w) for ev in batch]:
            if ev.type is EventType.PUT:
                state[ev.kv.key] = (ev.kv.value, ev.kv.create_revision, ev.kv.mod_revision, ev.kv.version)
            else:
                del state[ev.kv.key]
        w.close()
        assert state == self.states[-1]

    # -- snapshot ------------------------------------------------------------------------------

    @precondition(lambda self: self.memory)
    @rule()
    def snapshot_restore_round_trips(self) -> None:
        path = os.path.join(self.tmp.name, "store.snap")
        self.store.snapshot(path)
        other = MemoryStore()
        other.restore(path)
        other.check_invariants()
        assert (other.revision, other.compact_revision) == (self.store.revision, self.store.compact_revision)
        low = max(1, self.compacted)
        for at in range(low, self.rev + 1):
            assert other.range(b"\0", b"\0", revision=at) == self.store.range(b"\0", b"\0", revision=at)
        a = self.store.watch(b"\0", b"\0", start_revision=low, prev_kv=True)
        b = other.watch(b"\0", b"\0", start_revision=low, prev_kv=True)
        assert [e for x in pending_batches(a) for e in x] == [e for x in pending_batches(b) for e in x]
        a.close()

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def revision_never_decreases_and_matches_model(self) -> None:
        assert self.store.revision >= self.last_seen_revision
        self.last_seen_revision = self.store.revision
        assert self.store.revision == self.rev
        assert self.store.compact_revision == self.compacted

    @invariant()
    def notify_never_silent_while_events_wait(self) -> None:
        for w in self.watches:
            if not w.cancelled and self.expected(w, upto=self.rev) != w.got:
                assert w.woken, f"watcher {w.handle} has pending events but was not notified"

    @invariant()
    def internal_structures_are_consistent(self) -> None:
        if self.memory:
            self.store.check_invariants()

    @precondition(lambda self: self.watches)
    @rule(data=st.data())
    def close_watch(self, data: st.DataObject) -> None:
        w = data.draw(st.sampled_from(self.watches), label="watcher")
        w.handle.close()  # type: ignore[attr-defined]
        self.watches.remove(w)

    @invariant()
    def current_state_matches_model(self) -> None:
        assert rows(self.store.range(b"\0", b"\0").kvs) == self.states[-1]

    @initialize()
    def start(self) -> None:
        assert self.store.revision == 1


def _has_duplicate(ops: list) -> bool:
    puts = [op.key for op in ops if isinstance(op, PutOp)]
    if len(set(puts)) < len(puts):
        return True
    dels = [op for op in ops if isinstance(op, DeleteOp)]
    return any(in_range(k, d.key, d.range_end) for k in puts for d in dels)


StoreMachine.TestCase.settings = settings(
    max_examples=300,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestStoreMachine = StoreMachine.TestCase


def test_store_machine_on_etcd(etcd_factory: Callable[..., Any]) -> None:
    """The same machine on a real etcd: a fresh etcd per example, so revisions start at 1."""
    from kbatch.store import EtcdStore

    class EtcdStoreMachine(StoreMachine):
        memory = False
        new_store = staticmethod(lambda: EtcdStore(etcd_factory().url))

    run_state_machine_as_test(EtcdStoreMachine, settings=settings(
        max_examples=25, stateful_step_count=25, deadline=None,
        suppress_health_check=[HealthCheck.too_slow]))
