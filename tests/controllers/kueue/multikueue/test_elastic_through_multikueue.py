"""Elastic Jobs through MultiKueue, end to end on in-process workers (one clock, deterministic).

The scenario of kubernetes-sigs/kueue v0.19.2 ``test/integration/multikueue/elasticjob_test.go``
("Should run an ElasticJob on worker if admitted", "Should keep a replaced elastic-job slice's worker
objects…"), here with the schedulers running instead of emulated: ``pkg/scheduler/scheduler.go``
copies the old slice's ``clusterName`` to its replacement, ``workload.go``'s ``reconcileGroup``
(steps 1, 5, 8) and ``nominateAndSynchronizeWorkers`` send it to that worker only, and
``job_multikueue_adapter.go`` (``syncElasticJob``) patches the remote Job in place. What upstream
refuses (elastic JobSets, elastic with a required topology) is refused the same way on a
MultiKueue queue.
"""

from __future__ import annotations

import re

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Forbidden
from kbatch.api.kueue_v1beta2 import Workload

from .elastic_world import (
    ELASTIC,
    PREBUILT,
    REPLACEMENT_FOR,
    count,
    elastic_job,
    live,
    manager_slices,
    replaced,
    reserved_cpu,
    running,
    scale,
    settle,
    worker_pods,
)
from .test_manager_side import _counter
from .world import MKWorld, check_of

TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"


def _world() -> MKWorld:
    """w1 can run 8 pods of 1 cpu, w2 none: the Job lands on w1."""
    return MKWorld({"w1": "8", "w2": "500m"})


def _remote_job(world: MKWorld) -> Job:
    (job,) = world.workers["w1"].client.list(Job, "default").items
    return job


def test_scale_up_keeps_the_remote_job_and_its_pods() -> None:
    world = _world()
    elastic_job(world, "e", 2)
    (first,) = manager_slices(world)
    assert first.status.cluster_name == "w1"
    before = _remote_job(world)
    pods = running(worker_pods(world, "w1"))
    assert len(pods) == 2
    scale(world, "e", 4)
    old, new = manager_slices(world)
    assert old.metadata.name == first.metadata.name and replaced(old)
    assert new.metadata.annotations[REPLACEMENT_FOR] == f"default/{old.metadata.name}"
    assert new.status.cluster_name == "w1"  # the scheduler copied it; no nominations recorded
    assert new.status.nominated_cluster_names is None
    assert check_of(new) == ("Ready", 'The workload was admitted on "w1"')
    after = _remote_job(world)
    assert after.metadata.uid == before.metadata.uid  # patched, not re-created
    assert after.spec.parallelism == 4
    assert after.metadata.annotations[PREBUILT] == new.metadata.name
    now_running = running(worker_pods(world, "w1"))
    assert pods <= now_running and len(now_running) == 4  # the first two pods kept running
    # the new slice went to w1 only (w2 had the first slice's copy only)
    assert _counter(world, "multikueue_workloads_dispatched_total") == {
        'multikueue_workloads_dispatched_total{cluster_queue="cq",cluster="w1",replica_role="standalone"}': 2,
        'multikueue_workloads_dispatched_total{cluster_queue="cq",cluster="w2",replica_role="standalone"}': 1,
    }
    assert world.remote_workloads("w2") == []
    # on w1 the new copy replaced the old one (the worker's scheduler finished it), and the
    # replaced slice's finish on the manager removed nothing
    copies = {w.metadata.name: w for w in world.remote_workloads("w1")}
    assert set(copies) == {old.metadata.name, new.metadata.name}
    assert replaced(copies[old.metadata.name])
    assert copies[new.metadata.name].metadata.owner_references[0].uid == after.metadata.uid
    assert reserved_cpu(world) == "4"


