"""Benchmarks of kbatch.store.MemoryStore against the targets of issue 2.

Run: ``python benchmarks/store_bench.py``. Single thread. Each figure is printed with its target and
the ratio to a plain-``dict`` baseline doing the nearest equivalent work in the same run (so the
numbers can be compared across machines). Timings are the best of ``REPEAT`` runs, in CPU time of this
process (``time.process_time``): the work is single-threaded and CPU-bound, so this equals wall time
on an idle machine and is not inflated when other processes share the cores.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from collections.abc import Callable

from kbatch.store import MemoryStore, prefix_end

REPEAT = 3
VALUE = b"x" * 1024


def best(fn: Callable[[], float]) -> float:
    """The lowest of ``REPEAT`` timings returned by ``fn`` (seconds)."""
    return min(fn() for _ in range(REPEAT))


def timed(fn: Callable[[], object]) -> float:
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def report(
    name: str, value: float, unit: str, target: str, ok: bool, baseline: float, base_unit: str
) -> None:
    ratio = value / baseline if baseline else float("inf")
    flag = "ok  " if ok else "MISS"
    figure = f"{value:>12,.3f} {unit:<6}"
    base = f"{baseline:>12,.3f} {base_unit:<6}"
    print(f"{flag} {name:<52} {figure} target {target:<11} dict {base} ratio {ratio:7.2f}")


# -- put -------------------------------------------------------------------------------------------


def bench_put(n: int = 100_000) -> None:
    keys = [b"/registry/pods/default/pod-%07d" % i for i in range(n)]

    def store_new() -> float:
        s = MemoryStore()
        return timed(lambda: _put_all(s, keys))

    def store_update() -> float:
        s = MemoryStore()
        _put_all(s, keys)
        return timed(lambda: _put_all(s, keys))

    def dict_put() -> float:
        d = _DictKV()

        def run() -> None:
            for k in keys:
                d.put(k, VALUE)

        return timed(run)

    base = n / best(dict_put)
    new = n / best(store_new)
    upd = n / best(store_update)
    report("put 1 KiB, new keys (ops/s)", new, "ops/s", ">= 200,000", new >= 200_000, base, "ops/s")
    report("put 1 KiB, existing keys (ops/s)", upd, "ops/s", ">= 200,000", upd >= 200_000, base, "ops/s")


class _DictKV:
    """The baseline: a dict behind a method call, as a store API would be called."""

    def __init__(self) -> None:
        self.data: dict[bytes, bytes] = {}

    def put(self, key: bytes, value: bytes) -> None:
        self.data[key] = value


def _put_all(s: MemoryStore, keys: list[bytes]) -> None:
    for k in keys:
        s.put(k, VALUE)


# -- range -----------------------------------------------------------------------------------------


def bench_range(n: int = 10_000) -> None:
    s = MemoryStore()
    d: dict[bytes, bytes] = {}
    for i in range(n):
        for prefix in (b"/registry/jobs/", b"/registry/pods/"):
            s.put(prefix + b"%07d" % i, VALUE)
            d[prefix + b"%07d" % i] = VALUE
    p = b"/registry/pods/"
    end = prefix_end(p)
    assert s.range(p, end).count == n

    store_ms = 1000 * best(lambda: timed(lambda: s.range(p, end)))
    dict_ms = 1000 * best(lambda: timed(lambda: sorted((k, v) for k, v in d.items() if k.startswith(p))))
    report(f"prefix range over {n:,} keys", store_ms, "ms", "<= 5 ms", store_ms <= 5, dict_ms, "ms")


# -- watch -----------------------------------------------------------------------------------------


def bench_watch(watchers: int = 100, events: int = 100_000, batch: int = 1_000) -> None:
    """``watchers`` watchers on one prefix; the writer puts ``events`` values and every watcher
    polls every ``batch`` writes and iterates each event it receives."""
    keys = [b"/registry/pods/ns/p%05d" % (i % 1000) for i in range(events)]
    small = b"v" * 100

    def store_run() -> float:
        s = MemoryStore()
        ws = [s.watch(b"/registry/pods/", prefix_end(b"/registry/pods/")) for _ in range(watchers)]
        seen = [0]

        def run() -> None:
            n = 0
            for i, k in enumerate(keys, 1):
                s.put(k, small)
                if i % batch == 0:
                    for w in ws:
                        for _ev in w.poll():
                            n += 1
            for w in ws:
                for _ev in w.poll():
                    n += 1
            seen[0] = n

        t = timed(run)
        assert seen[0] == watchers * events, seen[0]
        return t

    def dict_run() -> float:
        def run() -> None:
            d: dict[bytes, bytes] = {}
            log: list[tuple[bytes, bytes]] = []
            for k in keys:
                d[k] = small
                log.append((k, small))
            n = 0
            for _ in range(watchers):
                for _ev in log:
                    n += 1

        return timed(run)

    t = best(store_run)
    report(f"{watchers} watchers x {events:,} events", t, "s", "<= 2 s", t <= 2, best(dict_run), "s")


# -- compaction ------------------------------------------------------------------------------------


def bench_compact(revisions: int = 1_000_000) -> None:
    shapes: dict[str, Callable[[MemoryStore], None]] = {
        "10k keys x 100 updates": lambda s: [
            s.put(b"/c/%05d" % (i % 10_000), b"v") for i in range(revisions)
        ],
        "1M distinct keys": lambda s: [s.put(b"/c/%07d" % i, b"v") for i in range(revisions)],
        "500k put + delete": lambda s: [
            (s.put(b"/c/%07d" % i, b"v"), s.delete_range(b"/c/%07d" % i)) for i in range(revisions // 2)
        ],
    }

    def dict_compact() -> float:
        hist: dict[bytes, list[bytes]] = {}
        for i in range(revisions):
            hist.setdefault(b"/c/%05d" % (i % 10_000), []).append(b"v")
        return timed(lambda: [h.__delitem__(slice(None, -1)) for h in hist.values()])

    base = dict_compact()
    for name, fill in shapes.items():
        s = MemoryStore()
        fill(s)
        assert s.revision == revisions + 1
        t = timed(lambda s=s: s.compact(s.revision))
        report(f"compact {revisions:,} revisions, {name}", t, "s", "<= 1 s", t <= 1, base, "s")
        del s
        gc.collect()


# -- memory ----------------------------------------------------------------------------------------


def bench_memory(n: int = 20_000, versions: int = 3) -> None:
    """Bytes per live key after writing ``versions`` versions of each and compacting, measured with
    tracemalloc; values are distinct 1 KiB objects and counted."""
    keys = [b"/registry/pods/default/pod-%07d" % i for i in range(n)]

    def measure(fill: Callable[[], object]) -> float:
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        held = fill()
        gc.collect()
        used = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        del held
        return used / n

    def fill_store() -> MemoryStore:
        s = MemoryStore()
        for v in range(versions):
            for i, k in enumerate(keys):
                s.put(k, (b"%d-%d-" % (v, i)).ljust(len(VALUE), b"x"))
        s.compact(s.revision)
        return s

    def fill_dict() -> dict[bytes, bytes]:
        return {k: (b"%d-" % i).ljust(len(VALUE), b"x") for i, k in enumerate(keys)}

    per_key = measure(fill_store)
    budget = 2 * len(VALUE) + 300
    report(
        "memory per live key, 1 KiB value (bytes)",
        per_key,
        "B",
        f"<= {budget:,} B",
        per_key <= budget,
        measure(fill_dict),
        "B",
    )


def main() -> None:
    print(f"kbatch.store benchmarks, Python {sys.version.split()[0]}, best of {REPEAT}")
    bench_put()
    bench_range()
    bench_watch()
    bench_compact()
    bench_memory()


if __name__ == "__main__":
    main()
