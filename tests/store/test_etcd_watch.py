"""EtcdStore's own watch machinery against a real etcd: slow consumers, compaction under a slow
watcher, etcd killed and restarted (SIGKILL) mid-run, notify on an asyncio loop, 503-style errors.

Counterparts of the ``MemoryStore``-only tests in test_store_watch.py: the contract is the same
(nothing lost or repeated, ``CompactedError`` when history is gone), the mechanics are etcd's pushed
stream, so these tests settle (``EtcdStore.settle``) instead of expecting a synchronous delivery.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from kbatch.store import CompactedError, EventType, UnavailableError, prefix_end
from kbatch.store.etcd import EtcdStore
from kbatch.testing.etcd import EtcdProcess


def values(events: list[Any]) -> list[bytes]:
    return [e.kv.value for e in events]


def drain(store: EtcdStore, watcher: Any, want: int, rounds: int = 50) -> list[Any]:
    """Poll (settling between polls) until ``want`` events arrived; an evicted watcher's first poll
    watches again and returns nothing, the events follow."""
    got: list[Any] = []
    for _ in range(rounds):
        store.settle()
        got += watcher.poll()
        if len(got) >= want:
            return got
    raise AssertionError(f"only {len(got)} of {want} events arrived")


@pytest.fixture
def etcd_store(etcd: EtcdProcess) -> Any:
    store = EtcdStore(etcd.url)
    yield store
    store.close()


def test_slow_watcher_is_evicted_and_catches_up_without_loss(etcd: EtcdProcess) -> None:
    s = EtcdStore(etcd.url, max_backlog=10)
    slow = s.watch(b"k", prefix_end(b"k"))
    fast = s.watch(b"k", prefix_end(b"k"))
    got_fast: list[Any] = []
    for i in range(300):
        s.put(b"k%d" % (i % 7), b"v%d" % i)
        if i % 5 == 0:
            s.settle()
            got_fast += fast.poll()
    s.settle()
    got_fast += fast.poll()
    assert slow.state == "evicted" and len(slow.buffer) == 0  # memory stays bounded
    got_slow = drain(s, slow, 300)
    assert got_slow == got_fast and values(got_slow) == [b"v%d" % i for i in range(300)]
    s.put(b"k1", b"after")
    s.settle()
    assert values(slow.poll()) == [b"after"]
    s.close()


def test_compaction_under_a_slow_watcher_raises_compacted_after_what_it_had(etcd: EtcdProcess) -> None:
    s = EtcdStore(etcd.url, max_backlog=5)
    woken = threading.Event()
    behind = s.watch(b"a", start_revision=1)
    behind.set_notify(woken.set)
    for i in range(50):
        s.put(b"a", b"%d" % i)
    s.settle()
    assert woken.is_set() and behind.state == "evicted"
    s.compact(s.revision)
    with pytest.raises(CompactedError) as err:
        behind.poll()
    assert err.value.requested == 1 and err.value.compact_revision == s.revision
    with pytest.raises(CompactedError):
        behind.poll()
    s.close()


def test_buffered_events_are_delivered_before_the_compaction_error(etcd_store: EtcdStore) -> None:
    s = etcd_store
    w = s.watch(b"a")
    s.put(b"a", b"1")
    s.settle()
    w.fail(CompactedError(3, 3))  # as etcd's cancel of a watch whose history went
    assert values(w.poll()) == [b"1"]
    with pytest.raises(CompactedError):
        w.poll()


def test_etcd_killed_and_restarted_loses_no_acknowledged_write_and_watch_resumes(etcd: EtcdProcess) -> None:
    s = EtcdStore(etcd.url)
    w = s.watch(b"k/", prefix_end(b"k/"))
    acked = []
    for i in range(20):
        acked.append(s.put(b"k/%d" % i, b"v%d" % i).revision)
    etcd.kill()
    with pytest.raises(UnavailableError):
        s.put(b"k/lost", b"x")
    etcd.start()
    written = False
    for _ in range(100):  # until the channel has reconnected (gRPC back-off, at most 1 s)
        try:
            s.put(b"k/after", b"y")
            written = True
            break
        except UnavailableError:
            threading.Event().wait(0.05)
    assert written
    kvs = s.range(b"k/", prefix_end(b"k/")).kvs
    assert {kv.key for kv in kvs} >= {b"k/%d" % i for i in range(20)}
    assert {kv.mod_revision for kv in kvs if kv.key != b"k/after"} == set(acked)
    events = drain(s, w, 21)
    assert [e.kv.key for e in events] == [b"k/%d" % i for i in range(20)] + [b"k/after"]
    assert all(e.type is EventType.PUT for e in events)
    s.close()


def _reconnected(store: EtcdStore) -> None:
    """Wait (up to 10 s) until the store's channel is connected again: requests fail fast meanwhile."""
    grpc.channel_ready_future(store._conn.channel).result(timeout=10)


