"""The pydantic floor of a pod's lifecycle: what the wall-time targets of issues 5 and 6 leave.

    python benchmarks/floor_bench.py                 # both lifecycles, ~1 min
    python benchmarks/floor_bench.py --pods 5000     # the size of the measured whole run

Every write through kbatch's API server ends in the stored bytes of a typed object (one
``to_json``), and every informer event hands its handlers a typed object (one ``validate_json`` of
the stored bytes, shared by every informer of the kind; ``kbatch.apiserver.decoded_cache``). Those
two pydantic calls per write are the least any version of the current design pays: validation,
admission, the store, the watch, the informer's indexes and the controllers all come on top.

This benchmark runs the two lifecycles of the throughput targets on a tiny control plane and
captures every stored version from the store's history:

* ``cluster``: a bare pod, ``sleep 60`` (``benchmarks/cluster_bench.py``; target 100,000 pods in 30 s);
* ``job``: the pods of an Indexed Job, ``sleep 60`` (``benchmarks/job_bench.py``; target 100 Jobs x
  1,000 pods in 60 s), with the Job's own writes and the Events, amortized per pod.

For each stored version it times, in this thread's CPU time (best of ``--repeat``), the decode
(``Model.model_validate_json``) when the kind has an informer in that benchmark, and the encode
(``to_json``) of every write, and ``json.loads`` of the same bytes as the in-run baseline. It prints
the floor per pod, that floor times the target's pod count against the target's seconds, and the
whole per-pod cost of a measured run of the same lifecycle (``--pods`` pods), so the ratio says how
much of today's time is that floor.

Last, the cheapest complete writes kbatch has today (a create and a small status update of a bare
pod, each with its informer event, old objects held by the decode cache) and what each lifecycle
would cost if every one of its writes and events came at that price: a bound on what optimizing the
current design, write by write, can reach.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Pod
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.store.kv import EventType

# key root -> (model, watched by an informer in the benchmark)
KINDS: dict[bytes, tuple[type[Any], bool]] = {
    b"/registry/pods/": (Pod, True),
    b"/registry/jobs/": (Job, True),
    b"/registry/events/": (Event, False),
}
TARGETS = {"cluster": (100_000, 30.0), "job": (100_000, 60.0)}


@dataclass
class Version:
    root: bytes
    value: bytes


def best(fn: Any, arg: Any, repeat: int, rounds: int = 200) -> float:
    """Best per-call CPU seconds of ``fn(arg)`` over ``repeat`` batches of ``rounds`` calls."""
    out = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        for _ in range(rounds):
            fn(arg)
        out = min(out, (time.thread_time() - start) / rounds)
    return out


def lifecycle(kind: str, pods: int) -> tuple[ControlPlane, float]:
    """Run ``pods`` pods of the lifecycle to completion; the control plane and the wall seconds."""
    start = time.perf_counter()
    if kind == "cluster":
        from cluster_bench import bare_pod

        cp = ControlPlane(seed=1, controllers="scheduler,kubelet", trace=False,
                          options={"scheduler": {"events": False}})
        create_nodes(cp, max(2, pods // 100), NodeTemplate(cpu="64", memory="512Gi", gpus=8))
        for index in range(pods):
            cp.client.create(bare_pod(index))
    else:
        from job_bench import job_manifest

        cp = ControlPlane(seed=1, trace=False)
        create_nodes(cp, max(2, pods // 100), NodeTemplate(cpu="64", memory="512Gi", gpus=8))
        completions = min(pods, 1000)
        for index in range(max(1, pods // completions)):
            cp.apply([job_manifest(index, completions, completions)])
    cp.run_until_idle()
    cp.advance(120)
    return cp, time.perf_counter() - start


def captured(cp: ControlPlane) -> tuple[dict[bytes, list[Version]], int]:
    """Every PUT of the captured kinds, grouped by key, and how many pods there were."""
    watcher = cp.store.watch(b"/registry/", b"/registry0", start_revision=1)
    by_key: dict[bytes, list[Version]] = defaultdict(list)
    while events := watcher.poll():
        for event in events:
            root = next((r for r in KINDS if event.kv.key.startswith(r)), None)
            if root is not None and event.type is EventType.PUT:
                by_key[event.kv.key].append(Version(root, event.kv.value))
    watcher.close()
    pods = sum(1 for key in by_key if key.startswith(b"/registry/pods/"))
    return by_key, pods


def floor(by_key: dict[bytes, list[Version]], pods: int, repeat: int) -> dict[str, float]:
    """Summed µs over every captured version, divided by the pod count."""
    sums = {"writes": 0.0, "events": 0.0, "decode": 0.0, "encode": 0.0, "json_loads": 0.0}
    for versions in by_key.values():
        for version in versions:
            model, watched = KINDS[version.root]
            obj = model.model_validate_json(version.value)
            sums["writes"] += 1
            sums["encode"] += best(type(obj).to_json, obj, repeat)
            if watched:
                sums["events"] += 1
                sums["decode"] += best(model.model_validate_json, version.value, repeat)
                sums["json_loads"] += best(json.loads, version.value, repeat)
    return {name: value / pods for name, value in sums.items()}


def cheapest_pair(n: int) -> tuple[float, float, float, float]:
    """CPU µs per create, per create's informer event, per status update and per its event: the
    cheapest complete writes kbatch has, on the smallest pod, each old object held by the cache."""
    from cluster_bench import bare_pod

    from kbatch.api.core_v1 import PodCondition, PodStatus

    cp = ControlPlane(seed=1, controllers="", trace=False)
    cp.cache.informer_for(Pod)
    cp.cache.start()
    inputs = [bare_pod(index) for index in range(n)]
    start = time.thread_time()
    created = [cp.client.create(pod) for pod in inputs]
    create = time.thread_time() - start
    start = time.thread_time()
    cp.cache.pump()
    create_event = time.thread_time() - start
    for pod in created:
        pod.status = PodStatus(phase="Running", conditions=[PodCondition(type="Ready", status="True")])
    start = time.thread_time()
    for pod in created:
        cp.client.update_status(pod)
    update = time.thread_time() - start
    start = time.thread_time()
    cp.cache.pump()
    update_event = time.thread_time() - start
    cp.close()
    return tuple(1e6 * t / n for t in (create, create_event, update, update_event))  # type: ignore[return-value]


def report_pairs(n: int, lifecycles: dict[str, dict[str, float]]) -> None:
    create, create_event, update, update_event = cheapest_pair(n)
    print(f"cheapest complete writes today ({n:,} bare pods, CPU us each)")
    print(f"  create {create:6.1f}, its informer event {create_event:6.1f}; "
          f"status update {update:6.1f}, its informer event {update_event:6.1f}")
    for kind, per_pod in lifecycles.items():
        target_pods, target_s = TARGETS[kind]
        cost = per_pod["writes"] * update + per_pod["events"] * update_event
        print(f"  {kind}: {per_pod['writes']:.2f} writes + {per_pod['events']:.2f} events per pod, all at "
              f"the status-update price: {cost:6.1f} us per pod, x {target_pods:,} = "
              f"{cost * target_pods / 1e6:6.1f} s (target {target_s:.0f} s), before any controller's "
              "own work")


def report(kind: str, sample: int, measured_pods: int, repeat: int) -> dict[str, float]:
    cp, _ = lifecycle(kind, sample)
    by_key, pods = captured(cp)
    per_pod = floor(by_key, pods, repeat)
    cp.close()
    gc.collect()
    big, wall = lifecycle(kind, measured_pods)
    big.close()
    whole = wall / measured_pods * 1e6
    target_pods, target_s = TARGETS[kind]
    pydantic = (per_pod["decode"] + per_pod["encode"]) * 1e6
    print(f"{kind} lifecycle ({pods} pods captured)")
    print(f"  writes per pod                 {per_pod['writes']:8.2f}   (Events and the Job's own amortized)")
    print(f"  informer events per pod        {per_pod['events']:8.2f}")
    print(f"  decode (validate_json) per pod {per_pod['decode'] * 1e6:8.1f} us  "
          f"({per_pod['decode'] / per_pod['json_loads']:.1f}x json.loads of the same bytes)")
    print(f"  encode (to_json) per pod       {per_pod['encode'] * 1e6:8.1f} us")
    print(f"  pydantic floor per pod         {pydantic:8.1f} us")
    print(f"  floor x {target_pods:,} pods          {pydantic * target_pods / 1e6:8.1f} s   "
          f"(target {target_s:.0f} s: {100 * pydantic * target_pods / 1e6 / target_s:.0f}% of it)")
    print(f"  budget per pod at the target   {target_s / target_pods * 1e6:8.1f} us")
    print(f"  measured whole run per pod     {whole:8.1f} us   ({measured_pods:,} pods, wall incl. "
          f"start-up; floor = {100 * pydantic / whole:.0f}% of it)")
    return per_pod


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=40, help="pods whose versions are timed")
    parser.add_argument("--pods", type=int, default=5000, help="pods of the measured whole run")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=sorted(TARGETS))
    args = parser.parse_args()
    gc.set_threshold(50_000, 20, 100)  # as the two benchmarks do (a process setting, not kbatch's)
    lifecycles = {kind: report(kind, args.sample, args.pods, args.repeat)
                  for kind in sorted(TARGETS) if args.only in (None, kind)}
    report_pairs(args.pods, lifecycles)


if __name__ == "__main__":
    main()
