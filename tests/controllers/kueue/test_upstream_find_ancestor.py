"""Upstream's ``TestFindAncestorJobManagedByKueue``, through the job and pod webhooks.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler_test.go``
``TestFindAncestorJobManagedByKueue`` (case names quoted per test) against ``reconciler.go``
``FindAncestorJobManagedByKueue`` and ``integrationmanager.go``. Upstream calls the walk on objects
in a fake client; here the owners are created through the API and the child's creation shows the
answer: a Job with a queue name is created suspended unless a managed ancestor is found
(``WorkloadShouldBeSuspended``), a Pod is gated unless one is found, and the walk's errors deny
the creation (the defaulting webhook returns them).

kbatch has Job, JobSet, Pod and CronJob kinds; upstream's MPIJob and AppWrapper owners become
JobSets and Jobs (the rows say which). Not translated: the external-framework rows ("Job ->
CronJob (external framework, ...)", ``integrations.externalFrameworks`` has no kinds in kbatch) and
"Pod -> ReplicaSet -> Deployment" (no ReplicaSet or Deployment kinds; the Pod -> Job -> JobSet rows
walk two owners the same way).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden
from kbatch.api.jobset_v1alpha2 import JobSet

QUEUE = "kueue.x-k8s.io/queue-name"
GATE = "kueue.x-k8s.io/admission"
KINDS: dict[str, Any] = {"Job": Job, "JobSet": JobSet, "CronJob": CronJob}
CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}


EVERY = ["batch/job", "jobset.x-k8s.io/jobset", "pod"]


def _plane(frameworks: list[str] | None = None, manage_without_queue: bool = False) -> ControlPlane:
    """Kueue with these integrations enabled (all of kbatch's by default)."""
    config: dict[str, Any] = {**CONFIG, "integrations": {"frameworks": frameworks or EVERY}}
    if manage_without_queue:
        config["manageJobsWithoutQueueName"] = True
    return ControlPlane(controllers="kueue", kueue_config=config)


def _meta(name: str, queue: str | None, owner: dict[str, Any] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {}}
    if queue:
        meta["labels"][QUEUE] = queue
    if owner:
        meta["ownerReferences"] = [owner]
    return meta


def job(name: str, queue: str | None = None, owner: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta(name, queue, owner),
            "spec": {"suspend": False, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}}}}


def jobset(name: str, queue: str | None = None, owner: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": _meta(name, queue, owner),
            "spec": {"suspend": True, "replicatedJobs": [{"name": "r", "replicas": 1, "template": {"spec": {
                "template": {"spec": {"restartPolicy": "Never",
                                      "containers": [{"name": "c", "image": "pause"}]}}}}}]}}


def cronjob(name: str, queue: str | None = None) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": _meta(name, queue, None),
            "spec": {"schedule": "0 * * * *",
                     "jobTemplate": {"spec": {"template": job("t")["spec"]["template"]}}}}


def pod(name: str, owner: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(name, None, owner),
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}}


def ref(cp: ControlPlane, doc: dict[str, Any], uid: str | None = None) -> dict[str, Any]:
    """A controller reference to ``doc`` (created already); ``uid`` forges the UID."""
    stored = cp.client.get(KINDS[doc["kind"]], doc["metadata"]["name"], "default")
    return {"apiVersion": doc["apiVersion"], "kind": doc["kind"], "name": doc["metadata"]["name"],
            "uid": uid or stored.metadata.uid, "controller": True}


def _created_suspended(cp: ControlPlane, name: str) -> bool:
    """Whether the Job was stored suspended by its create (the defaulting webhook's answer; the
    job reconciler may suspend a child later, ``shouldSuspendChildJob``)."""
    created = [r for r in cp.trace.records if r.kind == "Job.batch" and r.name == name and r.verb == "create"]
    return bool(created[0].diff["spec"].get("suspend"))


def _child_suspended(cp: ControlPlane, owner: dict[str, Any]) -> bool:
    """Create a queued child Job owned by ``owner``: suspended means no managed ancestor."""
    cp.apply([job("child", queue="test-q", owner=owner)])
    return _created_suspended(cp, "child")


