"""JobSet benchmark: N JobSets x R replicated-job replicas x P pods (``sleep 60``, parallelism =
completions = P) on simulated nodes, to every JobSet Completed in virtual time (issue 22), and in the
same run its baseline: job_bench's workload of the same pods as plain Indexed Jobs (N x R Jobs of P).

    python benchmarks/jobset_bench.py                         # 100 x 10 x 100 on 1000 nodes (the target)
    python benchmarks/jobset_bench.py --jobsets 10 --nodes 100  # a quick run

Each side runs in a fresh process (its peak RSS is its own), the baseline first. Prints, per side,
wall time, virtual time, pods/s, peak RSS and the CPU time per pod (the machine is shared: CPU time
is what the two sides are compared by), then the JobSet side's cost per pod as a ratio to the plain
Jobs'. Targets: ratio <= 1.15, peak RSS <= 2 GiB. Both sides run what a user runs (default
controllers, trace and Events on, CPython's own GC settings), as job_bench and cluster_bench do;
``--tuned`` runs the older tuned variant (only ``job,scheduler,kubelet,podgc`` and ``jobset``, no
trace, raised GC thresholds) for comparison, printed as such.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONTROLLERS = "job,scheduler,kubelet,podgc"
RATIO_TARGET, RSS_TARGET_MIB = 1.15, 2048
VARIANT = {False: "as a user runs it", True: "tuned: few controllers, no trace, raised GC thresholds"}


def jobset_manifest(i: int, replicas: int, pods: int, dns: bool = True) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    from job_bench import job_manifest  # the baseline's Job: the JobSet's template is the same Job

    job = job_manifest(0, pods, pods)
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": f"bench-{i}", "namespace": "default"},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": replicas,
                                         "template": {"spec": job["spec"]}}],
                     **({} if dns else {"network": {"enableDNSHostnames": False}})}}


def _control_plane(side: str, tuned: bool) -> Any:
    """A user's control plane (default controllers, trace, Events), or the tuned variant's."""
    from kbatch.runtime.controlplane import ControlPlane

    if not tuned:
        return ControlPlane(seed=1)
    controllers = CONTROLLERS + (",jobset" if side.startswith("jobset") else "")
    return ControlPlane(seed=1, controllers=controllers, trace=False)


def _run_side(side: str, jobsets: int, replicas: int, pods: int, nodes: int,
              timeout: float, tuned: bool = False) -> dict[str, Any]:
    """One side in this process: create, wait until done, measure."""
    if tuned:
        gc.set_threshold(50_000, 20, 100)
    sys.path.insert(0, str(HERE))
    from job_bench import job_manifest

    from kbatch.api.batch_v1 import Job
    from kbatch.api.jobset_v1alpha2 import JobSet
    from kbatch.sim.nodes import NodeTemplate, create_nodes

    wall0, cpu0 = time.perf_counter(), time.process_time()
    cp = _control_plane(side, tuned)
    create_nodes(cp, nodes, NodeTemplate(cpu="64", memory="256Gi", pods=110))
    if side.startswith("jobset"):
        for i in range(jobsets):
            cp.client.create(JobSet.model_validate(jobset_manifest(i, replicas, pods, side == "jobset")))
        kind, count, done_type = JobSet, jobsets, "Completed"
    else:
        for i in range(jobsets * replicas):
            cp.client.create(Job.model_validate({**job_manifest(i, pods, pods),
                                                 "metadata": {"name": f"bench-{i}", "namespace": "default"}}))
        kind, count, done_type = Job, jobsets * replicas, "Complete"
    start = cp.clock.now()

    def done() -> bool:
        items = cp.cache.list(kind, "default")
        return len(items) == count and all(o.status is not None and o.status.is_true(done_type)
                                           for o in items)

    cp.wait_for(done, timeout=timeout)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    total = jobsets * replicas * pods
    return {"side": side, "pods": total, "wall_s": wall, "cpu_s": cpu, "virtual_s": cp.clock.now() - start,
            "pods_per_s": total / wall, "us_per_pod": cpu / total * 1e6,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _spawn(side: str, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--side", side, "--jobsets", str(args.jobsets),
           "--replicas", str(args.replicas), "--pods", str(args.pods), "--nodes", str(args.nodes),
           "--timeout", str(args.timeout)] + (["--tuned"] if args.tuned else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=os.environ.copy())
    return json.loads(out.stdout.strip().splitlines()[-1])


def _line(r: dict[str, Any]) -> str:
    return (f"{r['side']:>13}: {r['pods']} pods, virtual {r['virtual_s']:.0f} s; wall {r['wall_s']:.1f} s "
            f"({r['pods_per_s']:.0f} pods/s); cpu {r['cpu_s']:.1f} s = {r['us_per_pod']:.0f} us/pod; "
            f"peak RSS {r['peak_rss_mib']:.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobsets", type=int, default=100)
    ap.add_argument("--replicas", type=int, default=10)
    ap.add_argument("--pods", type=int, default=100, help="parallelism = completions of each Job")
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=24 * 3600, help="virtual seconds")
    ap.add_argument("--no-dns", action="store_true",
                    help="also run the JobSets with network.enableDNSHostnames false (no headless Service: "
                         "their pods get no default topology spreading), to isolate the scheduler's share")
    ap.add_argument("--tuned", action="store_true",
                    help="the tuned variant: only the needed controllers, no trace, CPython's GC thresholds "
                         "raised (benchmark knobs, not what a user runs; by default both sides use a user's "
                         "control plane: default controllers, trace, Events, GC)")
    ap.add_argument("--side", choices=["job", "jobset", "jobset-no-dns"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.side:
        result = _run_side(args.side, args.jobsets, args.replicas, args.pods, args.nodes, args.timeout,
                           args.tuned)
        print(json.dumps(result))
        return 0
    print(f"jobsets={args.jobsets} replicas={args.replicas} pods={args.pods} nodes={args.nodes} "
          f"(baseline: {args.jobsets * args.replicas} Indexed Jobs x {args.pods}, job_bench's workload); "
          f"{VARIANT[args.tuned]}")
    baseline = _spawn("job", args)
    print(_line(baseline))
    measured = _spawn("jobset", args)
    print(_line(measured))
    ratio = measured["us_per_pod"] / baseline["us_per_pod"]
    if args.no_dns:
        plain = _spawn("jobset-no-dns", args)
        print(_line(plain))
        share = plain["us_per_pod"] / baseline["us_per_pod"]
        print(f"without the headless Service: {share:.3f} x a plain Job's")
    print(f"JobSet cost per pod = {ratio:.3f} x a plain Job's (target <= {RATIO_TARGET}); peak RSS "
          f"{measured['peak_rss_mib']:.0f} MiB (target <= {RSS_TARGET_MIB} MiB)")
    return 0 if ratio <= RATIO_TARGET and measured["peak_rss_mib"] <= RSS_TARGET_MIB else 1


if __name__ == "__main__":
    sys.exit(main())
