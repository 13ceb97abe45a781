"""The scheduler controller: runs a cycle (:func:`~.scheduling.cycle.run_cycle`) and applies it.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/scheduler.go`` (v0.19.2) ``admit``,
``issuePreemptions``, ``requeueAndUpdate``, ``waitForPodsReadyIfNeeded`` and the preemptor's
``IssuePreemptions``.

* admission: the workload is *assumed* in the cache, then its status gets the admission and
  ``QuotaReserved`` (and ``Admitted`` when it has no admission checks) written; events ``QuotaReserved``
  ("Quota reserved in ClusterQueue …, wait time since queued was …s[; Flavors considered: …]") and
  ``Admitted``; a failed write forgets the assumption and requeues the workload;
* preemption: each target is evicted (``Evicted``/``Preempted`` conditions, reason ``Preempted``),
  with the events ``Preempted`` on the target and ``PreemptedWorkload`` on the preemptor; the preemptor
  waits ("Pending the preemption of N workload(s)");
* a workload slice replacing another, once admitted, finishes the old one (``Finished`` reason
  ``WorkloadSliceReplaced``, "Replaced to accommodate a workload (UID: …, JobUID: …) due to workload
  slice aggregation", the same as an event on it: ``replaceWorkloadSlice``);
* every other head is requeued, and (not nominated, skipped or preemption-gated) gets
  ``QuotaReserved=False`` with the reason (``Pending``; the granular one with
  ``UnadmittedWorkloadsObservability``) and the message, its ``resourceRequests``, and a Warning
  event of that reason; a preemption-gated one also ``BlockedOnPreemptionGates=True``
  (``PreemptionGated``, "Workload requires preemption, but it's gated").

Virtual time: upstream runs cycles back to back in a goroutine while its heaps hold heads, sleeping
1-10 ms after a cycle that admitted nothing. kbatch runs a cycle whenever the queues changed or a
workload released its quota (``manager.WorkloadHandler``), and right after a cycle that admitted,
preempted, or left other heads in the heaps than those it popped, at the same virtual instant; a
cycle that would repeat the previous one exactly (every head straight back in its heap, nothing
changed) is not run: it could not decide anything new.
"""

from __future__ import annotations

import logging
from typing import Any

from kbatch.api.errors import Conflict, NotFound, StatusError
from kbatch.api.kueue_v1beta2 import Admission, ClusterQueue, Workload
from kbatch.api.kueue_v1beta2.constants import JOB_UID_LABEL, Cond, Reason
from kbatch.controllers.kueue import preemption_gates as gates
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.admissionfairsharing.penalties import PenaltyLifecycle
from kbatch.controllers.kueue.concurrent_admission.variants import Policy, policy_of
from kbatch.controllers.kueue.manager import KueueManager
from kbatch.controllers.kueue.metrics import (
    ROLE,
    AdmissionAttempts,
    custom_labels_of,
    preempted_workloads,
    preemption_skips,
)
from kbatch.controllers.kueue.model.requests import format_amount
from kbatch.controllers.kueue.scheduling.candidate_index import CandidateIndex
from kbatch.controllers.kueue.scheduling.cycle import CycleInputs, Entry, RequeueReason, run_cycle
from kbatch.controllers.kueue.scheduling.nomination_memo import NominationMemo
from kbatch.controllers.kueue.scheduling.preemption.preemptor import Target, cq_path, preemption_message
from kbatch.controllers.kueue.scheduling.snapshot import Snapshot
from kbatch.controllers.kueue.tas.cycle import TASCycle
from kbatch.controllers.kueue.tas.second_pass import NO_REPLACEMENT, assign_delayed, replace_unhealthy_node
from kbatch.controllers.kueue.tas.unhealthy import (
    EVICTED_EVENT,
    evict_for_node_failures,
    needs_second_pass,
    unhealthy_node_names,
)
from kbatch.runtime.reconcile import Request, Result

__all__ = ["Scheduler", "write_status"]

