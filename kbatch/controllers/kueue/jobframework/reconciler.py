"""The generic job reconciler: one for every job integration (Kueue's ``ReconcileGenericJob``).

Upstream: kubernetes-sigs/kueue ``pkg/controller/jobframework/reconciler.go`` (v0.19.2). For a job of
an enabled integration, in a namespace ``managedJobsNamespaceSelector`` selects, with a queue name
(or ``manageJobsWithoutQueueName``), not owned by another Kueue-managed job (a job whose
``spec.managedBy`` is MultiKueue is reconciled like any other on the manager, where the job controller
leaves it alone; on a worker a job naming a prebuilt Workload takes that one, :mod:`.prebuilt`):

1. exactly one matching Workload is kept (others deleted, "DeletedWorkload"); a running job whose
   Workload no longer matches is stopped ("No matching Workload; restoring pod templates …");
2. the Workload finished → "FinishedWorkload", finalizer released; the Workload deleting → the job is
   stopped ("Workload is deleted");
3. the job finished → the Workload finishes (``Succeeded``/``Failed`` with the job's message);
4. no Workload → one is created ("CreatedWorkload": "Created Workload: ns/name"), unless the job runs;
5. reclaimable pods written to the Workload (``ReclaimablePods``);
6. ``waitForPodsReady``: the ``PodsReady`` condition (``WaitForStart``/``WaitForRecovery``/``Started``/
   ``Recovered``);
7. evicted → the job is stopped ("Stopped") and, once its pods are gone, the reservation released
   (``QuotaReserved=False`` reason ``Pending``, ``Requeued`` true after a preemption);
8. suspended and admitted → started ("Started": "Admitted by clusterQueue …") with the admission's
   pod set infos; suspended → the Workload follows a queue-name change;
9. running but not admitted → stopped ("Not admitted by cluster queue").

An elastic job (``kueue.x-k8s.io/elastic-job: "true"``, ``ElasticJobsViaWorkloadSlices``) takes the
workload-slice paths of :mod:`.elastic` in steps 1 and 4, may create a slice while it runs, and is
not stopped while a new slice waits for admission (its new pods wait behind a scheduling gate).
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api import edit
from kbatch.api.errors import AlreadyExists, Conflict, NotFound, StatusError
from kbatch.api.jobframework import JobWithCustomStop, JobWithReclaimablePods, PodSetInfoError
from kbatch.api.kueue_v1beta2 import AdmissionCheck, ReclaimablePod, Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import RESOURCE_IN_USE_FINALIZER, Cond, Reason
from kbatch.api.kueue_v1beta2.multikueue import CONTROLLER_NAME as MULTIKUEUE_CONTROLLER
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.jobframework import elastic, prebuilt
from kbatch.controllers.kueue.jobframework.ancestors import (
    CHAIN_LIMIT,
    ChainLimitReached,
    find_managed_ancestor,
)
from kbatch.controllers.kueue.jobframework.construct import (
    ADMISSION_GATED_BY,
    equivalent,
    infos_from_admission,
    infos_from_spec,
    new_workload,
    priority_of,
    queue_name,
)
from kbatch.controllers.kueue.manager import BY_OWNER, KueueManager, owner_key
from kbatch.controllers.kueue.metrics import POD_ADMISSION_GATE, record_gate_removal, record_workload_creation
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.controllers.kueue.workloadslicing import scaled_up
from kbatch.families import JobIntegration, resolve
from kbatch.runtime.reconcile import Request, Result

__all__ = ["JobReconciler", "owned_by_single_pod"]

# jobframework.StopReason
STOP_WORKLOAD_DELETED = "WorkloadDeleted"
STOP_WORKLOAD_EVICTED = "WorkloadEvicted"
STOP_NO_MATCHING_WORKLOAD = "NoMatchingWorkload"
STOP_NOT_ADMITTED = "NotAdmitted"


def owned_by_single_pod(wl: Workload) -> bool:
    """``workload.OwnedBySinglePod``: one owner, a v1 Pod, and not a pod group's Workload."""
    refs = wl.metadata.owner_references or ()
    if len(refs) != 1 or (wl.metadata.annotations or {}).get("kueue.x-k8s.io/is-group-workload") == "true":
        return False
    return refs[0].kind == "Pod" and refs[0].api_version == "v1"


