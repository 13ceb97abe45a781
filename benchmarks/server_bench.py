"""Benchmarks of ``kbatch serve`` against the issue's targets (run: ``python benchmarks/server_bench.py``).

1. ``kubectl get pods`` over 10,000 pods: ≤ 1 s (wall time of the kubectl process).
2. single-object calls (GET a pod) at 200 requests/s from a local client: p99 ≤ 10 ms.
3. 100 concurrent watchers, 10,000 changes: every watcher receives every event.

The pods are created in process and saved as the server's state, then ``kbatch serve`` is started
as a subprocess (controllers: garbage-collector only, so nothing else writes). ``--quick`` shrinks
every size tenfold for a smoke run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbatch.server.facade import new_control_plane, save_control_plane
from kbatch.server.process import ServeProcess

CONTROLLERS = "garbage-collector"
PODS = "/api/v1/namespaces/default/pods"


def build_state(state: Path, pods: int) -> None:
    from kbatch.api.core_v1 import Pod

    cp = new_control_plane(controllers=CONTROLLERS)
    for i in range(pods):
        cp.client.create(Pod.from_dict({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i:05d}", "labels": {"app": "bench"}},
            "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "60"]}]}}))
    cp.run_until_idle()
    state.mkdir(parents=True, exist_ok=True)
    save_control_plane(cp, state / "snapshot.kbatch")


def bench_kubectl_get(server: ServeProcess, pods: int) -> float:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        print("kubectl get pods: skipped (no kubectl)")
        return float("nan")
    subprocess.run([kubectl, "get", "pods", "--request-timeout=30s"], env=server.env(), capture_output=True,
                   check=True, timeout=60)  # warm: discovery cache
    times = []
    for _ in range(3):
        start = time.perf_counter()
        out = subprocess.run([kubectl, "get", "pods"], env=server.env(), capture_output=True, text=True,
                             check=True, timeout=60)
        times.append(time.perf_counter() - start)
        assert out.stdout.count("\n") == pods + 1, out.stdout[-200:]
    best = min(times)
    print(f"kubectl get pods over {pods} pods: best {best:.3f}s, median {statistics.median(times):.3f}s "
          f"(target <= 1s)")
    return best


def bench_latency(server: ServeProcess, pods: int, rate: float, seconds: float) -> float:
    latencies = []
    interval = 1.0 / rate
    with httpx.Client(base_url=server.url, timeout=10) as http:
        http.get(f"{PODS}/p-00000").raise_for_status()
        start = time.perf_counter()
        for i in range(int(rate * seconds)):
            due = start + i * interval
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            t0 = time.perf_counter()
            http.get(f"{PODS}/p-{i % pods:05d}").raise_for_status()
            latencies.append(time.perf_counter() - t0)
    latencies.sort()
    p50 = latencies[len(latencies) // 2] * 1000
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
    print(f"GET pod at {rate:.0f} req/s for {seconds:.0f}s: p50 {p50:.2f} ms, p99 {p99:.2f} ms "
          "(target p99 <= 10 ms)")
    return p99


async def _watch(url: str, rv: str, want: int, ready: asyncio.Event, counts: list[int], index: int) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(10, read=300)) as http, \
            http.stream("GET", PODS, params={"watch": "1", "resourceVersion": rv,
                                             "labelSelector": "app=bench"}) as resp:
        ready.set()
        async for line in resp.aiter_lines():
            if line:
                counts[index] += 1
                if counts[index] >= want:
                    return


async def _bench_watchers(server: ServeProcess, watchers: int, changes: int, pods: int) -> tuple[float,
                                                                                                 list[int]]:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        rv = (await http.get(PODS, params={"limit": "1"})).json()["metadata"]["resourceVersion"]
        counts = [0] * watchers
        readies = [asyncio.Event() for _ in range(watchers)]
        tasks = [asyncio.create_task(_watch(server.url, rv, changes, readies[i], counts,
                                            i)) for i in range(watchers)]
        await asyncio.gather(*(r.wait() for r in readies))
        start = time.perf_counter()
        sem = asyncio.Semaphore(16)

        async def change(i: int) -> None:
            async with sem:
                body = json.dumps({"metadata": {"annotations": {"bench": str(i)}}})
                resp = await http.patch(f"{PODS}/p-{i % pods:05d}", content=body,
                                        headers={"Content-Type": "application/merge-patch+json"})
                resp.raise_for_status()

        await asyncio.gather(*(change(i) for i in range(changes)))
        written = time.perf_counter() - start
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=600)
        elapsed = time.perf_counter() - start
        print(f"{changes} changes written in {written:.1f}s; {watchers} watchers all done after "
              f"{elapsed:.1f}s")
        return elapsed, counts


def bench_watchers(server: ServeProcess, watchers: int, changes: int, pods: int) -> bool:
    _, counts = asyncio.run(_bench_watchers(server, watchers, changes, pods))
    ok = all(c == changes for c in counts)
    print(f"{watchers} watchers x {changes} changes: every watcher got every event: {ok} "
          f"(min {min(counts)}, max {max(counts)})")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of every size")
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if args.quick:
        args.pods, args.watchers, args.changes, args.seconds = args.pods // 10, args.watchers // 10, \
            args.changes // 10, 2.0
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        t0 = time.perf_counter()
        build_state(state, args.pods)
        print(f"built {args.pods} pods in {time.perf_counter() - t0:.1f}s")
        t0 = time.perf_counter()
        server = ServeProcess(state, controllers=CONTROLLERS).start()
        print(f"kbatch serve ready in {time.perf_counter() - t0:.2f}s (restoring {args.pods} pods)")
        try:
            bench_kubectl_get(server, args.pods)
            bench_latency(server, args.pods, args.rate, args.seconds)
            bench_watchers(server, args.watchers, args.changes, args.pods)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
