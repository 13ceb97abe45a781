"""kbatch on a real etcd, all in one run (``python benchmarks/etcd_bench.py``; ``--quick`` shrinks it).

Against one etcd that the benchmark starts (Debian's ``etcd-server``; data directory on ``/dev/shm``
when it exists, so fsync is cheap and the numbers are about the clients, not the disk):

1. puts/s, sequential 1 KiB values: the raw client (``etcd-sdk-python``'s ``Etcd3Client.put``) and
   ``EtcdStore.put``; target ``EtcdStore`` ≥ 0.8x the raw client.
2. watch latency (put issued -> event in the consumer's callback, p50/p99): the raw client's watch
   callback and an ``EtcdStore`` watcher's notify.
3. API create/get (Leases, no controller involved) through ``kbatch serve`` on etcd and on memory.
4. 1,000 Jobs x 10 pods (``sleep 1``) through ``kbatch serve --etcd-servers`` on the real clock:
   time until every Job is Complete, and the peak RSS of the server (target ≤ 1 GiB) and of etcd.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbatch.server.process import ServeProcess
from kbatch.store import prefix_end
from kbatch.store.etcd import EtcdStore
from kbatch.testing.etcd import EtcdProcess

VALUE = b"x" * 1024
LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
JOBS = "/apis/batch/v1/namespaces/default/jobs"


def rate(n: int, fn: Callable[[int], Any]) -> float:
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - start)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def bench_puts(etcd: EtcdProcess, n: int) -> tuple[float, float]:
    import pyetcd

    host, port = etcd.url.removeprefix("http://").split(":")
    raw = pyetcd.client(host=host, port=int(port), timeout=10)
    store = EtcdStore(etcd.url)
    for _ in range(2):  # warm both, then best of 3 rounds each, interleaved
        rate(200, lambda i: raw.put(b"/warm/%d" % i, VALUE))
        rate(200, lambda i: store.put(b"/warm/%d" % i, VALUE))
    raw_rates, store_rates = [], []
    for r in range(3):
        raw_rates.append(rate(n, lambda i, r=r: raw.put(b"/raw/%d/%d" % (r, i), VALUE)))
        store_rates.append(rate(n, lambda i, r=r: store.put(b"/store/%d/%d" % (r, i), VALUE)))
    raw.close()
    store.close()
    return max(raw_rates), max(store_rates)


def _latency(n: int, put: Callable[[int], None], arrived: threading.Semaphore, sent: list[float],
             got: list[float]) -> list[float]:
    for i in range(n):
        sent.append(time.perf_counter())
        put(i)
        if not arrived.acquire(timeout=10):
            raise RuntimeError("a watch event did not arrive within 10 s")
    return [g - s for s, g in zip(sent, got, strict=True)]


def bench_watch_latency(etcd: EtcdProcess, n: int) -> tuple[tuple[float, float], tuple[float, float]]:
    import pyetcd

    host, port = etcd.url.removeprefix("http://").split(":")
    raw = pyetcd.client(host=host, port=int(port), timeout=10)
    arrived, sent, got = threading.Semaphore(0), [], []  # type: ignore[var-annotated]

    def on_raw(response: Any) -> None:
        for _ in getattr(response, "events", ()):
            got.append(time.perf_counter())
            arrived.release()

    watch_id = raw.add_watch_prefix_callback(b"/lat/raw/", on_raw)
    raw_lat = _latency(n, lambda i: raw.put(b"/lat/raw/%d" % i, VALUE), arrived, sent, got)
    raw.cancel_watch(watch_id)
    raw.close()

    store = EtcdStore(etcd.url)
    arrived, sent, got = threading.Semaphore(0), [], []
    w = store.watch(b"/lat/store/", prefix_end(b"/lat/store/"))

    def on_store() -> None:  # runs on the stream's thread (no event loop here)
        for _ in w.poll():
            got.append(time.perf_counter())
            arrived.release()

    w.set_notify(on_store)
    store_lat = _latency(n, lambda i: store.put(b"/lat/store/%d" % i, VALUE), arrived, sent, got)
    store.close()
    return percentiles(raw_lat), percentiles(store_lat)


def bench_api(server: ServeProcess, n: int) -> tuple[float, float]:
    http = httpx.Client(base_url=server.url, timeout=60)
    body = lambda i: {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",  # noqa: E731
                      "metadata": {"name": f"b{i}", "namespace": "default"}, "spec": {"holderIdentity": "x"}}

    def create(i: int) -> None:
        assert http.post(LEASES, json=body(i)).status_code == 201

    def get(i: int) -> None:
        assert http.get(f"{LEASES}/b{i}").status_code == 200

    creates, gets = rate(n, create), rate(n, get)
    http.close()
    return creates, gets


def rss_peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def bench_jobs(etcd: EtcdProcess, work: Path, jobs: int, pods: int) -> dict[str, float]:
    server = ServeProcess(work / "jobs", "--etcd-servers", etcd.url, start_timeout=120).start()
    assert server.process is not None
    http = httpx.Client(base_url=server.url, timeout=300)
    nodes = max(2, jobs * pods // 100)
    assert http.post("/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                     json={"count": nodes, "cpu": "64", "pods": 110}).status_code == 200
    start = time.perf_counter()
    for i in range(jobs):
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"job-{i:04d}"},
               "spec": {"completions": pods, "parallelism": pods, "template": {"spec": {
                   "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                             "command": ["sleep", "1"],
                                                             "resources": {"requests": {"cpu": "10m"}}}]}}}}
        r = http.post(JOBS, json=job)
        assert r.status_code == 201, r.text
    created = time.perf_counter() - start
    done = 0
    tick = threading.Event()
    while done < jobs:
        tick.wait(2.0)
        items = http.get(JOBS).json()["items"]
        done = sum(1 for j in items for c in (j.get("status") or {}).get("conditions") or ()
                   if c["type"] == "Complete" and c["status"] == "True")
        if time.perf_counter() - start > 3600:
            raise RuntimeError(f"only {done} of {jobs} jobs completed within an hour")
    elapsed = time.perf_counter() - start
    succeeded = sum((j.get("status") or {}).get("succeeded", 0) for j in http.get(JOBS).json()["items"])
    out = {"jobs": jobs, "pods": succeeded, "created_s": created, "complete_s": elapsed,
           "server_rss_mib": rss_peak_kib(server.process.pid) / 1024,
           "etcd_rss_mib": rss_peak_kib(etcd.process.pid) / 1024 if etcd.process else 0}
    http.close()
    server.stop(timeout=120)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every size tenfold smaller")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    with tempfile.TemporaryDirectory(prefix="kbatch-etcd-bench-") as tmp:
        work = Path(tmp)
        with EtcdProcess(progress_interval="10m") as etcd:
            raw_puts, store_puts = bench_puts(etcd, 5000 // scale)
            print(f"puts/s (1 KiB, sequential): raw client {raw_puts:,.0f}  EtcdStore {store_puts:,.0f}  "
                  f"ratio {store_puts / raw_puts:.2f} (target >= 0.80)")
            (rp50, rp99), (sp50, sp99) = bench_watch_latency(etcd, 1000 // scale)
            print(f"watch latency p50/p99: raw client {rp50 * 1e3:.2f}/{rp99 * 1e3:.2f} ms  "
                  f"EtcdStore {sp50 * 1e3:.2f}/{sp99 * 1e3:.2f} ms")
            n = 1000 // scale
            with ServeProcess(work / "mem", start_timeout=120) as memory:
                mem_c, mem_g = bench_api(memory, n)
            on_etcd = ServeProcess(work / "etcd", "--etcd-servers", etcd.url, start_timeout=120).start()
            etcd_c, etcd_g = bench_api(on_etcd, n)
            on_etcd.stop(timeout=120)
            print(f"kbatch serve, {n} Lease creates then gets (req/s): memory {mem_c:,.0f}/{mem_g:,.0f}  "
                  f"etcd {etcd_c:,.0f}/{etcd_g:,.0f}  ratio {etcd_c / mem_c:.2f}/{etcd_g / mem_g:.2f}")
        with EtcdProcess(progress_interval="10m") as etcd:  # a fresh etcd for the workload
            result = bench_jobs(etcd, work, 1000 // scale, 10)
        print(f"{result['jobs']} Jobs x 10 pods (sleep 1) on etcd, real clock: {result['pods']} pods "
              f"succeeded, all created in {result['created_s']:.1f} s, all Complete in "
              f"{result['complete_s']:.1f} s; peak RSS kbatch serve {result['server_rss_mib']:.0f} MiB "
              f"(target <= 1024), etcd {result['etcd_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