log = logging.getLogger(__name__)


def write_status(
    mgr: KueueManager, wl: Workload, mutate: Any, attempts: int = 3, first: Workload | None = None
) -> Workload | None:
    """``PatchAdmissionStatus`` with retry on conflict: ``mutate(status, wl)`` changes a private
    copy of the status and says whether anything changed; returns the written object (``None``
    when nothing changed or the workload is gone). ``first``: ``wl`` with ``mutate`` already
    applied (the caller built it), written as the first attempt; a retry starts again from the
    stored object."""
    client = mgr.ctx.client
    for _ in range(attempts):
        if first is not None:
            changed, first = first, None
        else:
            status = W.status_of(wl)
            if not mutate(status, wl):
                return None
            changed = wl.model_copy(update={"status": status})
        try:
            return client.update_status(changed)
        except Conflict:
            try:
                wl = client.get(Workload, wl.metadata.name or "", wl.metadata.namespace)
            except NotFound:
                return None
        except NotFound:
            return None
        except StatusError as err:  # upstream logs a failed status patch and carries on
            log.warning("could not update the status of workload %s/%s: %s", wl.metadata.namespace,
                        wl.metadata.name, err)
            return None
    return None


FLAVOR_MIGRATION = "FlavorMigration"  # ``WorkloadEvictedByFlavorMigration``


def evict(
    mgr: KueueManager, wl: Workload, reason: str, message: str, cause: str = "", prepare: Any = None
) -> None:
    """``workloadevict.Evict``: the Evicted condition (reason ``Deactivated``/``DeactivatedDueTo…``)
    and, for a workload that held an admission, an ``EvictedDueTo<reason>`` event."""
    now = mgr.now()
    evict_reason = W.reason_with_cause(reason, cause) if reason == Reason.DEACTIVATED and cause else reason

    def mutate(status: Any, obj: Workload) -> bool:
        if prepare is not None:
            prepare(status)
        W.prepare_eviction(status, evict_reason, message, obj.metadata.generation, now, reason, cause)
        return True

    written = write_status(mgr, wl, mutate)
    if written is None or wl.status is None or wl.status.admission is None:
        return
    event = W.reason_with_cause(Cond.EVICTED, reason)
    if reason == Reason.DEACTIVATED and cause:
        event = W.reason_with_cause(event, cause)
    mgr.recorder.event(written, "Normal", event, W.truncate(message, W.MAX_EVENT_MESSAGE))


