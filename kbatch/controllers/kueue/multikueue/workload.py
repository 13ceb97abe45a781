"""The MultiKueue workload reconciler: dispatch a Workload to workers, follow the one that admits it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(``wlReconciler.Reconcile``, ``reconcileGroup``, ``nominateAndSynchronizeWorkers``,
``syncAdmittingRemoteState``; table ``workload_test.go``). For a Workload with a MultiKueue check
(not Rejected), owned by a job kind with an adapter whose ``managedBy`` is MultiKueue — else the check
is Rejected ("No multikueue adapter found…", "The owner is not managed by Kueue: …"):

* deleted → every remote job and Workload is removed;
* 1. an elastic Workload finished as ``WorkloadSliceReplaced``, or a scale-up slice still without
  quota, touches no worker (:mod:`.elastic`: its job runs on under the slice chain);
* 2. finished or without quota → every remote copy is removed (retried after ``workerLostTimeout``
  while a worker is unreachable);
* 3. a remote Workload finished → the job's status is synced and the local Workload finishes with the
  remote's reason and message (a remote ``OutOfSync`` finish of a Workload that is not elastic
  resets a Ready check to Retry instead);
* 4. a remote Workload evicted → with the local one evicted too, the job's status is synced; else a
  Ready check goes Retry ("Workload evicted on worker cluster: …");
* 5. remote copies whose spec differs are removed (an elastic Workload's scale-down and a changed
  priority are written into the copy instead);
* 6. a remote Workload admitted (the earliest): the other copies are removed; the local Workload
  evicted (still holding quota) → the admitting copy gets ``DeactivationTarget``
  (``EvictedOnManagerCluster``) and nothing else happens; otherwise the remote job is
  created or its status synced back, and the check goes Ready ("The workload was admitted on
  \"w\""), ``status.clusterName`` is set, the nominations cleared and the delayed topology
  requests the admitting copy placed marked Ready (:mod:`.delayed_topology`); requeued after
  ``workerLostTimeout``; with none admitted but the check Ready: the admitting worker unreachable
  waits out ``workerLostTimeout`` from the loss, then Retry ("Admitting remote lost"); reachable,
  Retry ("Admitting remote no longer exists");
* 7. ``MultiKueueOrchestratedPreemption`` (alpha, off): the copies carry the closed MultiKueue
  preemption gate, and the gate of the copy that signalled ``BlockedOnPreemptionGates`` first is
  opened, one worker per ``singleClusterPreemptionTimeout`` (:mod:`.orchestrated_preemption`);
* 8./nomination: while the check is Pending and no cluster is recorded, the AllAtOnce dispatcher
  nominates every connected worker (``status.nominatedClusterNames``) and creates a copy on each;
  an elastic slice that carries a ``clusterName`` (a scale-up's, copied by the scheduler from the
  slice it replaces) gets a copy on that worker only, nothing nominated.

The Incremental dispatcher nominates in rounds (:mod:`.dispatcher`); the batch/v1 Job adapter
patches an elastic Job's remote copy in place (:mod:`.elastic`). Not modelled: external dispatchers
(their nominations are taken as they are, as upstream), multi-workload adapters.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from kbatch.api.kueue_v1beta2 import AdmissionCheckState, Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue import preemption_gates as gates
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.multikueue import elastic
from kbatch.controllers.kueue.multikueue.adapters import MultiKueueAdapter, owned_by
from kbatch.controllers.kueue.multikueue.configs import BadConfig, config_from_ref, multikueue_check_state
from kbatch.controllers.kueue.multikueue.delayed_topology import (
    needs_delayed_topology_update,
    update_delayed_topology_request,
)
from kbatch.controllers.kueue.multikueue.group import (
    Group,
    best_match,
    clone_for_create,
    for_each,
    spec_out_of_sync,
)
from kbatch.controllers.kueue.multikueue.options import ALL_AT_ONCE
from kbatch.controllers.kueue.multikueue.orchestrated_preemption import gate_to_open
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.controllers.kueue.workloadslicing import enabled
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = ["DeletedWorkloads", "WorkloadReconciler", "has_checks"]

log = logging.getLogger("kbatch.kueue.multikueue")
SYNC_DEFERRED_REQUEUE = 2.0  # syncDeferredRequeueAfter
EVICTED_ON_MANAGER = "EvictedOnManagerCluster"  # kueue.WorkloadEvictedOnManagerCluster


def has_checks(wl: Workload) -> bool:
    """Only a Workload with admission checks can have a MultiKueue one: the others' events are not
    queued (upstream queues every Workload and skips them in the reconcile)."""
    return bool(wl.status is not None and wl.status.admission_checks)


class DeletedWorkloads:
    """``deletedWlCache``: the last state of deleted Workloads with checks, so their remotes can be
    removed (the reconcile drops an entry once handled)."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Workload] = {}

    def on_add(self, wl: Workload) -> None:
        pass

    def on_update(self, old: Workload, new: Workload) -> None:
        pass

    def on_delete(self, wl: Workload) -> None:
        if has_checks(wl):
            self.items[(wl.metadata.namespace or "", wl.metadata.name or "")] = wl


