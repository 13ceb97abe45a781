"""The Kueue manager's shared state and the informer handlers that keep it current.

Upstream: kubernetes-sigs/kueue ``cmd/kueue/main.go`` (one cache, one queue manager, the scheduler and
the controllers sharing them) and the event handlers of ``pkg/controller/core/{workload,clusterqueue,
localqueue,cohort,resourceflavor,admissioncheck}_controller.go`` (v0.19.2), which update the cache and
the queues synchronously on every event, before any reconcile runs.

:class:`KueueManager` holds the :class:`~.cache.KueueCache`, the :class:`~.queues.QueueManager`, the
preemptor and the cycle's configuration; the handler classes below are registered on the shared
informers and translate events into cache/queue changes, wake the scheduler, and enqueue the status
controllers (Kueue's "workload update watchers").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.core_v1 import Namespace
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    LocalQueue,
    ResourceFlavor,
    Workload,
)
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue import admissionfairsharing as afs
from kbatch.controllers.kueue import watches
from kbatch.controllers.kueue.admissionfairsharing.penalties import PenaltyLifecycle
from kbatch.controllers.kueue.cache import KueueCache
from kbatch.controllers.kueue.config import KueueSettings, settings_for
from kbatch.controllers.kueue.dra_requests import DraGates, DraResolver
from kbatch.controllers.kueue.model.clusterqueue import settings_of
from kbatch.controllers.kueue.model.info import InfoOptions, is_true, workload_key
from kbatch.controllers.kueue.model.quota import has_cycle, root_of
from kbatch.controllers.kueue.queues import QueueManager, admissible
from kbatch.controllers.kueue.resource_updates import ResourceAdjuster
from kbatch.controllers.kueue.scheduling.cycle import CycleConfig
from kbatch.controllers.kueue.scheduling.flavorassigner import AssignerOptions
from kbatch.controllers.kueue.scheduling.preemption.preemptor import Preemptor
from kbatch.controllers.kueue.tas.second_pass import SecondPassQueue
from kbatch.controllers.kueue.workloads import topology_assignments_pending
from kbatch.controllers.kueue.workloadslicing import pod_set_counts, scaled_down
from kbatch.families.family import JobIntegration
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.published import PublishedKey
from kbatch.runtime.reconcile import Request

__all__ = ["BY_OWNER", "BY_QUEUE", "KUEUE_MANAGER", "LQ_BY_CQ", "KueueManager", "owner_key",
           "status_of_workload"]

BY_QUEUE = "kueue-workload-queue"  # Workload: "<namespace>/<queueName>"
BY_OWNER = "kueue-workload-owner"  # Workload: owner_key of each owner reference
LQ_BY_CQ = "kueue-localqueue-clusterqueue"  # LocalQueue: spec.clusterQueue
SCHEDULER_KEY = Request("", "cycle")
# constants.UpdatesBatchPeriod (pkg/constants/constants.go): the delay of batched status reconciles
UPDATES_BATCH_PERIOD = 1.0


def _by_queue(wl: Any) -> tuple[str, ...]:
    q = wl.spec.queue_name if wl.spec else None
    return (f"{wl.metadata.namespace}/{q}",) if q else ()


def owner_key(api_version: str, kind: str, namespace: str | None, name: str) -> str:
    """The :data:`BY_OWNER` key of an owner. Upstream ``WorkloadOwnerIndexFunc``
    (``pkg/controller/core/indexer/indexer.go``) indexes a Workload under an owner reference whose
    kind *and* apiVersion are the job type's: a same-kind owner of another group is another owner."""
    return f"{api_version}/{kind}/{namespace}/{name}"


def _by_owner(wl: Any) -> tuple[str, ...]:
    ns = wl.metadata.namespace
    return tuple(owner_key(r.api_version, r.kind, ns, r.name) for r in wl.metadata.owner_references or ())


def _lq_by_cq(lq: Any) -> tuple[str, ...]:
    cq = lq.spec.cluster_queue if lq.spec else None
    return (cq,) if cq else ()


def _queue_name(wl: Workload) -> str | None:
    return wl.spec.queue_name if wl.spec else None


