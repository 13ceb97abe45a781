"""Properties of an elastic Job run through MultiKueue under random resizes (hypothesis).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(steps 1 and 5: neither a replaced slice nor a waiting scale-up removes the worker's objects; a
scale-down is written into the copy), ``pkg/controller/jobs/job/job_multikueue_adapter.go``
(``syncElasticJob``: the remote Job patched, never re-created), ``pkg/scheduler/scheduler.go`` (the
replacement slice keeps its worker) and ``pkg/workloadslicing`` (one reserved slice per Job).

The manager has 4 cpu, the worker 8, each pod asks 1 cpu: a resize above 4 waits on the manager.
After every resize, settled (``run_until_idle`` and a few virtual seconds):

* the worker has one Job, the one created first (same UID), and no copy finished ``OutOfSync``;
* no pod that ran before the resize is gone, beyond the excess of a scale-down (the pods above the
  worker Job's new ``parallelism``, which its job controller deletes);
* the manager has exactly one unfinished slice holding a reservation, and its ClusterQueue reserves
  exactly that slice's cpu;
* the worker runs no more pods than that slice's count.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job

from .elastic_world import (
    count,
    elastic_job,
    manager_slices,
    reserved,
    reserved_cpu,
    running,
    scale,
    worker_pods,
)
from .world import MKWorld

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check(world: MKWorld, uid: str, before: set[str]) -> set[str]:
    w1 = world.workers["w1"]
    (job,) = w1.client.list(Job, "default").items
    assert job.metadata.uid == uid
    for copy in world.remote_workloads("w1"):
        assert not any(c.type == "Finished" and c.reason == "OutOfSync" for c in copy.status.conditions or ())
    alive = running(worker_pods(world, "w1"))
    excess = max(0, len(before) - (job.spec.parallelism or 0))
    assert len(before - alive) <= excess, (sorted(before - alive), job.spec.parallelism)
    (current,) = reserved(manager_slices(world))
    assert reserved_cpu(world) == str(count(current))
    assert len(alive) <= count(current)
    return alive


@SETTINGS
@given(first=st.integers(1, 4), resizes=st.lists(st.integers(1, 6), min_size=1, max_size=5))
def test_resizes_keep_the_worker_job_and_the_quota_of_the_current_slice(
    first: int, resizes: list[int]
) -> None:
    world = MKWorld({"w1": "8"})
    elastic_job(world, "e", first)
    (job,) = world.workers["w1"].client.list(Job, "default").items
    alive = _check(world, job.metadata.uid, set())
    assert len(alive) == first
    for parallelism in resizes:
        scale(world, "e", parallelism)
        alive = _check(world, job.metadata.uid, alive)
