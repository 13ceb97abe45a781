"""Pod groups: pods labelled ``kueue.x-k8s.io/pod-group-name`` and annotated
``kueue.x-k8s.io/pod-group-total-count`` are admitted as one Workload.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_controller.go`` (the group
branches of ``Pod``: ``Load``, ``ConstructComposableWorkload``, ``FindMatchingWorkloads``,
``equivalentToWorkload``, ``Run``, ``Stop``, ``Finished``, ``IsActive``, ``PodsReady``,
``ReclaimablePods``, ``waitingForReplacementPodsCondition``), driven by the generic reconciler
(``ReconcileGenericJob``) whose steps after matching are :class:`JobReconciler`'s:

* the Workload is named after the group, owned (not controlled) by every member pod, annotated
  ``kueue.x-k8s.io/is-group-workload: "true"``; its pod sets are the group's roles — pods with the
  same role hash (``pods.role_hash``) — named by the hash, sorted by name, counting the role's
  runnable pods (with ``pod-group-fast-admission``: one role of ``total-count`` pods);
* it is created once the group has ``total-count`` runnable pods (fewer: a ``ErrWorkloadCompose``
  warning, "'<g>' group has fewer runnable pods than expected"); failed pods are finalized, extra
  pods deleted ("ExcessPodDeleted"); members must share the queue name and the total count;
  it carries the members' ``labelKeysToCopy`` labels and, with ``CustomMetricLabels``, the
  ``metrics.customLabels`` Workload entries' annotation sources, merged over the members (two
  members with different values for one key: no Workload, retried);
* admitted: every gated member gets its role's pod set info and loses the gate; evicted: every
  running member gets ``TerminationTarget`` and is deleted; the reservation is released once no
  member runs;
* a failed member is replaced by a new pod of the same group and role: the failed pod is finalized
  and the replacement started with the admission; while a role lacks pods the Workload carries
  ``WaitingForReplacementPods`` (reason ``PodsFailed``, "Some Failed pods need replacement", or the
  eviction's reason and message);
* finished when ``total-count`` members succeeded, or when none runs and a member is annotated
  ``kueue.x-k8s.io/retriable-in-group: "false"`` ("Pods succeeded: <n>/<total>."; a group is never
  declared failed); ``pod-group-serving`` groups never finish;
* the Workload's finish, deletion, or the group's disappearance finalize every member.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import AlreadyExists, Conflict, NotFound
from kbatch.api.jobframework import PodSet, PodSetInfo, PodSetInfoError, merge_info
from kbatch.api.kueue_v1beta2 import Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import JOB_UID_LABEL, Cond
from kbatch.api.meta import OwnerReference
from kbatch.api.model_copy import copy_model
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.jobframework import prebuilt
from kbatch.controllers.kueue.jobframework.construct import max_execution_time, queue_name
from kbatch.controllers.kueue.podintegration import pods as P
from kbatch.controllers.kueue.podintegration.single import remove_finalizer, terminate
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.runtime.reconcile import Result

__all__ = ["BY_GROUP", "MAX_POD_SETS", "GroupLabelsMismatch", "PodGroup", "PodGroupReconciler", "group_index",
           "group_values"]

BY_GROUP = "kueue-pod-group"  # Pod: "<namespace>/<group name>"
MAX_POD_SETS = 18  # jobframework.MaxPodSets
WAITING_FOR_REPLACEMENT = "WaitingForReplacementPods"
_MEMBER_LABELS = (JOB_UID_LABEL,)  # the first member's own labels, not the group's


class group_index:
    __slots__ = ("identifier_annotations",)

    def __init__(self, identifier_annotations: bool) -> None:
        self.identifier_annotations = identifier_annotations

    def __call__(self, pod: Any) -> tuple[str, ...]:
        name = P.group_name(pod, self.identifier_annotations)
        return (f"{pod.metadata.namespace}/{name}",) if name else ()


def _created(pod: Any) -> tuple[Any, str]:
    return (pod.metadata.creation_timestamp or datetime.min, pod.metadata.name or "")


def _role_pod_sets(pods: list[Pod]) -> list[PodSet]:
    """``constructGroupPodSets``: one pod set per role of the runnable or succeeded pods."""
    roles: dict[str, PodSet] = {}
    for pod in pods:
        if not P.runnable_or_succeeded(pod):
            continue
        role = P.role_hash(pod)
        have = roles.get(role)
        if have is None:
            roles[role] = P.pod_set(role, 1, pod)
        else:
            roles[role] = replace(have, count=have.count + 1)
    return [roles[name] for name in sorted(roles)]


@dataclass(slots=True)
class PodGroup:
    """A pod group as the job framework's ``GenericJob`` (and its custom run/stop/finalize)."""

    name: str
    members: list[Pod]  # every pod of the group, by creation then name
    fast_quota_release: bool = False
    now: datetime | None = None
    pods: list[Pod] = field(default_factory=list)  # the members the Workload accounts for
    absent: int = 0

    def __post_init__(self) -> None:
        if not self.pods:
            self.pods = list(self.members)

    @property
    def object(self) -> Pod:
        return self.members[0]

    def total(self) -> int | None:
        return P.group_total_count(self.object)[0]

    def fast_admission(self) -> bool:
        return P.annotations_of(self.object).get(P.GROUP_FAST_ADMISSION) == "true"

    def serving(self) -> bool:
        return P.annotations_of(self.object).get(P.GROUP_SERVING) == "true"

    def unretriable(self) -> bool:
        return any(P.annotations_of(p).get(P.RETRIABLE_IN_GROUP) == "false" for p in self.pods)

    # --- GenericJob ----------------------------------------------------------------------------------
    def skip(self) -> bool:
        return not P.is_managed(self.object)

    def is_suspended(self) -> bool:
        return any(P.suspended(p) for p in self.pods)

    def suspend(self) -> None:
        """Never called: pods are stopped by :meth:`stop_for`."""

    def run_with_pod_sets_info(self, infos: list[PodSetInfo]) -> None:
        raise PodSetInfoError("RunWithPodSetsInfo is not implemented for the Pod object")

    def restore_pod_sets_info(self, infos: list[PodSetInfo]) -> bool:
        return False

    def finished(self) -> tuple[str, bool, bool]:
        if self.serving():
            return "", True, False
        total = self.total()
        if total is None:
            return "failed to check if pod group is finished", True, False
        succeeded = sum(1 for p in self.pods if P.phase(p) == "Succeeded")
        active = any(not P.is_terminated(p) for p in self.pods)
        if succeeded == total or (not active and self.unretriable()):
            return f"Pods succeeded: {succeeded}/{total}.", True, True
        return "", True, False

    def pod_sets(self) -> list[PodSet]:
        if self.fast_admission():
            for pod in self.pods:
                if P.runnable_or_succeeded(pod):
                    return [P.pod_set(P.role_hash(pod), self.total() or 0, pod)]
            return []
        return _role_pod_sets(self.pods)

    def is_active(self) -> bool:
        now = self.now
        for pod in self.pods:
            if P.phase(pod) != "Running":
                continue
            deleted = pod.metadata.deletion_timestamp
            if deleted is not None and self.fast_quota_release:
                continue
            grace = pod.metadata.deletion_grace_period_seconds
            if deleted is not None and grace is not None and now is not None and now > deleted + timedelta(
                seconds=grace
            ):
                continue
            return True
        return False

    def pods_ready(self) -> bool:
        total = self.total()
        if total is None or len(self.pods) < total:
            return False
        return all(P.is_ready(p) for p in self.pods)

    def reclaimable_pods(self) -> list[tuple[str, int]]:
        if self.serving():
            return []
        counts: dict[str, int] = {}
        for pod in self.pods:
            if P.phase(pod) == "Succeeded":
                role = P.role_hash(pod)
                counts[role] = counts.get(role, 0) + 1
        return list(counts.items())

    def priority_class(self) -> str:
        return self.object.spec.priority_class_name or ""

    # --- custom run / stop / finalize ---------------------------------------------------------------
    def run_for(self, client: Any, infos: list[PodSetInfo]) -> list[Pod]:
        by_name = {i.name: i for i in infos}
        started = []
        for pod in self.pods:
            if not P.is_gated(pod):
                continue
            role = P.role_hash(pod)
            info = by_name.get(role)
            if info is None:
                raise PodSetInfoError(f"invalid podset infos: podSetInfo with the name '{role}' is not found")
            pod = copy_model(pod)
            merge_info(pod, info)  # type: ignore[arg-type]  # a Pod has a template's metadata and spec
            P.ungate(pod, info.scheduling_gates)
            started.append(client.update(pod))
        return started

    def stop_for(self, client: Any, reason: str, message: str, now: datetime) -> list[Any]:
        stopped = [pod for pod in self.pods if terminate(client, pod, reason, message, now)]
        if reason == "WorkloadDeleted":
            self.finalize(client)
        return stopped

    def finalize(self, client: Any) -> None:
        for pod in self.members:
            remove_finalizer(client, pod)


