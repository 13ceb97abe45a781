"""What a Kueue queue object's event enqueues, as upstream's handlers decide it (kueue v0.19.2
``pkg/controller/core``; the decisions in :mod:`kbatch.controllers.kueue.watches`).

Each case counts the reconciles one event causes, or shows the reconcile an event must cause:

* ``workloadQueueHandler`` (``workload_controller.go``): a ClusterQueue or LocalQueue update
  reconciles its Workloads only while the queue is being deleted or when its ``stopPolicy`` (a
  ClusterQueue's ``admissionChecksStrategy`` too) changed;
* ``qCQHandler`` (``localqueue_controller.go``): a ClusterQueue update reconciles its LocalQueues'
  status only when ``status.conditions`` changed;
* ``ResourceFlavorReconciler`` (``resourceflavor_controller.go``): a flavor update reconciles it
  only while it is being deleted; its ``cqHandler`` reconciles the flavors a deleted ClusterQueue
  used and no other ClusterQueue uses (the ``resource-in-use`` finalizer can go);
* ``CohortReconciler.Update`` passes spec changes only; ``cohortCqHandler`` reconciles the Cohorts
  above a ClusterQueue (the root excluded) on its events;
* ``AdmissionCheckReconciler`` / ``NotifyAdmissionCheckUpdate``: a check's update batches its
  ClusterQueues' status and reconciles no Workload.
"""

from __future__ import annotations

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import AdmissionCheck, ClusterQueue, Cohort, LocalQueue, ResourceFlavor

from .helpers import KUEUE, World, activate_checks, cluster_queue, flavor, local_queue, quota, workload
from .test_release_wakes_scheduler import _held

CONTROLLERS = ("kueue-workload", "kueue-localqueue", "kueue-clusterqueue", "kueue-cohort",
               "kueue-resourceflavor")


def _counts(w: World) -> dict[str, int]:
    w.cp.run_until_idle()
    w.cp.advance(3)  # past every batch period
    return {name: w.cp.manager.get(name).reconciles for name in CONTROLLERS}


def _delta(w: World, event) -> dict[str, int]:  # type: ignore[no-untyped-def]
    before = _counts(w)
    event()
    after = _counts(w)
    return {name: after[name] - before[name] for name in CONTROLLERS}


# --- workloadQueueHandler ----------------------------------------------------------------------


def test_a_local_queue_spec_change_other_than_stop_policy_reconciles_no_workload() -> None:
    w = _held("BestEffortFIFO")
    got = _delta(w, lambda: w.cp.client.patch(LocalQueue, "lq", {"spec": {"fairSharing": {"weight": "2"}}},
                                              "default"))
    assert got["kueue-workload"] == 0
    assert got["kueue-localqueue"] >= 1  # its own status reconcile: every event, as upstream


def test_a_local_queue_stop_policy_change_reconciles_its_workloads() -> None:
    w = _held("BestEffortFIFO")
    got = _delta(w, lambda: w.cp.client.patch(LocalQueue, "lq", {"spec": {"stopPolicy": "Hold"}}, "default"))
    assert got["kueue-workload"] >= 2  # holder and waiting


def test_a_cluster_queue_quota_change_reconciles_no_workload() -> None:
    w = _held("BestEffortFIFO")
    w.finish("holder")
    w.cp.advance(2)  # the inadmissible requeue, batched by 1 s
    assert w.admitted("waiting")
    got = _delta(w, lambda: w.cp.client.patch(ClusterQueue, "cq", {"spec": {"resourceGroups": [
        {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [quota("cpu", "5")]}]}]}}))
    assert got["kueue-workload"] == 0


def test_every_update_of_a_terminating_cluster_queue_reconciles_its_workloads() -> None:
    """Upstream checks ``DeletionTimestamp`` on the new object, not a change of it: every update
    while the ClusterQueue waits for its finalizer reconciles its Workloads again."""
    w = _held("BestEffortFIFO")
    w.cp.client.delete(ClusterQueue, "cq")
    w.cp.run_until_idle()
    assert w.cq("cq").metadata.deletion_timestamp is not None
    got = _delta(w, lambda: w.cp.client.patch(ClusterQueue, "cq", {"metadata": {"labels": {"touch": "1"}}}))
    assert got["kueue-workload"] >= 2


# --- qCQHandler ------------------------------------------------------------------------------------


def test_a_cluster_queue_label_change_reconciles_no_local_queue() -> None:
    w = _held("BestEffortFIFO")
    got = _delta(w, lambda: w.cp.client.patch(ClusterQueue, "cq", {"metadata": {"labels": {"touch": "1"}}}))
    assert got == {**got, "kueue-workload": 0, "kueue-localqueue": 0, "kueue-clusterqueue": 1}


# --- ResourceFlavor ------------------------------------------------------------------------------