def status_of_workload(wl: Workload) -> str:
    """``workload.Status``: finished, admitted, quotaReserved or pending."""
    if is_true(wl, Cond.FINISHED):
        return "finished"
    if is_true(wl, Cond.ADMITTED):
        return "admitted"
    if is_true(wl, Cond.QUOTA_RESERVED):
        return "quotaReserved"
    return "pending"


class KueueManager:
    """See the module docstring."""

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        configurations = (
            ctx.server.configurations
            if ctx.server is not None
            else ctx.options.setdefault("configurations", {})
        )
        self.settings: KueueSettings = settings_for(configurations, ctx.features)
        s, cfg = self.settings, self.settings.config
        wait = cfg.wait_for_pods_ready
        self.info_options = InfoOptions(
            exclude_prefixes=cfg.exclude_resource_prefixes,
            transformations=cfg.transformations,
            requeuing_timestamp=wait.requeuing_timestamp if wait else "Eviction",
            priority_boost=s.on("PriorityBoost"),
            priority_sorting_within_cohort=s.on("PrioritySortingWithinCohort"),
            reclaimable_pods=s.on("ReclaimablePods"),
            equivalence_hashing=s.on("SchedulingEquivalenceHashing"),
            concurrent_admission=s.on("ConcurrentAdmission"),
        )
        self.cache = KueueCache(self.info_options, pods_ready_tracking=bool(wait and wait.block_admission))
        self.queues = QueueManager(
            self.info_options,
            ctx.clock.now_datetime,
            hashing=s.on("SchedulingEquivalenceHashing"),
            admission_gated_by=s.on("AdmissionGatedBy"),
            # ``afs.Enabled``: the gate and the configuration's ``admissionFairSharing`` both
            admission_fair_sharing=cfg.admission_fair_sharing if s.on("AdmissionFairSharing") else None,
        )
        self.queues.lq_weight = self.local_queue_weight
        # ``ConcurrentAdmission``: the ClusterQueues with a ``concurrentAdmissionPolicy``, one set
        # the queues and the cache share (filled by :class:`ClusterQueueHandler` with the gate on)
        self.queues.concurrent = self.cache.concurrent
        self.queues.preserve_scan_progress = s.on("FlavorFungibilityPreserveScanProgress")
        self.resources = ResourceAdjuster(ctx.cache)
        self.queues.adjust = self.resources
        self.dra = DraResolver(
            ctx.cache,
            cfg.device_class_mappings,
            DraGates(
                s.on("KueueDRAIntegration"),
                s.on("KueueDRARejectWorkloadsWhenDRADisabled"),
                s.on("KueueDRAIntegrationExtendedResource"),
                s.on("KueueDRAIntegrationPartitionableDevices"),
                s.on("KueueDRAIntegrationConsumableCapacity"),
            ),
        )
        self.queues.dra = self.dra
        self.preemptor = Preemptor(
            cfg.fair_sharing,
            cfg.fair_sharing_strategies or (),
            s.on("SchedulerTimestampPreemptionBuffer"),
            s.on("FairSharingPreemptWithinNominal"),
        )
        self.cycle_config = CycleConfig(
            assigner=AssignerOptions(
                fungibility=s.on("FlavorFungibility"),
                observability=s.on("UnadmittedWorkloadsObservability"),
                ignore_undeclared=s.on("QuotaCheckStrategy")
                and cfg.quota_check_strategy == "IgnoreUndeclared",
                fair_sharing=cfg.fair_sharing,
                concurrent_admission=s.on("ConcurrentAdmission"),
            ),
            partial_admission=s.on("PartialAdmission"),
            prioritize_preemptors=s.on("PrioritizePreemptorWorkloads"),
            priority_sorting=s.on("PrioritySortingWithinCohort"),
            prioritize_non_borrowing=s.on("FairSharingPrioritizeNonBorrowing"),
            preserve_scan_progress=s.on("FlavorFungibilityPreserveScanProgress"),
            block_admission=bool(wait and wait.block_admission),
            fair_sharing=cfg.fair_sharing,
            preemption_gates=s.on("ConcurrentAdmission") or s.on("MultiKueueOrchestratedPreemption"),
            concurrent_admission=s.on("ConcurrentAdmission"),
        )
        self.requeue_period = 10.0 if s.on("SchedulerLongRequeueInterval") else 1.0
        self.recorder = ctx.recorder
        self.job_recorder = ctx.recorder.sibling("kueue-job-controller")
        self.controllers: dict[str, Controller] = {}  # by name (set by setup, :mod:`.wiring`)
        self.second_pass = SecondPassQueue()  # Workloads whose unhealthy node is to be replaced
        self.integrations: list[JobIntegration] = []  # the enabled job integrations (set by setup)
        cache = ctx.cache
        cache.add_index(Workload, BY_QUEUE, _by_queue)
        cache.add_index(Workload, BY_OWNER, _by_owner)
        cache.add_index(LocalQueue, LQ_BY_CQ, _lq_by_cq)

    # --- conveniences ------------------------------------------------------------------------------
    @property
    def observability(self) -> bool:
        return self.settings.on("UnadmittedWorkloadsObservability")

    @property
    def explicit_status(self) -> bool:
        return self.settings.on("UnadmittedWorkloadsExplicitStatus")

    def now(self) -> datetime:
        return self.ctx.clock.now_datetime()

    def get(self, kind: type, name: str, namespace: str | None = None) -> Any:
        """The cached object, or ``None`` when it does not exist."""
        try:
            return self.ctx.cache.get(kind, name, namespace)
        except NotFound:
            return None

    def namespace_labels(self, name: str) -> dict[str, str] | None:
        try:
            ns = self.ctx.cache.get(Namespace, name)
        except Exception:  # NotFound
            return None
        return dict(ns.metadata.labels or {})

    def local_queue_weight(self, key: str) -> float:
        """``ResolveLQWeight``: the LocalQueue's ``spec.fairSharing.weight`` (1 when it is unset or
        the LocalQueue is gone)."""
        namespace, _, name = key.partition("/")
        lq = self.get(LocalQueue, name, namespace)
        fs = lq.spec.fair_sharing if lq is not None and lq.spec is not None else None
        return afs.lq_weight(fs.weight if fs is not None else None)

    def cohort_root(self, cq_name: str) -> str:
        node = self.cache.cluster_queues.get(cq_name)
        if node is None or node.parent is None or has_cycle(node.parent):
            return ""
        return root_of(node).name

    def enqueue(self, controller: str, request: Request) -> None:
        c = self.controllers.get(controller)
        if c is not None:
            c.enqueue(request)

    def kick(self) -> None:
        """Wake the scheduler (the queue manager's ``Broadcast``)."""
        self.enqueue("kueue-scheduler", SCHEDULER_KEY)

    def queue_second_pass(self, wl: Workload, iteration: int = 0) -> None:
        """``QueueSecondPassIfNeeded``: the scheduler looks at the Workload after the back-off."""
        key = workload_key(wl.metadata.namespace, wl.metadata.name)
        delay = self.second_pass.queue_if_needed(key, wl, iteration, self.now())
        c = self.controllers.get("kueue-scheduler")
        if delay is not None and c is not None:
            c.queue.add_after(SCHEDULER_KEY, delay)

    def notify_retry_inadmissible(self, cq_names: list[str]) -> None:
        """``NotifyRetryInadmissible``: requeue the inadmissible workloads of these ClusterQueues (their
        whole cohort trees) after the batch period."""
        before = set(self.queues.requeue_requests)
        self.queues.notify_retry_inadmissible(cq_names, self.cohort_root)
        for name in sorted(self.queues.requeue_requests - before):
            c = self.controllers.get("kueue-requeue")
            if c is not None:
                c.queue.add_after(Request("", name), self.requeue_period)

    def enqueue_batched(self, controller: str, request: Request) -> None:
        """Enqueue after ``constants.UpdatesBatchPeriod`` (1 s), "batching multiple rapid updates into a
        single reconciliation": upstream's ``qWorkloadHandler`` and ``nonCQObjectHandler`` call
        ``AddAfter(req, UpdatesBatchPeriod)``. A request already waiting keeps its earlier deadline
        (client-go's delaying queue), so a queue's status is written at most once a second while its
        workloads change, and at most a second after the change."""
        c = self.controllers.get(controller)
        if c is not None:
            c.queue.add_after(request, UPDATES_BATCH_PERIOD)

    def workload_changed(self, old: Workload | None, new: Workload | None) -> None:
        """``notifyWatchers``: the LocalQueue and ClusterQueue status controllers, batched
        (:meth:`enqueue_batched`). Both watchers (``LocalQueueReconciler.NotifyWorkloadUpdate``,
        ``ClusterQueueReconciler.NotifyWorkloadUpdate``) take the old object of an update, and the
        new one as well only when ``spec.queueName`` changed."""
        wls = [old] if old is not None else []
        if new is not None and (old is None or _queue_name(old) != _queue_name(new)):
            wls.append(new)
        for wl in wls:
            q = _queue_name(wl)
            if q:
                self.enqueue_batched("kueue-localqueue", Request(wl.metadata.namespace or "", q))
            cq = (
                wl.status.admission.cluster_queue if wl.status and wl.status.admission else None
            ) or self.queues.cluster_queue_for(wl)
            if cq:
                self.enqueue_batched("kueue-clusterqueue", Request("", cq))


