"""Gang-scheduling benchmark (issue 17): N nodes x 8 GPUs; G gangs of 8 pods, each pod 1 GPU and
``sleep 300``, all created at once (twice the capacity by default, so half the gangs wait), run until
every pod Succeeded; for each PodGroup API, next to the same pods without any group (the baseline),
measured in the same run.

    python benchmarks/gang_bench.py                           # 1000 nodes, 2000 gangs (the target)
    python benchmarks/gang_bench.py --nodes 50 --gangs 100    # a quick run

Sides: ``plain`` (no groups: the baseline), ``coscheduling`` (scheduling.x-k8s.io/v1alpha1 PodGroups,
minMember 8, the Coscheduling plugin in the default profile) and ``native`` (scheduling.k8s.io/v1beta1
gang PodGroups, minCount 8, GenericWorkload=true). Each side runs in a child process of its own, so its
peak RSS is its own. Prints wall time from the first create to the last Succeeded, pods/s, peak RSS,
the virtual time it took and the wall ratio to the baseline. Targets: ratio <= 1.5, peak RSS <= 2 GiB.
It runs what a user runs (default controllers, trace and Events on, CPython's own GC settings; the
native side turns on the GenericWorkload gate its API needs); ``--tuned`` runs the older, tuned
variant for comparison (only scheduler, kubelet and the family's own controller, no trace, CPython's
GC thresholds raised), printed as such.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import time
from typing import Any

GANG_SIZE = 8
SIDES = ("plain", "coscheduling", "native")
VARIANT = {False: "as a user runs it: default controllers, trace, Events, CPython's GC",
           True: "tuned: few controllers, no trace, raised GC thresholds"}
TUNED_CONTROLLERS = {"plain": "scheduler,kubelet", "coscheduling": "scheduler,kubelet,coscheduling",
               "native": "scheduler,kubelet,podgroup-protection"}


def _pod(gang: int, i: int, api: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": f"g{gang}-{i}", "namespace": "default"}
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "300"],
                        "resources": {"requests": {"cpu": "10m", "nvidia.com/gpu": "1"},
                                      "limits": {"nvidia.com/gpu": "1"}}}],
    }
    if api == "coscheduling":
        meta["labels"] = {"scheduling.x-k8s.io/pod-group": f"g{gang}"}
    elif api == "native":
        spec["schedulingGroup"] = {"podGroupName": f"g{gang}"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _group(gang: int, api: str) -> dict[str, Any]:
    meta = {"name": f"g{gang}", "namespace": "default"}
    if api == "coscheduling":
        return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": meta,
                "spec": {"minMember": GANG_SIZE}}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": meta,
            "spec": {"schedulingPolicy": {"gang": {"minCount": GANG_SIZE}}}}


def side(api: str, nodes: int, gangs: int, tuned: bool = False) -> dict[str, Any]:
    """One side, in this process: the numbers as a dict."""
    if tuned:
        gc.set_threshold(50_000, 20, 100)  # a benchmark knob the product does not turn
    from kbatch.api.core_v1 import Pod
    from kbatch.api.scheduling_v1beta1 import PodGroup
    from kbatch.api.scheduling_x_v1alpha1 import PodGroup as XPodGroup
    from kbatch.runtime.controlplane import ControlPlane
    from kbatch.sim.nodes import NodeTemplate, create_nodes

    wall0 = time.perf_counter()
    gates = "GenericWorkload=true" if api == "native" else None
    cp = (ControlPlane(seed=1, controllers=TUNED_CONTROLLERS[api], trace=False, feature_gates=gates)
          if tuned else ControlPlane(seed=1, feature_gates=gates))
    create_nodes(cp, nodes, NodeTemplate(cpu="64", memory="256Gi", pods=110, gpus=8))
    setup = time.perf_counter() - wall0
    start, cpu0, virtual0 = time.perf_counter(), time.process_time(), cp.clock.now()
    group_kind = {"coscheduling": XPodGroup, "native": PodGroup}.get(api)
    for gang in range(gangs):  # every object created at once: no control loop runs in between
        if group_kind is not None:
            cp.client.create(group_kind.model_validate(_group(gang, api)))
        for i in range(GANG_SIZE):
            cp.client.create(Pod.model_validate(_pod(gang, i, api)))
    total = gangs * GANG_SIZE
    partial = 0  # the most gangs ever seen partly bound (must stay 0 with groups)
    while True:
        cp.advance(30)
        listed = cp.cache.list(Pod, "default")
        bound: set[str] = set()
        waiting: set[str] = set()
        for p in listed:
            (bound if p.spec.node_name else waiting).add(p.metadata.name.split("-", 1)[0])
        # partly bound: some members on nodes while others wait (PodGC may already have deleted
        # finished members, so a gang with fewer than GANG_SIZE pods listed is not partial by itself)
        partial = max(partial, len(bound & waiting))
        phases = [p.status.phase if p.status is not None else None for p in listed]
        if "Failed" in phases:
            raise SystemExit(f"{api}: a pod failed")
        # PodGC (a default controller) deletes finished pods above its threshold of 12,500: a pod
        # no longer listed has finished (nothing else deletes one, and none failed)
        if phases.count("Succeeded") + total - len(listed) == total:
            break
        if cp.clock.now() - virtual0 > 24 * 3600:
            raise SystemExit(f"{api}: not every pod Succeeded after a virtual day")
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    return {"side": api, "setup": setup, "wall": wall, "cpu": cpu, "pods_per_s": total / wall,
            "virtual_s": cp.clock.now() - virtual0, "partial_gangs": partial,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gangs", type=int, default=2000)
    ap.add_argument("--sides", default=",".join(SIDES), help="comma-separated subset of " + ",".join(SIDES))
    ap.add_argument("--tuned", action="store_true",
                    help="the tuned variant: only scheduler, kubelet and the family's controller, no trace,"
                         " CPython's GC thresholds raised (benchmark knobs, not what a user runs)")
    ap.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)  # a child's side
    args = ap.parse_args(argv)
    if args.side:
        print(json.dumps(side(args.side, args.nodes, args.gangs, args.tuned)))
        return 0
    chosen = ["plain", *(s for s in args.sides.split(",") if s != "plain")]
    results = {}
    for name in chosen:
        child = [sys.executable, __file__, "--side", name, "--nodes", str(args.nodes), "--gangs",
                 str(args.gangs), *(["--tuned"] if args.tuned else [])]
        out = subprocess.run(child, check=True, capture_output=True, text=True)
        results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"nodes={args.nodes} x 8 GPUs, gangs={args.gangs} x {GANG_SIZE} pods (1 GPU, sleep 300); "
          f"{VARIANT[args.tuned]}")
    base, base_cpu = results["plain"]["wall"], results["plain"]["cpu"]
    for r in results.values():
        print(f"{r['side']:>12}: setup {r['setup']:.1f} s; pods to Succeeded {r['wall']:.1f} s wall "
              f"({r['wall'] / base:.2f}x plain, target <= 1.5x), {r['cpu']:.1f} s CPU "
              f"({r['cpu'] / base_cpu:.2f}x plain), {r['pods_per_s']:.0f} pods/s; "
              f"{r['virtual_s']:.0f} virtual s; partly bound gangs seen {r['partial_gangs']}; "
              f"peak RSS {r['peak_rss_mib']:.0f} MiB (target <= 2048)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
