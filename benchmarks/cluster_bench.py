"""Simulated-cluster benchmark: N nodes (8 GPUs, 64 cpu each), M bare pods running ``sleep 60``,
from creation to all ``Succeeded`` in virtual time (issue 5).

    python benchmarks/cluster_bench.py                    # 1,000 nodes, 100,000 pods (the target)
    python benchmarks/cluster_bench.py --nodes 100 --pods 10000
    python benchmarks/cluster_bench.py --profile          # cProfile the run, top 25 by cumulative time
    python benchmarks/cluster_bench.py --core             # decisions only: scheduler + kubelet engine, no API
    python benchmarks/cluster_bench.py --unschedulable 2000            # queueing hints at work (below)
    python benchmarks/cluster_bench.py --unschedulable 2000 --no-hints # the same, every event moves every pod

Targets: <= 30 s wall, peak RSS <= 2 GiB. Reports each phase's wall time and pods/s (pods created,
scheduled, run and completed per wall-clock second). It runs what a user runs: the default controllers,
the trace, scheduler Events and CPython's own GC settings. ``--tuned`` runs the older tuned variant
for comparison: only ``scheduler,kubelet`` (or ``--controllers``), no trace, no scheduler Events,
GC thresholds raised (benchmark knobs; kbatch never changes them).

``--unschedulable N``: N pods requesting 2 cpu that fit nowhere (one 1-cpu node), then ``--nodes``
(default 50) nodes of 1 cpu added one by one, a virtual second apart, then 400 virtual seconds (one
5-minute unschedulable flush). With queueing hints (KEP-4247) NodeResourcesFit's hint sees that no
added node could ever hold a pod and nothing is retried; ``--no-hints`` (the scheduler's
``queueing_hints: False``) retries every pod on every node added. Reports the wall time of the
node phase and how many attempts the scheduler made.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbatch.api.core_v1 import Pod
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes


def bare_pod(index: int) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": f"pod-{index}", "namespace": "default"},
        "spec": {"restartPolicy": "Never",
                 "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "60"]}]},
    })


def run(nodes: int, pods: int, tuned: bool = False,
        controllers: str = "scheduler,kubelet") -> dict[str, float]:
    marks = {"start": time.perf_counter()}
    cp = (ControlPlane(seed=1, controllers=controllers, trace=False, options={"scheduler": {"events": False}})
          if tuned else ControlPlane(seed=1))
    create_nodes(cp, nodes, NodeTemplate(cpu="64", memory="512Gi", gpus=8))
    marks["nodes"] = time.perf_counter()
    for index in range(pods):
        cp.client.create(bare_pod(index))
    marks["created"] = time.perf_counter()
    cp.run_until_idle()
    marks["running"] = time.perf_counter()
    cp.advance(60)
    marks["done"] = time.perf_counter()
    listed = cp.cache.list(Pod)
    stragglers = [p for p in listed if p.status is None or p.status.phase != "Succeeded"]
    if stragglers or len(listed) != pods:
        for pod in stragglers[:5]:
            print(pod.metadata.name, pod.spec.node_name, pod.status.to_dict() if pod.status else None)
        raise SystemExit(f"only {len(listed) - len(stragglers)}/{pods} pods Succeeded")
    return marks


def _cpu_pod(index: int, cpu: str) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": f"pod-{index}", "namespace": "default"},
        "spec": {"restartPolicy": "Never",
                 "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "100000"],
                                 "resources": {"requests": {"cpu": cpu}}}]},
    })


def run_unschedulable(pods: int, nodes: int, hints: bool) -> None:
    """``pods`` pods that fit nowhere, then ``nodes`` too-small nodes added one by one."""
    options = {"scheduler": {"events": False, "queueing_hints": hints}}
    start = time.perf_counter()
    cp = ControlPlane(seed=1, controllers="scheduler,kubelet", trace=False, options=options)
    create_nodes(cp, 1, NodeTemplate(cpu="1"), prefix="seed-")
    for index in range(pods):
        cp.client.create(_cpu_pod(index, "2"))
    cp.run_until_idle()
    created = time.perf_counter()
    scheduler = cp.manager.get("scheduler")
    attempts_before = _attempts(scheduler.reconciler.queue, pods)
    for index in range(nodes):
        create_nodes(cp, 1, NodeTemplate(cpu="1"), start=index)
        cp.advance(1)
    cp.advance(400)
    done = time.perf_counter()
    attempts = _attempts(scheduler.reconciler.queue, pods) - attempts_before
    bound = sum(1 for p in cp.cache.list(Pod) if p.spec.node_name)
    print(f"unschedulable={pods} nodes added={nodes} queueing hints={'on' if hints else 'off'}")
    print(f"  create pods + first attempts  {created - start:8.2f} s")
    print(f"  add nodes one by one + 400 s  {done - created:8.2f} s")
    print(f"  attempts in that phase        {attempts:8d}")
    print(f"  bound                         {bound:8d}")


def _attempts(queue: object, pods: int) -> int:
    entries = (queue.entry(f"default/pod-{index}") for index in range(pods))  # type: ignore[attr-defined]
    return sum(entry.attempts for entry in entries if entry is not None)


def run_core(nodes: int, pods: int) -> dict[str, float]:
    """The simulation's own decision code, without the API server, informers or trace: the pure
    scheduler (snapshot, batching, plugins) placing every pod, then the kubelet engine running
    each to completion."""
    import random

    from kbatch.controllers.kubelet.engine import APP, PodRun, Proc, advance
    from kbatch.controllers.scheduler import Algorithm, Snapshot, default_profile
    from kbatch.controllers.scheduler.convert import node_shape, pod_info
    from kbatch.sim import make_node
    from kbatch.sim.command import interpret

    marks = {"start": time.perf_counter()}
    snapshot = Snapshot()
    for index in range(nodes):
        shape = node_shape(make_node(f"node-{index}", NodeTemplate(cpu="64", memory="512Gi", gpus=8)))
        snapshot.set_node(shape)
    algorithm = Algorithm(default_profile(), snapshot, random.Random(1))
    template = bare_pod(0)
    infos = []
    for index in range(pods):
        info = pod_info(template, seq=index)
        info.name = f"pod-{index}"
        infos.append(info)
    marks["nodes"] = marks["created"] = time.perf_counter()
    runs = []
    for info in infos:
        node = algorithm.schedule(info).node
        if node is None:
            raise SystemExit(f"{info.name} did not fit")
        algorithm.assume(info, node)
        runs.append(PodRun("default", info.name, info.name, "Never", 0.0, 0.0, [], [Proc("main", APP)]))
    marks["running"] = time.perf_counter()
    plan_cache = interpret(["sleep", "60"])
    for pod_run in runs:
        advance(pod_run, 60.0, lambda proc, restart: plan_cache)
        assert pod_run.phase == "Succeeded"
    marks["done"] = time.perf_counter()
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=None, help="default 1000 (50 with --unschedulable)")
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--tuned", action="store_true",
                        help="the tuned variant: few controllers, no trace, no scheduler Events, GC raised")
    parser.add_argument("--controllers", default="scheduler,kubelet", help="with --tuned: which to run")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--core", action="store_true", help="decision code only (no API server)")
    parser.add_argument("--unschedulable", type=int, metavar="N",
                        help="N pods that fit nowhere, then --nodes too-small nodes added one by one")
    parser.add_argument("--no-hints", action="store_true", help="with --unschedulable: queueing hints off")
    args = parser.parse_args()
    if args.tuned:
        gc.set_threshold(50_000, 20, 100)
    if args.unschedulable is not None:
        run_unschedulable(args.unschedulable, 50 if args.nodes is None else args.nodes, not args.no_hints)
        return
    if args.nodes is None:
        args.nodes = 1000
    if args.core:
        marks = run_core(args.nodes, args.pods)
    elif args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        marks = profiler.runcall(run, args.nodes, args.pods, args.tuned, args.controllers)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    else:
        marks = run(args.nodes, args.pods, args.tuned, args.controllers)
    total = marks["done"] - marks["start"]
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    print(f"nodes={args.nodes} pods={args.pods}")
    print(f"  create nodes      {marks['nodes'] - marks['start']:8.2f} s")
    print(f"  create pods       {marks['created'] - marks['nodes']:8.2f} s")
    print(f"  schedule + start  {marks['running'] - marks['created']:8.2f} s")
    print(f"  run to Succeeded  {marks['done'] - marks['running']:8.2f} s")
    print(f"  total wall        {total:8.2f} s  (target 30 s)")
    print(f"  throughput        {args.pods / total:8.0f} pods/s")
    print(f"  peak RSS          {peak_gib:8.2f} GiB (target 2 GiB)")
    print("  (tuned variant: few controllers, no trace or Events, GC raised)" if args.tuned
          else "  (as a user runs it: default controllers, trace, Events, CPython's GC)")


if __name__ == "__main__":
    main()
