"""API server benchmarks, each reported next to the raw store doing the comparable work in the same run.

Targets (issue 3): create of typed Pods >= 20,000/s; get >= 100,000/s; list of 10,000 pods with a
label selector <= 20 ms; status update >= 20,000/s.

Run: ``python benchmarks/apiserver_bench.py [--pods 10000]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime

from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore


def _pod(i: int) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": f"pod-{i:06d}", "namespace": "default",
                     "labels": {"app": f"app-{i % 100}", "tier": "batch"}},
        "spec": {"nodeName": f"node-{i % 50}", "containers": [
            {"name": "main", "image": "busybox", "command": ["sleep", "10"],
             "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}})


def _rate(n: int, fn: Callable[[int], object]) -> float:
    gc.collect()  # each phase pays for its own garbage, not for the previous phase's
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - start)


def _best_ms(fn: Callable[[], object], repeat: int = 7) -> float:
    gc.collect()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--gc-freeze", action="store_true",
                        help="gc.freeze() after building the inputs (CPython's cyclic GC otherwise rescans "
                             "the whole heap while large lists are decoded)")
    args = parser.parse_args()
    n = args.pods
    now = datetime(2026, 1, 1, tzinfo=UTC)
    store = MemoryStore()
    server = APIServer(store, builtin_registry(), now=lambda: now, rng=random.Random(1))
    pods = [_pod(i) for i in range(n)]
    if args.gc_freeze:
        gc.freeze()

    raw = MemoryStore()
    blobs = [p.to_json() for p in pods]
    raw_put = _rate(n, lambda i: raw.put(b"/registry/pods/default/" + pods[i].name.encode(), blobs[i]))
    create = _rate(n, lambda i: server.create(pods[i]))

    keys = [b"/registry/pods/default/" + p.name.encode() for p in pods]
    raw_get = _rate(n, lambda i: raw.range(keys[i]))
    get = _rate(n, lambda i: server.get(Pod, pods[i].name, "default"))  # the first read decodes
    get_again = _rate(n, lambda i: server.get(Pod, pods[i].name, "default"))  # the shared object

    raw_range_ms = _best_ms(lambda: raw.range(b"/registry/pods/default/", b"/registry/pods/default0"))
    selector = "app=app-7"
    list_ms = _best_ms(lambda: server.list(Pod, "default", label_selector=selector))
    listed = len(server.list(Pod, "default", label_selector=selector).items)
    if args.gc_freeze:
        gc.freeze()
    full_ms = _best_ms(lambda: server.list(Pod, "default"), repeat=2)
    raw_list_ms = _best_ms(lambda: server.unstructured.list("v1", "Pod", "default"), repeat=3)

    current = [edit(server.get(Pod, p.name, "default")) for p in pods]  # reads are shared: copy to change
    for i, p in enumerate(current):
        p.status.phase = "Running"  # type: ignore[union-attr]
        p.status.pod_ip = f"10.0.{i // 250}.{i % 250}"  # type: ignore[union-attr]
    raw_txn = _rate(n, lambda i: raw.put(keys[i], blobs[i] + b" "))
    status = _rate(n, lambda i: server.update_status(current[i]))
    status_patch = _rate(n, lambda i: server.patch(
        Pod, pods[i].name, {"status": {"phase": "Succeeded", "podIP": f"10.1.{i // 250}.{i % 250}"}},
        "default", status=True))

    rows = [
        ("create typed Pod", f"{create:,.0f}/s", f"raw put {raw_put:,.0f}/s", f"{create / raw_put:.2f}",
         ">= 20,000/s"),
        ("get (first read of each: a decode)", f"{get:,.0f}/s", f"raw range {raw_get:,.0f}/s",
         f"{get / raw_get:.2f}", ">= 100,000/s"),
        ("get again (the shared object)", f"{get_again:,.0f}/s", f"raw range {raw_get:,.0f}/s",
         f"{get_again / raw_get:.2f}", ">= 100,000/s"),
        (f"list {n} pods, label selector ({listed} match)", f"{list_ms:.1f} ms",
         f"raw range {raw_range_ms:.1f} ms", f"{raw_range_ms / list_ms:.2f}", "<= 20 ms"),
        (f"list {n} pods, no selector", f"{full_ms:.1f} ms", "", "", ""),
        (f"dict list {n} pods (unstructured, raw)", f"{raw_list_ms:.1f} ms", "", "", ""),
        ("status update", f"{status:,.0f}/s", f"raw put {raw_txn:,.0f}/s", f"{status / raw_txn:.2f}",
         ">= 20,000/s"),
        ("status patch (merge)", f"{status_patch:,.0f}/s", "", "", ""),
    ]
    print(f"{'benchmark':45} {'kbatch':>14} {'store':>24} {'ratio':>6}  target")
    for name, value, base, ratio, target in rows:
        print(f"{name:45} {value:>14} {base:>24} {ratio:>6}  {target}")


if __name__ == "__main__":
    main()