# --- informer handlers ------------------------------------------------------------------------------


def _may_need_second_pass(wl: Workload) -> bool:
    """A cheap pre-filter of ``NeedsSecondPass``: unhealthy nodes, or a pod set's delayed topology
    request still pending (``tas/delayed.py``)."""
    status = wl.status
    return status is not None and (bool(status.unhealthy_nodes) or topology_assignments_pending(status))


class WorkloadHandler:
    """``WorkloadReconciler.Create/Update/Delete``: keep the queues and the cache current. The
    Workload's own reconcile comes from its ``for_`` watch (every event, as upstream's predicate
    returns true)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr
        self.penalties = PenaltyLifecycle(mgr.queues, mgr.cache, mgr.now)

    def on_add(self, wl: Workload) -> None:
        mgr = self.mgr
        mgr.workload_changed(None, wl)
        if status_of_workload(wl) == "finished":
            return
        if admissible(wl, mgr.queues.admission_gated_by):
            if mgr.queues.add_or_update_workload(wl):
                mgr.kick()
            return
        mgr.cache.add_or_update_workload(wl)
        if _may_need_second_pass(wl):
            mgr.queue_second_pass(wl)

    def on_update(self, old: Workload, new: Workload) -> None:
        """With ``blockAdmission``, upstream's scheduler waits on the cache's ``podsReadyCond``,
        which every cache update broadcasts, and admits the waiting head once every workload
        holding quota is PodsReady (``pkg/scheduler/scheduler.go`` ``waitForPodsReadyIfNeeded``,
        ``pkg/cache/scheduler/cache.go``). kbatch's waiting head went back to its heap, so the
        update that makes the last workload ready wakes the scheduler."""
        blocked = not self.mgr.cache.pods_ready_for_all()
        self._on_update(old, new)
        if _may_need_second_pass(new):  # ``QueueSecondPassIfNeeded`` (``NeedsSecondPass`` decides)
            self.mgr.queue_second_pass(new)
        if self.mgr.queues.afs is not None:  # the statuses are read only for admission fair sharing
            self.penalties.on_update(old, new, status_of_workload(old), status_of_workload(new))
        if blocked and self.mgr.cache.pods_ready_for_all():
            self.mgr.kick()

    def _on_update(self, old: Workload, new: Workload) -> None:
        mgr = self.mgr
        mgr.workload_changed(old, new)
        key = workload_key(new.metadata.namespace, new.metadata.name)
        status, prev = status_of_workload(new), status_of_workload(old)
        active = new.spec is None or new.spec.active is not False
        if status == "finished" or not active:
            mgr.queues.delete_workload(key)
            self._release(key)
        elif prev == "pending" and status == "pending":
            qr = next(
                (
                    c
                    for c in (new.status.conditions if new.status else None) or ()
                    if c.type == "QuotaReserved"
                ),
                None,
            )
            if qr is not None and qr.status == "False" and qr.reason == "OnHold":
                mgr.queues.delete_workload(key)
            elif mgr.queues.add_or_update_workload(new):
                mgr.kick()
        elif prev == "pending":
            mgr.queues.delete_workload(key)
            mgr.cache.add_or_update_workload(new)
        elif status == "pending":
            self._release(key)
            rs = new.status.requeue_state if new.status else None
            due = rs is None or rs.requeue_at is None or rs.requeue_at <= mgr.now()
            if due and mgr.queues.add_or_update_workload(new):
                mgr.kick()
        elif _priority_or_reclaim_changed(old, new) or (
            mgr.settings.on("ElasticJobsViaWorkloadSlices") and _scaled_down(old, new)
        ):
            mgr.cache.add_or_update_workload(new)
            self._retry(key, new)
        else:
            mgr.cache.add_or_update_workload(new)

    def on_delete(self, wl: Workload) -> None:
        mgr = self.mgr
        mgr.workload_changed(wl, None)
        key = workload_key(wl.metadata.namespace, wl.metadata.name)
        self._release(key, wl)
        mgr.queues.forget_workload(key)
        self.penalties.on_delete(wl)

    def _release(self, key: str, wl: Workload | None = None) -> None:
        """``QueueAssociatedInadmissibleWorkloadsAfter`` with the cache deletion as its action."""
        mgr = self.mgr
        cq = mgr.cache.assigned.get(key)
        mgr.cache.delete_workload(key)
        if cq is not None:
            # quota freed: upstream's scheduler loops while its heaps hold heads (``Heads`` blocks
            # only on empty heaps), so it sees the freed quota within its 1-10 ms back-off; kbatch's
            # runs when woken, so the release wakes it (before any queue status write).
            mgr.kick()
        if cq is None and wl is not None:
            cq = mgr.queues.cluster_queue_for(wl)
        if cq is None:
            qkey = mgr.queues.assigned.get(key)
            lq = mgr.queues.local_queues.get(qkey) if qkey else None
            cq = lq.cluster_queue if lq is not None else None
        if cq:
            mgr.notify_retry_inadmissible([cq])

    def _retry(self, key: str, wl: Workload) -> None:
        cq = wl.status.admission.cluster_queue if wl.status and wl.status.admission else None
        if cq:
            self.mgr.notify_retry_inadmissible([cq])


def _scaled_down(old: Workload, new: Workload) -> bool:
    """``workloadslicing.ScaledDown`` of the pod set counts: an elastic slice shrank in place, its
    freed quota retries the inadmissible workloads (``workload_controller.go`` ``Update``)."""
    return scaled_down(
        pod_set_counts(old.spec.pod_sets if old.spec else None),
        pod_set_counts(new.spec.pod_sets if new.spec else None),
    )


def _priority_or_reclaim_changed(old: Workload, new: Workload) -> bool:
    both_admitted = status_of_workload(old) == "admitted" and status_of_workload(new) == "admitted"
    old_reclaim = old.status.reclaimable_pods if old.status else None
    if both_admitted and old_reclaim != (new.status.reclaimable_pods if new.status else None):
        return True
    return (old.spec.priority if old.spec else None) != (new.spec.priority if new.spec else None)


class ClusterQueueHandler:
    """``ClusterQueueReconciler.Create/Update/Delete`` (the cache and the queue manager) and the
    watches other controllers hold on ClusterQueues (:mod:`.watches`). The ClusterQueue's own status
    reconcile comes from its ``for_`` watch: every event, as upstream's predicate returns true."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, cq: ClusterQueue) -> None:
        self._update(cq)

    def on_update(self, old: ClusterQueue, new: ClusterQueue) -> None:
        self._update(new, old)

    def _update(self, cq: ClusterQueue, old: ClusterQueue | None = None) -> None:
        mgr = self.mgr
        name = cq.metadata.name or ""
        was_active = mgr.cache.active(name)
        if mgr.settings.on("ConcurrentAdmission"):  # the policy is immutable (the webhook)
            if cq.spec is not None and cq.spec.concurrent_admission_policy is not None:
                mgr.cache.concurrent.add(name)
            else:
                mgr.cache.concurrent.discard(name)
        if _concerns_cache(old, cq):
            mgr.cache.add_or_update_cluster_queue(cq)
            settings = settings_of(cq)
            mgr.queues.add_or_update_cluster_queue(
                name, settings.queueing_strategy, settings.namespace_selector, settings.admission_mode
            )
        if old is None or old.spec != cq.spec:
            mgr.notify_retry_inadmissible([name])
        if (old is None or old.spec != cq.spec or was_active != mgr.cache.active(name)) and mgr.cache.active(
            name
        ):
            mgr.kick()
        self._watchers(old, cq)

    def _watchers(self, old: ClusterQueue | None, new: ClusterQueue | None) -> None:
        """What the other controllers' ClusterQueue watches enqueue. Upstream's ``Update`` returns
        before ``notifyWatchers`` for a ClusterQueue being deleted: its Cohorts and flavors hear of it
        at the delete."""
        mgr = self.mgr
        cq = new if new is not None else old
        assert cq is not None
        name = cq.metadata.name or ""
        if watches.cluster_queue_wakes_local_queues(old, new):
            self._reconcile_local_queues(name)
        if watches.cluster_queue_wakes_workloads(old, new):
            self._reconcile_workloads(name)
        if new is not None and new.metadata.deletion_timestamp is not None and old is not None:
            return
        for cohort in watches.cohort_ancestors(cq, mgr.cache.cohorts):
            mgr.enqueue("kueue-cohort", Request("", cohort))
        if old is not None:
            for flavor in watches.released_flavors(old, new, mgr.cache.clusterqueues_using_flavor):
                mgr.enqueue("kueue-resourceflavor", Request("", flavor))
        for check in watches.released_checks(old, new, mgr.cache.clusterqueues_using_check):
            mgr.enqueue("kueue-admissioncheck", Request("", check))

    def _local_queues(self, name: str) -> list[LocalQueue]:
        return self.mgr.ctx.cache.list(LocalQueue, index=(LQ_BY_CQ, name))

    def _reconcile_local_queues(self, name: str) -> None:
        """``qCQHandler.addLocalQueueToWorkQueue``: the status of the queue's LocalQueues."""
        for lq in self._local_queues(name):
            self.mgr.enqueue("kueue-localqueue", Request(lq.metadata.namespace or "", lq.metadata.name or ""))

    def _reconcile_workloads(self, name: str) -> None:
        """``workloadQueueHandler.queueReconcileForWorkloadsOfClusterQueue``: every workload of the
        queue's LocalQueues is reconciled — pending ones re-check their condition (an inactive queue
        is a blocker), admitted ones are evicted by ``HoldAndDrain``, and those holding quota while
        not admitted (awaiting admission checks) give it back when the ClusterQueue is stopped or
        terminating (``reconcileOnClusterQueueActiveState``)."""
        mgr = self.mgr
        for lq in self._local_queues(name):
            key = f"{lq.metadata.namespace}/{lq.metadata.name}"
            for wl in mgr.ctx.cache.list(Workload, index=(BY_QUEUE, key)):
                mgr.enqueue("kueue-workload", Request(wl.metadata.namespace or "", wl.metadata.name or ""))

    def on_delete(self, cq: ClusterQueue) -> None:
        mgr = self.mgr
        name = cq.metadata.name or ""
        mgr.cache.delete_cluster_queue(name)
        mgr.queues.delete_cluster_queue(name)
        mgr.cache.concurrent.discard(name)
        self._watchers(cq, None)