def _sort_active(pods: list[Pod]) -> list[Pod]:
    """``sortActivePods``: pods with the finalizer first, ungated first, older first."""
    return sorted(
        pods, key=lambda p: (P.POD_FINALIZER not in (p.metadata.finalizers or ()), P.is_gated(p), _created(p))
    )


def _last_active(pod: Pod, now: datetime) -> datetime:
    """``lastActiveTime``: when it was seen failing (``ContainersReady`` false, reason PodFailed) or
    deleted, whichever came first."""
    failed = now
    for c in (pod.status.conditions if pod.status else None) or ():
        if c.type == "ContainersReady":
            if c.status == "False" and c.reason == "PodFailed" and c.last_transition_time is not None:
                failed = c.last_transition_time
            break
    deleted = pod.metadata.deletion_timestamp or now
    return min(failed, deleted)


def _sort_inactive(pods: list[Pod], now: datetime) -> list[Pod]:
    """``sortInactivePods``: with the finalizer first, last active most recently first, older first."""
    return sorted(
        pods,
        key=lambda p: (
            P.POD_FINALIZER not in (p.metadata.finalizers or ()),
            -(_last_active(p, now) - datetime.min.replace(tzinfo=now.tzinfo)).total_seconds(),
            _created(p),
        ),
    )


