"""Job controller benchmark: N Indexed Jobs x C completions (parallelism P, pods ``sleep 60``) on
simulated nodes, from creation to every Job Complete, in virtual time (issue 6).

    python benchmarks/job_bench.py                       # 100 jobs x 1000 on 1000 nodes (the target)
    python benchmarks/job_bench.py --jobs 5 --completions 200 --nodes 100   # a quick run

Targets: <= 60 s wall, peak memory <= 2 GiB. Reports wall time, virtual time, pods/s (wall), peak
RSS, CPU time, the time spent in GC collections, and the Job controller's syncs and status writes
per Job; ``--memory N`` lists the N source files holding the most memory at the end (tracemalloc:
much slower, use small sizes). It runs what a user runs (default controllers, trace and events on,
CPython's own GC settings); ``--tuned`` runs the older, tuned variant for comparison.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time

VARIANT = {False: "as a user runs it", True: "tuned: few controllers, no trace, raised GC thresholds"}


def job_manifest(i: int, completions: int, parallelism: int) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"bench-{i}"},
            "spec": {"completions": completions, "parallelism": parallelism, "completionMode": "Indexed",
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{
                         "name": "main", "image": "busybox", "command": ["sleep", "60"],
                         "resources": {"requests": {"cpu": "10m"}}}]}}}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--completions", type=int, default=1000)
    ap.add_argument("--parallelism", type=int, default=None, help="default: = completions")
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=24 * 3600, help="virtual seconds")
    ap.add_argument("--tuned", action="store_true",
                    help="the tuned variant: only job,scheduler,kubelet,podgc, no trace, CPython's GC "
                         "thresholds raised (benchmark knobs, not what a user runs; by default the run "
                         "uses a user's control plane: default controllers, trace, events, GC)")
    ap.add_argument("--memory", type=int, default=0, metavar="N",
                    help="trace allocations (slow) and print the N files holding the most memory at the end")
    args = ap.parse_args(argv)
    if args.tuned:
        gc.set_threshold(50_000, 20, 100)
    gc_time = [0.0, 0.0]  # [total seconds in collections, start of the current one]

    def on_gc(phase: str, _info: dict) -> None:
        if phase == "start":
            gc_time[1] = time.perf_counter()
        else:
            gc_time[0] += time.perf_counter() - gc_time[1]

    gc.callbacks.append(on_gc)
    if args.memory:
        import tracemalloc

        tracemalloc.start()
    parallelism = args.parallelism or args.completions

    from kbatch.api.batch_v1 import Job
    from kbatch.runtime.controlplane import ControlPlane
    from kbatch.sim.nodes import NodeTemplate, create_nodes

    wall0, cpu0 = time.perf_counter(), time.process_time()
    cp = (ControlPlane(seed=1, controllers="job,scheduler,kubelet,podgc", trace=False) if args.tuned
          else ControlPlane(seed=1))
    create_nodes(cp, args.nodes, NodeTemplate(cpu="64", memory="256Gi", pods=110))
    for i in range(args.jobs):
        cp.client.create(Job.model_validate({**job_manifest(i, args.completions, parallelism),
                                             "metadata": {"name": f"bench-{i}", "namespace": "default"}}))
    start = cp.clock.now()
    job_writes = _UpdateCounter()
    cp.cache.informer_for(Job).add_event_handler(job_writes)  # every Job update here is a status write

    def all_complete() -> bool:
        jobs = cp.cache.list(Job, "default")
        return len(jobs) == args.jobs and all(
            any(c.type == "Complete" and c.status == "True" for c in (j.status.conditions or ()))
            for j in jobs if j.status)

    cp.wait_for(all_complete, timeout=args.timeout)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    pods = args.jobs * args.completions
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
    print(f"jobs={args.jobs} completions={args.completions} parallelism={parallelism} nodes={args.nodes}")
    print(f"virtual time {cp.clock.now() - start:.0f} s; wall {wall:.1f} s; {pods / wall:.0f} pods/s; "
          f"peak RSS {peak:.0f} MiB ({VARIANT[args.tuned]})")
    print(f"cpu {cpu:.1f} s (wall differs when the machine is shared); in GC collections {gc_time[0]:.1f} s"
          f" ({len(gc.get_objects()) / pods:.0f} GC-tracked objects per pod at the end: each full"
          " collection walks them all, so GC time grows with the square of the pod count)")
    per_job = 1 / max(args.jobs, 1)
    syncs = _counter_total(cp, "job_controller_job_syncs_total")
    print(f"job controller: {syncs * per_job:.1f} syncs and {job_writes.updates * per_job:.1f} status writes"
          " per Job")
    if args.memory:
        _print_memory(args.memory)
    return 0


class _UpdateCounter:
    """An informer handler counting update events (each a write the informer observed)."""

    def __init__(self) -> None:
        self.updates = 0

    def on_add(self, obj: object) -> None:
        pass

    def on_update(self, old: object, new: object) -> None:
        self.updates += 1

    def on_delete(self, obj: object) -> None:
        pass


def _counter_total(cp, name: str) -> float:  # type: ignore[no-untyped-def]
    """The sum of a counter's series (0 when the family is not registered)."""
    family = cp.metrics.get(name)
    return sum(float(line.rsplit(" ", 1)[1]) for line in family.samples()) if family is not None else 0.0


def _print_memory(top: int) -> None:
    import tracemalloc

    snapshot = tracemalloc.take_snapshot()
    stats = snapshot.statistics("filename")
    total = sum(s.size for s in stats)
    print(f"traced memory held at the end: {total / 2**20:.0f} MiB; top files:")
    for stat in stats[:top]:
        print(f"  {stat.size / 2**20:8.1f} MiB {stat.count:>9} blocks  {stat.traceback[0].filename}")


if __name__ == "__main__":
    sys.exit(main())