def _concerns_cache(old: ClusterQueue | None, new: ClusterQueue) -> bool:
    """Whether the cache and the queue manager must take the ClusterQueue again: they read its
    name, spec and deletion only (``settings_of``, ``add_or_update_cluster_queue``), so a status
    write (the status controller's, after every admission) leaves them as they are."""
    return (
        old is None
        or old.spec != new.spec
        or old.metadata.deletion_timestamp != new.metadata.deletion_timestamp
    )


class LocalQueueHandler:
    """``LocalQueueReconciler.Create/Update/Delete`` (the queue manager) and the workload
    controller's LocalQueue watch (``workloadQueueHandler``, :mod:`.watches`). The LocalQueue's own
    status reconcile comes from its ``for_`` watch: every event, as upstream's predicate returns
    true."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def _workloads(self, lq: LocalQueue) -> list[Workload]:
        key = f"{lq.metadata.namespace}/{lq.metadata.name}"
        return self.mgr.ctx.cache.list(Workload, index=(BY_QUEUE, key))

    def on_add(self, lq: LocalQueue) -> None:
        mgr = self.mgr
        key = f"{lq.metadata.namespace}/{lq.metadata.name}"
        if (lq.spec.stop_policy if lq.spec else None) in (None, "None"):
            mgr.queues.add_local_queue(
                key, (lq.spec.cluster_queue if lq.spec else None) or "", self._workloads(lq)
            )
            mgr.kick()
        self._wake(None, lq)

    def on_update(self, old: LocalQueue, new: LocalQueue) -> None:
        mgr = self.mgr
        key = f"{new.metadata.namespace}/{new.metadata.name}"
        old_stop = (old.spec.stop_policy if old.spec else None) or "None"
        new_stop = (new.spec.stop_policy if new.spec else None) or "None"
        cq = (new.spec.cluster_queue if new.spec else None) or ""
        if old_stop == new_stop:
            if new_stop == "None" and mgr.queues.update_local_queue(key, cq):
                mgr.kick()  # ``UpdateLocalQueue`` broadcasts only when the ClusterQueue changed
        elif new_stop == "None":
            mgr.queues.add_local_queue(key, cq, self._workloads(new))
            mgr.kick()
        else:
            mgr.queues.delete_local_queue(key)
        self._wake(old, new)

    def on_delete(self, lq: LocalQueue) -> None:
        key = f"{lq.metadata.namespace}/{lq.metadata.name}"
        self.mgr.queues.delete_local_queue(key)
        if self.mgr.queues.afs is not None:
            self.mgr.queues.afs_ledger.delete(key)  # last, after the queues (upstream's order)
        self._wake(lq, None)

    def _wake(self, old: LocalQueue | None, new: LocalQueue | None) -> None:
        """``workloadQueueHandler.queueReconcileForWorkloadsOfLocalQueue``."""
        if not watches.local_queue_wakes_workloads(old, new):
            return
        lq = new if new is not None else old
        assert lq is not None
        for wl in self._workloads(lq):
            self.mgr.enqueue("kueue-workload", Request(wl.metadata.namespace or "", wl.metadata.name or ""))


class CohortHandler:
    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, cohort: Cohort) -> None:
        self._changed(cohort)

    def on_update(self, old: Cohort, new: Cohort) -> None:
        if old.spec != new.spec:
            self._changed(new)

    def on_delete(self, cohort: Cohort) -> None:
        mgr = self.mgr
        name = cohort.metadata.name or ""
        node = mgr.cache.cohorts.get(name)
        cqs = [cq.name for cq in node.subtree_cluster_queues()] if node is not None else []
        mgr.cache.delete_cohort(name)
        mgr.notify_retry_inadmissible(cqs)

    def _changed(self, cohort: Cohort) -> None:
        mgr = self.mgr
        mgr.cache.add_or_update_cohort(cohort)
        node = mgr.cache.cohorts.get(cohort.metadata.name or "")
        if node is not None and not has_cycle(node):
            mgr.notify_retry_inadmissible([cq.name for cq in root_of(node).subtree_cluster_queues()])  # type: ignore[attr-defined]


class FlavorHandler:
    """``ResourceFlavorReconciler.Create/Update/Delete``: the cache's flavors and the retries of
    the ClusterQueues that became active; with ``notifyWatchers``, a created or deleted flavor
    batches the status reconciles of the ClusterQueues naming it (``NotifyResourceFlavorUpdate``,
    ``nonCQObjectHandler``). An update of a flavor being deleted only reconciles it (its ``for_``
    watch, :data:`.watches.FLAVOR_EVENTS`); another update retries, besides, the ClusterQueues
    using it when a field the flavor assigner reads changed (``flavorSchedulingFieldsChanged``)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, rf: ResourceFlavor) -> None:
        name = rf.metadata.name or ""
        self._retry(self.mgr.cache.add_or_update_flavor(rf), [])
        self._clusterqueue_status(name)

    def on_update(self, old: ResourceFlavor, new: ResourceFlavor) -> None:
        if new.metadata.deletion_timestamp is not None:
            return
        users: list[str] = []
        if _scheduling_fields(old) != _scheduling_fields(new):
            users = self.mgr.cache.clusterqueues_using_flavor(new.metadata.name or "")
        self._retry(self.mgr.cache.add_or_update_flavor(new), users)

    def on_delete(self, rf: ResourceFlavor) -> None:
        name = rf.metadata.name or ""
        self._retry(self.mgr.cache.delete_flavor(name), [])
        self._clusterqueue_status(name)

    def _retry(self, changed: list[str], users: list[str]) -> None:
        _retry_activated(self.mgr, changed, users)

    def _clusterqueue_status(self, flavor: str) -> None:
        for name in self.mgr.cache.clusterqueues_using_flavor(flavor):
            self.mgr.enqueue_batched("kueue-clusterqueue", Request("", name))


