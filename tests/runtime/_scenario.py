"""A small but busy scenario for determinism tests: generateName, a controller that draws from its
rng and requeues, a failing reconciler with back-off, events, TTL deletion, GC. Prints
``<digest> <generated names>`` when run as a script with a seed argument."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _support import make_cp

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.reconcile import Request, Result
from kbatch.testing import make_job, make_pod

FINISHED = "2025-01-01T00:00:01Z"


def _pod_maker(ctx: ControllerContext) -> None:
    """For each Job: create two pods with generateName, jitter a requeue, record an event."""

    def reconcile(req: Request) -> Result | None:
        try:
            job = ctx.client.get(Job, req.name, req.namespace)
        except Exception:
            return None
        owned = ctx.cache.list(Pod, req.namespace, labels={"job": req.name})
        if len(owned) < 2:
            pod = make_pod("", req.namespace).label("job", req.name).owner(job).obj()
            pod.metadata.name, pod.metadata.generate_name = None, f"{req.name}-"
            created = ctx.client.create(pod)
            ctx.recorder.event(job, "Normal", "SuccessfulCreate", f"Created pod: {created.metadata.name}")
            return Result(requeue_after=ctx.rng.uniform(1, 3))
        return None

    ctx.build("pod-maker").for_(Job).owns(Pod).complete(reconcile)


def run(seed: int) -> tuple[str, list[str]]:
    cp = scenario(seed)
    names = sorted(p.metadata.name for p in cp.client.list(Pod, "default").items)
    return cp.trace.digest(), names


def scenario(seed: int) -> ControlPlane:
    cp = make_cp(seed=seed)
    cp.add_controller(_pod_maker)
    failures: list[float] = []

    def flaky(req: Request) -> None:
        if len(failures) < 4:
            failures.append(cp.clock.now())
            raise RuntimeError(f"transient failure {len(failures)}")

    cp.build("flaky").for_(Job).complete(flaky)
    for name in ["a", "b", "c"]:
        cp.apply(make_job(name).manual_selector(job=name).ttl_after_finished(30).obj())
    cp.advance("10s")
    status = {"status": {"startTime": "2025-01-01T00:00:00Z", "completionTime": FINISHED, "succeeded": 1,
                         "conditions": [{"type": t, "status": "True", "lastTransitionTime": FINISHED,
                                         "lastProbeTime": FINISHED}
                                        for t in ("SuccessCriteriaMet", "Complete")]}}
    cp.client.patch_status(Job, "b", status, "default")
    cp.advance("1m")
    return cp


if __name__ == "__main__":
    digest, names = run(int(sys.argv[1]))
    print(digest, " ".join(names))
