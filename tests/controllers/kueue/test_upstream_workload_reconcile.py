"""Upstream's ``TestReconcile`` (workload controller), through kbatch's control plane.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workload_controller_test.go``
``TestReconcile`` (case names quoted per test) and ``workload_controller.go`` ``Reconcile``
(orphan finalization, ``objectRetentionPolicies.workloads.afterFinished``, admission-check sync,
``Admitted``). Upstream's unit test runs one reconcile over a fake client; these tests create the
objects through the API and read the settled state.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import JOB_UID_LABEL, RESOURCE_IN_USE_FINALIZER
from kbatch.controllers.kueue.jobframework.construct import ADMISSION_GATED_BY

from .helpers import KUEUE, World, activate_checks, cluster_queue, flavor, local_queue, quota, workload

RETAIN_5M = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "objectRetentionPolicies": {"workloads": {"afterFinished": "5m"}},
}


def _world(gates: str | None = None, config: dict[str, Any] | None = None, *extra: Any) -> World:
    kwargs: dict[str, Any] = {}
    if gates is not None:
        kwargs["feature_gates"] = gates
    if config is not None:
        kwargs["kueue_config"] = config
    return World(
        flavor("flavor1"),
        flavor("flavor2"),
        *extra,
        cluster_queue("cq", (["cpu"], [("flavor1", [quota("cpu", "4")])])),
        local_queue("lq", "cq"),
        **kwargs,
    )


def _owner(w: World) -> str:
    """A suspended Job outside Kueue (no queue name) to own a workload; its uid."""
    w.apply(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "job", "namespace": "default"},
            "spec": {
                "suspend": True,
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [{"name": "c", "image": "busybox"}],
                    }
                },
            },
        }
    )
    return str(w.cp.client.get(Job, "job", "default").metadata.uid)


def _bare(name: str = "wl", *, job_uid: str = "", owner_uid: str = "", finalizers: tuple[str, ...] = (
        RESOURCE_IN_USE_FINALIZER,)) -> dict[str, Any]:
    """A workload in a queue that does not exist, so it is never admitted."""
    obj = workload(name, "absent", cpu="1")
    meta = obj["metadata"]
    meta["finalizers"] = list(finalizers)
    if job_uid:
        meta["labels"] = {JOB_UID_LABEL: job_uid}
    if owner_uid:
        meta["ownerReferences"] = [
            {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "uid": owner_uid, "controller": True}
        ]
    return obj


def _gone(w: World, name: str = "wl") -> bool:
    try:
        w.wl(name)
    except NotFound:
        return True
    return False


def _finalizers(w: World, name: str = "wl") -> list[str]:
    return list(w.wl(name).metadata.finalizers or ())


# --- finalizers -------------------------------------------------------------------------------------


def test_a_finished_orphan_being_deleted_loses_its_finalizer() -> None:
    """ "remove finalizer for finished workload" """
    w = _world()
    w.apply(_bare())
    w.cp.run_until_idle()
    w.finish("wl")
    w.cp.client.delete(Workload, "wl", "default")
    w.cp.run_until_idle()
    assert _gone(w)


@pytest.mark.parametrize("gate", ["true", "false"])
def test_a_deleted_orphan_loses_its_finalizer_whatever_the_gate(gate: str) -> None:
    """ "remove finalizer for deleted orphaned workload with FinishOrphanedWorkloads enabled" and
    "... disabled" """
    w = _world(f"FinishOrphanedWorkloads={gate}")
    w.apply(_bare())
    w.cp.run_until_idle()
    w.cp.client.delete(Workload, "wl", "default")
    w.cp.run_until_idle()
    assert _gone(w)


def test_an_orphan_with_a_job_uid_is_finished_and_released_when_the_gate_is_on() -> None:
    """ "remove finalizer for orphaned workload with JobUID label and FinishOrphanedWorkloads enabled"
    (the finished state as in "should handle finished workload logic for orphaned workloads when
    FinishOrphanedWorkloads enabled": Finished, OwnerNotFound, "The workload's owner no longer
    exists")."""
    w = _world("FinishOrphanedWorkloads=true")
    w.apply(_bare(job_uid="job_uid"))
    w.cp.run_until_idle()
    finished = w.cond("wl", "Finished")
    assert (finished.status, finished.reason, finished.message) == (
        "True", "OwnerNotFound", "The workload's owner no longer exists")
    assert _finalizers(w) == []


def test_a_finished_orphan_with_a_job_uid_keeps_its_finalizer_when_the_gate_is_off() -> None:
    """ "remove finalizer for orphaned workload with JobUID label and FinishOrphanedWorkloads disabled" """
    w = _world("FinishOrphanedWorkloads=false")
    w.apply(_bare(job_uid="job_uid"))
    w.cp.run_until_idle()
    w.finish("wl")
    w.cp.advance(60)
    assert _finalizers(w) == [RESOURCE_IN_USE_FINALIZER]
    assert w.cond("wl", "Finished").reason == "Succeeded"


def test_an_owned_finished_workload_being_deleted_keeps_its_finalizer() -> None:
    """ "don't remove finalizer for owned finished workload" (no retention configured)."""
    w = _world()
    w.apply(_bare(owner_uid=_owner(w)))
    w.cp.run_until_idle()
    w.finish("wl")
    w.cp.client.delete(Workload, "wl", "default")
    w.cp.advance(60)
    assert _finalizers(w) == [RESOURCE_IN_USE_FINALIZER]
    assert w.wl("wl").metadata.deletion_timestamp is not None


# --- objectRetentionPolicies.workloads.afterFinished ------------------------------------------------


def test_without_retention_a_finished_workload_stays() -> None:
    """ "shouldn't delete the workload because, object retention not configured" """
    w = _world()
    w.apply(_bare(owner_uid=_owner(w), finalizers=()))
    w.cp.run_until_idle()
    w.finish("wl")
    w.cp.advance(3600)
    assert not _gone(w)


def test_a_finished_workload_is_deleted_once_the_retention_elapsed() -> None:
    """ "shouldn't try to delete the workload because the retention period hasn't elapsed yet, object
    retention configured" then "should delete the workload because the retention period has elapsed,
    object retention configured" (event Normal Deleted "Deleted finished workload due to elapsed
    retention")."""
    w = _world(config=RETAIN_5M)
    w.apply(_bare(owner_uid=_owner(w), finalizers=()))
    w.cp.run_until_idle()
    w.finish("wl")
    w.cp.advance(299)
    assert not _gone(w)
    events_before = w.events("wl")
    w.cp.advance(2)
    assert _gone(w)
    assert ("Normal", "Deleted", "Deleted finished workload due to elapsed retention") in w.events("wl")
    assert ("Normal", "Deleted", "Deleted finished workload due to elapsed retention") not in events_before


def test_an_owned_finished_workload_being_deleted_loses_only_kueues_finalizer_after_retention() -> None:
    """ "should remove finalizer from owned finished workload already being deleted, object retention
    configured" (another controller's finalizer stays; no Deleted event)."""
    w = _world(config=RETAIN_5M)
    w.apply(_bare(owner_uid=_owner(w), finalizers=(RESOURCE_IN_USE_FINALIZER, "example.com/finalizer")))
    w.cp.run_until_idle()
    w.finish("wl")
    w.cp.client.delete(Workload, "wl", "default")
    w.cp.advance(301)
    assert _finalizers(w) == ["example.com/finalizer"]
    assert not any(reason == "Deleted" for _, reason, _ in w.events("wl"))


def test_a_finished_orphan_already_being_deleted_is_not_deleted_again() -> None:
    """ "shouldn't try to delete the workload (no event emitted) because it is already being deleted
    by kubernetes, object retention configured" """
    w = _world(config=RETAIN_5M)
    w.apply(_bare())
    w.cp.run_until_idle()
    w.finish("wl")
    w.cp.client.delete(Workload, "wl", "default")
    w.cp.run_until_idle()
    assert _gone(w)
    assert not any(reason == "Deleted" for _, reason, _ in w.events("wl"))


# --- admission checks -------------------------------------------------------------------------------


def _check(name: str) -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "AdmissionCheck",
        "metadata": {"name": name},
        "spec": {"controllerName": "example.com/c"},
    }


