"""Which Workload events reach a job integration's controller: ``Owns(&kueue.Workload{})``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler.go``
(``genericReconciler.SetupWithManager``: ``For(job).Owns(&kueue.Workload{})``), i.e.
controller-runtime's ``handler.EnqueueRequestForOwner(..., OnlyControllerOwner())``: the Workload's
controller reference is compared with the job type by *group and kind* (the reference's apiVersion
is parsed for its group; the version is ignored). The job reconciler finds its Workloads through
``pkg/controller/core/indexer/indexer.go`` ``WorkloadOwnerIndexFunc``: owner references of the job's
kind *and* apiVersion."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.jobframework.names import workload_name
from kbatch.controllers.kueue.podintegration.controller import WorkloadRequests
from kbatch.runtime.handler import QueueingHandler
from kbatch.runtime.reconcile import Request

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload
from .test_jobs import job, node

CONTROLLER = "kueue-job-batch-job"


def _mappers(w: World) -> list[Any]:
    """The mappers feeding the batch/v1 Job integration's queue from Workload events."""
    controller = next(c for c in w.cp.manager.controllers if c.name == CONTROLLER)
    handlers = w.cp.cache.informer_for(Workload).handlers
    return [h.mapper for h in handlers
            if isinstance(h, QueueingHandler) and getattr(h.add, "__self__", None) is controller.queue]


def _workload(api_version: str, kind: str, controller: bool = True) -> Workload:
    return Workload.model_validate({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": "wl", "namespace": "ns", "uid": "wl-uid", "ownerReferences": [
            {"apiVersion": api_version, "kind": kind, "name": "owner", "uid": "owner-uid",
             "controller": controller}]},
        "spec": {"podSets": []}})


@pytest.mark.parametrize(("api_version", "kind", "controller", "want"), [
    ("batch/v1", "Job", True, [Request("ns", "owner")]),
    ("batch/v2", "Job", True, [Request("ns", "owner")]),  # the version is not compared
    ("example.com/v1", "Job", True, []),  # same kind, another group
    ("v1", "Job", True, []),  # the core group is not batch
    ("batch/v1", "CronJob", True, []),
    ("batch/v1", "Job", False, []),  # OnlyControllerOwner
])
def test_a_workload_event_enqueues_only_its_controlling_job_of_the_same_group_and_kind(
        api_version: str, kind: str, controller: bool, want: list[Request]) -> None:
    w = World(controllers="kueue")
    wl = _workload(api_version, kind, controller)
    got = [r for mapper in _mappers(w) for r in mapper(wl)]  # ChildJobs: no Job has that owner uid
    assert got == want


@pytest.mark.parametrize(("api_version", "want"), [
    ("v1", [Request("ns", "owner")]),
    ("v2", [Request("ns", "owner")]),  # the core group in another version: still a Pod
    ("example.com/v1", []),  # a Pod kind of another group
])
def test_a_workload_event_reaches_the_single_pod_of_the_core_group(api_version: str,
                                                                    want: list[Request]) -> None:
    """``queueReconcileForChildPod`` (``pkg/controller/jobs/pod/event_handlers.go``): the controller
    reference's apiVersion is parsed for its group, which must be the core group; kind ``Pod``."""
    assert WorkloadRequests()(_workload(api_version, "Pod")) == want


def test_a_workload_of_a_same_kind_owner_of_another_group_is_not_the_jobs() -> None:
    """A Workload controlled by ``example.com/v1`` kind ``Job`` named like a batch/v1 Job is not in
    that Job's owner index (``WorkloadOwnerIndexFunc`` compares kind and apiVersion), so the Job's
    ``ensureOneWorkload`` neither adopts, rewrites nor deletes it; the Job gets a Workload of its own."""
    w = World(node("n-a", "a"), flavor("fa", labels={"pool": "a"}),
              cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "0")])])), local_queue("lq", "cq"),
              controllers="*")
    foreign = workload("foreign", "lq", cpu="3")
    foreign["metadata"]["ownerReferences"] = [{"apiVersion": "example.com/v1", "kind": "Job", "name": "j",
                                               "uid": "other-uid", "controller": True}]
    w.apply(foreign)
    before = w.wl("foreign")
    w.apply(job("j"))
    w.cp.run_until_idle()
    after = w.wl("foreign")
    assert after.metadata.deletion_timestamp is None
    assert after.spec == before.spec and after.metadata.owner_references == before.metadata.owner_references
    uid = w.cp.client.get(Job, "j", "default").metadata.uid
    assert w.wl(workload_name("j", uid, "Job", "batch")).metadata.controller_ref().uid == uid
