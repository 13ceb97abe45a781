"""The MultiKueue workload reconciler, end to end on in-process workers (one clock, deterministic).

Scenarios from kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload_test.go``
(``TestWlReconcile``) and the MultiKueue integration tests (``test/integration/multikueue``): dispatch
to every worker, the first admission wins and the other copies go, the check Ready with upstream's
message, the job created on the worker and its status copied back, the finish propagated, the
admitting worker lost past ``workerLostTimeout`` → Retry, a missing adapter or an unmanaged owner →
Rejected, a deleted job's remote objects removed, orphans collected every ``gcInterval``.
"""

from __future__ import annotations

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.kueue_v1beta2 import ClusterQueue, Workload
from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL
from kbatch.api.meta import Condition
from kbatch.testing import make_job

from .world import MKWorld, check_of, local_workload


def _workload(name: str, labels: dict[str, str], cpu: str | None = None) -> dict[str, object]:
    """A Workload with no owner, queued to ``lq``: one pod (asking ``cpu``)."""
    container: dict[str, object] = {"name": "c", "image": "pause"}
    if cpu is not None:
        container["resources"] = {"requests": {"cpu": cpu}}
    pod_set = {
        "name": "main",
        "count": 1,
        "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
    }
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {"queueName": "lq", "podSets": [pod_set]},
    }


def _true(wl: Workload, kind: str) -> bool:
    return any(
        c.type == kind and c.status == "True" for c in (wl.status.conditions if wl.status else None) or ()
    )


def test_job_is_managed_by_multikueue() -> None:
    """``ApplyDefaultForManagedBy``: the queue's ClusterQueue has the MultiKueue check."""
    world = MKWorld({"w1": "4"})
    world.job("j1")
    assert world.manager.client.get(Job, "j1").spec.managed_by == "kueue.x-k8s.io/multikueue"


def test_all_at_once_nominates_every_worker() -> None:
    world = MKWorld({"w1": "500m", "w2": "500m"})  # neither worker can admit 1 cpu
    world.job("j1")
    wl = local_workload(world)
    assert wl.status.nominated_cluster_names == ["w1", "w2"]
    assert check_of(wl) == ("Pending", "")
    for name in ("w1", "w2"):
        (remote,) = world.remote_workloads(name)
        assert remote.metadata.labels[ORIGIN_LABEL] == "multikueue"
        assert remote.metadata.owner_references is None
        assert remote.spec == wl.spec
        assert not world.workers[name].client.list(Job).items  # no job before an admission


def test_first_admission_wins() -> None:
    world = MKWorld({"w1": "500m", "w2": "4"})
    world.job("j1")
    wl = local_workload(world)
    assert check_of(wl) == ("Ready", 'The workload was admitted on "w2"')
    assert wl.status.cluster_name == "w2"
    assert wl.status.nominated_cluster_names is None
    assert _true(wl, "Admitted")
    assert world.remote_workloads("w1") == []
    (remote_job,) = world.workers["w2"].client.list(Job).items
    assert remote_job.spec.managed_by is None
    # ``SetMultiKueueMeta`` with WorkloadIdentifierAnnotations (beta, on): the name is an annotation
    assert remote_job.metadata.annotations["kueue.x-k8s.io/prebuilt-workload-name"] == wl.metadata.name
    assert "kueue.x-k8s.io/prebuilt-workload-name" not in remote_job.metadata.labels
    assert remote_job.metadata.labels[ORIGIN_LABEL] == "multikueue"
    (remote,) = world.remote_workloads("w2")
    assert remote.metadata.controller_ref().uid == remote_job.metadata.uid  # adopted by the worker's job


def test_status_is_synced_and_the_finish_propagates() -> None:
    world = MKWorld({"w1": "4"})
    world.job("j1", sleep="30")
    m = world.manager
    m.advance(5)
    local_job = m.client.get(Job, "j1")
    assert local_job.status.active == 1 and local_job.spec.suspend is False
    assert not m.client.list(Pod).items  # no local pods
    m.advance(60)
    local_job = m.client.get(Job, "j1")
    assert any(c.type == "Complete" and c.status == "True" for c in local_job.status.conditions)
    wl = local_workload(world)
    finished = next(c for c in wl.status.conditions if c.type == "Finished")
    assert (finished.status, finished.reason) == ("True", "Succeeded")
    assert world.remote_workloads("w1") == []
    assert world.workers["w1"].client.list(Job).items == []


