"""The Job controller's pod handlers queue a pod's Job after the 1 s batching period
(job_controller.go ``updatePod`` -> ``enqueueSyncJobBatched``). When that Job is already due within
the period, the handler skips resolving the reference: the queue must end up exactly as if every
event had been resolved and queued (the earlier deadline wins)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.controllers.job.wiring import _PodHandler
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.reconcile import Request
from kbatch.testing import make_job

_names = st.sampled_from(["a", "b", "ghost"])
# (seconds to wait, the pod's Job, a requeue of that Job in so many seconds first, as a back-off does)
steps = st.lists(st.tuples(st.sampled_from([0.0, 0.3, 0.7, 1.0, 2.5]), _names,
                           st.sampled_from([None, None, 0.5, 5.0])), min_size=1, max_size=12)


def _world() -> tuple[ControlPlane, _PodHandler, dict[str, str]]:
    cp = ControlPlane(seed=5, controllers="job")
    for name in ("a", "b"):
        cp.apply(make_job(name).command("sleep 5").obj())
    cp.advance(5)  # synced: nothing waits in the queue any more
    handler = next(h for h in cp.cache.informer_for(Pod).handlers if isinstance(h, _PodHandler))
    jobs = {j.metadata.name: j.metadata.uid or "" for j in cp.cache.list(Job, "default")}
    jobs["ghost"] = "ghost-uid"
    return cp, handler, jobs


def _pod(name: str, job: str, uid: str, rv: int) -> Pod:
    return Pod.model_validate({"metadata": {
        "name": name, "namespace": "default", "resourceVersion": str(rv),
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": uid,
                             "controller": True}]},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}})


def _queue(cp: ControlPlane):  # type: ignore[no-untyped-def]
    return next(c for c in cp.manager.controllers if c.name == "job").queue


def _deadlines(cp: ControlPlane) -> dict[str, float | None]:
    return {n: _queue(cp).waiting_deadline(Request("default", n)) for n in ("a", "b", "ghost")}


@settings(max_examples=25, deadline=None)
@given(steps)
def test_skipping_resolution_leaves_the_queue_as_resolving_would(events: list) -> None:
    fast_cp, fast, jobs = _world()
    slow_cp, slow, _ = _world()
    slow.q.batched_already = lambda namespace, ref: False  # type: ignore[method-assign]
    for i, (dt, job, requeue) in enumerate(events):
        for cp, handler in ((fast_cp, fast), (slow_cp, slow)):
            cp.clock.jump_to(cp.clock.now() + dt)
            if requeue is not None:
                _queue(cp).add_after(Request("default", job), requeue)
            old, new = _pod(f"p{i}", job, jobs[job], 1), _pod(f"p{i}", job, jobs[job], 2)
            handler.on_update(old, new)
        assert _deadlines(fast_cp) == _deadlines(slow_cp)
