"""Kueue scheduler benchmark: Kueue's own performance test configurations, replayed in virtual time.

    python benchmarks/kueue_bench.py                  # "baseline", then "large", in one run
    python benchmarks/kueue_bench.py --only baseline  # one of them
    python benchmarks/kueue_bench.py --scale 0.1      # every workload count scaled down (a quick run)

Upstream: kubernetes-sigs/kueue ``test/performance/scheduler`` (v0.19.2): ``configs/baseline`` (5
cohorts x 6 ClusterQueues, nominal 20 cpu, borrowing limit 100, ``reclaimWithinCohort: Any``,
``withinClusterQueue: LowerPriority``; per ClusterQueue 350 small (1 cpu, 200 ms, priority 50, one
every 100 ms), 100 medium (5 cpu, 500 ms, 100, every 500 ms) and 50 large (20 cpu, 1 s, 200, every
1.2 s) workloads: 15,000 in all) and ``configs/large-scale`` (10 cohorts x 100 ClusterQueues; 35 small
(150 ms, every 60 ms), 11 medium (350 ms, every 300 ms), 4 large (700 ms, every 700 ms) per queue:
50,000). As upstream's runner (``runner/generator``, ``runner/controller``): each ClusterQueue has its
namespace and LocalQueue; Workloads are created directly, one per interval per set; a Workload runs
for its class's runtime after admission and is then marked Finished; an evicted one has its
reservation released ("Evicted by the test runner"). Kueue runs as upstream's ``minimalkueue`` does:
an empty Configuration (no waitForPodsReady), the v0.19.2 gates.

Printed, side by side with upstream's ranges (``rangespec.yaml``, measured on a real clock, where
scheduling throughput bounds the run): the wall time (upstream: the whole run in real time), the
virtual time, peak RSS, the average time to admission per workload class and the ClusterQueues' CPU
usage (admitted usage over time, % of nominal: integrated from the ClusterQueue status events,
as upstream's recorder does, and exactly from the workloads' admissions; the status is written at
most once a second, so in a run of a few virtual seconds the first figure misses most changes).
Targets here: baseline <= 20 s wall, large <= 90 s, peak RSS <= 2 GiB.

It runs what a user's control plane does (the trace on, CPython's own GC settings; the controllers
are upstream's ``minimalkueue`` harness: Kueue and the runner); ``--tuned`` runs the older variant
(no trace, raised GC thresholds), printed as such.

Baseline, measured first in the same run: the floor, the same workloads, queues and runner without
Kueue (each Workload admitted by one status write on creation); the Kueue run's CPU time is printed
as a ratio to it. A warm-up run at 1% scale comes before both (imports, first-use caches).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Any

CONFIGS: dict[str, dict[str, Any]] = {
    "baseline": {
        "cohorts": 5,
        "queues": 6,
        "sets": [
            ("small", 350, 100, 200, 50, 1),
            ("medium", 100, 500, 500, 100, 5),
            ("large", 50, 1200, 1000, 200, 20),
        ],
        "upstream": {
            "wall_ms": 425_000,
            "usage": 50.0,
            "admission_ms": {"small": 260_000, "medium": 90_000, "large": 23_000},
        },
    },
    "large": {
        "cohorts": 10,
        "queues": 100,
        "sets": [
            ("small", 35, 60, 150, 50, 1),
            ("medium", 11, 300, 350, 100, 5),
            ("large", 4, 700, 700, 200, 20),
        ],
        "upstream": {
            "wall_ms": 1_416_000,
            "usage": 31.6,
            "admission_ms": {"small": 841_000, "medium": 308_000, "large": 128_000},
        },
    },
}
TARGET_WALL = {"baseline": 20.0, "large": 90.0}
KUEUE = "kueue.x-k8s.io/v1beta2"


@dataclass
class Recorder:
    """Upstream's ``runner/recorder``: per workload the time to admission, per ClusterQueue the
    integral of its admitted CPU (``status.flavorsUsage``) over time."""

    created: dict[str, float] = field(default_factory=dict)
    admitted: dict[str, float] = field(default_factory=dict)
    finished: int = 0
    classes: dict[str, str] = field(default_factory=dict)
    cq_last: dict[str, tuple[float, int]] = field(default_factory=dict)
    cq_used: dict[str, float] = field(default_factory=dict)
    # the same integral from the workloads themselves (admitted and not finished): exact, where the
    # ClusterQueue status is written at most once per batch period (1 s) and misses shorter changes
    wl_last: dict[str, tuple[float, int]] = field(default_factory=dict)
    wl_used: dict[str, float] = field(default_factory=dict)
    first: float | None = None
    last: float = 0.0
    evictions: int = 0
    clock: Any = None
    log: list[str] = field(default_factory=list)  # "<virtual s> <what> <key>": admissions, evictions, ends

    def order_digest(self) -> str:
        """sha256 of :attr:`log`: the admissions and evictions in order, the ends as a set (the
        runner's writes at one instant may interleave differently with other controllers' work;
        their instants are fixed by the admissions): what an optimisation must not change."""
        decisions = [line for line in self.log if " Finished " not in line]
        ends = sorted(line for line in self.log if " Finished " in line)
        return hashlib.sha256("\n".join([*decisions, "--", *ends]).encode()).hexdigest()

    def on_add(self, obj: Any) -> None:
        self.on_update(None, obj)

    def on_delete(self, obj: Any) -> None:
        pass

    def on_update(self, old: Any, new: Any) -> None:
        now = self.clock.now()
        if new.kind == "ClusterQueue":
            usage = 0
            status = new.status
            if status is not None and status.flavors_usage and status.flavors_usage[0].resources:
                usage = status.flavors_usage[0].resources[0].total.milli_value()
            _integrate(self.cq_used, self.cq_last, new.metadata.name, now)
            self.cq_last[new.metadata.name] = (now, usage)
            self.first = now if self.first is None else self.first
            self.last = now
            return
        key = f"{new.metadata.namespace}/{new.metadata.name}"
        conds = _true_conditions(new)
        was = _true_conditions(old) if old is not None else set()
        before = _admitted_cpu(old, was) if old is not None else None
        self._count_usage(now, before, _admitted_cpu(new, conds))
        if key not in self.created:
            self.created[key] = now
            self.classes[key] = (new.metadata.labels or {}).get("kueue.x-k8s.io/perf-class", "")
        for cond in sorted(conds - was):
            if cond in ("Admitted", "Evicted", "Finished"):
                self.log.append(f"{now:.6f} {cond} {key}")
        if "Admitted" in conds and key not in self.admitted:
            self.admitted[key] = now
        if "Finished" in conds and "Finished" not in was:
            self.finished += 1
        if "Evicted" in conds and old is not None and "Evicted" not in was:
            self.evictions += 1

    def _count_usage(self, now: float, before: tuple[str, int] | None, after: tuple[str, int] | None) -> None:
        if before == after:
            return
        for cq, delta in ((before, -1), (after, 1)):
            if cq is None:
                continue
            name, milli = cq
            current = _integrate(self.wl_used, self.wl_last, name, now)
            self.wl_last[name] = (now, current + delta * milli)

    def close(self) -> None:
        """End every queue's usage integrals at the last ClusterQueue event."""
        for used, last in ((self.cq_used, self.cq_last), (self.wl_used, self.wl_last)):
            for name in list(last):
                _integrate(used, last, name, self.last)