def _serving(url: str) -> None:
    """Wait (up to 10 s) until etcd at ``url`` accepts a gRPC connection."""
    with grpc.insecure_channel(url.split("://", 1)[-1]) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)


def test_watch_broken_while_etcd_is_down_resumes_or_reports_compaction(etcd: EtcdProcess) -> None:
    s = EtcdStore(etcd.url)
    w = s.watch(b"a")
    etcd.kill()
    etcd.start()
    _serving(etcd.url)  # the restarted etcd may refuse a moment longer: a new store fails fast meanwhile
    other = EtcdStore(etcd.url)
    _reconnected(other)
    for i in range(5):
        other.put(b"a", b"%d" % i)
    assert values(drain(s, w, 5)) == [b"0", b"1", b"2", b"3", b"4"]
    etcd.kill()
    etcd.start()
    _reconnected(other)  # its channel may still be in gRPC's reconnect back-off (at most 1 s)
    for i in range(5):
        other.put(b"a", b"later%d" % i)
    other.compact(other.revision)  # the history the broken watch would resume from is gone
    s.settle()
    events: list[Any] = []
    with pytest.raises(CompactedError):
        for _ in range(50):
            events += w.poll()
            s.settle()
    assert len(events) <= 5  # whatever arrived before the compaction, never a duplicate
    other.close()
    s.close()


def test_notify_runs_on_the_consumers_event_loop(etcd_store: EtcdStore) -> None:
    s = etcd_store
    w = s.watch(b"a")
    threads: list[str] = []

    async def main() -> None:
        woken = asyncio.Event()

        def notify() -> None:
            threads.append(threading.current_thread().name)
            woken.set()

        w.set_notify(notify)  # captures this loop
        await asyncio.get_running_loop().run_in_executor(None, s.put, b"a", b"1")
        await asyncio.wait_for(woken.wait(), 10)

    asyncio.run(main())
    assert threads == [threading.main_thread().name]
    assert values(w.poll()) == [b"1"]


def test_requests_fail_fast_with_unavailable_while_etcd_is_down(etcd: EtcdProcess) -> None:
    s = EtcdStore(etcd.url, timeout=2.0)
    etcd.kill()
    for call in (lambda: s.range(b"a"), lambda: s.put(b"a", b"1"), lambda: s.watch(b"a"),
                 lambda: s.revision):
        with pytest.raises(UnavailableError):
            call()
    s.close()


def test_constructing_a_store_without_etcd_is_a_clear_error(etcd_factory: Callable[..., EtcdProcess]) -> None:
    e = etcd_factory()
    url = e.url
    e.kill()
    with pytest.raises(UnavailableError, match="etcd is unavailable"):
        EtcdStore(url, timeout=2.0)


def test_another_process_compaction_is_learned_when_a_read_runs_into_it(etcd: EtcdProcess) -> None:
    a, b = EtcdStore(etcd.url), EtcdStore(etcd.url)
    for i in range(10):
        a.put(b"x", b"%d" % i)
    b.compact(8)
    assert a.compact_revision == 0  # not told yet
    with pytest.raises(CompactedError) as err:
        a.range(b"x", revision=3)
    assert err.value.compact_revision == 8 == a.compact_revision
    a.close()
    b.close()


def test_snapshot_writes_etcds_backend_database_and_restore_explains_the_procedure(
        etcd_store: EtcdStore, tmp_path: Any) -> None:
    from kbatch.store import SnapshotError

    etcd_store.put(b"a", b"1")
    path = tmp_path / "etcd.db"
    etcd_store.snapshot(str(path))
    assert path.stat().st_size > 0 and len(list(tmp_path.iterdir())) == 1
    with pytest.raises(SnapshotError, match="etcdctl snapshot restore"):
        etcd_store.restore(str(path))


def test_closing_the_store_ends_its_watch_reader_before_returning(etcd: EtcdProcess) -> None:
    """A daemon reader still inside gRPC's call when the interpreter exits is frozen holding the call's
    lock, and the call's ``__del__`` in the last garbage collection then waits for it forever (a
    ``kbatch serve --etcd-servers`` hung after "stopped"): ``close`` returns only once the reader is
    gone."""
    def readers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "kbatch-etcd-watch" and t.is_alive()]

    before = readers()
    s = EtcdStore(etcd.url)
    w = s.watch(b"k", prefix_end(b"k"))
    s.put(b"k1", b"v")
    s.settle()
    assert values(w.poll()) == [b"v"] and len(readers()) == len(before) + 1
    s.close()
    assert readers() == before