class WorkloadReconciler:
    """``wlReconciler`` (see the module docstring)."""

    def __init__(self, mk: MultiKueueContext, deleted: DeletedWorkloads) -> None:
        self.mk = mk
        self.deleted = deleted

    # -- reading ---------------------------------------------------------------------------------
    def _adapter(self, wl: Workload) -> tuple[MultiKueueAdapter | None, Any]:
        refs = wl.metadata.owner_references or ()
        owner = wl.metadata.controller_ref() or (refs[0] if refs else None)
        if owner is None:
            return None, None
        return self.mk.adapters.get(f"{owner.api_version}, Kind={owner.kind}"), owner

    def _group(self, wl: Workload, check: str, adapter: MultiKueueAdapter, owner: str) -> Group:
        """``readGroup``: the connected workers of the check's config and their copies."""
        ac = self.mk.get_check(check)
        config = config_from_ref(ac, self.mk.get)  # BadConfig: retried
        group = Group(wl, check, adapter, owner, self.mk.options.origin)
        clusters = self.mk.clusters
        for name in (config.spec.clusters if config.spec else None) or ():
            state = clusters.connected(name) if clusters is not None else None
            if state is None or state.client is None:
                group.unavailable.append(name)
                continue
            group.clients[name] = state.client
            group.remotes[name] = state.client.get(Workload, wl.metadata.name or "", wl.metadata.namespace)
        return group

    # -- writing ---------------------------------------------------------------------------------
    def _set_check(self, wl: Workload, check: str, state: str, message: str, extra: Any = None) -> None:
        """``updateACS`` / ``SetAdmissionCheckState``: the check's state and message (time moves on a
        state change); ``extra(status)`` changes more of the status in the same write."""
        now = self.mk.ctx.clock.now_datetime()

        def mutate(status: WorkloadStatus, _: Workload) -> bool:
            before = status.model_dump()
            for acs in status.admission_checks or ():
                if acs.name == check:
                    if acs.state != state:
                        acs.last_transition_time = now
                    acs.state, acs.message = state, W.truncate(message)
            if extra is not None:
                extra(status)
            return status.model_dump() != before

        write_status(self.mk.mgr, wl, mutate)

    def _update_acs(self, wl: Workload, acs: AdmissionCheckState, state: str, message: str) -> str:
        """``updateACS``: the message records the state left ("…, Previously: \"Pending\""); returns
        the message written."""
        message = W.truncate(f'{message}, Previously: "{acs.state or ""}"')
        self._set_check(wl, acs.name or "", state, message)
        return message

    # -- the reconcile ---------------------------------------------------------------------------
    def reconcile(self, request: Request) -> Result | None:
        key = (request.namespace, request.name)
        wl = self.mk.get(Workload, request.name, request.namespace)
        deleted = wl is None or wl.metadata.deletion_timestamp is not None
        if wl is None:
            wl = self.deleted.items.get(key)
            if wl is None:
                return None
        acs = multikueue_check_state(wl, self.mk.get)
        if acs is None or acs.state == "Rejected":
            self.deleted.items.pop(key, None)
            return None
        adapter, owner = self._adapter(wl)
        if adapter is None:
            message = (
                f'No multikueue adapter found for owner kind "{owner.api_version}, Kind={owner.kind}"'
                if owner is not None
                else "No multikueue adapter found"
            )
            self._update_acs(wl, acs, "Rejected", message)
            return None
        if not deleted:
            managed, reason = adapter.is_managed(self.mk.get, request.namespace, owner.name)
            if not managed:
                self._update_acs(wl, acs, "Rejected", f"The owner is not managed by Kueue: {reason}")
                return None
        try:
            group = self._group(wl, acs.name or "", adapter, owner.name)
        except BadConfig as err:
            raise RuntimeError(f'admission check "{acs.name}": {err}') from None
        if deleted:
            for cluster in sorted(group.remotes):
                group.remove_remote(cluster)
            self.deleted.items.pop(key, None)
            return None
        return self._reconcile_group(group, acs)

    def _elastic(self, wl: Workload) -> bool:
        """``IsElasticWorkload``: the gate on and the Workload annotated elastic."""
        return enabled(wl, self.mk.mgr.settings.on(elastic.GATE))

    def _reconcile_group(self, group: Group, acs: AdmissionCheckState) -> Result | None:
        local, timeout = group.local, self.mk.options.worker_lost_timeout
        finished = W.has(local.status, Cond.FINISHED)
        is_elastic = self._elastic(local)
        if elastic.ignored(local, is_elastic, finished):  # 1.
            return None
        if finished or not W.has(local.status, Cond.QUOTA_RESERVED):  # 2.
            for_each(sorted(group.remotes), group.remove_remote)
            return Result(requeue_after=timeout) if group.unavailable else None
        done, remote = best_match(group.remotes, Cond.FINISHED)  # 3.
        if done is not None:
            return self._finish(group, acs, done, remote, is_elastic)
        evicted, remote = best_match(group.remotes, Cond.EVICTED)  # 4.
        if evicted is not None:
            result = self._remote_evicted(group, acs, remote)
            if not isinstance(result, bool):
                return result
        self._drop_out_of_sync(group, is_elastic)  # 5.
        admitted, remote = best_match(group.remotes, Cond.ADMITTED)  # 6.
        if admitted is None and acs.state == "Ready":
            return self._admitting_lost(group, acs)
        if admitted is not None:
            return self._follow(group, acs, remote)
        again = self._open_preemption_gate(group) if self._orchestrated() else 0.0  # 7.
        cluster_name = local.status.cluster_name if local.status is not None else None
        if elastic.skip_nomination(acs.state, cluster_name, is_elastic):  # 8.
            return Result(requeue_after=again) if again else None
        self._nominate(group, elastic.nominated(local, is_elastic))
        return Result(requeue_after=again) if again else None

    def _orchestrated(self) -> bool:
        return self.mk.mgr.settings.on("MultiKueueOrchestratedPreemption")

    def _open_preemption_gate(self, group: Group) -> float:
        """Step 7 (``MultiKueueOrchestratedPreemption``): open the MultiKueue preemption gate of the
        copy :func:`~.orchestrated_preemption.gate_to_open` picks; when to look again."""
        now = self.mk.mgr.now()
        cluster, again = gate_to_open(group.remotes, now)
        remote = group.remotes.get(cluster) if cluster is not None else None
        if cluster is not None and remote is not None:
            status = W.status_of(remote)
            gates.set_position(remote, status, gates.MULTIKUEUE_GATE, gates.OPEN, now)
            group.clients[cluster].update_status(remote.model_copy(update={"status": status}))
        return again

    def _finish(
        self, group: Group, acs: AdmissionCheckState, done: Any, remote: str, is_elastic: bool
    ) -> Result | None:
        """3.: a remote OutOfSync finish of a Workload that is not elastic resets a Ready check to
        Retry; any other copies the job's status and finishes the local Workload."""
        if done.reason == "OutOfSync" and elastic.resets_on_out_of_sync(is_elastic):
            if acs.state == "Ready":
                message = self._update_acs(
                    group.local,
                    acs,
                    "Retry",
                    f'Remote workload on worker cluster "{remote}" is '
                    "out of sync with its user job, resetting for re-dispatch",
                )
                self.mk.event(group.local, "MultiKueue", message, "Warning")
            return None
        client = group.clients[remote]
        owned_by(client, group.adapter.model, group.namespace, group.owner, group.origin)
        group.adapter.sync_job(
            self.mk.get, client, group.namespace, group.owner, group.local.metadata.name or "", group.origin
        )
        now = self.mk.ctx.clock.now_datetime()
        generation = group.local.metadata.generation
        write_status(
            self.mk.mgr,
            group.local,
            lambda st, _: W.finish(st, done.reason or "", done.message or "", generation, now),
        )
        return None

    def _remote_evicted(self, group: Group, acs: AdmissionCheckState, remote: str) -> Result | bool | None:
        """4.: ``False`` when the reconcile goes on."""
        if W.has(group.local.status, Cond.EVICTED):
            client = group.clients[remote]
            owned_by(client, group.adapter.model, group.namespace, group.owner, group.origin)
            deferred = group.adapter.sync_job(
                self.mk.get,
                client,
                group.namespace,
                group.owner,
                group.local.metadata.name or "",
                group.origin,
            )
            return Result(requeue_after=SYNC_DEFERRED_REQUEUE) if deferred else None
        if acs.state == "Ready":
            cluster = (group.local.status.cluster_name if group.local.status else None) or ""
            message = (
                f'Workload evicted on worker cluster: "{cluster}", resetting for re-admission. '
                f'Previously: "{acs.state}"'
            )
            self._set_check(group.local, acs.name or "", "Retry", message)
            self.mk.event(group.local, "MultiKueue", message)
            return None
        return False

    def _drop_out_of_sync(self, group: Group, is_elastic: bool) -> None:
        """5.: a copy whose spec differs is removed, unless the manager scaled an elastic Workload
        down (the copy takes its spec) or only its priority changed (updated in place)."""
        for cluster in sorted(group.remotes):
            remote = group.remotes[cluster]
            if remote is None or not spec_out_of_sync(group.local, remote):
                continue
            shrunk = elastic.scaled_down_spec(group.local, remote, is_elastic)
            if shrunk is not None:
                group.clients[cluster].update(remote.model_copy(update={"spec": shrunk}))
                continue
            local_spec, remote_spec = group.local.spec, remote.spec
            if (
                local_spec is not None
                and remote_spec is not None
                and (
                    local_spec.priority != remote_spec.priority
                    or local_spec.priority_class_ref != remote_spec.priority_class_ref
                )
            ):
                updated = remote_spec.model_copy(
                    update={
                        "priority": local_spec.priority,
                        "priority_class_ref": local_spec.priority_class_ref,
                    }
                )
                if not spec_out_of_sync(group.local, remote.model_copy(update={"spec": updated})):
                    group.clients[cluster].update(remote.model_copy(update={"spec": updated}))
                    continue
            group.remove_remote(cluster)

    def _admitting_lost(self, group: Group, acs: AdmissionCheckState) -> Result | None:
        """6a."""
        admitting = (group.local.status.cluster_name if group.local.status else None) or ""
        if admitting and admitting in group.unavailable:
            clusters = self.mk.clusters
            lost = clusters.lost_since(admitting) if clusters is not None else self.mk.now()
            remaining = self.mk.options.worker_lost_timeout - (self.mk.now() - lost)
            if remaining > 0:
                return Result(requeue_after=remaining)
            self._update_acs(group.local, acs, "Retry", "Admitting remote lost")
            return None
        if not admitting:
            self._update_acs(
                group.local,
                acs,
                "Retry",
                "Admission check is Ready but no admitting cluster is "
                "recorded; this is unexpected, please report it",
            )
            return None
        self._update_acs(group.local, acs, "Retry", "Admitting remote no longer exists")
        return None

    def _follow(self, group: Group, acs: AdmissionCheckState, admitting: str) -> Result | None:
        """6b.: keep the admitting copy only, sync the job, the check Ready."""
        for cluster in sorted(group.remotes):
            if cluster != admitting and group.remotes[cluster] is not None:
                group.remove_remote(cluster)
        client = group.clients[admitting]
        evicted = W.find(group.local.status, Cond.EVICTED)
        if evicted is not None and evicted.status == "True":
            self._evict_remote(group, admitting, evicted.message or "")
            return None
        owned_by(client, group.adapter.model, group.namespace, group.owner, group.origin)
        deferred = group.adapter.sync_job(
            self.mk.get, client, group.namespace, group.owner, group.local.metadata.name or "", group.origin
        )
        if self._admitted_on(group, acs, admitting):
            self.mk.metrics.admitted_on(group.local, admitting)
        return Result(
            requeue_after=SYNC_DEFERRED_REQUEUE if deferred else self.mk.options.worker_lost_timeout
        )

    def _evict_remote(self, group: Group, admitting: str, message: str) -> None:
        """6b., the local Workload evicted while it holds quota (preempted, its ClusterQueue stopped,
        another check in Retry…): the admitting copy gets ``DeactivationTarget``
        (``EvictedOnManagerCluster``, "Evicted on manager: <message>"), so the worker deactivates and
        evicts it and stops its job; the job's stopped status then comes back through 4., and once the
        local job is inactive the manager's eviction releases the quota and 2. removes the copies."""
        remote = group.remotes[admitting]
        if remote is None:
            return
        status = W.status_of(remote)
        changed = W.set_deactivation_target(
            status,
            EVICTED_ON_MANAGER,
            W.truncate(f"Evicted on manager: {message}"),
            remote.metadata.generation,
            self.mk.ctx.clock.now_datetime(),
        )
        if changed:
            group.clients[admitting].update_status(remote.model_copy(update={"status": status}))

    def _admitted_on(self, group: Group, acs: AdmissionCheckState, admitting: str) -> bool:
        """``syncAdmittingRemoteState``: unless the check is Retry or Rejected, Ready, the cluster
        recorded, the nominations cleared; and, in the same write, the delayed topology requests the
        admitting copy placed marked Ready (:mod:`.delayed_topology`). Whether the check turned
        Ready now (what ``multikueue_workloads_admitted_total`` counts)."""
        remote = group.remotes[admitting]
        topology = needs_delayed_topology_update(group.local, remote)
        ready = acs.state not in ("Retry", "Rejected")
        recorded = group.local.status.cluster_name if group.local.status else None
        if ready and recorded is not None and recorded != admitting:
            raise RuntimeError(
                f'attempting to change immutable ClusterName from "{recorded}" to "{admitting}"'
            )

        def record(status: WorkloadStatus) -> None:
            if topology:
                update_delayed_topology_request(status, remote)
            if ready:
                status.cluster_name = admitting
                status.nominated_cluster_names = None

        message = f'The workload was admitted on "{admitting}"'
        if ready and (acs.state != "Ready" or acs.message != message or recorded is None):
            self._set_check(group.local, acs.name or "", "Ready", message, record)
            self.mk.event(group.local, "MultiKueue", message)
        elif topology:
            write_status(self.mk.mgr, group.local, lambda st, _: update_delayed_topology_request(st, remote))
        return ready and acs.state != "Ready"

    def _nominate(self, group: Group, elastic_target: list[str] | None) -> Result | None:
        """``nominateAndSynchronizeWorkers``: an elastic slice goes to its ``clusterName`` only
        (``elastic_target``, nothing recorded); else AllAtOnce nominates every connected worker, and
        the Incremental dispatcher's nominations (:mod:`.dispatcher`) are taken as they are."""
        local = group.local
        if any(
            a.state != "Ready"
            for a in (local.status.admission_checks if local.status else None) or ()
            if a.name != group.check
        ):
            return None
        if elastic_target is not None:
            nominated = elastic_target
        elif self.mk.options.dispatcher_name == ALL_AT_ONCE:
            nominated = sorted(group.remotes)
            self._record_nominations(local, nominated)
        else:
            nominated = list((local.status.nominated_cluster_names if local.status else None) or ())
        missing = [c for c in nominated if c not in group.clients]

        def synchronize(cluster: str) -> None:
            if cluster in nominated and group.remotes[cluster] is None:
                gated = elastic_target is None and self._orchestrated()
                group.clients[cluster].create(clone_for_create(local, group.origin, gated))
                self.mk.metrics.dispatched_to(local, cluster)
            elif cluster not in nominated and group.remotes[cluster] is not None:
                group.remove_remote(cluster)

        for_each(sorted(group.remotes), synchronize)
        if missing:
            raise RuntimeError(f"cluster {missing[0]}: no remote client for nominated cluster")
        return None

    def _record_nominations(self, local: Workload, nominated: list[str]) -> None:
        have = sorted((local.status.nominated_cluster_names if local.status else None) or ())
        if have == nominated:
            return

        def nominate(status: WorkloadStatus, _: Workload) -> bool:
            status.nominated_cluster_names = list(nominated) or None
            return True

        write_status(self.mk.mgr, local, nominate)
