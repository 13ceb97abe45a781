"""The benchmarks' workloads as a user runs them, written against the API every kbatch version since the
base commit of issue 16 has (so the same workload runs on both sides of an A/B comparison).

Run one in a fresh process and print its figures as JSON on the last line::

    python benchmarks/scenarios.py cluster --nodes 1000 --pods 100000
    python benchmarks/scenarios.py job --jobs 100 --completions 1000 --nodes 1000
    python benchmarks/scenarios.py apiserver --pods 10000

``cluster`` and ``job`` build a ``ControlPlane`` as a user does (default controllers, Events and the
trace on, CPython's GC as the product leaves it); ``apiserver`` drives the API server alone.
:mod:`ab` runs a scenario once on this tree and once on another commit, each in its own process.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _edit() -> Callable[[Any], Any]:
    """``kbatch.api.edit`` where reads are shared; before that, reads were private copies already."""
    try:
        from kbatch.api import edit
    except ImportError:
        return lambda obj: obj
    return edit  # type: ignore[no-any-return]


def _registry() -> Any:
    try:
        from kbatch.families import builtin_registry
    except ImportError:
        from kbatch.api.registry import builtin_registry  # type: ignore[attr-defined,no-redef]
    return builtin_registry()


def _bare_pod(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i:06d}", "namespace": "default"},
            "spec": {"restartPolicy": "Never", "containers": [{
                "name": "main", "image": "busybox", "command": ["sleep", "60"],
                "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}


def _job(i: int, completions: int) -> dict[str, Any]:
    meta = {"name": f"bench-{i}", "namespace": "default"}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"completions": completions, "parallelism": completions, "completionMode": "Indexed",
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{
                         "name": "main", "image": "busybox", "command": ["sleep", "60"],
                         "resources": {"requests": {"cpu": "10m"}}}]}}}}


def _cluster_plane(nodes: int) -> Any:
    from kbatch.runtime.controlplane import ControlPlane
    from kbatch.sim.nodes import NodeTemplate, create_nodes

    cp = ControlPlane(seed=1)
    create_nodes(cp, nodes, NodeTemplate(cpu="64", memory="256Gi", pods=110))
    return cp


def cluster(args: argparse.Namespace) -> dict[str, Any]:
    """``pods`` bare pods ``sleep 60`` on ``nodes`` nodes, from creation to every pod Succeeded (``cpu_ms``:
    this process's CPU time, the figure to compare on a shared machine)."""
    from kbatch.api.core_v1 import Pod

    wall0, cpu0 = time.perf_counter(), time.process_time()
    cp = _cluster_plane(args.nodes)
    for i in range(args.pods):
        cp.client.create(Pod.model_validate(_bare_pod(i)))

    def running() -> bool:  # a selective list reads no pod that has finished
        return bool(cp.client.list(Pod, "default", field_selector="status.phase!=Succeeded", limit=1).items)

    while running():
        cp.advance(10)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return {"wall_s": wall, "pods_per_s": args.pods / wall, "cpu_ms": cpu * 1000,
            "peak_rss_mib": _peak_rss_mib()}


def job(args: argparse.Namespace) -> dict[str, Any]:
    """``jobs`` Indexed Jobs of ``completions`` pods each (parallelism = completions), ``sleep 60``, to
    every Job Complete."""
    from kbatch.api.batch_v1 import Job

    wall0, cpu0 = time.perf_counter(), time.process_time()
    cp = _cluster_plane(args.nodes)
    for i in range(args.jobs):
        cp.client.create(Job.model_validate(_job(i, args.completions)))

    def done() -> bool:
        jobs = cp.client.list(Job).items
        return len(jobs) == args.jobs and all(
            any(c.type == "Complete" and c.status == "True" for c in (j.status.conditions or ()))
            for j in jobs if j.status)

    while not done():
        cp.advance(10)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    pods = args.jobs * args.completions
    return {"wall_s": wall, "pods_per_s": pods / wall, "cpu_ms": cpu * 1000, "peak_rss_mib": _peak_rss_mib()}


def apiserver(args: argparse.Namespace) -> dict[str, Any]:
    """Create, get, list with a label selector and status update of ``pods`` typed Pods."""
    from kbatch.api.core_v1 import Pod
    from kbatch.apiserver import APIServer
    from kbatch.store import MemoryStore

    edit = _edit()
    server = APIServer(MemoryStore(), _registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(1))
    n = args.pods
    pods = [Pod.model_validate({**_bare_pod(i), "metadata": {
        "name": f"p-{i:06d}", "namespace": "default", "labels": {"app": f"a-{i % 100}"}}}) for i in range(n)]
    out: dict[str, Any] = {}

    def rate(name: str, fn: Callable[[int], object]) -> None:
        """``name_per_s`` (wall) and ``name_cpu_ms`` (this process's CPU time for all ``n``: the figure to
        compare on a shared machine, where the wall rate moves with the load)."""
        gc.collect()
        start, cpu0 = time.perf_counter(), time.process_time()
        for i in range(n):
            fn(i)
        out[f"{name}_per_s"] = n / (time.perf_counter() - start)
        out[f"{name}_cpu_ms"] = (time.process_time() - cpu0) * 1000

    rate("create", lambda i: server.create(pods[i]))
    rate("get", lambda i: server.get(Pod, f"p-{i:06d}", "default"))
    rate("get_again", lambda i: server.get(Pod, f"p-{i:06d}", "default"))
    gc.collect()
    start = time.perf_counter()
    for _ in range(10):
        server.list(Pod, "default", label_selector="app=a-7")
    out["list_selector_ms"] = (time.perf_counter() - start) * 100

    def update(i: int) -> None:
        pod = edit(server.get(Pod, f"p-{i:06d}", "default"))
        pod.status.phase = "Running"
        server.update_status(pod)

    rate("status_update", update)
    out["peak_rss_mib"] = _peak_rss_mib()
    return out


SCENARIOS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "cluster": cluster, "job": job, "apiserver": apiserver}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--completions", type=int, default=1000)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    figures = SCENARIOS[args.scenario](args)
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