def _checked_world(*rules: dict[str, Any], quota_on: str = "flavor1") -> World:
    """``cq`` over flavor1 and flavor2 (quota only in ``quota_on``) with the given strategy rules, the
    checks ac1..ac3 active, and workload ``wl`` (1 cpu) queued in ``lq``."""
    names = ("ac1", "ac2", "ac3")
    flavors = [(f, [quota("cpu", "4" if f == quota_on else "0")]) for f in ("flavor1", "flavor2")]
    w = World(
        flavor("flavor1"),
        flavor("flavor2"),
        *(_check(n) for n in names),
        cluster_queue("cq", (["cpu"], flavors), admissionChecksStrategy={"admissionChecks": list(rules)}),
        local_queue("lq", "cq"),
    )
    activate_checks(w.cp, *names)
    return w


def _check_states(w: World, name: str = "wl") -> list[tuple[str, str]]:
    st = w.wl(name).status
    return [(c.name, c.state) for c in (st.admission_checks if st else None) or ()]


def test_a_reserved_workload_gets_the_checks_of_its_flavors() -> None:
    """ "assign Admission Checks from ClusterQueue.spec.AdmissionCheckStrategy" (ac1 on flavor1, ac2 on
    every flavor; reserved in flavor1: both Pending) and TestReconcileSyncAdmissionChecks "add checks
    to admitted wl from cq with strategy" (ac2 on flavor2 only: not assigned)."""
    w = _checked_world(
        {"name": "ac1", "onFlavors": ["flavor1"]},
        {"name": "ac2", "onFlavors": ["flavor2"]},
        {"name": "ac3"},
    )
    w.apply(workload("wl", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert w.reserved("wl") and not w.admitted("wl")
    assert _check_states(w) == [("ac1", "Pending"), ("ac3", "Pending")]


def test_a_workload_without_admission_gets_only_the_checks_covering_every_flavor() -> None:
    """TestReconcileSyncAdmissionChecks "add only checks covering all flavors to unadmitted wl from cq
    with strategy" (``workload.AdmissionChecksForWorkload``: without an admission, only the checks
    whose flavors include all of the ClusterQueue's). The workload does not fit (4 cpu on 4 of quota
    with another holding 1), so it stays without admission."""
    w = _checked_world({"name": "ac1", "onFlavors": ["flavor1"]}, {"name": "ac2"})
    w.apply(workload("other", "lq", cpu="1"))
    w.cp.run_until_idle()
    w.apply(workload("wl", "lq", cpu="4"))
    w.cp.run_until_idle()
    w.cp.advance(2)
    assert w.wl("wl").status.admission is None
    assert _check_states(w) == [("ac2", "Pending")]


def test_a_ready_check_admits_the_workload_with_an_event() -> None:
    """ "admit": every check Ready on a workload holding quota sets Admitted (reason Admitted, "The
    workload is admitted") and records "Admitted by ClusterQueue cq, wait time since reservation was
    Ns"."""
    w = _checked_world({"name": "ac1"})
    w.apply(workload("wl", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert _check_states(w) == [("ac1", "Pending")] and not w.admitted("wl")
    w.cp.advance(5)
    ready = {"name": "ac1", "state": "Ready", "message": "", "lastTransitionTime": w.cp.now().isoformat()}
    w.cp.client.patch_status(Workload, "wl", {"status": {"admissionChecks": [ready]}}, "default")
    w.cp.run_until_idle()
    admitted = w.cond("wl", "Admitted")
    assert (admitted.status, admitted.reason, admitted.message) == (
        "True", "Admitted", "The workload is admitted")
    event = ("Normal", "Admitted", "Admitted by ClusterQueue cq, wait time since reservation was 5s")
    assert event in w.events("wl")


# --- UnadmittedWorkloadsObservability on ------------------------------------------------------------

OBSERVABLE = "UnadmittedWorkloadsObservability=true"


def _unadmitted(w: World, name: str = "wl") -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    qr, adm = w.cond(name, "QuotaReserved"), w.cond(name, "Admitted")
    return (qr.status, qr.reason, qr.message), (adm.status, adm.reason, adm.message)


NO_RESERVATION = ("False", "NoReservation", "The workload has no reservation")


def test_observable_a_missing_local_queue_is_misconfigured() -> None:
    """ "inadmissible workload due to missing LocalQueue (observability enabled)" """
    w = _world(OBSERVABLE)
    w.apply(workload("wl", "non-existent-lq", cpu="1"))
    w.cp.run_until_idle()
    assert _unadmitted(w) == (
        ("False", "Misconfigured", "LocalQueue non-existent-lq doesn't exist"), NO_RESERVATION)


def test_observable_a_stopped_cluster_queue_suspends() -> None:
    """ "inadmissible workload due to stopped ClusterQueue (observability enabled)" (HoldAndDrain)."""
    from kbatch.api.kueue_v1beta2 import ClusterQueue

    w = _world(OBSERVABLE)
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"stopPolicy": "HoldAndDrain"}})
    w.cp.advance(2)
    w.apply(workload("wl", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert _unadmitted(w) == (("False", "Suspended", "ClusterQueue cq is inactive"), NO_RESERVATION)


def test_observable_deactivation_and_reactivation() -> None:
    """ "workload that is deactivated should set QuotaReserved condition to Deactivated (observability
    enabled)" then "workload that is reactivated should clear Deactivated condition and transition to
    PendingEvaluation (observability enabled)" (a workload that cannot fit, so it stays pending; the
    scheduler is held after reactivation, as upstream's unit test runs the controller alone)."""
    w = _world(OBSERVABLE)
    w.apply(workload("wl", "lq", cpu="8"))
    w.cp.advance(2)
    w.cp.client.patch(Workload, "wl", {"spec": {"active": False}}, "default")
    w.cp.advance(2)
    assert _unadmitted(w) == (("False", "Deactivated", "The workload is deactivated"), NO_RESERVATION)
    (ctl,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    ctl.reconciler.reconcile = lambda request: None  # the next cycle would say ExceedsMaxQuota
    w.cp.client.patch(Workload, "wl", {"spec": {"active": True}}, "default")
    w.cp.run_until_idle()
    assert _unadmitted(w) == (
        ("False", "PendingEvaluation", "Workload is pending evaluation in the scheduling queue"),
        NO_RESERVATION,
    )


def test_observable_an_admission_gated_workload_says_so() -> None:
    """ "workload with AdmissionGatedBy annotation should set QuotaReserved condition to
    AdmissionGated" (with UnadmittedWorkloadsObservability on: "Admission is gated by: <gates>")."""
    w = _world(f"{OBSERVABLE},AdmissionGatedBy=true")
    doc = workload("wl", "lq", cpu="1")
    doc["metadata"]["annotations"] = {"kueue.x-k8s.io/admission-gated-by": "example.com/gate"}
    w.apply(doc)
    w.cp.advance(2)
    assert _unadmitted(w) == (
        ("False", "AdmissionGated", "Admission is gated by: example.com/gate"), NO_RESERVATION)


# --- AdmissionGatedBy (UnadmittedWorkloadsObservability off, its default) ----------------------------


def test_an_admission_gate_is_reported_and_its_removal_too() -> None:
    """ "workload with AdmissionGatedBy annotation should set QuotaReserved condition to
    AdmissionGated" / "workload with multiple AdmissionGatedBy gates should remain gated" (QuotaReserved
    False, AdmissionGated, "Admission is gated by: <gates>"; event AdmissionGated "Workload admission is
    gated by: <gates>"), then "workload with AdmissionGatedBy annotation removed should clear the gate
    and emit event" (reason Pending — PendingEvaluation's legacy fallback — "AdmissionGatedBy cleared,
    waiting for quota reservation"; event AdmissionGateCleared), after which it is admitted
    (``workload_controller.go`` ``mayUpdateConditionForAdmissionGatedBy``)."""
    gates = "example.com/controller1,example.com/controller2"
    w = _world("AdmissionGatedBy=true")
    doc = workload("wl", "lq", cpu="1")
    doc["metadata"]["annotations"] = {ADMISSION_GATED_BY: gates}
    w.apply(doc)
    w.cp.advance(2)
    qr = w.cond("wl", "QuotaReserved")
    assert (qr.status, qr.reason, qr.message) == (
        "False", "AdmissionGated", f"Admission is gated by: {gates}")
    assert ("Normal", "AdmissionGated", f"Workload admission is gated by: {gates}") in w.events("wl")
    (ctl,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    original = ctl.reconciler.reconcile
    ctl.reconciler.reconcile = lambda request: None  # to see the controller's own write
    w.cp.client.patch(Workload, "wl", {"metadata": {"annotations": {ADMISSION_GATED_BY: None}}}, "default")
    w.cp.run_until_idle()
    qr = w.cond("wl", "QuotaReserved")
    assert (qr.status, qr.reason, qr.message) == (
        "False", "Pending", "AdmissionGatedBy cleared, waiting for quota reservation")
    cleared = ("Normal", "AdmissionGateCleared", "Admission gate cleared, workload is now admissible")
    assert cleared in w.events("wl")
    ctl.reconciler.reconcile = original
    ctl.reconciler.mgr.kick()  # the wake-up the held scheduler swallowed
    w.cp.advance(2)
    assert w.admitted("wl")


@pytest.mark.parametrize("gates", ["AdmissionGatedBy=true", f"AdmissionGatedBy=true,{OBSERVABLE}"])
def test_a_gated_workload_in_a_missing_queue_settles(gates: str) -> None:
    """A gated workload whose LocalQueue does not exist: the gate's condition and the queue blocker
    would overwrite each other on every reconcile; kbatch keeps AdmissionGated while the annotation
    is there (docs/kueue.md, differences) and the control plane goes idle."""
    w = _world(gates)
    doc = workload("wl", "absent", cpu="1")
    doc["metadata"]["annotations"] = {ADMISSION_GATED_BY: "example.com/gate"}
    w.apply(doc)
    w.cp.advance(2)
    qr = w.cond("wl", "QuotaReserved")
    assert (qr.reason, qr.message) == ("AdmissionGated", "Admission is gated by: example.com/gate")
    version = w.wl("wl").metadata.resource_version
    w.cp.advance(30)
    assert w.wl("wl").metadata.resource_version == version


@pytest.mark.parametrize("explicit", [True, False])
def test_observable_a_new_workload_is_pending_evaluation_only_with_explicit_status(explicit: bool) -> None:
    """ "newly created workload (initial reconcile, ExplicitStatus enabled)" (PendingEvaluation,
    "Workload is pending evaluation in the scheduling queue"; Admitted NoReservation) and "...
    ExplicitStatus disabled" (no condition). The scheduler is held: upstream runs the controller
    alone."""
    w = _world(f"{OBSERVABLE},UnadmittedWorkloadsExplicitStatus={str(explicit).lower()}")
    (ctl,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    ctl.reconciler.reconcile = lambda request: None
    w.apply(workload("wl", "lq", cpu="1"))
    w.cp.run_until_idle()
    if explicit:
        assert _unadmitted(w) == (
            ("False", "PendingEvaluation", "Workload is pending evaluation in the scheduling queue"),
            NO_RESERVATION,
        )
    else:
        assert not w.wl("wl").status or not w.wl("wl").status.conditions


def test_a_workload_whose_owner_exists_is_not_finished() -> None:
    """ "workload with existing controller owner should not be finished" (FinishOrphanedWorkloads on;
    no queue name: QuotaReserved False "LocalQueue  doesn't exist", reason Inadmissible with
    UnadmittedWorkloadsObservability off)."""
    w = _world("FinishOrphanedWorkloads=true")
    doc = _bare(owner_uid=_owner(w), finalizers=())
    del doc["spec"]["queueName"]
    w.apply(doc)
    w.cp.advance(2)
    assert w.cond("wl", "Finished") is None
    qr = w.cond("wl", "QuotaReserved")
    assert (qr.status, qr.reason, qr.message) == ("False", "Inadmissible", "LocalQueue  doesn't exist")