def test_a_scale_up_waiting_for_quota_leaves_the_worker_alone() -> None:
    """The manager has 4 cpu: a scale-up to 6 waits (step 1: a scale-up slice without a reservation
    is ignored), and the worker's Job keeps running at 2. A scale-down to 3 then gives the waiting
    slice (named after the Job's generation at 6) the count 3 in place; it fits and replaces the old
    slice, on the manager and on the worker. As upstream, ``needElasticJobSync`` takes a slice that
    is not the one the Job's current generation names for a stale one while the Job grew, so the
    remote Job stays at 2 (its pods untouched) until the next resize names a slice it accepts."""
    world = _world()
    elastic_job(world, "e", 2)
    before = _remote_job(world)
    pods = running(worker_pods(world, "w1"))
    scale(world, "e", 6)
    old, waiting = manager_slices(world)
    assert not replaced(old) and new_reserved(waiting) is False
    job = _remote_job(world)
    assert job.metadata.uid == before.metadata.uid and job.spec.parallelism == 2
    assert running(worker_pods(world, "w1")) == pods
    assert reserved_cpu(world) == "2"
    scale(world, "e", 3)
    (current,) = live(manager_slices(world))
    assert current.metadata.name == waiting.metadata.name and count(current) == 3
    assert check_of(current) == ("Ready", 'The workload was admitted on "w1"')
    assert reserved_cpu(world) == "3"
    job = _remote_job(world)
    assert job.metadata.uid == before.metadata.uid
    assert (job.spec.parallelism, job.metadata.annotations[PREBUILT]) == (2, old.metadata.name)  # stale
    assert running(worker_pods(world, "w1")) == pods
    scale(world, "e", 4)  # a new slice, named after this generation: synced
    (current,) = live(manager_slices(world))
    job = _remote_job(world)
    assert job.metadata.uid == before.metadata.uid
    assert (job.spec.parallelism, job.metadata.annotations[PREBUILT]) == (4, current.metadata.name)
    assert pods <= running(worker_pods(world, "w1")) and len(running(worker_pods(world, "w1"))) == 4
    assert reserved_cpu(world) == "4"


def new_reserved(wl: Workload) -> bool:
    return any(c.type == "QuotaReserved" and c.status == "True" for c in wl.status.conditions or ())


def test_scale_down_is_written_into_the_remote_copy() -> None:
    world = _world()
    elastic_job(world, "e", 4)
    (wl,) = manager_slices(world)
    before = _remote_job(world)
    scale(world, "e", 1)
    (after_wl,) = manager_slices(world)  # no new slice for a scale-down, on either side
    assert after_wl.metadata.name == wl.metadata.name and count(after_wl) == 1
    (copy,) = world.remote_workloads("w1")
    assert copy.metadata.name == wl.metadata.name and count(copy) == 1
    assert copy.spec == after_wl.spec
    job = _remote_job(world)
    assert job.metadata.uid == before.metadata.uid and job.spec.parallelism == 1
    assert len(worker_pods(world, "w1")) == 1
    assert reserved_cpu(world) == "1"
    assert check_of(after_wl) == ("Ready", 'The workload was admitted on "w1"')


def test_the_scaled_job_finishes_and_its_remote_objects_go() -> None:
    world = _world()
    elastic_job(world, "e", 1, sleep="30")
    scale(world, "e", 2)
    world.manager.advance(60)
    settle(world)
    job = world.manager.client.get(Job, "e", "default")
    assert any(c.type == "Complete" and c.status == "True" for c in job.status.conditions or ())
    old, new = manager_slices(world)
    assert replaced(old)
    assert any(c.type == "Finished" and c.reason == "Succeeded" for c in new.status.conditions)
    assert world.workers["w1"].client.list(Job, "default").items == []
    assert world.remote_workloads("w1") == []  # the copy removed, the replaced one collected with its Job
    assert reserved_cpu(world) == "0"