class PodGroupReconciler:
    """``ReconcileGenericJob`` for a pod group; ``single`` is the integration's
    :class:`~kbatch.controllers.kueue.jobframework.JobReconciler`, whose later steps it shares."""

    def __init__(self, single: Any) -> None:
        self.single = single
        self.mgr = single.mgr

    def _event(self, obj: Any, reason: str, message: str, type_: str = "Normal") -> None:
        self.single._event(obj, reason, message, type_)

    def reconcile(self, namespace: str, name: str) -> Result | None:
        try:
            return self._reconcile(namespace, name)
        except NotFound:
            return None

    def _reconcile(self, namespace: str, name: str) -> Result | None:
        mgr = self.mgr
        members = sorted(mgr.ctx.cache.list(Pod, index=(BY_GROUP, f"{namespace}/{name}")), key=_created)
        if not members:
            self._finalize_workload(namespace, name)
            return None
        group = PodGroup(name, members, mgr.settings.on("FastQuotaReleaseInPodIntegration"), mgr.now())
        if group.skip():
            return None
        labels = mgr.namespace_labels(namespace)
        selector = mgr.settings.config.namespace_selector
        if labels is None or (selector is not None and not selector.matches(labels)):
            return None
        if not mgr.settings.config.manage_jobs_without_queue_name and not queue_name(group.object):
            return None
        found, wl = self._matching_workload(group)
        if not found:
            return None
        if wl is None:
            if group.finished()[2]:
                group.finalize(mgr.ctx.client)
            elif not group.is_active():  # handleJobWithNoWorkload: wait while a member still runs
                self._create(group)
            return None
        if self._sync_replacement_condition(group, wl):
            return None
        return self.single._after_workload(group, group.object, wl)

    # --- the Workload ------------------------------------------------------------------------------
    def _finalize_workload(self, namespace: str, name: str) -> None:
        """No member left: the group's Workload loses its finalizer (``finalizeWorkloads``; it has no
        controller, so it is not finished as an orphan)."""
        wl = self.mgr.get(Workload, name, namespace)
        if wl is None:
            return
        validate = self.mgr.settings.on("PodIntegrationValidateGroupOwner")
        if validate and not _is_group_workload(wl) and wl.metadata.controller_ref() is not None:
            return
        self.single._remove_finalizer(wl)

    def _matching_workload(self, group: PodGroup) -> tuple[bool, Workload | None]:
        """``FindMatchingWorkloads`` for a group; ``(False, _)`` when this reconcile stops here. A
        group naming a prebuilt Workload (a MultiKueue worker's copy) takes that one (:meth:`_prebuilt`)."""
        mgr = self.mgr
        ns = group.object.metadata.namespace or ""
        name = self.single._prebuilt_name(group.object)
        wl = mgr.get(Workload, name or group.name, ns)
        if name and not self._prebuilt(group, wl, ns, name):
            return False, None
        if wl is None:
            return True, None
        if mgr.settings.on("PodIntegrationValidateGroupOwner") and not _is_group_workload(wl):
            self._event(
                group.object,
                "WorkloadNameConflict",
                f'A Workload named "{group.name}" already exists but is not a pod group workload; '
                "this pod group cannot be admitted",
                "Warning",
            )
            for pod in group.members:
                if not P.runnable_or_succeeded(pod):
                    remove_finalizer(mgr.ctx.client, pod)
            return False, None
        if (wl.spec.maximum_execution_time_seconds if wl.spec else None) != max_execution_time(group.object):
            self._out_of_sync(wl) if name else self._replace(group, wl)
            return False, None
        now = mgr.now()
        kept, excess, replaced, absent = [], [], [], 0
        active = [p for p in group.members if P.runnable_or_succeeded(p)]
        inactive = [p for p in group.members if not P.runnable_or_succeeded(p)]
        for ps in (wl.spec.pod_sets if wl.spec else None) or ():
            count = ps.count or 0
            role_active = _sort_active([p for p in active if P.role_hash(p) == ps.name])
            role_inactive = _sort_inactive([p for p in inactive if P.role_hash(p) == ps.name], now)
            if group.fast_admission():
                absent += 1 if count > 0 and not role_active else 0
            else:
                absent += max(0, count - len(role_active))
            extra = len(role_active) - count
            kept += role_active[: len(role_active) - extra] if extra > 0 else role_active
            excess += role_active[len(role_active) - extra :] if extra > 0 else []
            finalizable = min(len(role_inactive), len(role_inactive) + len(role_active) - count)
            if finalizable > 0:
                replaced += role_inactive[len(role_inactive) - finalizable :]
                kept += role_inactive[: len(role_inactive) - finalizable]
            else:
                kept += role_inactive
        if not kept or not _equivalent(wl, name or group.name, _role_pod_sets(kept)):
            if name:  # ``ensurePrebuiltWorkloadInSync``: finished, never replaced
                self._out_of_sync(wl)
            else:
                self._replace(group, wl)
            return False, None
        group.pods, group.absent = kept, absent
        self._ensure_owners(wl, kept)
        for pod in excess:
            self._delete_excess(pod)
        for pod in replaced:
            remove_finalizer(mgr.ctx.client, pod)
        return True, mgr.get(Workload, group.name, ns) or wl

    def _prebuilt(self, group: PodGroup, wl: Workload | None, namespace: str, name: str) -> bool:
        """``ensureOneWorkload``'s prebuilt branch for a composable job (upstream
        ``reconciler.go``): the named Workload missing → the running members are stopped and the
        reconcile retried (``ErrPrebuiltWorkloadNotFound``; no Workload of the group's own is made);
        controlled by another object → ignored; otherwise owned by every member, and checked against
        the group as a group's own Workload is (a mismatch finishes it ``OutOfSync``)."""
        if wl is None:
            if not group.is_suspended():
                self.single._stop(group, None, "missing workload", "NoMatchingWorkload")
            raise prebuilt.PrebuiltWorkloadNotFound(f"prebuilt workload {namespace}/{name} not found")
        ref = wl.metadata.controller_ref()
        return ref is None or ref.uid in {p.metadata.uid for p in group.members}

    def _out_of_sync(self, wl: Workload) -> None:
        now = self.mgr.now()
        reason, message = prebuilt.OUT_OF_SYNC, prebuilt.OUT_OF_SYNC_MESSAGE
        write_status(self.mgr, wl, lambda st, o: W.finish(st, reason, message, o.metadata.generation, now))

    def _replace(self, group: PodGroup, wl: Workload) -> None:
        """A Workload that no longer matches the group (``ensureOneWorkload``): a suspended group's
        Workload without quota is updated to match (``toUpdate``, ``updateWorkloadToMatchJob``);
        otherwise the group's running pods are stopped and it is deleted, and the next reconcile
        creates a matching one."""
        if group.is_suspended() and not W.has(wl.status, Cond.QUOTA_RESERVED):
            self._update_to_match(group, wl)
            return
        if not group.is_suspended() and not group.finished()[2]:
            self.single._stop(
                group, wl, "No matching Workload; restoring pod templates according to existent Workload",
                "NoMatchingWorkload",
            )
        self.single._remove_finalizer(wl)
        if wl.metadata.deletion_timestamp is None:
            try:
                self.mgr.ctx.client.delete(Workload, wl.metadata.name or "", wl.metadata.namespace)
            except NotFound:
                return
            self._event(
                group.object,
                "DeletedWorkload",
                f"Deleted not matching Workload: {wl.metadata.namespace}/{wl.metadata.name}",
            )

    def _update_to_match(self, group: PodGroup, wl: Workload) -> None:
        """``updateWorkloadToMatchJob``: the spec of a freshly constructed group Workload (keeping
        ``active``) written over the old one, which keeps its name, uid and metadata."""
        fresh = self._compose(group)
        if fresh is None:
            return
        wl = edit(wl)
        fresh.spec.active = wl.spec.active if wl.spec else None  # type: ignore[union-attr]
        wl.spec = fresh.spec
        self.mgr.ctx.client.update(wl)
        self._event(
            group.object,
            "UpdatedWorkload",
            f"Updated not matching Workload for suspended job: {wl.metadata.namespace}/{wl.metadata.name}",
        )

    def _ensure_owners(self, wl: Workload, pods: list[Pod]) -> None:
        """``EnsureWorkloadOwnedByAllMembers``."""
        have = {r.uid for r in wl.metadata.owner_references or ()}
        new = [_owner(p) for p in pods if p.metadata.uid not in have]
        if not new:
            return
        wl = edit(wl)
        wl.metadata.owner_references = [*(wl.metadata.owner_references or ()), *new]
        self.mgr.ctx.client.update(wl)
        self.mgr.recorder.event(wl, "Normal", "OwnerReferencesAdded", f"Added {len(new)} owner reference(s)")

    def _delete_excess(self, pod: Pod) -> None:
        client = self.mgr.ctx.client
        remove_finalizer(client, pod)
        if pod.metadata.deletion_timestamp is None:
            try:
                client.delete(Pod, pod.metadata.name or "", pod.metadata.namespace)
            except NotFound:
                return
            self._event(pod, "ExcessPodDeleted", "Excess pod deleted")

    def _create(self, group: PodGroup) -> None:
        """``ConstructComposableWorkload`` for a group, then create it."""
        wl = self._compose(group)
        if wl is None:
            return
        try:
            self.mgr.ctx.client.create(wl)
        except AlreadyExists:
            raise Conflict(f"workload {wl.metadata.name} already exists") from None
        self._event(
            group.object, "CreatedWorkload", f"Created Workload: {wl.metadata.namespace}/{wl.metadata.name}"
        )

    def _compose(self, group: PodGroup) -> Workload | None:
        """``ConstructComposableWorkload``: the group's Workload, or ``None`` when the group cannot
        have one yet (too few runnable pods, members that disagree, too many roles)."""
        client = self.mgr.ctx.client
        for pod in group.members:
            if not P.runnable_or_succeeded(pod):
                remove_finalizer(client, pod)
        active = _sort_active([p for p in group.members if P.runnable_or_succeeded(p)])
        total = group.total()
        if total is None:
            return None
        if not group.fast_admission() and len(active) < total:
            self._event(
                group.object,
                "ErrWorkloadCompose",
                f"'{group.name}' group has fewer runnable pods than expected",
                "Warning",
            )
            return None
        first = group.object
        for pod in group.members:
            if P.phase(pod) == "Failed":
                continue
            if queue_name(pod) != queue_name(first) or P.group_total_count(pod)[0] != total:
                return None  # an unretryable mismatch: upstream logs it and waits for a change
        for pod in active[total:]:
            self._delete_excess(pod)
        group.pods = active[:total]
        pod_sets = group.pod_sets()
        if len(pod_sets) > MAX_POD_SETS:
            message = f"pod group can't include more than {MAX_POD_SETS} roles"
            self._event(first, "ErrWorkloadCompose", message, "Warning")
            return None
        return self._new_workload(group)

    def _new_workload(self, group: PodGroup) -> Workload:
        """``NewGroupWorkload``: the job framework's Workload of the first member, named after the
        group, owned by every member, marked as a group's."""
        wl = self.single._construct(group, partial_admission=False)
        wl.metadata.name = group.name
        settings = self.mgr.settings
        labels = {k: v for k, v in (wl.metadata.labels or {}).items() if k not in _MEMBER_LABELS}
        labels.update(group_values(group.pods, settings.label_keys_to_copy, P.labels_of, "label"))
        wl.metadata.labels = labels or None
        wl.metadata.owner_references = [_owner(p) for p in group.pods]
        # NewGroupWorkload copies no annotation of the first member's; with CustomMetricLabels
        # (annotation_keys_to_copy is empty without it) the members' merged ones (getByKey)
        copied = settings.annotation_keys_to_copy
        annotations = {k: v for k, v in (wl.metadata.annotations or {}).items() if k not in copied}
        annotations.update(group_values(group.pods, copied, P.annotations_of, "annotation"))
        wl.metadata.annotations = {**annotations, P.IS_GROUP_WORKLOAD: "true"}
        return wl

    # --- conditions ---------------------------------------------------------------------------------
    def _sync_replacement_condition(self, group: PodGroup, wl: Workload) -> bool:
        """``waitingForReplacementPodsCondition`` written when it changed."""
        current = W.find(wl.status, WAITING_FOR_REPLACEMENT)
        waiting = group.absent > 0
        if current is None and not waiting:
            return False
        evicted = W.find(wl.status, Cond.EVICTED)
        if waiting and evicted is not None and evicted.status == "True":
            reason, message = evicted.reason or "", evicted.message or ""
        elif waiting:
            if current is not None and current.status == "True":
                return False
            reason, message = "PodsFailed", "Some Failed pods need replacement"
        else:
            if current is not None and current.status == "False":
                return False
            reason, message = "PodsReady", "No pods need replacement"
        same = current is not None and (current.reason, current.message) == (reason, message)
        if same and (current.status == "True") == waiting:  # type: ignore[union-attr]
            return False
        now = self.mgr.now()

        def mutate(st: WorkloadStatus, obj: Workload) -> bool:
            return W.set_condition(
                st, WAITING_FOR_REPLACEMENT, waiting, reason, message, obj.metadata.generation, now
            )

        return write_status(self.mgr, wl, mutate) is not None