def test_child_job_has_owner_reference_with_unmanaged_workload_owner() -> None:
    """"child job has ownerReference with unmanaged workload owner" => nil."""
    cp = _plane()
    cp.apply([cronjob("cronjob")])
    assert _child_suspended(cp, ref(cp, cronjob("cronjob")))


def test_child_job_has_owner_reference_with_unmanaged_workload_owner_that_has_a_queue_name() -> None:
    """"... unmanaged workload owner that has a queue-name" => nil (a CronJob is no integration)."""
    cp = _plane()
    cp.apply([cronjob("cronjob", queue="test-q")])
    assert _child_suspended(cp, ref(cp, cronjob("cronjob")))


@pytest.mark.parametrize(
    ("case", "frameworks"),
    [
        # upstream: an MPIJob owner, its integration registered but not enabled
        ("child job has ownerReference with unknown non-existing workload owner", ["batch/job"]),
        ("child job has ownerReference with known non-existing workload owner",
         ["batch/job", "jobset.x-k8s.io/jobset"]),
    ],
)
def test_a_missing_owner_of_an_integration_kind_is_an_error(case: str, frameworks: list[str]) -> None:
    """ErrWorkloadOwnerNotFound: the defaulting webhook's error denies the Job."""
    cp = _plane(frameworks)
    owner = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "parent",
             "uid": "parent", "controller": True}
    with pytest.raises(Forbidden) as err:
        cp.apply([job("child", queue="test-q", owner=owner)])
    assert str(err.value.message) == (
        'admission webhook "mjob.kb.io" denied the request: workload owner not found\n'
        'jobsets.jobset.x-k8s.io "parent" not found'
    )


@pytest.mark.parametrize(("queued", "suspended"), [(True, False), (False, True)])
def test_child_job_has_owner_reference_with_known_existing_workload_owner(
    queued: bool, suspended: bool
) -> None:
    """"... known existing workload owner, and the parent job has queue-name label" => the parent;
    "... and the parent job doesn't has queue-name label" => nil (upstream's parent: an MPIJob)."""
    cp = _plane()
    parent = jobset("parent", queue="test-q" if queued else None)
    cp.apply([parent])
    assert _child_suspended(cp, ref(cp, parent)) is suspended


def test_child_job_has_owner_reference_whose_uid_does_not_match_the_referenced_object() -> None:
    """"child job has ownerReference whose UID does not match the referenced object => nil"."""
    cp = _plane()
    parent = jobset("parent", queue="test-q")
    cp.apply([parent])
    assert _child_suspended(cp, ref(cp, parent, uid="forged-uid"))


def test_cyclic_ownership_links_are_properly_handled() -> None:
    """"cyclic ownership links are properly handled": ErrCyclicOwnership (upstream's cycle runs
    through an MPIJob and an AppWrapper; here a JobSet and a Job own each other)."""
    cp = _plane()
    cp.apply([jobset("grandparent")])
    cp.apply([job("parent", owner=ref(cp, jobset("grandparent")))])
    stored = cp.client.get(Job, "parent", "default")
    cp.client.patch(JobSet, "grandparent", {"metadata": {"ownerReferences": [
        {"apiVersion": "batch/v1", "kind": "Job", "name": "parent", "uid": stored.metadata.uid,
         "controller": True}]}}, "default")
    with pytest.raises(Forbidden) as err:
        cp.apply([job("child", queue="test-q", owner=ref(cp, job("parent")))])
    assert str(err.value.message) == 'admission webhook "mjob.kb.io" denied the request: cyclic ownership'


def test_cuts_off_ancestor_traversal_at_the_limit() -> None:
    """"cuts off ancestor traversal at the limit ...": ErrManagedOwnersChainLimitReached once the walk
    passes 10 owners (the Job creating ancestor-11 walks 11 of them)."""
    cp = _plane()
    cp.apply([job("ancestor-0", queue="test-q")])
    for i in range(1, 11):
        cp.apply([job(f"ancestor-{i}", owner=ref(cp, job(f"ancestor-{i - 1}")))])
        assert _created_suspended(cp, f"ancestor-{i}") is False  # ancestor-0 manages it
    with pytest.raises(Forbidden) as err:
        cp.apply([job("ancestor-11", owner=ref(cp, job("ancestor-10")))])
    assert str(err.value.message).endswith("denied the request: managed owner chain limit reached")


