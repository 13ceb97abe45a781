"""``EtcdStore``: the ``KV`` protocol on a real etcd v3 (kube-apiserver's storage backend).

Every call is one etcd RPC (``Range``, ``Put``, ``DeleteRange``, ``Txn``, ``Compact``); revisions,
``create_revision``/``mod_revision``/``version``, compare-and-swap and compaction are etcd's own.
Arguments are checked here exactly as ``MemoryStore`` checks them (same helpers, same errors) before
anything is sent, so a bad request changes nothing on either backend. Watches share one gRPC stream
(``stream.py``); each is an :class:`~kbatch.store.etcd.watcher.EtcdWatcher`.

What etcd does not tell directly, and how the store learns it:

* ``revision``: a one-key ``count_only`` range; its header carries the current revision.
* ``compact_revision``: etcd reports no compaction point, only ``ErrCompacted`` for reads below it.
  The store remembers its own compactions and finds the point by bisection over "is revision r still
  readable" (a ``count_only`` range at ``r``) at start and whenever etcd says ``ErrCompacted``. A
  compaction made by another process is thus learned when a read or watch runs into it; until then
  ``compact_revision`` may be lower than etcd's, never higher.
* a watch's start below the compaction: etcd accepts the watch and cancels it in a second message,
  so ``watch()`` first reads at the start revision and raises ``CompactedError`` as ``MemoryStore``
  does.

Thread-safe: the API server and the leader elector use one store from different threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
import threading
from collections.abc import Sequence

from pyetcd import etcdrpc

from kbatch.store.errors import CompactedError, FutureRevisionError, UnavailableError
from kbatch.store.etcd import convert
from kbatch.store.etcd.endpoints import grpc_target, parse_endpoints
from kbatch.store.etcd.rpc import Connection, RpcCompacted
from kbatch.store.etcd.stream import WatchStream
from kbatch.store.etcd.watcher import EtcdWatcher
from kbatch.store.keyrange import as_bytes, key_range
from kbatch.store.kv import Compare, DeleteResult, Op, PutResult, RangeResult, TxnResult
from kbatch.store.records import make_txn_result
from kbatch.store.snapshot import SnapshotError, write_atomically
from kbatch.store.txn import check_compare, prepare_branch

__all__ = ["DEFAULT_TIMEOUT", "ETCD_MAX_BACKLOG", "EtcdStore"]

DEFAULT_TIMEOUT = 5.0
"""Seconds an etcd request may take before it fails with ``UnavailableError`` (kube-apiserver's
etcd client uses the same order of magnitude for its dial and request timeouts)."""

ETCD_MAX_BACKLOG = 10_000
"""Events a watcher may buffer before it is evicted (``MemoryStore``'s slow-consumer rule). Larger
than ``MemoryStore``'s default: an evicted etcd watcher is re-created over the network, where a
``MemoryStore`` one replays local history."""

_PROBE_KEY = b"\0"  # any key: a count-only read of it is the cheapest request that carries a header
_RECONNECT_FIRST, _RECONNECT_MAX = 0.05, 2.0


class EtcdStore:
    """``EtcdStore("http://127.0.0.1:2379")``: implements ``kbatch.store.kv.KV`` on etcd.

    ``servers`` is kube-apiserver's ``--etcd-servers`` (comma-separated ``http://HOST:PORT`` URLs).
    Construction reads etcd once and raises ``UnavailableError`` if it cannot be reached.
    """

    def __init__(self, servers: str | Sequence[str] = "http://127.0.0.1:2379", *,
                 timeout: float = DEFAULT_TIMEOUT, max_backlog: int = ETCD_MAX_BACKLOG) -> None:
        if max_backlog < 1:
            raise ValueError(f"max_backlog must be >= 1, got {max_backlog}")
        self.servers = servers if isinstance(servers, str) else ",".join(servers)
        self.max_backlog = max_backlog
        self._conn = Connection(grpc_target(parse_endpoints(servers)), timeout)
        self._stream = WatchStream(self._conn)
        self._home: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._watchers: dict[int, EtcdWatcher] = {}
        self._ids = itertools.count(1)
        self._settle = threading.Condition()
        self._broken: list[EtcdWatcher] = []
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._reconnector: threading.Thread | None = None
        self._compacted = 0
        self._compacted = self._find_compaction(self.revision)

    # -- KV ----------------------------------------------------------------------------------------
    @property
    def revision(self) -> int:
        probe = etcdrpc.RangeRequest(key=_PROBE_KEY, count_only=True)
        return self._conn.call(self._conn.kv.Range, probe).header.revision

    @property
    def compact_revision(self) -> int:
        """The last compaction this store knows of (see the module docstring)."""
        return self._compacted

    def range(self, key: bytes, range_end: bytes | None = None, *, revision: int | None = None,
              limit: int | None = None, keys_only: bool = False, count_only: bool = False) -> RangeResult:
        start, end = key_range(key, range_end)
        if revision is not None and revision < 0:
            raise ValueError(f"revision must be >= 0, got {revision}")
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        request = convert.range_request(start, end, revision or 0, limit, keys_only, count_only)
        resp = self._call(self._conn.kv.Range, request, revision or 0)
        return convert.range_result(resp, resp.header.revision, count_only)

    def put(self, key: bytes, value: bytes, prev_kv: bool = False) -> PutResult:
        start, _ = key_range(key, None)
        resp = self._call(self._conn.kv.Put, convert.put_request(start, as_bytes(value, "value"), prev_kv))
        return convert.put_result(resp, resp.header.revision)

    def delete_range(self, key: bytes, range_end: bytes | None = None, prev_kv: bool = False) -> DeleteResult:
        start, end = key_range(key, range_end)
        resp = self._call(self._conn.kv.DeleteRange, convert.delete_request(start, end, prev_kv))
        return convert.delete_result(resp, resp.header.revision)

    def txn(self, compare: Sequence[Compare] = (), success: Sequence[Op] = (),
            failure: Sequence[Op] = ()) -> TxnResult:
        for c in compare:
            check_compare(c)
        then_ops, else_ops = prepare_branch(success), prepare_branch(failure)
        resp = self._call(self._conn.kv.Txn, convert.txn_request(compare, then_ops, else_ops))
        rev = resp.header.revision
        ops = then_ops if resp.succeeded else else_ops
        return make_txn_result(resp.succeeded, rev, convert.txn_responses(resp, ops, rev))

    def compact(self, revision: int) -> None:
        """etcd's ``Compact``: history below ``revision`` is gone for every client of this etcd.

        ``physical``: the call returns once the compaction is applied to etcd's backend. Without it
        etcd answers first and drops the compacted history in the background, so a watch started at
        ``revision`` right after may or may not replay a tombstone written at exactly ``revision``
        (seen as a flaky replay in the store's state machine test); with it, the answer is the same
        every time."""
        if type(revision) is not int:
            raise TypeError(f"revision must be an int, got {type(revision).__name__}")
        if revision <= self._compacted:  # etcd takes a first compaction at 0 (its start is -1)
            raise CompactedError(revision, self._compacted)
        request = etcdrpc.CompactionRequest(revision=revision, physical=True)
        self._call(self._conn.kv.Compact, request, revision)
        self._compacted = max(self._compacted, revision)

    def snapshot(self, path: str) -> None:
        """Write etcd's own snapshot (its backend database, ``Maintenance.Snapshot``) to ``path``
        atomically: ``etcdctl snapshot restore`` (``etcdutl`` from etcd 3.5) turns it into a data
        directory. It is not a ``MemoryStore`` snapshot."""
        timeout = max(self._conn.timeout, 60.0)
        stream = self._conn.maintenance.Snapshot(etcdrpc.SnapshotRequest(), timeout=timeout)
        try:
            write_atomically(path, (chunk.blob for chunk in stream))
        except Exception as err:
            if isinstance(err, OSError):
                raise
            raise UnavailableError(f"etcd snapshot failed: {err}") from None

    def restore(self, path: str) -> None:
        """A live etcd cannot be replaced in place: stop it, run ``etcdctl snapshot restore PATH
        --data-dir NEW`` and start etcd on the new data directory (etcd's disaster-recovery guide)."""
        raise SnapshotError(f"cannot restore {path} into a running etcd: stop etcd, run `etcdctl snapshot "
                            "restore` into a new data directory and start etcd on it")

    # -- watch -------------------------------------------------------------------------------------
    def watch(self, key: bytes, range_end: bytes | None = None, start_revision: int | None = None,
              prev_kv: bool = False) -> EtcdWatcher:
        start, end = key_range(key, range_end)
        if start_revision is not None and start_revision < 0:
            raise ValueError(f"start_revision must be >= 0, got {start_revision}")
        if start_revision:
            self._check_watch_start(start_revision)
        w = EtcdWatcher(self, next(self._ids), start, convert.wire_range(start, end), bool(prev_kv),
                        start_revision or 0)
        if end is not None and end <= start:  # matches no key: etcd refuses such a watch
            w.state = "inert"
            w.received_next = w.delivered_next = start_revision or self.revision + 1
        else:
            self._create(w, start_revision or 0)
        with self._lock:
            self._watchers[w.id] = w
        return w

    def _check_watch_start(self, start: int) -> None:
        if start < self._compacted:
            raise CompactedError(start, self._compacted)
        with contextlib.suppress(FutureRevisionError):  # a future start waits, as in MemoryStore
            self.range(_PROBE_KEY, revision=start, count_only=True)

    def _create(self, w: EtcdWatcher, start: int) -> None:
        request = etcdrpc.WatchCreateRequest(key=w.key, range_end=w.range_end, start_revision=start,
                                             prev_kv=w.prev_kv, progress_notify=True)
        with w.lock:
            w.state = "live"
            w.catch_up_to = sys.maxsize  # until etcd says where its replay of history ends
        try:
            etcd_id, header = self._stream.create(request, w)
        except BaseException:
            with w.lock:
                if w.state == "live":
                    w.state = "new"
            raise
        with w.lock:
            if w.state == "live" and w.etcd_id is None:
                w.etcd_id = etcd_id
                w.catch_up_to = header
                if not start:  # "from now on": the first revision is the one after etcd's answer
                    w.received_next = max(w.received_next, header + 1)
                    w.delivered_next = w.delivered_next or header + 1
                return
        self._stream.cancel(etcd_id)  # closed, failed or evicted while etcd was creating it

    def _rewatch(self, w: EtcdWatcher, evicted: bool = False) -> None:
        """Watch again from ``received_next`` (a broken or evicted watcher); a compacted start fails
        the watcher, an unreachable etcd hands it to the reconnect thread."""
        with w.lock:
            if w.state != ("evicted" if evicted else "broken"):
                return
            start = w.received_next
        try:
            self._check_watch_start(start)
            self._create(w, start)
        except CompactedError as err:
            w.fail(err)
        except UnavailableError:
            with w.lock:
                w.state = "broken"
            self._reconnect(w)

    def _forget(self, w: EtcdWatcher, etcd_id: int | None) -> None:
        with self._lock:
            self._watchers.pop(w.id, None)
        if etcd_id is not None:
            self._stream.cancel(etcd_id)

    # -- reconnecting (after etcd went away) -------------------------------------------------------
    def _reconnect(self, w: EtcdWatcher) -> None:
        with self._lock:
            self._broken.append(w)
            if self._reconnector is None:
                self._reconnector = threading.Thread(target=self._reconnect_loop, daemon=True,
                                                     name="kbatch-etcd-reconnect")
                self._reconnector.start()
        self._wake.set()

    def _reconnect_loop(self) -> None:
        delay = _RECONNECT_FIRST
        while not self._stopped.is_set():
            self._wake.wait()
            with self._lock:
                batch, self._broken = sorted(self._broken, key=lambda w: w.id), []
                self._wake.clear()
            for w in batch:
                if self._stopped.is_set():
                    return
                self._rewatch(w)
            with self._lock:
                again = bool(self._broken)
            if again:  # etcd still away: back off before the next round
                self._stopped.wait(delay)
                delay = min(delay * 2, _RECONNECT_MAX)
                self._wake.set()
            else:
                delay = _RECONNECT_FIRST

    # -- helpers -----------------------------------------------------------------------------------
    def _call(self, method, request, requested: int = 0):  # type: ignore[no-untyped-def]
        try:
            return self._conn.call(method, request, requested)
        except RpcCompacted as err:
            self._compacted = self._find_compaction(self.revision)
            raise CompactedError(err.requested, self._compacted) from None
        except FutureRevisionError as err:
            raise FutureRevisionError(err.requested, self.revision) from None

    def _readable(self, revision: int) -> bool:
        try:
            self._conn.call(self._conn.kv.Range,
                            etcdrpc.RangeRequest(key=_PROBE_KEY, count_only=True, revision=revision))
        except RpcCompacted:
            return False
        return True

    def _find_compaction(self, current: int) -> int:
        """The smallest readable revision (etcd's compaction point), by bisection from the last
        known one; 0 when revision 1 is still readable."""
        low, high = max(self._compacted, 1), current
        if self._readable(low):
            return self._compacted
        while low < high:  # invariant: low is not readable, high is
            mid = (low + high) // 2
            if mid == low:
                break
            if self._readable(mid):
                high = mid
            else:
                low = mid
        return high

    def _progressed(self) -> None:
        with self._settle:
            self._settle.notify_all()

    # -- beyond the KV protocol --------------------------------------------------------------------
    def bind_event_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Deliver watch notifications to ``loop`` (``call_soon_threadsafe``) for watchers that have
        not been used from an event loop themselves (see ``watcher.py``)."""
        self._home = loop

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until every open watcher has received every event up to the current revision
        (tests use it where ``MemoryStore`` delivers synchronously). Watchers that saw no event need
        etcd's periodic progress notification (``--experimental-watch-progress-notify-interval``,
        10 minutes by default: tests start etcd with a short one). ``TimeoutError`` otherwise."""
        revision = self.revision
        while True:  # again if a notify callback wrote meanwhile
            self._settle_at(revision, timeout)
            now = self.revision
            if now == revision:
                return
            revision = now

    def _settle_at(self, revision: int, timeout: float) -> None:
        with self._lock:
            watchers = list(self._watchers.values())
        with self._settle:
            if not self._settle.wait_for(lambda: all(w.settled(revision) for w in watchers), timeout):
                late = [w for w in watchers if not w.settled(revision)]
                raise TimeoutError(f"watchers not caught up with revision {revision} in {timeout}s: {late}")

    def close(self) -> None:
        """Close every watcher and the connection."""
        self._stopped.set()
        self._wake.set()
        with self._lock:
            watchers = list(self._watchers.values())
        for w in watchers:
            w.close()
        self._stream.close()
        self._conn.close()

    def __repr__(self) -> str:
        return f"EtcdStore({self.servers!r})"