class Scheduler:
    """The ``kueue-scheduler`` controller's reconciler (one key: a cycle)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr
        self.cycle = 0
        self.candidates = CandidateIndex()  # each queue's preemption candidates, per content
        self.memo = NominationMemo()  # each head's nomination while its inputs stay the same
        self.penalties = PenaltyLifecycle(mgr.queues, mgr.cache, mgr.now)
        self.attempts = AdmissionAttempts(mgr.ctx.metrics)

    def reconcile(self, request: Request) -> Result | None:
        mgr = self.mgr
        now = mgr.now()
        second = mgr.second_pass.take_ready(now) if mgr.second_pass.pending else []
        has_heads = mgr.queues.has_heads(mgr.cache.active)
        if not second and not has_heads:
            return None
        self.cycle += 1
        heads = mgr.queues.heads(mgr.cache.active) if has_heads else []
        snapshot = Snapshot(mgr.cache, self.candidates)
        snapshot.lq_usage = mgr.queues.admission_fair_sharing_usage()
        placed: list[Workload] = []
        try:
            tas = self._tas(snapshot)
            if second and tas is not None:  # second-pass heads come first (``Manager.heads``)
                placed = self._second_pass(second, tas)
            if not heads:
                return None
            inputs = CycleInputs(
                snapshot,
                mgr.preemptor,
                mgr.cycle_config,
                self.cycle,
                now,
                mgr.namespace_labels,
                mgr.cache.pods_ready_for_all,
                self.memo.cycle(snapshot, mgr.cycle_config, mgr.preemptor, now, self.cycle),
                mgr.resources.violations,
                tas,
                mgr.settings.on("ElasticJobsViaWorkloadSlices"),
                self._policy if mgr.cache.concurrent else None,
            )
            result = run_cycle(heads, inputs)
        finally:
            snapshot.close()
            for wl in placed:  # assumed once the snapshot's journal has rolled its changes back
                mgr.cache.add_or_update_workload(wl)
        progressed = assumed = False
        skips: dict[str, int] = {}
        for e in result.entries:
            if e.status == "assumed":
                assumed = True
                progressed |= self._admit(e)
            elif e.preempting:
                progressed |= self._preempt(e) > 0
            elif e.migration_victim is not None:
                progressed |= self._migrate(e)
            elif e.preemption_skipped:
                skips[e.cq_name] = skips.get(e.cq_name, 0) + 1
        requeued = [e for e in [*result.entries, *result.inadmissible] if e.status != "assumed"]
        for e in requeued:
            self._requeue_and_update(e)
        self._report(assumed, skips, now)
        if progressed or (not _all_back_in_heap(mgr, requeued) and mgr.queues.has_heads(mgr.cache.active)):
            mgr.kick()
        return None

    def _tas(self, snapshot: Snapshot) -> TASCycle | None:
        """The cycle's TAS flavors (with TopologyAwareScheduling), read when first needed."""
        mgr = self.mgr
        if not mgr.settings.on("TopologyAwareScheduling"):
            return None
        cqs = mgr.cache.cluster_queues
        return TASCycle(
            mgr.ctx.cache,
            snapshot.flavors,
            lambda: [info.obj for name in sorted(cqs) for info in cqs[name].workloads.values()],
            mgr.settings.on("TASAssignmentsEncodingByHostnamePrefix"),
            mgr.settings.on("TASBalancedPlacement"),
            mgr.settings.on("ElasticJobsViaWorkloadSlicesWithTAS")
            and mgr.settings.on("ElasticJobsViaWorkloadSlices"),
            mgr.settings.on("TASRespectNodeAffinityPreferred"),
            mgr.settings.on("TASHandleOverlappingFlavors"),
        )

    # --- second pass (TAS node replacement) ---------------------------------------------------------
    def _second_pass(self, ready: list[tuple[str, int]], tas: TASCycle) -> list[Workload]:
        """Each Workload due for a second pass: its unhealthy node replaced, or (FailFast) evicted,
        or retried after the back-off (:mod:`.tas.second_pass`). Returns the Workloads written
        with a new admission, for the cache."""
        mgr = self.mgr
        placed: list[Workload] = []
        for key, iteration in ready:
            namespace, _, name = key.partition("/")
            wl = mgr.get(Workload, name, namespace)
            if wl is None or not needs_second_pass(wl):
                continue
            cq = wl.status.admission.cluster_queue if wl.status and wl.status.admission else None
            if not mgr.cache.active(cq or ""):  # ``nominate``: "ClusterQueue … is inactive"
                mgr.queue_second_pass(wl, iteration)
                continue
            if not unhealthy_node_names(wl):  # delayed topology requests (``tas/delayed.py``)
                delayed = self._delayed(wl, iteration, tas)
                placed += [delayed] if delayed is not None else []
                continue
            keep = mgr.settings.on("SkipReassignmentForPodOwnedWorkloads")
            admission, failure = replace_unhealthy_node(tas, wl, keep)
            if not failure:
                written = write_status(mgr, wl, _replaced(admission, mgr.now()))
                if written is not None:
                    placed.append(written)
                else:  # not written: tried again after the back-off (``requeueAndUpdate``)
                    mgr.queue_second_pass(wl, iteration)
            elif mgr.settings.on("TASFailedNodeReplacementFailFast"):
                message = NO_REPLACEMENT % ",".join(unhealthy_node_names(wl))
                written = write_status(mgr, wl, evict_for_node_failures(message, mgr.now()))
                if written is not None:
                    text = W.truncate(message, W.MAX_EVENT_MESSAGE)
                    mgr.recorder.event(written, "Normal", EVICTED_EVENT, text)
            else:
                mgr.queue_second_pass(wl, iteration)
                text = W.truncate(failure, W.MAX_EVENT_MESSAGE)
                mgr.recorder.event(wl, "Warning", "SecondPassFailed", text)
        return placed

    def _delayed(self, wl: Workload, iteration: int, tas: TASCycle) -> Workload | None:
        """The second pass of a Workload whose ProvisioningRequest checks are Ready: its delayed
        topology found and the Workload admitted (``admit``: the ``Admitted`` event), or a
        ``SecondPassFailed`` warning and another try after the back-off (``requeueAndUpdate``)."""
        mgr = self.mgr
        name = wl.status.admission.cluster_queue or ""  # type: ignore[union-attr]
        cq = mgr.cache.cluster_queues.get(name)
        admission, failure = assign_delayed(tas, wl, cq is not None and tas.tas_only(cq))
        written = None
        if not failure:
            now, observability, explicit = mgr.now(), mgr.observability, mgr.explicit_status

            def prepare(status: Any, obj: Workload) -> bool:
                W.set_quota_reservation(status, admission, obj.metadata.generation, now)
                W.sync_admitted(status, obj.metadata.generation, now, observability, explicit)
                return True

            written = write_status(mgr, wl, prepare)
        if written is None:
            mgr.queue_second_pass(wl, iteration)
            if failure:
                text = W.truncate(failure, W.MAX_EVENT_MESSAGE)
                mgr.recorder.event(wl, "Warning", "SecondPassFailed", text)
            return None
        if W.has(written.status, Cond.ADMITTED):
            text = f"Admitted by ClusterQueue {name}, wait time since reservation was 0s"
            mgr.recorder.event(written, "Normal", "Admitted", text)
        return written

    # --- admission --------------------------------------------------------------------------------
    def _admit(self, e: Entry) -> bool:
        mgr = self.mgr
        wl = e.info.obj
        admission = Admission.model_validate(e.admission)
        now = mgr.now()
        observability, explicit = mgr.observability, mgr.explicit_status

        def prepare(status: Any, obj: Workload) -> bool:
            W.set_quota_reservation(status, admission, obj.metadata.generation, now)
            if e.replaced is not None:
                status.cluster_name = e.inherited_cluster_name
            cq = mgr.cache.cluster_queues.get(e.cq_name)
            # ``workload.HasAllRequiredChecks``: only the checks of the assigned flavors
            required = set(cq.settings.checks_for(admission)) if cq is not None else set()
            have = {c.name for c in status.admission_checks or ()}
            if required <= have:
                W.sync_admitted(status, obj.metadata.generation, now, observability, explicit)
            return True

        status = W.status_of(wl)
        prepare(status, wl)
        assumed = wl.model_copy(update={"status": status})
        if not mgr.cache.add_or_update_workload(assumed):
            e.status = ""
            e.inadmissible_msg = (
                f"Failed to admit workload: workload {e.info.key} could not be added to the cache"
            )
            return False
        penalized = self.penalties.applies(e.cq_name, wl)
        if penalized:
            self.penalties.push(wl, [ps.requests for ps in e.info.pod_sets], self._covered(e))
        # the assumed object is the first attempt's status write (the API server copies what it
        # is given, so the cache's object is not changed by it)
        written = write_status(mgr, wl, prepare, first=assumed)
        if written is None:
            mgr.cache.delete_workload(e.info.key)
            if penalized:
                self.penalties.rollback(wl)
            e.status = "nominated"
            e.requeue_reason = RequeueReason.FAILED_AFTER_NOMINATION
            return False
        mgr.queues.last.pop(e.info.key, None)
        self.memo.forget(e.info.key)
        self._admission_events(e, wl, written, now)
        if e.replaced is not None:
            self._replace_slice(written, e.replaced.info.obj)
        return True

    def _report(self, assumed: bool, skips: dict[str, int], started: Any) -> None:
        """``reportSkippedPreemptions`` (only the ClusterQueues that skipped, as upstream) and
        ``AdmissionAttempt``: ``success`` when an entry was assumed, the duration in virtual time."""
        for cq_name in sorted(skips):
            custom = custom_labels_of(self.mgr.ctx.metrics).cluster_queue(cq_name)
            preemption_skips(self.mgr.ctx.metrics).labels(cq_name, ROLE, *custom).set(skips[cq_name])
        self.attempts.record(assumed, (self.mgr.now() - started).total_seconds())

    def _replace_slice(self, new: Workload, old: Workload) -> None:
        """``replaceWorkloadSlice``: the old slice finishes once the new one is admitted (a failure
        is left to the job reconciler, whose ``EnsureWorkloadSlices`` finishes it)."""
        mgr = self.mgr
        job_uid = (new.metadata.labels or {}).get(JOB_UID_LABEL, "")
        message = (
            f"Replaced to accommodate a workload (UID: {new.metadata.uid}, JobUID: {job_uid}) "
            "due to workload slice aggregation"
        )
        now = mgr.now()
        written = write_status(
            mgr,
            old,
            lambda st, o: W.finish(st, Reason.WORKLOAD_SLICE_REPLACED, message, o.metadata.generation, now),
        )
        if written is not None:
            mgr.recorder.event(written, "Normal", Reason.WORKLOAD_SLICE_REPLACED, message)

    def _covered(self, e: Entry) -> set[str] | None:
        """With ``IgnoreUndeclared``, the resources the ClusterQueue's groups cover (``None``: all)."""
        if not self.mgr.cycle_config.assigner.ignore_undeclared:
            return None
        cq = self.mgr.cache.cluster_queues.get(e.cq_name)
        return {r for rg in cq.settings.resource_groups for r in rg.covered} if cq is not None else set()

    def _admission_events(self, e: Entry, old: Workload, new: Workload, now: Any) -> None:
        mgr = self.mgr
        queued = old.metadata.creation_timestamp
        requeued = W.find(old.status, Cond.REQUEUED)
        if requeued is not None and requeued.last_transition_time is not None:
            queued = requeued.last_transition_time
        wait = (now - queued).total_seconds() if queued is not None else 0.0
        if not W.has(old.status, Cond.QUOTA_RESERVED):
            msg = f"Quota reserved in ClusterQueue {e.cq_name}, wait time since queued was {wait:.0f}s"
            if e.considered:
                msg += f"; Flavors considered: {e.considered}"
            mgr.recorder.event(new, "Normal", "QuotaReserved", W.truncate(msg, W.MAX_EVENT_MESSAGE))
        if W.has(new.status, Cond.ADMITTED):
            mgr.recorder.event(
                new,
                "Normal",
                "Admitted",
                f"Admitted by ClusterQueue {e.cq_name}, wait time since reservation was 0s",
            )

    # --- preemption --------------------------------------------------------------------------------
    def _preempt(self, e: Entry) -> int:
        """``IssuePreemptions``; records the outcome on the entry (``markPreemptionOutcome``); returns
        how many evictions it issued now (targets already evicted are waited for, not counted)."""
        preempted = errors = issued = 0
        for target in e.targets:
            if W.has(target.info.obj.status, Cond.EVICTED):
                preempted += 1
                continue
            if self._evict_target(e, target):
                preempted += 1
                issued += 1
            else:
                errors += 1
        e.last = None
        if preempted:
            e.inadmissible_msg += f". Pending the preemption of {preempted} workload(s)"
            e.requeue_reason = RequeueReason.PENDING_PREEMPTION
        elif errors:
            e.inadmissible_msg += f". Preempting {errors} workload(s) failed, will retry."
            e.requeue_reason = RequeueReason.PREEMPTION_FAILED
        return issued

    def _evict_target(self, e: Entry, target: Target) -> bool:
        mgr = self.mgr
        preemptor_path = cq_path(mgr.cache, e.cq_name)
        preemptee_path = cq_path(mgr.cache, target.info.cluster_queue)
        job_uid = (e.info.obj.metadata.labels or {}).get(JOB_UID_LABEL, "")
        message = preemption_message(e.info, target.reason, preemptor_path, preemptee_path, job_uid)
        now = mgr.now()

        def prepare(status: Any, obj: Workload) -> bool:
            W.set_preempted(status, target.reason, message, now)
            W.prepare_eviction(
                status, Reason.PREEMPTED, message, obj.metadata.generation, now, Reason.PREEMPTED
            )
            return True

        current = _current(mgr, target.info)
        if current is None:
            return False
        written = write_status(mgr, current, prepare)
        if written is None:
            return False
        pre, pre_base, pre_boost = _priorities(e.info)
        tgt, tgt_base, tgt_boost = _priorities(target.info)
        prio = (
            f"; preemptor effective priority: {pre} (base: {pre_base}, boost: {pre_boost}); "
            f"preemptee effective priority: {tgt} (base: {tgt_base}, boost: {tgt_boost})"
        )
        mgr.recorder.event(
            written,
            "Normal",
            W.reason_with_cause(Cond.EVICTED, Reason.PREEMPTED),
            W.truncate(message, W.MAX_EVENT_MESSAGE),
        )
        mgr.recorder.event(written, "Normal", "Preempted", W.truncate(message + prio, W.MAX_EVENT_MESSAGE))
        mgr.recorder.event(
            e.info.obj,
            "Normal",
            "PreemptedWorkload",
            f"Preempted workload {target.info.key} (UID: {target.info.uid}) in ClusterQueue "
            f"{target.info.cluster_queue}{prio}",
        )
        # ``ReportPreemption`` (pkg/scheduler/preemption/preemption.go): by the preemptor's ClusterQueue
        custom = custom_labels_of(mgr.ctx.metrics).cluster_queue(e.cq_name)
        preempted_workloads(mgr.ctx.metrics).labels(e.cq_name, target.reason, ROLE, *custom).inc()
        return True

    # --- concurrent admission -----------------------------------------------------------------------
    def _policy(self, cq_name: str) -> Policy | None:
        """A ClusterQueue's ``concurrentAdmissionPolicy`` (the cycle's migration check)."""
        return policy_of(self.mgr.get(ClusterQueue, cq_name))

    def _migrate(self, e: Entry) -> bool:
        """``issueMigration``: the less favourable admitted sibling is evicted (``FlavorMigration``);
        the Variant waits for it (``PendingMigration``); whether an eviction was written. A sibling
        already evicted is waited for, not evicted again (upstream evicts it again each cycle,
        counting one more ``FlavorMigration`` eviction each time; kbatch's scheduler runs when woken,
        and a re-eviction would wake it for ever while the sibling's quota is being released)."""
        victim = e.migration_victim
        assert victim is not None
        message = (
            f"Evicted to accommodate a workload (UID: {e.info.uid}) due to migration to more "
            "favorable resource flavor"
        )
        current = _current(self.mgr, victim)
        issued = False
        if current is not None and not W.has(current.status, Cond.EVICTED):
            evict(self.mgr, current, FLAVOR_MIGRATION, message)
            issued = True
        e.last = None
        e.requeue_reason = RequeueReason.PENDING_MIGRATION
        e.inadmissible_msg += ". Pending the migration of 1 workload(s)"
        return issued

    # --- requeue -----------------------------------------------------------------------------------
    def _requeue_and_update(self, e: Entry) -> None:
        mgr = self.mgr
        if e.status != "" and e.requeue_reason == RequeueReason.GENERIC:
            e.requeue_reason = RequeueReason.FAILED_AFTER_NOMINATION
        current = _current(mgr, e.info)
        mgr.queues.requeue_workload(current, e.info, e.last, e.requeue_reason, e.quota_reserved_reason)
        if e.status not in ("", "skipped", "gated", "waiting") or current is None or e.skip_status_update:
            return
        if e.status == "waiting":
            reason = Reason.WAITING_FOR_PODS_READY if mgr.observability else Reason.WAITING
        else:
            reason = e.quota_reserved_reason if mgr.observability else Reason.PENDING
        now = mgr.now()
        observability, explicit = mgr.observability, mgr.explicit_status
        requests = _resource_requests(e)

        def update(status: Any, obj: Workload) -> bool:
            changed = W.unset_quota_reservation(
                status, reason, e.inadmissible_msg, obj.metadata.generation, now, observability, explicit
            )
            if _requests_differ(status.resource_requests, requests):
                from kbatch.api.kueue_v1beta2 import PodSetRequest

                status.resource_requests = [PodSetRequest.model_validate(r) for r in requests]
                changed = True
            if e.status == "gated":  # as upstream, the condition's change alone decides the write
                changed = gates.set_blocked(status, e.inadmissible_msg, obj.metadata.generation, now)
            return changed

        if e.status == "waiting":  # waitForPodsReadyIfNeeded's patch; no event, as upstream
            write_status(
                mgr,
                current,
                lambda st, obj: W.unset_quota_reservation(
                    st, reason, e.inadmissible_msg, obj.metadata.generation, now, observability, explicit
                ),
            )
            return
        write_status(mgr, current, update)
        mgr.recorder.event(
            current, "Warning", reason or "Pending", W.truncate(e.inadmissible_msg, W.MAX_EVENT_MESSAGE)
        )