def test_a_reconcile_past_the_limit_reports_job_nesting_too_deep() -> None:
    """The same limit reached by the job reconciler (``reconciler.go`` ``ReconcileGenericJob``): a
    Warning ``JobNestingTooDeep`` event on the job, and the reconcile fails (retried). The webhooks
    deny such a chain on create, so the chain is lengthened above a created job: ancestor-0 is
    given an owner once ancestor-10 exists, and a change to ancestor-10 reconciles it."""
    from kbatch.api.core_v1 import Event

    cp = _plane()
    cp.apply([job("root"), job("ancestor-0", queue="test-q")])
    for i in range(1, 11):
        cp.apply([job(f"ancestor-{i}", owner=ref(cp, job(f"ancestor-{i - 1}")))])
    cp.run_until_idle()
    cp.client.patch(Job, "ancestor-0", {"metadata": {"ownerReferences": [ref(cp, job("root"))]}}, "default")
    cp.client.patch(Job, "ancestor-10", {"metadata": {"labels": {"touched": "yes"}}}, "default")
    cp.run_until_idle()
    events = {(e.type, e.reason, e.message) for e in cp.client.list(Event, "default").items
              if e.involved_object.name == "ancestor-10"}
    assert ("Warning", "JobNestingTooDeep",
            "Terminated search for Kueue-managed Job because ancestor depth exceeded limit of 10") in events
    assert not any(e.reason == "JobNestingTooDeep" for e in cp.client.list(Event, "default").items
                   if e.involved_object.name != "ancestor-10")


def _pod_gated(cp: ControlPlane, owner: dict[str, Any]) -> bool:
    cp.apply([pod("p", owner)])
    gates = cp.client.get(Pod, "p", "default").spec.scheduling_gates or ()
    return any(g.name == GATE for g in gates)


@pytest.mark.parametrize(
    ("case", "frameworks", "jobset_queue", "gated"),
    [
        # "Job -> JobSet -> AppWrapper => AppWrapper (manageJobsWithoutQueueName)", one level lower
        ("Pod -> Job -> JobSet => JobSet (manageJobsWithoutQueueName)", "manage", None, False),
        # "Job (queue-name) -> JobSet (queue-name) -> AppWrapper => JobSet", one level lower
        ("Pod -> Job -> JobSet (queue-name) => JobSet", None, "test-q", False),
        # "Job -> JobSet -> AppWrapper => nil", one level lower
        ("Pod -> Job -> JobSet => nil", None, None, True),
        # "Job -> JobSet (disabled) -> AppWrapper (queue-name) => AppWrapper", one level lower
        ("Pod -> Job (disabled) -> JobSet (queue-name) => JobSet",
         ["pod", "jobset.x-k8s.io/jobset"], "test-q", False),
    ],
)
def test_a_pod_two_owners_below_a_managed_jobset(
    case: str, frameworks: Any, jobset_queue: str | None, gated: bool
) -> None:
    """A JobSet's pod (Pod -> Job -> JobSet) in a namespace with a ``default`` LocalQueue: the walk
    reaches the JobSet, so the pod is left to it (neither defaulted to the queue nor gated)."""
    cp = _plane(manage_without_queue=True) if frameworks == "manage" else _plane(frameworks)
    cp.apply([jobset("js", queue=jobset_queue)])
    cp.apply([job("js-r-0", owner=ref(cp, jobset("js")))])
    # the default LocalQueue after the owners, or the JobSet would get its name too
    cp.apply([{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
               "metadata": {"name": "default", "namespace": "default"}, "spec": {"clusterQueue": "cq"}}])
    assert _pod_gated(cp, ref(cp, job("js-r-0"))) is gated