def test_lost_worker_past_the_timeout_resets_the_check() -> None:
    """6a.: the admitting worker unreachable keeps the check Ready for ``workerLostTimeout`` (5 min) from
    the loss, then Retry evicts the Workload and it is dispatched again, to the worker left (the copy
    dispatched while the eviction holds the quota is deactivated first, 6b, as upstream)."""
    world = MKWorld({"w1": "4", "w2": "4"})
    world.job("j1", sleep="3600")
    m = world.manager
    # a tie: name order
    assert check_of(local_workload(world)) == ("Ready", 'The workload was admitted on "w1"')
    world.cut("w1")
    m.advance(299)
    assert check_of(local_workload(world)) == ("Ready", 'The workload was admitted on "w1"')
    m.advance(2)
    messages = [e.message for e in m.client.list(Event).items if e.reason == "EvictedDueToAdmissionCheck"]
    assert messages == [
        'Evicted due to AdmissionCheck in Retry state: "mk" (Admitting remote lost, Previously: "Ready")'
    ]
    m.advance(5)
    wl = local_workload(world)
    assert check_of(wl) == ("Ready", 'The workload was admitted on "w2"')
    assert wl.status.cluster_name == "w2"
    assert [j.metadata.name for j in world.workers["w2"].client.list(Job).items] == ["j1"]


def test_workload_without_adapter_is_rejected() -> None:
    world = MKWorld({"w1": "4"})
    m = world.manager
    m.apply(_workload("wl", {}, cpu="1"))
    m.run_until_idle()
    wl = m.client.get(Workload, "wl", "default")
    assert check_of(wl) == ("Rejected", 'No multikueue adapter found, Previously: "Pending"')
    assert world.remote_workloads("w1") == []


def test_owner_not_managed_by_multikueue_is_rejected() -> None:
    world = MKWorld({"w1": "4"})
    m = world.manager
    job = make_job("j1").command("sleep 30").requests(cpu="1").label("kueue.x-k8s.io/queue-name", "lq").obj()
    job.spec.managed_by = "example.com/other"
    m.client.create(job)
    m.run_until_idle()
    assert check_of(local_workload(world)) == (
        "Rejected",
        'The owner is not managed by Kueue: Expecting spec.managedBy to be "kueue.x-k8s.io/multikueue" not '
        '"example.com/other", Previously: "Pending"',
    )


def test_deleted_job_removes_the_remote_objects() -> None:
    world = MKWorld({"w1": "4"})
    world.job("j1", sleep="3600")
    m = world.manager
    assert world.workers["w1"].client.list(Job).items
    m.client.delete(Job, "j1", "default", propagation_policy="Foreground")
    m.advance(5)
    assert world.workers["w1"].client.list(Job).items == []
    assert world.remote_workloads("w1") == []


def test_orphans_are_collected_every_gc_interval() -> None:
    world = MKWorld({"w1": "500m"})
    w1 = world.workers["w1"]
    w1.apply(_workload("orphan", {ORIGIN_LABEL: "multikueue"}))
    w1.apply(_workload("other-origin", {ORIGIN_LABEL: "elsewhere"}))
    world.manager.advance(59)
    assert {w.metadata.name for w in world.remote_workloads("w1")} == {"orphan", "other-origin"}
    world.manager.advance(1)
    assert {w.metadata.name for w in world.remote_workloads("w1")} == {"other-origin"}


def test_origin_and_gc_interval_from_the_configuration() -> None:
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "multiKueue": {"origin": "mgr-a", "gcInterval": "0s", "workerLostTimeout": "1m"},
    }
    world = MKWorld({"w1": "4"}, kueue_config=config)
    world.job("j1", sleep="3600")
    (remote,) = world.remote_workloads("w1")
    assert remote.metadata.labels[ORIGIN_LABEL] == "mgr-a"
    world.cut("w1")
    world.manager.advance(61)
    assert check_of(local_workload(world))[0] != "Ready"


def test_jobset_runs_on_a_worker() -> None:
    """The JobSet adapter: managedBy defaulted, the remote JobSet created without it, its status copied
    back until Completed."""
    from kbatch.api.jobset_v1alpha2 import JobSet

    from ..test_jobsets import jobset

    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]},
    }
    world = MKWorld({"w1": "4"}, kueue_config=config)
    m = world.manager
    m.apply(jobset("js", seconds=20))
    m.run_until_idle()
    assert m.client.get(JobSet, "js", "default").spec.managed_by == "kueue.x-k8s.io/multikueue"
    (remote,) = world.workers["w1"].client.list(JobSet).items
    assert remote.spec.managed_by is None
    assert check_of(local_workload(world)) == ("Ready", 'The workload was admitted on "w1"')
    m.advance(60)
    local = m.client.get(JobSet, "js", "default")
    assert any(c.type == "Completed" and c.status == "True" for c in local.status.conditions)
    assert not m.client.list(Job).items  # the manager's JobSet controller created no Jobs