def _creation_order(wl: Workload) -> tuple[Any, str]:
    return wl.metadata.creation_timestamp, wl.metadata.name or ""


class JobReconciler:
    def __init__(self, mgr: KueueManager, integration: JobIntegration) -> None:
        self.mgr = mgr
        self.integration = integration
        self.model = integration.model
        self.adapter = resolve(integration.adapter)
        info = self.model.api_info
        self.kind, self.group = info.kind, info.group
        self.api_version = info.api_version

    # --- reads ------------------------------------------------------------------------------------
    def _workloads(self, namespace: str, name: str) -> list[Workload]:
        key = owner_key(self.api_version, self.kind, namespace, name)
        return self.mgr.ctx.cache.list(Workload, index=(BY_OWNER, key))

    def _event(self, obj: Any, reason: str, message: str, type_: str = "Normal") -> None:
        self.mgr.job_recorder.event(obj, type_, reason, W.truncate(message, W.MAX_EVENT_MESSAGE))

    def _write(self, obj: Any) -> Any:
        return self.mgr.ctx.client.update(obj)

    # --- the reconcile ------------------------------------------------------------------------------
    def reconcile(self, request: Request) -> Result | None:
        try:
            return self._reconcile(request)
        except NotFound:  # the job or its workload went away meanwhile; their events bring us back
            return None

    def _reconcile(self, request: Request) -> Result | None:
        mgr = self.mgr
        ctx = mgr.ctx
        try:
            obj = ctx.cache.get(self.model, request.name, request.namespace)
        except NotFound:
            self._finalize_workloads(request.namespace, request.name, None)
            return None
        job = self.adapter(obj)
        if hasattr(job, "skip") and job.skip():  # JobWithSkip (the pod integration's managed label)
            return None
        if obj.metadata.deletion_timestamp is not None:
            self._finalize_workloads(request.namespace, request.name, obj)
            self._finalize_job(job)
            return None
        cfg = mgr.settings.config
        labels = mgr.namespace_labels(request.namespace)
        if labels is None:
            return None
        selector = cfg.namespace_selector
        if selector is not None and not selector.matches(labels):
            return None
        ancestor = self._managed_ancestor(obj)
        if ancestor is not None:
            self._suspend_child_if_needed(job, obj, ancestor)
            return None
        if not cfg.manage_jobs_without_queue_name and not queue_name(obj):
            return None
        if self._prebuilt_name(obj):  # a MultiKueue worker's job: its Workload exists already
            return self._after_workload(job, obj, self._prebuilt_workload(job, obj))
        return self._after_workload(job, obj, self._ensure_one_workload(job, obj))

    def _managed_ancestor(self, obj: Any) -> Any | None:
        """``FindAncestorJobManagedByKueue`` (:mod:`.ancestors`): its errors (an owner missing, a
        cycle, too deep a chain) fail the reconcile, which is retried, as upstream returns them; too
        deep a chain is also reported on the object with a Warning ``JobNestingTooDeep`` event
        (upstream ``reconciler.go`` ``ReconcileGenericJob``, ``events.go``)."""
        mgr = self.mgr
        try:
            return find_managed_ancestor(
                obj,
                mgr.ctx.composition.job_integrations,
                frozenset(i.name for i in mgr.integrations),
                mgr.ctx.cache.get,
                mgr.settings.config.manage_jobs_without_queue_name,
            )
        except ChainLimitReached:
            message = (
                "Terminated search for Kueue-managed Job because ancestor depth exceeded limit of "
                f"{CHAIN_LIMIT}"
            )
            self._event(obj, "JobNestingTooDeep", message, "Warning")
            raise

    def _suspend_child_if_needed(self, job: Any, obj: Any, ancestor: Any) -> None:
        """A job below a managed ancestor has no Workload of its own; ``shouldSuspendChildJob``
        suspends it while it runs and the ancestor's latest unfinished Workload is missing or not
        admitted (event ``Suspended``: "Kueue managed child job suspended")."""
        if job.finished()[2] or job.is_suspended():
            return
        meta, info = ancestor.metadata, type(ancestor).api_info
        key = owner_key(info.api_version, info.kind, meta.namespace, meta.name or "")
        owned = [
            wl
            for wl in self.mgr.ctx.cache.list(Workload, index=(BY_OWNER, key))
            if any(r.uid == meta.uid for r in wl.metadata.owner_references or ())
            and not W.has(wl.status, Cond.FINISHED)
        ]
        latest = max(owned, key=_creation_order, default=None)
        if latest is not None and W.has(latest.status, Cond.ADMITTED):
            return
        writable = self.adapter(edit(obj))
        writable.suspend()
        self._write(writable.object)
        self._event(obj, "Suspended", "Kueue managed child job suspended")

    def _after_workload(self, job: Any, obj: Any, wl: Workload | None) -> Result | None:
        mgr = self.mgr
        now = mgr.now()
        if wl is not None and W.has(wl.status, Cond.FINISHED):
            self._event(
                obj,
                "FinishedWorkload",
                f"Workload '{wl.metadata.namespace}/{wl.metadata.name}' is declared finished",
            )
            self._finalize_job(job)
            self._remove_finalizer(wl)
            return None
        if wl is not None and wl.metadata.deletion_timestamp is not None:
            self._stop(job, wl, "Workload is deleted", STOP_WORKLOAD_DELETED)
            self._remove_finalizer(wl)
            return None
        message, success, finished = job.finished()
        if finished:
            if wl is not None:
                reason = Reason.SUCCEEDED if success else Reason.FAILED
                if write_status(
                    mgr, wl, lambda st, o: W.finish(st, reason, message, o.metadata.generation, now)
                ):
                    self._event(
                        obj,
                        "FinishedWorkload",
                        f"Workload '{wl.metadata.namespace}/{wl.metadata.name}' is declared finished",
                    )
            self._finalize_job(job)
            return None
        if wl is None:
            return self._create_workload(job, obj)
        reclaim = isinstance(job, JobWithReclaimablePods) and mgr.settings.on("ReclaimablePods")
        if reclaim and self._sync_reclaimable(job, wl):
            return None
        if mgr.settings.config.wait_for_pods_ready is not None and self._sync_pods_ready(job, wl):
            return None
        evicted = W.find(wl.status, Cond.EVICTED)
        if evicted is not None and evicted.status == "True":
            self._stop(job, wl, evicted.message or "", STOP_WORKLOAD_EVICTED)
            if W.has(wl.status, Cond.QUOTA_RESERVED) and not job.is_active():
                self._release_reservation(wl, evicted)
            return None
        if job.is_suspended():
            if W.has(wl.status, Cond.ADMITTED):
                self._start(job, obj, wl)
            elif (wl.spec.queue_name if wl.spec else None) != (queue_name(obj) or None):
                wl = edit(wl)
                assert wl.spec is not None  # the CRD requires spec
                wl.spec.queue_name = queue_name(obj) or None
                self._write(wl)
            return None
        if not W.has(wl.status, Cond.ADMITTED) and not elastic.is_elastic(self, obj):
            self._stop(job, wl, "Not admitted by cluster queue", STOP_NOT_ADMITTED)
        return None

    # --- workload matching and creation ----------------------------------------------------------------
    def _equivalent(self, job: Any, wl: Workload) -> bool:
        s = self.mgr.settings
        return equivalent(
            job,
            wl,
            self.mgr.ctx.cache,
            partial_admission=s.on("PartialAdmission"),
            finish_orphans=s.on("FinishOrphanedWorkloads"),
            assign_queue_labels=s.on("AssignQueueLabelsForPods"),
        )

    def _prebuilt_name(self, obj: Any) -> str:
        return prebuilt.prebuilt_name(obj, self.mgr.settings.on("WorkloadIdentifierAnnotations"))

    def _prebuilt_workload(self, job: Any, obj: Any) -> Workload | None:
        """``ensureOneWorkload``'s prebuilt branch (:mod:`.prebuilt`)."""
        name = self._prebuilt_name(obj)
        wl = self.mgr.get(Workload, name, obj.metadata.namespace)
        if wl is None:
            if not job.is_suspended():
                self._stop(job, None, "missing workload", STOP_NO_MATCHING_WORKLOAD)
            raise prebuilt.PrebuiltWorkloadNotFound(
                f"prebuilt workload {obj.metadata.namespace}/{name} not found"
            )
        wl = prebuilt.adopt(wl, obj, self._write)
        # an elastic job's scale-up slice is not checked: MultiKueue patches the job's parallelism
        # after the slice arrives (``ensureOneWorkload``: "skip in-sync check in ensurePrebuiltWorkload")
        if wl is None or (elastic.is_elastic(self, obj) and scaled_up(wl)) or self._equivalent(job, wl):
            return wl
        now = self.mgr.now()
        reason, message = prebuilt.OUT_OF_SYNC, prebuilt.OUT_OF_SYNC_MESSAGE
        write_status(self.mgr, wl, lambda st, o: W.finish(st, reason, message, o.metadata.generation, now))
        return None

    def _ensure_one_workload(self, job: Any, obj: Any) -> Workload | None:
        """``ensureOneWorkload``."""
        if elastic.is_elastic(self, obj):
            found = elastic.ensure_slices(self, job, obj)
            if found is not elastic.FALLBACK:
                return found  # type: ignore[return-value]
        mgr = self.mgr
        match: Workload | None = None
        to_delete: list[Workload] = []
        for wl in self._workloads(obj.metadata.namespace or "", obj.metadata.name or ""):
            if wl.metadata.controller_ref() is None:
                continue
            if match is None and self._equivalent(job, wl):
                match = wl
            else:
                to_delete.append(wl)
        to_update = None
        if (
            match is None
            and to_delete
            and job.is_suspended()
            and not W.has(to_delete[0].status, Cond.QUOTA_RESERVED)
        ):
            to_update, to_delete = to_delete[0], to_delete[1:]
        if match is None and not job.is_suspended() and not job.finished()[2]:
            w = to_delete[0] if len(to_delete) == 1 else None
            msg = (
                "Missing Workload; unable to restore pod templates"
                if w is None
                else "No matching Workload; restoring pod templates according to existent Workload"
            )
            self._stop(job, w, msg, STOP_NO_MATCHING_WORKLOAD)
        deleted = 0
        for wl in to_delete:
            self._remove_finalizer(wl)
            if wl.metadata.deletion_timestamp is None:
                try:
                    mgr.ctx.client.delete(Workload, wl.metadata.name or "", wl.metadata.namespace)
                except NotFound:
                    continue
                deleted += 1
                self._event(
                    obj,
                    "DeletedWorkload",
                    f"Deleted not matching Workload: {wl.metadata.namespace}/{wl.metadata.name}",
                )
        if deleted:
            raise Conflict("deleted not matching workloads; reconcile again")
        if to_update is not None:
            return self._update_to_match(job, obj, to_update)
        if match is not None:
            match = self._sync_admission_gated_by(obj, match)
            self._sync_priority(job, obj, match)
        return match

    def _construct(self, job: Any, *, partial_admission: bool | None = None) -> Workload:
        """The job's new Workload; ``partial_admission`` overrides the gate (pod groups: never)."""
        s = self.mgr.settings
        wl = new_workload(
            job,
            self.kind,
            self.group,
            self.api_version,
            self.mgr.ctx.cache,
            label_keys=s.label_keys_to_copy,
            annotation_keys=s.annotation_keys_to_copy,
            partial_admission=s.on("PartialAdmission") if partial_admission is None else partial_admission,
            short_names=s.on("ShortWorkloadNames"),
            admission_gated_by=s.on("AdmissionGatedBy"),
            tas=s.on("TopologyAwareScheduling"),
            multi_layer=s.on("TASMultiLayerTopology"),
            name_extra=elastic.name_extra(self, job.object),
        )
        if elastic.is_elastic(self, job.object):
            elastic.prepare_slice(self, job.object, wl)
        return wl

    def _update_to_match(self, job: Any, obj: Any, wl: Workload) -> Workload | None:
        fresh = self._construct(job)
        wl = edit(wl)
        fresh.spec.active = wl.spec.active if wl.spec else None  # type: ignore[union-attr]
        wl.spec = fresh.spec
        written = self._write(wl)
        self._event(
            obj,
            "UpdatedWorkload",
            f"Updated not matching Workload for suspended job: {wl.metadata.namespace}/{wl.metadata.name}",
        )
        return written

    def _create_workload(self, job: Any, obj: Any) -> Result | None:
        if job.is_active() and not elastic.is_elastic(self, obj):
            return None
        try:
            wl = self._construct(job)
        except NotFound as err:  # a missing (Workload)PriorityClass: retry later
            raise Conflict(str(err)) from None
        try:
            created = self.mgr.ctx.client.create(wl)
        except AlreadyExists:
            raise Conflict(f"workload {wl.metadata.name} already exists") from None
        self._event(obj, "CreatedWorkload", f"Created Workload: {wl.metadata.namespace}/{wl.metadata.name}")
        if self.mgr.settings.on("MetricForWorkloadCreationLatency"):
            record_workload_creation(self.mgr.ctx.metrics, obj, self.kind, created)
        return None

    def _sync_admission_gated_by(self, obj: Any, wl: Workload) -> Workload:
        """``UpdateAdmissionGatedBy`` (reconciler.go): with the gate on, the job's
        ``admission-gated-by`` annotation (gates an external controller removes as it is done) is
        copied to its matching Workload, which is what lets the Workload be admitted; event
        ``UpdatedWorkload`` 'Updated workload AdmissionGatedBy to "<value>"'."""
        if not self.mgr.settings.on("AdmissionGatedBy"):
            return wl
        want = (obj.metadata.annotations or {}).get(ADMISSION_GATED_BY, "")
        if (wl.metadata.annotations or {}).get(ADMISSION_GATED_BY, "") == want:
            return wl
        wl = edit(wl)
        annotations = {k: v for k, v in (wl.metadata.annotations or {}).items() if k != ADMISSION_GATED_BY}
        if want:
            annotations[ADMISSION_GATED_BY] = want
        wl.metadata.annotations = annotations
        written: Workload = self._write(wl)
        self._event(obj, "UpdatedWorkload", f'Updated workload AdmissionGatedBy to "{want}"')
        return written

    def _sync_priority(self, job: Any, obj: Any, wl: Workload) -> None:
        """``UpdateWorkloadPriority`` for a WorkloadPriorityClass label that changed, with its event
        ``UpdatedWorkload`` "Updated workload priority class: <ns>/<name>" on the job
        (``updateWorkloadPriorities``, kueue v0.19.2 ``pkg/controller/jobframework/reconciler.go``)."""
        if not (obj.metadata.labels or {}).get("kueue.x-k8s.io/priority-class"):
            return
        try:
            ref, priority = priority_of(self.mgr.ctx.cache, obj, list(wl.spec.pod_sets or ()), None)  # type: ignore[union-attr]
        except NotFound:
            return
        spec = wl.spec
        if spec is not None and spec.priority == priority and spec.priority_class_ref == ref:
            return
        if spec is not None and spec.priority_class_ref is None and W.has(wl.status, Cond.QUOTA_RESERVED):
            return  # classifyWorkloadsForPriorityUpdate: no priorityClassRef is added once quota is reserved
        wl = edit(wl)
        wl.spec.priority, wl.spec.priority_class_ref = priority, ref  # type: ignore[union-attr]
        self._write(wl)
        self._event(obj, "UpdatedWorkload",
                    f"Updated workload priority class: {wl.metadata.namespace}/{wl.metadata.name}")

    # --- steps ----------------------------------------------------------------------------------------
    def _sync_reclaimable(self, job: Any, wl: Workload) -> bool:
        sizes = {ps.name: ps.count or 0 for ps in (wl.spec.pod_sets if wl.spec else None) or ()}
        wanted = [(name, min(count, sizes.get(name, count))) for name, count in job.reclaimable_pods()]
        have = {(r.name, r.count) for r in (wl.status.reclaimable_pods if wl.status else None) or ()}
        if set(wanted) == have and len(wanted) == len(have):
            return False

        def mutate(st: WorkloadStatus, obj: Workload) -> bool:
            st.reclaimable_pods = [ReclaimablePod(name=n, count=c) for n, c in wanted] or None
            return True

        write_status(self.mgr, wl, mutate)
        return True

    def _sync_pods_ready(self, job: Any, wl: Workload) -> bool:
        """``generatePodsReadyCondition`` and its write when the type/status/reason changed."""
        not_ready, recovering = (
            "Not all pods are ready or succeeded",
            "At least one pod has failed, waiting for recovery",
        )
        current = W.find(wl.status, Cond.PODS_READY)
        if not W.has(wl.status, Cond.ADMITTED):
            value, reason, message = False, Reason.WAIT_FOR_START, not_ready
        elif job.pods_ready():
            value, message = True, "All pods reached readiness and the workload is running"
            reason = (
                Reason.RECOVERED
                if current is not None and current.reason in (Reason.WAIT_FOR_RECOVERY, Reason.RECOVERED)
                else Reason.STARTED
            )
        elif current is None:
            value, reason, message = False, Reason.WAIT_FOR_START, not_ready
        elif current.status == "True" or current.reason == Reason.WAIT_FOR_RECOVERY:
            value, reason, message = False, Reason.WAIT_FOR_RECOVERY, recovering
        else:
            value, reason, message = False, Reason.WAIT_FOR_START, not_ready
        text = "True" if value else "False"
        if any(
            c.type == Cond.PODS_READY and c.reason == reason and c.status == text
            for c in (wl.status.conditions if wl.status else None) or ()
        ):
            return False
        now = self.mgr.now()
        write_status(
            self.mgr,
            wl,
            lambda st, o: W.set_condition(
                st, Cond.PODS_READY, value, reason, message, o.metadata.generation, now
            ),
        )
        return True

    def _release_reservation(self, wl: Workload, evicted: Any) -> None:
        mgr = self.mgr
        now = mgr.now()
        requeue = evicted.reason in (Reason.PREEMPTED, Reason.NODE_FAILURES)
        if requeue and mgr.settings.on("SkipReassignmentForPodOwnedWorkloads") and owned_by_single_pod(wl):
            requeue = False  # a pod-owned Workload dies with its pod (workload.OwnedBySinglePod)
        reason = Reason.PENDING_EVALUATION if mgr.observability else Reason.PENDING
        observability, explicit = mgr.observability, mgr.explicit_status

        def mutate(st: WorkloadStatus, obj: Workload) -> bool:
            changed = W.set_requeued(
                st, evicted.reason or "", evicted.message or "", requeue, obj.metadata.generation, now
            )
            return (
                W.unset_quota_reservation(
                    st, reason, evicted.message or "", obj.metadata.generation, now, observability, explicit
                )
                or changed
            )

        write_status(mgr, wl, mutate)

    def _start(self, job: Any, obj: Any, wl: Workload) -> None:
        mgr = self.mgr
        try:
            infos = infos_from_admission(
                wl,
                mgr.ctx.cache,
                mgr.settings.on("AssignQueueLabelsForPods"),
                elastic.enabled(wl, mgr.settings.on(elastic.GATE)),
            )
        except NotFound:
            raise Conflict("a ResourceFlavor of the admission is missing") from None
        except ValueError as err:
            self._fail_to_start(wl, str(err))
            return
        message = f"Admitted by clusterQueue {wl.status.admission.cluster_queue}"  # type: ignore[union-attr]
        if self.kind == "Pod" and self._multikueue_check(wl):
            return  # ``ShouldSkipLocalExecution``: a composable job (pods) runs on the worker instead
        if hasattr(job, "run_for"):  # JobWithCustomRun: a pod group starts each gated member
            try:
                started = job.run_for(mgr.ctx.client, infos)
            except PodSetInfoError as err:
                self._fail_to_start(wl, str(err))
                return
            for pod in started:
                self._event(pod, "Started", message)
                record_gate_removal(mgr.ctx.metrics, POD_ADMISSION_GATE, wl, True, mgr.now())
            return
        writable = self.adapter(edit(obj))
        try:
            writable.run_with_pod_sets_info(infos)
        except PodSetInfoError as err:
            self._fail_to_start(wl, str(err))
            return
        self._write(writable.object)
        self._event(obj, "Started", message)
        if self.kind == "Pod" and _has_gate(obj) and not _has_gate(writable.object):
            record_gate_removal(mgr.ctx.metrics, POD_ADMISSION_GATE, wl, False, mgr.now())

    def _multikueue_check(self, wl: Workload) -> bool:
        """``admissioncheck.ShouldSkipLocalExecution`` (``startJob``, with ``MultiKueue`` on): one of the
        Workload's checks is run by MultiKueue. Upstream asks it of composable jobs only (pods and pod
        groups, whose local pods stay gated while copies run on the worker); a Job or JobSet is kept
        from running by its ``managedBy`` instead."""
        if not self.mgr.settings.on("MultiKueue"):
            return False
        for state in (wl.status.admission_checks if wl.status else None) or ():
            ac = self.mgr.get(AdmissionCheck, state.name or "")
            if ac is not None and ac.spec is not None and ac.spec.controller_name == MULTIKUEUE_CONTROLLER:
                return True
        return False

    def _fail_to_start(self, wl: Workload, message: str) -> None:
        now = self.mgr.now()
        write_status(
            self.mgr,
            wl,
            lambda st, o: W.finish(st, Reason.FAILED_TO_START, message, o.metadata.generation, now),
        )

    def _stop(self, job: Any, wl: Workload | None, message: str, reason: str) -> None:
        """``stopJob`` (``reason`` is upstream's ``StopReason``; jobs that end their pods instead of
        suspending them — the pod integration, a ``ComposableJob`` — get it with ``DueTo<reason>``
        of the eviction appended)."""
        infos = infos_from_spec(wl)
        stopped = job.object
        if hasattr(job, "stop_for"):
            evicted = W.find(wl.status, Cond.EVICTED) if wl is not None else None
            if reason == STOP_WORKLOAD_EVICTED and evicted is not None and evicted.status == "True":
                reason = f"{reason}DueTo{evicted.reason}"
            for obj in job.stop_for(self.mgr.ctx.client, reason, message, self.mgr.now()):
                self._event(obj, "Stopped", message)
            return
        if isinstance(job, JobWithCustomStop):
            writable = self.adapter(edit(stopped))
            if writable.stop(self.mgr.ctx.client, infos):
                self._event(stopped, "Stopped", message)
            return
        if job.is_suspended():
            return
        writable = self.adapter(edit(job.object))
        writable.suspend()
        if infos:
            writable.restore_pod_sets_info(infos)
        self._write(writable.object)
        self._event(job.object, "Stopped", message)

    def _finalize_job(self, job: Any) -> None:
        """``finalizeJob`` (``JobWithFinalize``: the pod integration's pod finalizer)."""
        if hasattr(job, "finalize"):
            job.finalize(self.mgr.ctx.client)

    def _remove_finalizer(self, wl: Workload) -> None:
        if RESOURCE_IN_USE_FINALIZER not in (wl.metadata.finalizers or ()):
            return
        wl = edit(wl)
        wl.metadata.finalizers = [
            f for f in wl.metadata.finalizers or () if f != RESOURCE_IN_USE_FINALIZER
        ] or None
        with contextlib.suppress(NotFound):
            self._write(wl)

    def _finalize_workloads(self, namespace: str, name: str, obj: Any) -> None:
        """``finalizeWorkloads``: orphaned workloads finish (``OwnerNotFound``) and lose their finalizer."""
        mgr = self.mgr
        now = mgr.now()
        for wl in self._workloads(namespace, name):
            if (
                mgr.settings.on("FinishOrphanedWorkloads")
                and wl.metadata.deletion_timestamp is None
                and wl.metadata.controller_ref() is not None
            ):
                with contextlib.suppress(StatusError):
                    write_status(
                        mgr,
                        wl,
                        lambda st, o: W.finish(
                            st,
                            Reason.OWNER_NOT_FOUND,
                            "The workload's owner no longer exists",
                            o.metadata.generation,
                            now,
                        ),
                    )
                try:
                    wl = mgr.ctx.client.get(Workload, wl.metadata.name or "", wl.metadata.namespace)
                except NotFound:
                    continue
            self._remove_finalizer(wl)


def _has_gate(pod: Any) -> bool:
    """Whether a pod holds Kueue's admission scheduling gate."""
    return any(g.name == POD_ADMISSION_GATE for g in pod.spec.scheduling_gates or ())