def _scheduling_fields(rf: ResourceFlavor) -> tuple[Any, Any, Any]:
    spec = rf.spec
    return (spec.node_labels, spec.node_taints, spec.tolerations) if spec else (None, None, None)


def _retry_activated(mgr: KueueManager, changed: list[str], also: list[str]) -> None:
    """``Cache.updateClusterQueues`` reports the ClusterQueues that went from pending to active;
    upstream retries their inadmissible workloads (and ``also``). kbatch's cache reports every
    change of activity, so the ones now inactive are dropped here. Upstream's scheduler then sees
    their heads by looping while its heaps hold any; kbatch's runs when woken, so it is woken."""
    activated = [name for name in changed if mgr.cache.active(name)]
    retry = sorted(set(activated) | set(also))
    if retry:
        mgr.notify_retry_inadmissible(retry)
    if activated:
        mgr.kick()


class CheckHandler:
    """``AdmissionCheckReconciler.Create/Update/Delete``: the cache's checks and the retries of the
    ClusterQueues that became active (an update of a check being deleted leaves the cache as it
    is); every event batches the status reconciles of the ClusterQueues naming the check
    (``NotifyAdmissionCheckUpdate``, ``nonCQObjectHandler``)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, ac: AdmissionCheck) -> None:
        _retry_activated(self.mgr, self.mgr.cache.add_or_update_check(ac), [])
        self._clusterqueue_status(ac.metadata.name or "")

    def on_update(self, old: AdmissionCheck, new: AdmissionCheck) -> None:
        if new.metadata.deletion_timestamp is None:
            _retry_activated(self.mgr, self.mgr.cache.add_or_update_check(new), [])
        self._clusterqueue_status(new.metadata.name or "")

    def on_delete(self, ac: AdmissionCheck) -> None:
        _retry_activated(self.mgr, self.mgr.cache.delete_check(ac.metadata.name or ""), [])
        self._clusterqueue_status(ac.metadata.name or "")

    def _clusterqueue_status(self, check: str) -> None:
        for name in self.mgr.cache.clusterqueues_using_check(check):
            self.mgr.enqueue_batched("kueue-clusterqueue", Request("", name))


class NamespaceHandler:
    """``cqNamespaceHandler`` (``clusterqueue_controller.go``): a namespace whose labels change
    retries the inadmissible workloads of the ClusterQueues whose namespace selector matches it now
    and did not before (``queueInadmissibleWorkloads`` re-checks the selectors); a created or
    deleted namespace changes nothing (its workloads cannot exist before it)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, ns: Namespace) -> None:
        pass

    def on_update(self, old: Namespace, new: Namespace) -> None:
        before, after = old.metadata.labels or {}, new.metadata.labels or {}
        if before == after:
            return
        newly = [
            name
            for name, cq in sorted(self.mgr.queues.cluster_queues.items())
            if cq.selector is not None and cq.selector.matches(after) and not cq.selector.matches(before)
        ]
        self.mgr.notify_retry_inadmissible(newly)

    def on_delete(self, ns: Namespace) -> None:
        pass


# what the Kueue controller publishes on the control plane: its visibility API reads the queues
# through it (kbatch.server.kueue_visibility)
KUEUE_MANAGER = PublishedKey("kueue", KueueManager)