INCREMENTAL = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "multiKueue": {
        "dispatcherName": "kueue.x-k8s.io/multikueue-dispatcher-incremental",
        "incrementalDispatcherConfig": {"stepSize": 1},
    },
}


def test_incremental_dispatcher_nominates_one_worker_per_round() -> None:
    """``incrementaldispatcher.go``: stepSize 1 (``MultiKueueIncrementalDispatcherConfig``), the
    config's order (``…RespectConfigOrder``), a new round after 5 minutes; the second worker admits."""
    world = MKWorld({"w2": "500m", "w1": "4"}, kueue_config=INCREMENTAL)  # config order: w2, w1
    world.job("j1")
    wl = local_workload(world)
    assert wl.status.nominated_cluster_names == ["w2"]
    assert len(world.remote_workloads("w2")) == 1 and world.remote_workloads("w1") == []
    world.manager.advance(300)
    assert check_of(local_workload(world)) == ("Pending", "")
    world.manager.advance(1)
    wl = local_workload(world)
    assert check_of(wl) == ("Ready", 'The workload was admitted on "w1"')
    assert world.remote_workloads("w2") == []  # the non-admitting copy is removed


def test_next_nominated_table() -> None:
    """``getNextNominatedWorkers``."""
    from kbatch.controllers.kueue.multikueue.dispatcher import NoMoreWorkers, next_nominated

    assert next_nominated([], ["c", "a", "b", "d"], 3, True) == ["c", "a", "b"]
    assert next_nominated([], ["c", "a", "b", "d"], 3, False) == ["a", "b", "c"]
    assert next_nominated(["c", "a", "b"], ["c", "a", "b", "d"], 3, True) == ["d"]
    try:
        next_nominated(["a"], ["a"], 3, True)
    except NoMoreWorkers as err:
        assert str(err) == "no more workers to nominate"
    else:
        raise AssertionError("expected NoMoreWorkers")


def test_same_inputs_same_traces() -> None:
    """Manager and workers on one clock: the same run twice gives the same traces, byte for byte."""

    def run() -> list[str]:
        world = MKWorld({"w1": "1", "w2": "2"})
        for i in range(3):
            world.job(f"j{i}", sleep="20")
        world.cut("w2")
        world.manager.advance(400)
        return [world.manager.trace.digest(), *(w.trace.digest() for w in world.workers.values())]

    assert run() == run()


def _workload_events(world: MKWorld, reason: str) -> list[tuple[str, str]]:
    return [
        (e.type or "", e.message or "")
        for e in world.manager.client.list(Event).items
        if e.reason == reason and e.involved_object.kind == "Workload"
    ]


def test_evicted_on_the_worker_resets_the_check_for_readmission() -> None:
    """4. (``workload_test.go`` "handle workload evicted on worker cluster"): the worker's ClusterQueue
    drains the copy; the Ready check goes Retry with upstream's message and a Normal event."""
    world = MKWorld({"w1": "4"})
    world.job("j1", sleep="3600")
    m, w1 = world.manager, world.workers["w1"]
    m.advance(5)
    cq = edit(w1.client.get(ClusterQueue, "cq"))
    cq.spec.stop_policy = "HoldAndDrain"
    w1.client.update(cq)
    m.advance(1)
    message = 'Workload evicted on worker cluster: "w1", resetting for re-admission. Previously: "Ready"'
    assert ("Normal", message) in _workload_events(world, "MultiKueue")
    evicted = [msg for _, msg in _workload_events(world, "EvictedDueToAdmissionCheck")]
    assert evicted == [f'Evicted due to AdmissionCheck in Retry state: "mk" ({message})']


def test_a_remote_out_of_sync_finish_resets_the_check_instead_of_finishing() -> None:
    """3. (``workload_test.go`` "remote wl is finished with OutOfSync"): not a job completion; the
    Ready check goes Retry with a Warning event, and the local Workload does not finish."""
    world = MKWorld({"w1": "4"})
    world.job("j1", sleep="3600")
    m, w1 = world.manager, world.workers["w1"]
    m.advance(5)
    (remote,) = world.remote_workloads("w1")
    status = edit(remote).status
    status.conditions = [c for c in status.conditions if c.type != "Finished"] + [
        Condition(type="Finished", status="True", reason="OutOfSync", message="the job does not match",
                  last_transition_time=m.clock.now_datetime())
    ]
    w1.client.update_status(remote.model_copy(update={"status": status}))
    m.advance(1)
    message = ('Remote workload on worker cluster "w1" is out of sync with its user job, resetting for '
               're-dispatch, Previously: "Ready"')
    assert ("Warning", message) in _workload_events(world, "MultiKueue")
    assert not _true(local_workload(world), "Finished")
