"""DRA benchmark (issue 18): N nodes each publishing G GPUs (one ResourceSlice per node, a simulated
driver), P pods each with one claim generated from a template asking ``exactly`` 1 GPU with a CEL
selector, from creation to every pod Running; next to the same pods requesting ``nvidia.com/gpu: 1``
(the extended-resource baseline) on nodes with G GPUs of capacity, measured in the same run.

    python benchmarks/dra_bench.py                         # 1000 nodes x 8 GPUs, 8000 pods (the target)
    python benchmarks/dra_bench.py --nodes 100 --pods 800  # a quick run

Each side runs in a child process of its own, so that peak RSS is its own. Prints wall time, pods/s
and peak RSS per side and the DRA/baseline wall ratio. Targets: ratio <= 2, peak RSS <= 2 GiB.
It runs what a user runs: the default controllers, the trace and Events on, CPython's own GC settings.
``--tuned`` runs the older variant (only scheduler, kubelet and, on the DRA side, resourceclaim; no
trace; raised GC thresholds) beside it for comparison, printed as tuned.
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

SELECTOR = 'device.attributes["gpu.example.com"].model == "A100"'


def _pod(i: int, dra: bool) -> dict:
    container: dict = {
        "name": "main",
        "image": "busybox",
        "command": ["sleep", "infinity"],
        "resources": {"requests": {"cpu": "10m"}},
    }
    spec: dict = {"restartPolicy": "Never", "containers": [container]}
    if dra:
        container["resources"]["claims"] = [{"name": "gpu"}]
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    else:
        container["resources"]["requests"]["nvidia.com/gpu"] = "1"
        container["resources"]["limits"] = {"nvidia.com/gpu": "1"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"p-{i}", "namespace": "default"},
        "spec": spec,
    }


def side(dra: bool, nodes: int, gpus: int, pods: int, tuned: bool = False) -> dict:
    """One side, in this process: the numbers as a dict."""
    if tuned:
        gc.set_threshold(50_000, 20, 100)  # the tuned variant's knob, not kbatch's
    wall0 = time.perf_counter()
    cp = build(dra, nodes, gpus, tuned)
    setup = time.perf_counter() - wall0
    start, cpu0, revision0 = time.perf_counter(), time.process_time(), cp.store.revision
    run_pods(cp, dra, pods)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu0
    writes = cp.store.revision - revision0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "side": "dra" if dra else "extended-resource",
        "setup": setup,
        "wall": wall,
        "cpu": cpu,
        "writes_per_pod": writes / pods,
        "pods_per_s": pods / wall,
        "peak_rss_mib": peak,
    }


def build(dra: bool, nodes: int, gpus: int, tuned: bool = False) -> Any:
    """The control plane of one side, with its nodes (and for DRA the class and the template)."""
    from kbatch.api.resource_v1 import DeviceClass, ResourceClaimTemplate
    from kbatch.runtime.controlplane import ControlPlane
    from kbatch.sim.devices import DeviceTemplate
    from kbatch.sim.nodes import NodeTemplate, create_nodes

    if tuned:
        controllers = "scheduler,kubelet,resourceclaim" if dra else "scheduler,kubelet"
        cp = ControlPlane(seed=1, controllers=controllers, trace=False)
    else:
        cp = ControlPlane(seed=1)
    template = NodeTemplate(
        cpu="64",
        memory="256Gi",
        pods=110,
        devices=DeviceTemplate(count=gpus) if dra else None,
        gpus=0 if dra else gpus,
    )
    create_nodes(cp, nodes, template)
    if dra:
        cp.client.create(
            DeviceClass.model_validate(
                {
                    "metadata": {"name": "gpu"},
                    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
                }
            )
        )
        cp.client.create(
            ResourceClaimTemplate.model_validate(
                {
                    "metadata": {"name": "one-gpu", "namespace": "default"},
                    "spec": {
                        "spec": {
                            "devices": {
                                "requests": [
                                    {
                                        "name": "gpu",
                                        "exactly": {
                                            "deviceClassName": "gpu",
                                            "selectors": [{"cel": {"expression": SELECTOR}}],
                                        },
                                    }
                                ]
                            }
                        }
                    },
                }
            )
        )
    return cp


def run_pods(cp: Any, dra: bool, pods: int) -> None:
    """Create the pods and advance until every one is Running."""
    from kbatch.api.core_v1 import Pod

    for i in range(pods):
        cp.client.create(Pod.model_validate(_pod(i, dra)))

    def all_running() -> bool:
        listed = cp.cache.list(Pod, "default")
        return len(listed) == pods and all(
            p.status is not None and p.status.phase == "Running" for p in listed
        )

    cp.wait_for(all_running, timeout=3600)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--pods", type=int, default=8000)
    ap.add_argument("--tuned", action="store_true",
                    help="the older tuned variant (few controllers, no trace, raised GC thresholds), "
                         "not what a user runs")
    ap.add_argument("--side", choices=("dra", "extended"), help=argparse.SUPPRESS)  # a child's side
    args = ap.parse_args(argv)
    if args.side:
        print(json.dumps(side(args.side == "dra", args.nodes, args.gpus, args.pods, args.tuned)))
        return 0
    results = {}
    for name in ("extended", "dra"):
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--side",
                name,
                "--nodes",
                str(args.nodes),
                "--gpus",
                str(args.gpus),
                "--pods",
                str(args.pods),
                *(["--tuned"] if args.tuned else []),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    variant = "tuned (not what a user runs)" if args.tuned else "as a user runs it"
    print(f"nodes={args.nodes} gpus/node={args.gpus} pods={args.pods}, {variant}")
    for r in results.values():
        print(
            f"{r['side']:>17}: setup {r['setup']:.1f} s; pods to Running {r['wall']:.1f} s wall "
            f"({r['cpu']:.1f} s CPU), {r['pods_per_s']:.0f} pods/s, {r['writes_per_pod']:.1f} writes/pod; "
            f"peak RSS {r['peak_rss_mib']:.0f} MiB"
        )
    ratio = results["dra"]["wall"] / results["extended"]["wall"]
    cpu_ratio = results["dra"]["cpu"] / results["extended"]["cpu"]
    print(
        f"DRA / extended-resource wall: {ratio:.2f}x (CPU {cpu_ratio:.2f}x; target <= 2x); DRA peak RSS "
        f"{results['dra']['peak_rss_mib'] / 1024:.2f} GiB (target <= 2 GiB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