def test_a_flavor_label_change_reconciles_nothing() -> None:
    w = _held("BestEffortFIFO")
    got = _delta(w, lambda: w.cp.client.patch(ResourceFlavor, "default",
                                              {"metadata": {"labels": {"touch": "1"}}}))
    assert got == dict.fromkeys(CONTROLLERS, 0)


def test_a_terminating_flavor_is_released_when_its_last_cluster_queue_goes() -> None:
    """``cqHandler``: deleting the last ClusterQueue naming a terminating flavor reconciles the
    flavor, whose ``resource-in-use`` finalizer then goes."""
    w = World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])))
    w.cp.run_until_idle()
    w.cp.client.delete(ResourceFlavor, "default")
    w.cp.run_until_idle()
    assert w.cp.client.get(ResourceFlavor, "default").metadata.deletion_timestamp is not None
    w.cp.client.delete(ClusterQueue, "cq")
    w.cp.run_until_idle()
    try:
        w.cp.client.get(ResourceFlavor, "default")
    except NotFound:
        return
    raise AssertionError("the flavor kept its finalizer after its last ClusterQueue was deleted")


def test_a_flavor_dropped_from_a_cluster_queue_is_released() -> None:
    w = World(flavor("old"), flavor("new"),
              cluster_queue("cq", (["cpu"], [("old", [quota("cpu", "4")])])))
    w.cp.run_until_idle()
    w.cp.client.delete(ResourceFlavor, "old")
    w.cp.run_until_idle()
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"resourceGroups": [
        {"coveredResources": ["cpu"], "flavors": [{"name": "new", "resources": [quota("cpu", "4")]}]}]}})
    w.cp.run_until_idle()
    assert [rf.metadata.name for rf in w.cp.client.list(ResourceFlavor).items] == ["new"]


# --- Cohort ------------------------------------------------------------------------------------------


def _cohort(name: str, parent: str | None = None) -> dict:
    spec = {"parentName": parent} if parent else {}
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


FAIR = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}}


def _cohorts() -> World:
    """root ← mid ← cq a (2 cpu); root ← cq c (4 cpu, idle, lends to a through root)."""
    return World(flavor("default"), _cohort("root"), _cohort("mid", "root"),
                 cluster_queue("a", (["cpu"], [("default", [quota("cpu", "2")])]), cohort="mid"),
                 cluster_queue("c", (["cpu"], [("default", [quota("cpu", "4")])]), cohort="root"),
                 local_queue("a", "a"), kueue_config=FAIR)


def test_a_cluster_queue_event_reconciles_the_cohorts_above_it_but_the_root() -> None:
    w = _cohorts()
    before = _counts(w)
    w.cp.client.patch(ClusterQueue, "a", {"metadata": {"labels": {"touch": "1"}}})
    w.cp.run_until_idle()
    assert w.cp.manager.get("kueue-cohort").reconciles - before["kueue-cohort"] == 1  # mid; not root


def test_a_cohort_status_write_does_not_reconcile_it_again() -> None:
    w = _cohorts()
    got = _delta(w, lambda: w.cp.client.patch_status(Cohort, "mid", {"status": {"fairSharing": {
        "weightedShare": 7}}}))
    assert got["kueue-cohort"] == 0


def test_a_cohorts_weighted_share_follows_its_cluster_queues_usage() -> None:
    """The Cohort status reconcile runs on its ClusterQueues' events (``cohortCqHandler``): the
    status write after an admission moves the Cohort's share too."""
    w = _cohorts()
    w.cp.run_until_idle()
    assert (w.cp.client.get(Cohort, "mid").status.fair_sharing.weighted_share or 0) == 0
    w.apply(workload("big", "a", cpu="4"))  # borrows 2 cpu from c through root
    w.cp.run_until_idle()
    assert w.admitted("big")
    w.cp.advance(2)  # the ClusterQueue status write, batched by 1 s
    assert w.cp.client.get(Cohort, "mid").status.fair_sharing.weighted_share > 0


# --- AdmissionCheck ----------------------------------------------------------------------------------


def test_an_admission_check_update_batches_its_cluster_queues_status_and_reconciles_no_workload() -> None:
    w = World(flavor("default"),
              {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": "check"},
               "spec": {"controllerName": "example.com/check"}},
              cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])]),
                            admissionChecksStrategy={"admissionChecks": [{"name": "check"}]}),
              local_queue("lq", "cq"))
    activate_checks(w.cp, "check")
    w.apply(workload("a", "lq"))
    w.cp.run_until_idle()
    got = _delta(w, lambda: w.cp.client.patch(AdmissionCheck, "check", {"metadata": {"labels": {"t": "1"}}}))
    assert got["kueue-workload"] == 0
    assert got["kueue-clusterqueue"] == 1