def _replaced(admission: Admission, now: Any) -> Any:
    """``admit`` of a second pass: the new admission (``SetQuotaReservation``), no unhealthy nodes."""

    def mutate(status: Any, obj: Workload) -> bool:
        W.set_quota_reservation(status, admission, obj.metadata.generation, now)
        status.unhealthy_nodes = None
        return True

    return mutate


def _all_back_in_heap(mgr: KueueManager, requeued: list[Entry]) -> bool:
    """Whether every head the cycle did not admit went straight back to its heap (pending
    preemption, StrictFIFO): the next cycle would then repeat this one, so only a change wakes the
    scheduler. Otherwise the heaps it leaves hold other heads, which upstream's scheduler, looping
    while its heaps are not empty (``Heads`` blocks only when they are; 1-10 ms back-off after a
    cycle that admitted nothing), pops next."""
    queues = mgr.queues.cluster_queues
    for e in requeued:
        cq = queues.get(e.cq_name)
        if cq is None or e.info.key not in cq.in_heap:
            return False
    return True


def _current(mgr: KueueManager, info: Any) -> Workload | None:
    """The informer's version of the workload, ``None`` once it is gone."""
    try:
        return mgr.ctx.cache.get(Workload, info.name, info.namespace)
    except NotFound:
        return None


def _priorities(info: Any) -> tuple[int, int, int]:
    base = info.obj.spec.priority if info.obj.spec and info.obj.spec.priority is not None else 0
    return info.priority, base, info.priority - base


def _resource_requests(e: Entry) -> list[dict[str, Any]]:
    """``PropagateResourceRequests``: the pod sets' total requests, formatted."""
    out = []
    for ps in e.info.pod_sets:
        out.append(
            {
                "name": ps.name,
                "resources": {r: format_amount(r, v) for r, v in sorted(ps.requests.items())} or None,
            }
        )
    return out


def _requests_differ(have: Any, want: list[dict[str, Any]]) -> bool:
    current = [r.to_dict() for r in have or ()]
    normalized = [{k: v for k, v in r.items() if v is not None} for r in want]
    if len(current) != len(normalized):
        return True
    for a, b in zip(current, normalized, strict=True):
        if a.get("name") != b.get("name"):
            return True
        ra = {k: str(v) for k, v in (a.get("resources") or {}).items()}
        if ra != (b.get("resources") or {}):
            return True
    return False
