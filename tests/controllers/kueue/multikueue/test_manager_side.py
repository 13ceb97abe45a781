"""The manager's side of MultiKueue: its eviction pushed to the worker, its config changes and its
metrics (kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``:
``reconcileGroup`` 6b, ``configHandler``; ``pkg/metrics/metrics.go``: the ``multikueue_`` counters).

The first test is ``workload_test.go``'s "handle workload evicted on manager cluster" row, played end to
end: the remote copy gets ``DeactivationTarget`` ``EvictedOnManagerCluster``, the worker deactivates
it ("DeactivatedDueToEvictedOnManagerCluster", "…Evicted on manager: <message>") and stops its job, and
the manager's eviction then completes.
"""

from __future__ import annotations

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import ServiceUnavailable
from kbatch.api.kueue_v1beta2 import ClusterQueue, MultiKueueConfig, Workload

from .world import MKWorld


def _local(world: MKWorld) -> Workload:
    (wl,) = world.manager.client.list(Workload).items
    return wl


def _cond(wl: Workload, kind: str) -> tuple[str, str, str] | None:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == kind:
            return c.status, c.reason or "", c.message or ""
    return None


def _stop_queue(world: MKWorld) -> None:
    m = world.manager
    cq = edit(m.client.get(ClusterQueue, "cq"))
    cq.spec.stop_policy = "HoldAndDrain"
    m.client.update(cq)


def test_eviction_on_the_manager_deactivates_the_remote_copy() -> None:
    world = MKWorld({"w1": "4"})
    world.job("j1", sleep="3600")
    m, w1 = world.manager, world.workers["w1"]
    m.advance(5)
    assert len(w1.client.list(Pod).items) == 1
    _stop_queue(world)
    m.run_until_idle()
    local = _local(world)
    assert _cond(local, "Evicted") == ("True", "ClusterQueueStopped", "The ClusterQueue is stopped")
    assert _cond(local, "QuotaReserved")[0] == "True"  # the local job is still active (copied status)
    (remote,) = world.remote_workloads("w1")
    message = "The workload is deactivated due to Evicted on manager: The ClusterQueue is stopped"
    assert _cond(remote, "Evicted") == ("True", "DeactivatedDueToEvictedOnManagerCluster", message)
    assert remote.spec.active is False
    (remote_job,) = w1.client.list(Job).items
    assert remote_job.spec.suspend is True
    assert all(p.metadata.deletion_timestamp is not None for p in w1.client.list(Pod).items)
    m.advance(1)  # the stopped remote job's status comes back after the batch period
    local = _local(world)
    assert _cond(local, "QuotaReserved")[0] == "False"
    assert world.remote_workloads("w1") == []  # 2.: no quota, no copies


def test_without_the_push_the_eviction_would_wait_forever() -> None:
    """The same eviction, the worker cut off: nothing reaches it, the manager keeps the quota while
    its Job shows the last copied status (active), as upstream until ``workerLostTimeout``."""
    world = MKWorld({"w1": "4"})
    world.job("j1", sleep="3600")
    m = world.manager
    m.advance(5)
    world.cut("w1")
    _stop_queue(world)
    m.advance(60)
    assert _cond(_local(world), "QuotaReserved")[0] == "True"
    assert len(world.workers["w1"].client.list(Pod).items) == 1


def test_a_config_gaining_a_cluster_dispatches_to_it() -> None:
    """``configHandler``: a changed ``spec.clusters`` requeues the Workloads of its checks."""
    world = MKWorld({"w1": "500m", "w2": "500m"})  # neither can admit 1 cpu: the copies wait
    m = world.manager
    config = edit(m.client.get(MultiKueueConfig, "mkconf"))
    config.spec.clusters = ["w1"]
    m.client.update(config)
    m.run_until_idle()
    world.job("j1")
    m.advance(5)  # the copy's own events are handled: nothing else queues the Workload
    assert _local(world).status.nominated_cluster_names == ["w1"]
    assert world.remote_workloads("w2") == []
    config = edit(m.client.get(MultiKueueConfig, "mkconf"))
    config.spec.clusters = ["w1", "w2"]
    m.client.update(config)
    m.run_until_idle()
    assert world.remote_workloads("w2") == []  # after the batch period
    m.advance(1)
    assert _local(world).status.nominated_cluster_names == ["w1", "w2"]
    assert [w.metadata.name for w in world.remote_workloads("w2")] == [_local(world).metadata.name]