_POD_SPEC = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}
_JOBSET_SPEC = {
    "replicatedJobs": [
        {
            "name": "r",
            "replicas": 1,
            "template": {"spec": {"parallelism": 1, "completions": 1, "template": {"spec": _POD_SPEC}}},
        }
    ]
}
_JOB_SPEC = {
    "parallelism": 1,
    "template": {"metadata": {"annotations": {TOPOLOGY: "kubernetes.io/hostname"}}, "spec": _POD_SPEC},
}


@pytest.mark.parametrize(
    ("api_version", "kind", "spec", "message"),
    [
        pytest.param(
            "jobset.x-k8s.io/v1alpha2",
            "JobSet",
            _JOBSET_SPEC,
            'elastic job is not supported for "jobset.x-k8s.io/v1alpha2, Kind=JobSet"',
            id="JobSet",
        ),
        # the pod webhook runs the same ValidateJobOnCreate (ValidateElasticJobAnnotation)
        pytest.param("v1", "Pod", _POD_SPEC, 'elastic job is not supported for "/v1, Kind=Pod"', id="Pod"),
        pytest.param(
            "batch/v1",
            "Job",
            _JOB_SPEC,
            "required topology is not supported with elastic jobs",
            id="Job, required topology",
        ),
    ],
)
def test_what_upstream_refuses_is_refused_on_a_multikueue_queue(
    api_version: str, kind: str, spec: dict, message: str
) -> None:
    """Elastic is batch/v1 Job only (upstream also allows Ray's kinds, not served here), never with a
    required topology: refused by the webhooks before MultiKueue sees anything."""
    world = _world()
    obj = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {
            "name": "x",
            "namespace": "default",
            "labels": {"kueue.x-k8s.io/queue-name": "lq"},
            "annotations": dict(ELASTIC),
        },
        "spec": spec,
    }
    with pytest.raises(Forbidden, match=re.escape(message)):  # the webhook's denial
        world.manager.apply(obj)
    assert world.manager.client.list(Workload).items == []


def _prebuilt_pair(worker: ControlPlane, replacement: bool) -> Workload:
    """On a worker: an elastic Workload for 4 pods (a scale-up's slice when ``replacement``) and an
    elastic Job naming it as its prebuilt Workload, still at parallelism 2 (MultiKueue has not
    patched it yet); the Workload as the worker's job reconciler leaves it."""
    annotations = dict(ELASTIC)
    if replacement:
        annotations[REPLACEMENT_FOR] = "default/job-p-old"
    container = {"name": "c", "image": "pause", "resources": {"requests": {"cpu": "1"}}}
    worker.apply(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {"name": "job-p-new", "namespace": "default", "annotations": annotations},
            "spec": {
                "queueName": "lq",
                "podSets": [
                    {
                        "name": "main",
                        "count": 4,
                        "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
                    }
                ],
            },
        }
    )
    worker.apply(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "p",
                "namespace": "default",
                "labels": {"kueue.x-k8s.io/queue-name": "lq"},
                "annotations": {**ELASTIC, PREBUILT: "job-p-new"},
            },
            "spec": {
                "parallelism": 2,
                "suspend": True,
                "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
            },
        }
    )
    worker.run_until_idle()
    return worker.client.get(Workload, "job-p-new", "default")


def test_the_worker_does_not_check_a_scale_up_slice_against_its_job() -> None:
    """``ensureOneWorkload``: a prebuilt scale-up slice of an elastic Job is taken without the in-sync
    check (the Job's parallelism is patched after the slice arrives); any other prebuilt Workload that
    does not match its Job finishes ``OutOfSync``."""
    kept = _prebuilt_pair(MKWorld({"w1": "8"}).workers["w1"], replacement=True)
    assert not any(c.type == "Finished" for c in kept.status.conditions or ())
    assert kept.metadata.owner_references[0].name == "p"
    dropped = _prebuilt_pair(MKWorld({"w1": "8"}).workers["w1"], replacement=False)
    finished = [c for c in dropped.status.conditions or () if c.type == "Finished"]
    assert [(c.status, c.reason) for c in finished] == [("True", "OutOfSync")]
