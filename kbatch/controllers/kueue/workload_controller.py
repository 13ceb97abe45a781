"""The Workload controller: a workload's life around admission (Kueue's ``WorkloadReconciler``).

Upstream: kubernetes-sigs/kueue ``pkg/controller/core/workload_controller.go`` ``Reconcile``
(v0.19.2), in its order:

1. an orphan (no owner; deleting, or — ``FinishOrphanedWorkloads`` — carrying a job UID) is finished
   (``OwnerNotFound``) and its finalizer removed; with ``MultiKueueOrchestratedPreemption``,
   ``status.preemptionGates`` follows ``spec.preemptionGates`` (``syncPreemptionGateStates``);
   with ``ConcurrentAdmission``, a Workload of a ClusterQueue with a ``concurrentAdmissionPolicy``
   is labelled a parent (a parent has no admission checks, a Variant no PodsReady timeout);
2. a finished workload is deleted once ``objectRetentionPolicies.workloads.afterFinished`` passed;
   an admission check in Retry with ``requeueAfterSeconds`` moves ``requeueAt`` to its retry time
   (``NeedsRequeueAtUpdate``);
3. active: a ``DeactivationTarget`` deactivates it (``spec.active=false``); a due ``requeueAt`` is
   cleared and the workload queued; ``Requeued=False`` becomes ``True`` when it was reactivated
   (``Reactivated``) or its back-off ended (``BackoffFinished``);
   inactive: it is evicted (``Deactivated``, with the target's reason as the cause) and its requeue
   state cleared;
4. a LocalQueue or ClusterQueue restarted after a stop: ``Requeued=True`` (``…Restarted``); an
   ``admission-gated-by`` annotation seen or removed: QuotaReserved=False ``AdmissionGated`` or
   pending again, with an event (``AdmissionGatedBy``);
5. the admission check states follow the ClusterQueue's checks;
6. not admitted: ``QuotaReserved=False`` with the queue's blocker (legacy reason ``Inadmissible``:
   "LocalQueue … doesn't exist", "ClusterQueue … is inactive", …; with
   ``UnadmittedWorkloadsObservability`` the granular reason, ``unadmitted.granular_unadmitted``) and
   ``Admitted`` synced — an ``Admitted`` event when that admits it;
7. holding quota: eviction on failed admission checks, on a stopped queue (``HoldAndDrain``), a
   missing or stopped queue releasing an unadmitted reservation, the ``waitForPodsReady`` timeouts
   (``PodsReadyTimeout``: re-queued with back-off, deactivated past ``backoffLimitCount``) and the
   maximum execution time (``DeactivationTarget``).
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta
from typing import Any

from kbatch.api.errors import Conflict, NotFound
from kbatch.api.kueue_v1beta2 import AdmissionCheckState, ClusterQueue, LocalQueue, Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import JOB_UID_LABEL, RESOURCE_IN_USE_FINALIZER, Cond, Reason
from kbatch.controllers.kueue import preemption_gates as gates
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.concurrent_admission import variants as CA
from kbatch.controllers.kueue.dra_requests import DraRetry
from kbatch.controllers.kueue.jobframework.construct import ADMISSION_GATED_BY
from kbatch.controllers.kueue.manager import KueueManager, status_of_workload
from kbatch.controllers.kueue.scheduler import evict, write_status
from kbatch.controllers.kueue.unadmitted import (
    ADMISSION_GATED,
    checks_for,
    gate_reported,
    granular_unadmitted,
)
from kbatch.runtime.reconcile import Request, Result

__all__ = ["WorkloadReconciler"]


class WorkloadReconciler:
    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    # --- helpers ---------------------------------------------------------------------------------
    def _update(self, wl: Workload) -> None:
        with contextlib.suppress(NotFound, Conflict):
            self.mgr.ctx.client.update(wl)

    def _evict(self, wl: Workload, reason: str, message: str, cause: str = "", prepare: Any = None) -> None:
        evict(self.mgr, wl, reason, message, cause, prepare)

    # --- the reconcile ------------------------------------------------------------------------------
    def reconcile(self, request: Request) -> Result | None:
        wl = self.mgr.get(Workload, request.name, request.namespace)
        if wl is None:
            return None
        if self._orphaned(wl):
            if self._finalize_orphan(wl):
                return None
            wl = self.mgr.get(Workload, request.name, request.namespace)
            if wl is None:
                return None
        if self.mgr.settings.on("MultiKueueOrchestratedPreemption"):
            wl = self._sync_preemption_gates(wl)
        if self.mgr.settings.on("ConcurrentAdmission") and self._label_parent(wl):
            return None
        finished = W.find(wl.status, Cond.FINISHED)
        if finished is not None and finished.status == "True":
            return self._retention(wl, finished)
        if (requeue_at := W.check_requeue_at(wl.status, self.mgr.now())) is not None:
            write_status(self.mgr, wl, lambda st, _: W.set_requeue_state(st, requeue_at, False))
            return None
        active = wl.spec is None or wl.spec.active is not False
        outcome = self._reconcile_active(wl) if active else self._reconcile_inactive(wl)
        if outcome is not False:
            return outcome  # type: ignore[return-value]
        if self._reconcile_dra(wl):
            return None
        return self._reconcile_queues(wl)

    def _sync_preemption_gates(self, wl: Workload) -> Workload:
        """``syncPreemptionGateStates``: ``status.preemptionGates`` follows the spec's gates (a new
        one ``Closed``); the reconcile goes on with the written object."""
        now = self.mgr.now()
        written = write_status(self.mgr, wl, lambda st, obj: gates.sync_states(obj, st, now))
        return written if written is not None else wl

    def _label_parent(self, wl: Workload) -> bool:
        """``ConcurrentAdmission``: a Workload of a ClusterQueue with a policy, neither a Variant
        nor labelled yet, is labelled a parent (``SetParentVariantLabel``); whether it was."""
        if CA.is_parent(wl) or not self.mgr.queues.is_concurrent_parent(wl):
            return False
        from kbatch.api import edit

        obj = edit(wl)
        obj.metadata.labels = {**(obj.metadata.labels or {}), CA.PARENT_LABEL: "true"}
        self._update(obj)
        return True

    def _reconcile_dra(self, wl: Workload) -> bool:
        """The DRA block (:mod:`.dra_requests`): a pending workload the DRA path refuses gets
        QuotaReserved=False and Requeued=False with the reason; an internal error raises
        :class:`DraRetry` after that, so the reconcile is retried with back-off. One it accepts is
        queued with its devices. Whether the reconcile stops here."""
        mgr = self.mgr
        if status_of_workload(wl) != "pending" or not mgr.dra.needs(wl):
            return False
        outcome = mgr.dra(wl)
        if outcome is None or not outcome.inadmissible:
            # upstream queues it here (its event handlers skip DRA workloads), with the False
            # QuotaReserved and Requeued conditions dropped from its copy (not written), so an
            # earlier refusal does not keep it among the inadmissible; kbatch's handlers queued it
            # already, so only such a copy, or one no handler queued, is added here
            cleared = _without_refusal(wl)
            key = f"{wl.metadata.namespace}/{wl.metadata.name}"
            fresh = cleared is not wl or not mgr.queues.queued(key)
            if fresh and mgr.queues.add_or_update_workload(cleared):
                mgr.kick()
            return False
        now = mgr.now()
        reason = Reason.MISCONFIGURED if mgr.observability else Reason.INADMISSIBLE

        def mutate(status: WorkloadStatus, obj: Workload) -> bool:
            gen = obj.metadata.generation
            updated = W.unset_quota_reservation(
                status, reason, outcome.message, gen, now, mgr.observability, mgr.explicit_status
            )
            if updated:
                W.set_requeued(status, Reason.INADMISSIBLE, outcome.requeued_message, False, gen, now)
            return updated

        write_status(mgr, wl, mutate)
        if outcome.retry:
            raise DraRetry(outcome.message)
        return True

    def _orphaned(self, wl: Workload) -> bool:
        if wl.metadata.owner_references:
            return False
        if wl.metadata.deletion_timestamp is not None:
            return True
        return self.mgr.settings.on("FinishOrphanedWorkloads") and bool(
            (wl.metadata.labels or {}).get(JOB_UID_LABEL)
        )

    def _finalize_orphan(self, wl: Workload) -> bool:
        """``FinalizeOrphanedWorkload``; whether the reconcile stops here."""
        mgr = self.mgr
        finish = mgr.settings.on("FinishOrphanedWorkloads")
        if finish and wl.metadata.deletion_timestamp is None:
            now = mgr.now()
            written = write_status(
                mgr,
                wl,
                lambda st, obj: W.finish(
                    st,
                    Reason.OWNER_NOT_FOUND,
                    "The workload's owner no longer exists",
                    obj.metadata.generation,
                    now,
                ),
            )
            wl = written or wl
        self._remove_finalizer(wl)
        return not finish or wl.metadata.deletion_timestamp is not None

    def _remove_finalizer(self, wl: Workload) -> None:
        if RESOURCE_IN_USE_FINALIZER not in (wl.metadata.finalizers or ()):
            return
        try:
            wl = self.mgr.ctx.client.get(Workload, wl.metadata.name or "", wl.metadata.namespace)
        except NotFound:
            return
        from kbatch.api import edit

        wl = edit(wl)
        wl.metadata.finalizers = [
            f for f in wl.metadata.finalizers or () if f != RESOURCE_IN_USE_FINALIZER
        ] or None
        self._update(wl)

    def _retention(self, wl: Workload, finished: Any) -> Result | None:
        mgr = self.mgr
        after = mgr.settings.config.retention_after_finished
        if after is None:
            return None
        expires = finished.last_transition_time + timedelta(seconds=after)
        now = mgr.now()
        if now < expires:
            return Result(requeue_after=(expires - now).total_seconds())
        self._remove_finalizer(wl)
        if wl.metadata.deletion_timestamp is not None:
            return None
        try:
            mgr.ctx.client.delete(Workload, wl.metadata.name or "", wl.metadata.namespace)
        except NotFound:
            return None
        mgr.recorder.event(wl, "Normal", "Deleted", "Deleted finished workload due to elapsed retention")
        return None

    def _reconcile_active(self, wl: Workload) -> Result | bool | None:
        mgr = self.mgr
        now = mgr.now()
        if W.has(wl.status, Cond.DEACTIVATION_TARGET):
            from kbatch.api import edit

            obj = edit(wl)
            assert obj.spec is not None  # the CRD requires spec
            obj.spec.active = False
            self._update(obj)
            return None
        rs = wl.status.requeue_state if wl.status else None
        if rs is not None and rs.requeue_at is not None:
            if rs.requeue_at > now:
                return Result(requeue_after=(rs.requeue_at - now).total_seconds())
            if not W.has(wl.status, Cond.QUOTA_RESERVED):
                written = write_status(mgr, wl, _clear_requeue_at)
                if written is not None and mgr.queues.add_or_update_workload(written):
                    mgr.kick()
                return None
        requeued = W.find(wl.status, Cond.REQUEUED)
        if requeued is not None and requeued.status == "False":
            if requeued.reason == Reason.DEACTIVATED:
                write_status(
                    mgr,
                    wl,
                    lambda st, obj: W.set_requeued(
                        st,
                        Reason.REACTIVATED,
                        "The workload was reactivated",
                        True,
                        obj.metadata.generation,
                        now,
                    ),
                )
                return None
            if requeued.reason in (Reason.PODS_READY_TIMEOUT, Reason.ADMISSION_CHECK):
                if rs is not None and rs.requeue_at is not None and rs.requeue_at > now:
                    return Result(requeue_after=(rs.requeue_at - now).total_seconds())

                def backoff_done(st: WorkloadStatus, obj: Workload) -> bool:
                    if st.requeue_state is not None:
                        st.requeue_state.requeue_at = None
                    W.set_requeued(
                        st,
                        Reason.BACKOFF_FINISHED,
                        "The workload backoff was finished",
                        True,
                        obj.metadata.generation,
                        now,
                    )
                    return True

                write_status(mgr, wl, backoff_done)
                return None
        return False

    def _reconcile_inactive(self, wl: Workload) -> Result | bool | None:
        dt = W.find(wl.status, Cond.DEACTIVATION_TARGET)

        def prepare(status: WorkloadStatus) -> None:
            if dt is not None:
                W.remove_condition(status, Cond.DEACTIVATION_TARGET)
            status.requeue_state = None

        if not W.has(wl.status, Cond.EVICTED):
            cause = dt.reason or "" if dt is not None else ""
            message = "The workload is deactivated"
            if dt is not None:
                message = f"{message} due to {dt.message}"
            self._evict(wl, Reason.DEACTIVATED, message, cause, prepare)
            return None
        if wl.status is not None and wl.status.requeue_state is not None:
            def prepared(st: WorkloadStatus, _: Any) -> bool:
                prepare(st)
                return True

            write_status(self.mgr, wl, prepared)
            return None
        return False

    def _reconcile_queues(self, wl: Workload) -> Result | None:
        mgr = self.mgr
        now = mgr.now()
        q = (wl.spec.queue_name if wl.spec else None) or ""
        lq = self.mgr.get(LocalQueue, q, wl.metadata.namespace) if q else None
        lq_active = lq is not None and ((lq.spec.stop_policy if lq.spec else None) or "None") == "None"
        requeued = W.find(wl.status, Cond.REQUEUED)
        stopped_by = requeued.reason if requeued is not None and requeued.status == "False" else None
        if lq is not None and lq_active and stopped_by == Reason.LOCAL_QUEUE_STOPPED:
            write_status(
                mgr,
                wl,
                lambda st, obj: W.set_requeued(
                    st,
                    Reason.LOCAL_QUEUE_RESTARTED,
                    "The LocalQueue was restarted after being stopped",
                    True,
                    obj.metadata.generation,
                    now,
                ),
            )
            return None
        if mgr.settings.on("AdmissionGatedBy") and self._admission_gate(wl):
            return None
        cq_name = mgr.queues.cluster_queue_for(wl)
        if cq_name is None and lq is not None:
            cq_name = (lq.spec.cluster_queue if lq.spec else None) or None
        cq = self.mgr.get(ClusterQueue, cq_name) if cq_name else None
        if cq is not None:
            cq_running = ((cq.spec.stop_policy if cq.spec else None) or "None") == "None"
            if stopped_by == Reason.CLUSTER_QUEUE_STOPPED and cq_running:
                write_status(
                    mgr,
                    wl,
                    lambda st, obj: W.set_requeued(
                        st,
                        Reason.CLUSTER_QUEUE_RESTARTED,
                        "The ClusterQueue was restarted after being stopped",
                        True,
                        obj.metadata.generation,
                        now,
                    ),
                )
                return None
            if self._sync_checks(wl, cq):
                return None
        if not W.has(wl.status, Cond.ADMITTED):
            wl = self._sync_unadmitted(wl, lq, lq_active, cq, cq_name, now) or wl
        if not W.has(wl.status, Cond.QUOTA_RESERVED):
            return None
        if self._check_based_eviction(wl):
            return None
        if self._queue_state(
            wl, lq, "LocalQueue", q, Reason.LOCAL_QUEUE_STOPPED, "The LocalQueue is stopped"
        ):
            return None
        admitted_cq = wl.status.admission.cluster_queue if wl.status and wl.status.admission else cq_name
        cq_now = self.mgr.get(ClusterQueue, admitted_cq) if admitted_cq else None
        if self._queue_state(
            wl,
            cq_now,
            "ClusterQueue",
            admitted_cq or "",
            Reason.CLUSTER_QUEUE_STOPPED,
            "The ClusterQueue is stopped",
        ):
            return None
        ready_after = self._pods_ready_timeout(wl, request_text=f"{wl.metadata.namespace}/{wl.metadata.name}")
        exec_after = self._max_execution_time(wl)
        after = min(ready_after, exec_after) or max(ready_after, exec_after)
        return Result(requeue_after=after) if after > 0 else None

    def _admission_gate(self, wl: Workload) -> bool:
        """``mayUpdateConditionForAdmissionGatedBy``: QuotaReserved=False ``AdmissionGated`` when a
        gate annotation is first seen, and back to pending once it is gone, each with an event;
        whether it wrote."""
        mgr = self.mgr
        gates = (wl.metadata.annotations or {}).get(ADMISSION_GATED_BY) or ""
        cond = W.find(wl.status, Cond.QUOTA_RESERVED)
        gated = cond is not None and cond.reason == ADMISSION_GATED
        if bool(gates) == gated:
            return False
        if gates:
            reason, message = ADMISSION_GATED, f"Admission is gated by: {gates}"
            event = (ADMISSION_GATED, f"Workload admission is gated by: {gates}")
        else:
            reason = Reason.PENDING_EVALUATION if mgr.observability else Reason.PENDING
            message = "AdmissionGatedBy cleared, waiting for quota reservation"
            event = ("AdmissionGateCleared", "Admission gate cleared, workload is now admissible")
        now = mgr.now()
        observability, explicit = mgr.observability, mgr.explicit_status
        written = write_status(
            mgr,
            wl,
            lambda st, obj: W.unset_quota_reservation(
                st, reason, message, obj.metadata.generation, now, observability, explicit
            ),
        )
        if written is not None:
            mgr.recorder.event(written, "Normal", *event)
        return True

    def _sync_checks(self, wl: Workload, cq: ClusterQueue) -> bool:
        """``reconcileSyncAdmissionChecks`` (a concurrent-admission parent has no checks)."""
        if self.mgr.settings.on("ConcurrentAdmission") and CA.is_parent(wl):
            return False
        wanted = checks_for(cq, wl.status.admission if wl.status else None)
        have = list((wl.status.admission_checks if wl.status else None) or ())
        names = [c.name or "" for c in have]
        if sorted(names) == wanted and names == sorted(names):
            return False
        now = self.mgr.now()

        def mutate(status: WorkloadStatus, obj: Workload) -> bool:
            current = {c.name: c for c in status.admission_checks or ()}
            merged = [
                current.get(n)
                or AdmissionCheckState(name=n, state="Pending", last_transition_time=now, message="")
                for n in wanted
            ]
            status.admission_checks = merged or None
            return True

        write_status(self.mgr, wl, mutate)
        return True

    def _sync_unadmitted(
        self, wl: Workload, lq: Any, lq_active: bool, cq: Any, cq_name: str | None, now: datetime
    ) -> Workload | None:
        mgr = self.mgr
        observability, explicit = mgr.observability, mgr.explicit_status
        blocker = self._blocker(wl, lq, lq_active, cq, cq_name)

        gated_by = mgr.settings.on("AdmissionGatedBy")

        def mutate(status: WorkloadStatus, obj: Workload) -> bool:
            changed = False
            if not W.has(status, Cond.QUOTA_RESERVED) and not gate_reported(obj, status, gated_by):
                if observability:
                    found = granular_unadmitted(obj, status, blocker, explicit, gated_by)
                else:
                    found = (Reason.INADMISSIBLE, blocker[1]) if blocker is not None else None
                if found is not None:
                    changed = W.set_condition(
                        status,
                        Cond.QUOTA_RESERVED,
                        False,
                        found[0],
                        W.truncate(found[1]),
                        obj.metadata.generation,
                        now,
                    )
            return W.sync_admitted(status, obj.metadata.generation, now, observability, explicit) or changed

        written = write_status(mgr, wl, mutate)
        if (
            written is not None
            and W.has(written.status, Cond.ADMITTED)
            and not W.has(wl.status, Cond.ADMITTED)
        ):
            reserved = W.find(written.status, Cond.QUOTA_RESERVED)
            wait = (
                (now - reserved.last_transition_time).total_seconds()
                if reserved and reserved.last_transition_time
                else 0.0
            )
            mgr.recorder.event(
                written,
                "Normal",
                "Admitted",
                f"Admitted by ClusterQueue {written.status.admission.cluster_queue}, "  # type: ignore[union-attr]
                f"wait time since reservation was {wait:.0f}s",
            )
        return written

    def _blocker(
        self, wl: Workload, lq: Any, lq_active: bool, cq: Any, cq_name: str | None
    ) -> tuple[str, str] | None:
        """``getQueueBlocker``."""
        q = (wl.spec.queue_name if wl.spec else None) or ""
        if lq is None:
            return Reason.MISCONFIGURED, f"LocalQueue {q} doesn't exist"
        if not lq_active:
            return Reason.SUSPENDED, f"LocalQueue {q} is inactive"
        if cq is None:
            return Reason.MISCONFIGURED, f"ClusterQueue {cq_name or ''} doesn't exist"
        if not self.mgr.cache.active(cq.metadata.name or ""):
            return Reason.SUSPENDED, f"ClusterQueue {cq.metadata.name} is inactive"
        return None

    def _check_based_eviction(self, wl: Workload) -> bool:
        """``reconcileCheckBasedEviction`` (a concurrent-admission parent has no checks)."""
        if self.mgr.settings.on("ConcurrentAdmission") and CA.is_parent(wl):
            return False
        checks = (wl.status.admission_checks if wl.status else None) or ()
        if W.has(wl.status, Cond.EVICTED) or not any(c.state in ("Retry", "Rejected") for c in checks):
            return False
        mgr = self.mgr
        now = mgr.now()
        rejected = sorted((c for c in checks if c.state == "Rejected"), key=lambda c: c.name or "")
        if rejected:
            message = _checks_message(rejected, "Rejected")
            write_status(
                mgr,
                wl,
                lambda st, obj: W.set_deactivation_target(
                    st, Reason.ADMISSION_CHECK, message, obj.metadata.generation, now
                ),
            )
            mgr.recorder.event(
                wl,
                "Warning",
                "AdmissionCheckRejected",
                W.truncate(f"Deactivated due to {message}", W.MAX_EVENT_MESSAGE),
            )
            return True
        retry = sorted((c for c in checks if c.state == "Retry"), key=lambda c: c.name or "")
        self._evict(wl, Reason.ADMISSION_CHECK, f"Evicted due to {_checks_message(retry, 'Retry')}")
        return True

    def _queue_state(
        self, wl: Workload, queue: Any, kind: str, name: str, stopped_reason: str, stopped_message: str
    ) -> bool:
        """``reconcileOn{Local,Cluster}QueueActiveState``."""
        mgr = self.mgr
        policy = (queue.spec.stop_policy if queue is not None and queue.spec else None) or "None"
        if W.has(wl.status, Cond.ADMITTED):
            if policy != "HoldAndDrain" or W.has(wl.status, Cond.EVICTED):
                return False
            self._evict(wl, stopped_reason, stopped_message)
            return True
        now = mgr.now()
        observability, explicit = mgr.observability, mgr.explicit_status
        if queue is None or queue.metadata.deletion_timestamp is not None:
            reason = Reason.MISCONFIGURED if observability else Reason.INADMISSIBLE
            message = f"{kind} {name} is terminating or missing"
        elif policy != "None":
            reason = Reason.SUSPENDED if observability else Reason.INADMISSIBLE
            message = f"{kind} {name} is stopped"
        else:
            return False
        write_status(
            mgr,
            wl,
            lambda st, obj: W.unset_quota_reservation(
                st, reason, message, obj.metadata.generation, now, observability, explicit
            ),
        )
        return True

    def _pods_ready_timeout(self, wl: Workload, request_text: str) -> float:
        """``reconcileNotReadyTimeout``: seconds until the next check (0: none); a Variant has no
        pods of its own (its parent's PodsReady is copied to it)."""
        mgr = self.mgr
        if mgr.settings.on("ConcurrentAdmission") and CA.is_variant(wl):
            return 0.0
        wait = mgr.settings.config.wait_for_pods_ready
        active = wl.spec is None or wl.spec.active is not False
        if wait is None or not active or W.has(wl.status, Cond.EVICTED):
            return 0.0
        admitted = W.find(wl.status, Cond.ADMITTED)
        if admitted is None or admitted.status != "True":
            return 0.0
        ready = W.find(wl.status, Cond.PODS_READY)
        now = mgr.now()
        if ready is not None and ready.status == "True":
            return 0.0
        if ready is None or ready.reason in (Reason.WAIT_FOR_START, "PodsReady"):
            cause, remaining = (
                Reason.WAIT_FOR_START,
                wait.timeout - (now - (admitted.last_transition_time or now)).total_seconds(),
            )
        elif ready.reason == Reason.WAIT_FOR_RECOVERY and wait.recovery_timeout is not None:
            cause = Reason.WAIT_FOR_RECOVERY
            remaining = wait.recovery_timeout - (now - (ready.last_transition_time or now)).total_seconds()
        else:
            return 0.0
        if remaining > 0:
            return remaining
        count = (wl.status.requeue_state.count if wl.status and wl.status.requeue_state else None) or 0
        if wait.backoff_limit_count is not None and count + 1 > wait.backoff_limit_count:
            write_status(
                mgr,
                wl,
                lambda st, obj: W.set_deactivation_target(
                    st,
                    Reason.REQUEUING_LIMIT_EXCEEDED,
                    "exceeding the maximum number of re-queuing retries",
                    obj.metadata.generation,
                    now,
                ),
            )
            return 0.0
        rng = mgr.ctx.rng
        self._evict(
            wl,
            Reason.PODS_READY_TIMEOUT,
            f"Exceeded the PodsReady timeout {request_text}",
            cause,
            lambda st: W.update_requeue_state(
                st, wait.backoff_base_seconds, wait.backoff_max_seconds, now, rng
            ),
        )
        return 0.0

    def _max_execution_time(self, wl: Workload) -> float:
        """``reconcileMaxExecutionTime``."""
        mgr = self.mgr
        admitted = W.find(wl.status, Cond.ADMITTED)
        limit = wl.spec.maximum_execution_time_seconds if wl.spec else None
        if admitted is None or admitted.status != "True" or limit is None:
            return 0.0
        now = mgr.now()
        past = (wl.status.accumulated_past_execution_time_seconds if wl.status else None) or 0
        remaining = limit - past - (now - (admitted.last_transition_time or now)).total_seconds()
        if remaining > 0:
            return remaining
        if not W.has(wl.status, Cond.DEACTIVATION_TARGET):

            def mutate(st: WorkloadStatus, obj: Workload) -> bool:
                W.set_deactivation_target(
                    st,
                    Reason.MAXIMUM_EXECUTION_TIME_EXCEEDED,
                    "exceeding the maximum execution time",
                    obj.metadata.generation,
                    now,
                )
                st.accumulated_past_execution_time_seconds = None
                return True

            write_status(mgr, wl, mutate)
            mgr.recorder.event(
                wl,
                "Warning",
                Reason.MAXIMUM_EXECUTION_TIME_EXCEEDED,
                f"The maximum execution time ({limit}s) exceeded",
            )
        return 0.0


def _without_refusal(wl: Workload) -> Workload:
    """A copy of ``wl`` without its False QuotaReserved and Requeued conditions (``wl`` itself when
    it has neither): what upstream's DRA block queues after resolving the devices."""
    stale = [
        c for c in (wl.status.conditions if wl.status else None) or ()
        if c.type in (Cond.QUOTA_RESERVED, Cond.REQUEUED) and c.status == "False"
    ]
    if not stale:
        return wl
    from kbatch.api import edit

    copy = edit(wl)
    assert copy.status is not None  # it has conditions
    copy.status.conditions = [c for c in copy.status.conditions or () if c not in stale]
    return copy


def _clear_requeue_at(status: WorkloadStatus, obj: Workload) -> bool:
    if status.requeue_state is not None:
        status.requeue_state.requeue_at = None
    return True


def _checks_message(checks: list[Any], state: str) -> str:
    """``buildAdmissionChecksMessage``."""
    parts = [f'"{c.name}" ({c.message})' if c.message else f'"{c.name}"' for c in checks]
    noun = "AdmissionChecks" if len(checks) > 1 else "AdmissionCheck"
    return f"{noun} in {state} state: {'; '.join(parts)}"