def _counter(world: MKWorld, name: str) -> dict[str, float]:
    family = world.manager.metrics.get(name)
    out = {}
    for line in family.samples():
        labels, value = line.rsplit(" ", 1)
        out[labels] = float(value)
    return out


def test_dispatch_and_admission_counters() -> None:
    world = MKWorld({"w1": "500m", "w2": "4"})
    world.job("j1")
    text = world.manager.metrics.render()
    assert ("# HELP multikueue_workloads_dispatched_total The total number of remote workloads created "
            "by the MultiKueue manager on a worker cluster, per 'cluster_queue' and 'cluster'.") in text
    assert "# TYPE multikueue_workloads_admitted_total counter" in text
    dispatched = _counter(world, "multikueue_workloads_dispatched_total")
    assert dispatched == {
        'multikueue_workloads_dispatched_total{cluster_queue="cq",cluster="w1",replica_role="standalone"}': 1,
        'multikueue_workloads_dispatched_total{cluster_queue="cq",cluster="w2",replica_role="standalone"}': 1,
    }
    admitted = _counter(world, "multikueue_workloads_admitted_total")
    assert admitted == {
        'multikueue_workloads_admitted_total{cluster_queue="cq",cluster="w2",replica_role="standalone"}': 1,
    }
    world.manager.advance(30)  # more reconciles of the admitted Workload count nothing more
    assert _counter(world, "multikueue_workloads_admitted_total") == admitted


def test_admitted_again_after_an_eviction_counts_again() -> None:
    """Upstream's HELP: "A workload may be counted more than once if it is evicted and re-admitted".
    The admitting worker lost past ``workerLostTimeout``: Retry evicts the Workload; the copy
    dispatched to w2 meanwhile is deactivated (the manager's eviction), its stopped job releases the
    quota, and the Workload is admitted again, on w2, under a new reservation."""
    world = MKWorld({"w1": "4", "w2": "4"})
    world.job("j1", sleep="3600")
    m = world.manager
    world.cut("w1")
    m.advance(310)
    (local,) = m.client.list(Workload).items
    assert local.status.cluster_name == "w2"
    admitted = _counter(world, "multikueue_workloads_admitted_total")
    assert admitted == {
        'multikueue_workloads_admitted_total{cluster_queue="cq",cluster="w1",replica_role="standalone"}': 1,
        'multikueue_workloads_admitted_total{cluster_queue="cq",cluster="w2",replica_role="standalone"}': 1,
    }


def test_a_worker_refusing_its_copy_does_not_keep_the_others_from_theirs() -> None:
    """``nominateAndSynchronizeWorkers`` collects the errors of its loop over the workers: w1 refuses
    every copy (the first in order), w2 still gets one and only w2's dispatch is counted; the
    reconcile fails, so it is retried."""
    world = MKWorld({"w1": "500m", "w2": "500m"})
    w1 = world.workers["w1"]
    real_create = w1.client.create

    def refuse(obj, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(obj, Workload):
            raise ServiceUnavailable("the worker is overloaded")
        return real_create(obj, *args, **kwargs)

    w1.client.create = refuse  # type: ignore[method-assign]
    world.job("j1")
    world.manager.advance(2)
    assert world.remote_workloads("w1") == []
    assert [w.metadata.name for w in world.remote_workloads("w2")] == [_local(world).metadata.name]
    assert _counter(world, "multikueue_workloads_dispatched_total") == {
        'multikueue_workloads_dispatched_total{cluster_queue="cq",cluster="w2",replica_role="standalone"}': 1,
    }