def _integrate(used: dict[str, float], last: dict[str, tuple[float, int]], name: str, now: float) -> int:
    """Add to ``used[name]`` the area of ``name``'s value since its last change (value times time);
    returns that value (0 before the first change)."""
    t, value = last.get(name, (now, 0))
    used[name] = used.get(name, 0.0) + value * (now - t)
    return value


def _admitted_cpu(wl: Any, conds: set[str]) -> tuple[str, int] | None:
    """(ClusterQueue, admitted mCPU) of a workload its queue counts as used: admitted, not finished."""
    admission = wl.status.admission if wl.status else None
    if "Admitted" not in conds or "Finished" in conds or admission is None:
        return None
    usage = admission.pod_set_assignments[0].resource_usage or {}
    return admission.cluster_queue, usage["cpu"].milli_value() if "cpu" in usage else 0


def _true_conditions(wl: Any) -> set[str]:
    return {c.type for c in (wl.status.conditions if wl.status else None) or () if c.status == "True"}


def _cached_workload(ctx: Any, request: Any) -> Any:
    """The Workload a request names, from the informer cache (None when gone)."""
    from kbatch.api.errors import NotFound
    from kbatch.api.kueue_v1beta2 import Workload

    try:
        return ctx.cache.get(Workload, request.name, request.namespace)
    except NotFound:
        return None