class GroupLabelsMismatch(Exception):
    """``errPodGroupLabelsMismatch`` / ``errPodGroupAnnotationsMismatch``: a retried error (no
    event), like upstream's plain errors."""


def group_values(pods: list[Pod], keys: tuple[str, ...], of: Callable[[Pod], Mapping[str, str]],
                 what: str) -> dict[str, str]:
    """``Pod.getByKey`` for a group: the ``keys`` of every member's labels or annotations (``of``)
    merged; two members with different values for one key are an error (upstream
    ``pod_controller.go`` ``ConstructComposableWorkload``; the group's Workload is not the first
    member's, so it carries no ``kueue.x-k8s.io/job-uid`` either: ``NewGroupWorkload`` skips
    ``ConstructWorkload``)."""
    merged: dict[str, str] = {}
    for pod in pods:
        own = of(pod)
        for key in keys:
            if key not in own:
                continue
            if key in merged and merged[key] != own[key]:
                raise GroupLabelsMismatch(f"constructing workload: pods have different {what} values")
            merged[key] = own[key]
    return merged


def _is_group_workload(wl: Workload) -> bool:
    return (wl.metadata.annotations or {}).get(P.IS_GROUP_WORKLOAD) == "true"


def _owner(pod: Pod) -> OwnerReference:
    meta = pod.metadata
    return OwnerReference(api_version="v1", kind="Pod", name=meta.name or "", uid=meta.uid or "")


def _equivalent(wl: Workload, name: str, job_sets: list[PodSet]) -> bool:
    """``equivalentToWorkload``: same name; every role of the pods, in order, among the Workload's
    pod sets with at least as many pods (counts and extra roles are ignored once it finished)."""
    finished = W.has(wl.status, Cond.FINISHED)
    if wl.metadata.name != name:
        return False
    spec_sets = list((wl.spec.pod_sets if wl.spec else None) or ())
    if not finished and len(spec_sets) < len(job_sets):
        return False
    j = -1
    for ps in job_sets:
        j += 1
        while j < len(spec_sets) and spec_sets[j].name != ps.name:
            j += 1
        if j == len(spec_sets):
            return False
        if not finished and (spec_sets[j].count or 0) < ps.count:
            return False
    return True