class RunnerController:
    """Upstream's ``runner/controller``: finish an admitted workload after its runtime, release an
    evicted one's reservation."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        # uid -> when the runner saw it admitted (upstream's ``setAdmittedTime``: the condition's
        # lastTransitionTime has whole seconds, a 150 ms workload would end at once)
        self.admitted_at: dict[str, float] = {}

    def reconcile(self, request: Any) -> Any:
        from kbatch.api.errors import Conflict
        from kbatch.controllers.kueue import workloads as W
        from kbatch.runtime.reconcile import Result

        wl = _cached_workload(self.ctx, request)
        if wl is None:
            return None
        now = self.ctx.clock.now_datetime()
        status = wl.status
        try:
            if W.has(status, "Evicted") and W.has(status, "QuotaReserved"):
                st = W.status_of(wl)
                W.unset_quota_reservation(
                    st, "Pending", "Evicted by the test runner", wl.metadata.generation, now
                )
                self.ctx.client.update_status(wl.model_copy(update={"status": st}))
                return None
            uid = wl.metadata.uid or ""
            if not W.has(status, "Admitted") or W.has(status, "Finished"):
                self.admitted_at.pop(uid, None)
                return None
            at = self.admitted_at.setdefault(uid, self.ctx.clock.now())
            runtime = int((wl.metadata.labels or {}).get("kueue.x-k8s.io/perf-runtime-ms", "0")) / 1000
            remaining = round(runtime - (self.ctx.clock.now() - at), 6)  # (float sums: whole microseconds)
            if remaining > 0:
                return Result(requeue_after=remaining)
            st = W.status_of(wl)
            W.set_condition(st, "Finished", True, "ByTest", "By test runner", wl.metadata.generation, now)
            self.ctx.client.update_status(wl.model_copy(update={"status": st}))
        except Conflict:
            return Result(requeue_after=0.001)
        return None


class AdmitAll:
    """The floor this benchmark is measured against (run first, in the same process): no Kueue; every
    Workload is admitted to its LocalQueue's namesake ClusterQueue on creation with one status write,
    then finished by the same runner. What remains is the API server, store, informers and the
    runner: the cost of the same writes without any queueing decision."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    def reconcile(self, request: Any) -> Any:
        from kbatch.api import edit
        from kbatch.api.errors import Conflict
        from kbatch.api.kueue_v1beta2 import Admission
        from kbatch.controllers.kueue import workloads as W

        wl = _cached_workload(self.ctx, request)
        if wl is None or W.find(wl.status, "QuotaReserved") is not None:
            return None
        wl = edit(wl)
        wl.status = W.status_of(wl)
        now, gen = self.ctx.clock.now_datetime(), wl.metadata.generation
        cpu = wl.spec.pod_sets[0].template.spec.containers[0].resources.requests["cpu"]
        admission = Admission.model_validate({"clusterQueue": wl.spec.queue_name, "podSetAssignments": [
            {"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(cpu)}, "count": 1}]})
        W.set_quota_reservation(wl.status, admission, gen, now)
        W.sync_admitted(wl.status, gen, now)
        try:
            self.ctx.client.update_status(wl)
        except Conflict:
            return self.reconcile(request)
        return None


def _admit_all(ctx: Any) -> Any:
    from kbatch.api.kueue_v1beta2 import Workload

    return ctx.build("perf-admit-all").for_(Workload).complete(AdmitAll(ctx))


def _runner(ctx: Any) -> Any:
    from kbatch.api.kueue_v1beta2 import Workload

    return ctx.build("perf-runner").for_(Workload).complete(RunnerController(ctx))


def _setup(
    cp: Any, name: str, scale: float, shape: tuple[int, int] | None = None
) -> tuple[list[tuple[float, dict[str, Any]]], int]:
    """The queues, and the workloads to create as (virtual seconds after the start, manifest);
    ``shape`` (cohorts, ClusterQueues per cohort) overrides the configuration's (a smaller world for
    tests)."""
    config = CONFIGS[name]
    cohorts, queues = shape or (config["cohorts"], config["queues"])
    cp.apply([{"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default"}}])
    objects: list[dict[str, Any]] = []
    schedule: list[tuple[float, dict[str, Any]]] = []
    for c in range(cohorts):
        for q in range(queues):
            cq = f"cq-0-{q}-cohort-{c}"
            objects += [
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": cq}},
                {
                    "apiVersion": KUEUE,
                    "kind": "ClusterQueue",
                    "metadata": {"name": cq, "labels": {"class": "cq"}},
                    "spec": {
                        "cohortName": f"cohort-{c}",
                        "namespaceSelector": {},
                        "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                        "resourceGroups": [
                            {
                                "coveredResources": ["cpu"],
                                "flavors": [
                                    {
                                        "name": "default",
                                        "resources": [
                                            {"name": "cpu", "nominalQuota": "20", "borrowingLimit": "100"}
                                        ],
                                    }
                                ],
                            }
                        ],
                    },
                },
                {
                    "apiVersion": KUEUE,
                    "kind": "LocalQueue",
                    "metadata": {"name": cq, "namespace": cq},
                    "spec": {"clusterQueue": cq},
                },
            ]
            for s, (klass, count, interval, runtime, priority, cpu) in enumerate(config["sets"]):
                for i in range(max(1, round(count * scale))):
                    schedule.append(
                        (
                            (i + 1) * interval / 1000,
                            {
                                "apiVersion": KUEUE,
                                "kind": "Workload",
                                "metadata": {
                                    "name": f"{klass}-{s}-{i}-0",
                                    "namespace": cq,
                                    "labels": {
                                        "kueue.x-k8s.io/perf-class": klass,
                                        "kueue.x-k8s.io/perf-runtime-ms": str(runtime),
                                    },
                                },
                                "spec": {
                                    "queueName": cq,
                                    "priority": priority,
                                    "podSets": [
                                        {
                                            "name": "main",
                                            "count": 1,
                                            "template": {
                                                "spec": {
                                                    "restartPolicy": "Never",
                                                    "containers": [
                                                        {
                                                            "name": "c",
                                                            "image": "busybox",
                                                            "resources": {"requests": {"cpu": str(cpu)}},
                                                        }
                                                    ],
                                                }
                                            },
                                        }
                                    ],
                                },
                            },
                        )
                    )
    cp.apply(objects)
    schedule.sort(key=lambda item: item[0])
    return schedule, len(schedule)


def run(
    name: str, scale: float, trace: bool, floor: bool = False, shape: tuple[int, int] | None = None
) -> dict[str, Any]:
    from kbatch.api.kueue_v1beta2 import ClusterQueue, Workload
    from kbatch.families import ControllerSpec
    from kbatch.runtime.controlplane import ControlPlane

    wall0, cpu0 = time.perf_counter(), time.process_time()
    cp = ControlPlane(
        seed=1,
        controllers="perf-admit-all,perf-runner" if floor else "kueue,perf-runner",
        trace=trace,
        feature_gates="DisableWaitForPodsReady=true",
        kueue_config={"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"},
        extra_controllers=[
            ControllerSpec("perf-runner", "the performance test's runner", _runner),
            ControllerSpec("perf-admit-all", "the floor: admit every workload at once", _admit_all),
        ],
    )
    recorder = Recorder(clock=cp.clock)
    cp.cache.informer_for(Workload).add_event_handler(recorder)
    cp.cache.informer_for(ClusterQueue).add_event_handler(recorder)
    schedule, total = _setup(cp, name, scale, shape)
    start = cp.clock.now()
    models = [(t, Workload.model_validate(m)) for t, m in schedule]
    i = 0
    while i < len(models):
        due = start + models[i][0]
        if due > cp.clock.now():
            cp.advance(due - cp.clock.now())
        while i < len(models) and start + models[i][0] <= cp.clock.now():
            cp.client.create(models[i][1])
            i += 1
        cp.run_until_idle()
    cp.wait_for(lambda: recorder.finished >= total, timeout=24 * 3600)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    recorder.close()
    first = recorder.first if recorder.first is not None else recorder.last  # the clock may start at 0.0
    elapsed = (recorder.last - first) or 1.0
    nominal = len(recorder.cq_last) * 20_000
    usage_pct = sum(recorder.cq_used.values()) * 100 / (nominal * elapsed)
    exact_pct = sum(recorder.wl_used.values()) * 100 / (nominal * elapsed)
    per_class: dict[str, list[float]] = {}
    for key, created in recorder.created.items():
        per_class.setdefault(recorder.classes[key], []).append(recorder.admitted.get(key, created) - created)
    return {
        "name": name,
        "workloads": total,
        "wall": wall,
        "cpu": cpu,
        "virtual": cp.clock.now() - start,
        "usage": usage_pct,
        "usage_exact": exact_pct,
        "evictions": recorder.evictions,
        "admission_ms": {k: 1000 * sum(v) / len(v) for k, v in per_class.items()},
        "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "order_digest": recorder.order_digest(),
        "log": recorder.log,
        "trace_digest": cp.trace.digest() if trace else None,
    }


def report(r: dict[str, Any], scale: float, floor: dict[str, Any]) -> None:
    up = CONFIGS[r["name"]]["upstream"]
    print(f"== {r['name']}: {r['workloads']} workloads (scale {scale:g})")
    print(
        f"  floor (no Kueue: admitted on creation, same runner): cpu {floor['cpu']:.1f} s, "
        f"wall {floor['wall']:.1f} s; Kueue / floor cpu ratio {r['cpu'] / floor['cpu']:.1f}x"
    )
    target = TARGET_WALL[r["name"]]
    print(
        f"  wall {r['wall']:.1f} s (target <= {target:g} s{' (full size)' if scale != 1 else ''}); "
        f"cpu {r['cpu']:.1f} s; "
        f"virtual time {r['virtual']:.1f} s; upstream's max wall (real clock) {up['wall_ms'] / 1000:g} s; "
        f"{r['workloads'] / r['wall']:.0f} workloads/s"
    )
    print(
        f"  ClusterQueue CPU usage {r['usage']:.1f}% of nominal (upstream's minimum {up['usage']:g}%; "
        f"from the ClusterQueue status, as upstream's recorder: written at most once a second), "
        f"{r['usage_exact']:.1f}% from the workloads' admissions; {r['evictions']} evictions"
    )
    for klass in ("small", "medium", "large"):
        got = r["admission_ms"].get(klass)
        if got is not None:
            print(
                f"  {klass:6} average time to admission {got / 1000:8.1f} s (upstream's maximum "
                f"{up['admission_ms'][klass] / 1000:g} s)"
            )
    print(f"  peak RSS {r['peak']:.0f} MiB (target <= 2048 MiB)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(CONFIGS), default=None)
    ap.add_argument("--scale", type=float, default=1.0, help="scale every workload count (a quick run)")
    ap.add_argument("--tuned", action="store_true",
                    help="the older tuned variant (trace off, raised GC thresholds), not what a user runs")
    args = ap.parse_args(argv)
    if args.tuned:
        gc.set_threshold(50_000, 20, 100)  # the tuned variant's knob, not kbatch's
    trace = not args.tuned
    names = [args.only] if args.only else ["baseline", "large"]
    print("as a user runs it (trace on, CPython's GC)" if trace
          else "tuned (trace off, raised GC thresholds)")
    run(names[0], min(args.scale, 0.01), False, floor=True)  # imports and first-use caches, not measured
    for name in names:
        floor = run(name, args.scale, trace, floor=True)
        report(run(name, args.scale, trace), args.scale, floor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
