"""The scheduler's cache: ClusterQueues and Cohorts as a quota tree, ResourceFlavors, AdmissionChecks,
and the workloads holding quota.

Upstream: kubernetes-sigs/kueue ``pkg/cache/scheduler/{cache,clusterqueue,cohort,resource_node}.go``
(v0.19.2). The cache is fed by the manager's informer handlers and read by the scheduler (through a
:class:`~kbatch.controllers.kueue.scheduling.snapshot.Snapshot`) and the status controllers; it does
no I/O.

A ClusterQueue is ``active`` unless it is stopped, references a missing ResourceFlavor or a missing
or inactive AdmissionCheck, or is terminating (``updateQueueStatus``; the reasons and messages are
``inactiveReason``'s). A Cohort is created implicitly when a ClusterQueue or Cohort names it and
forgotten when nothing references it and no Cohort object exists. A ClusterQueue under a Cohort whose
ancestry has a cycle is left out of scheduling (``skipInactiveCQReason``). A workload is added when
it holds an active quota reservation (``HasActiveQuotaReservation``); every removal bumps its
ClusterQueue's ``generation`` (``AllocatableResourceGeneration``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kbatch.api.kueue_v1beta2 import AdmissionCheck, ClusterQueue, Cohort, ResourceFlavor, Workload
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.controllers.kueue.concurrent_admission.variants import is_variant
from kbatch.controllers.kueue.model.clusterqueue import (
    ClusterQueueNode,
    fair_weight,
    quotas_of,
    settings_of,
)
from kbatch.controllers.kueue.model.info import InfoOptions, WorkloadInfo, is_true, workload_key
from kbatch.controllers.kueue.model.quota import Cohort as CohortNode
from kbatch.controllers.kueue.model.quota import Tree, add_usage, has_cycle, remove_usage, update_tree
from kbatch.controllers.kueue.model.requests import FlavorResource

__all__ = ["CQState", "KueueCache", "LocalQueueUsage"]


@dataclass
class LocalQueueUsage:
    """What a LocalQueue's workloads hold in its ClusterQueue (``cache/scheduler/localqueue.go``)."""

    reserved: dict[FlavorResource, int] = field(default_factory=dict)
    admitted: dict[FlavorResource, int] = field(default_factory=dict)
    reserving: int = 0
    admitted_count: int = 0


@dataclass
class CQState:
    """The status facts of one ClusterQueue the cache tracks."""

    stopped: bool = False
    terminating: bool = False
    missing_flavors: tuple[str, ...] = ()
    missing_checks: tuple[str, ...] = ()
    inactive_checks: tuple[str, ...] = ()
    admitted_usage: dict[FlavorResource, int] = field(default_factory=dict)
    admitted_count: int = 0
    not_ready: set[str] = field(default_factory=set)
    local_queues: dict[str, LocalQueueUsage] = field(default_factory=dict)

    def inactive_reason(self) -> tuple[str, str]:
        """``clusterQueue.inactiveReason``: the Active condition's reason and message."""
        if self.terminating:
            return Reason.TERMINATING, "Can't admit new workloads; clusterQueue is terminating"
        reasons: list[str] = []
        messages: list[str] = []
        if self.stopped:
            reasons.append(Reason.STOPPED)
            messages.append("is stopped")
        if self.missing_flavors:
            reasons.append(Reason.FLAVOR_NOT_FOUND)
            messages.append(f"references missing ResourceFlavor(s): {','.join(self.missing_flavors)}")
        if self.missing_checks:
            reasons.append(Reason.ADMISSION_CHECK_NOT_FOUND)
            messages.append(f"references missing AdmissionCheck(s): {','.join(self.missing_checks)}")
        if self.inactive_checks:
            reasons.append(Reason.ADMISSION_CHECK_INACTIVE)
            messages.append(f"references inactive AdmissionCheck(s): {','.join(self.inactive_checks)}")
        if not reasons:
            return Reason.READY, "Can admit new workloads"
        return reasons[0], f"Can't admit new workloads: {', '.join(messages)}."

    @property
    def active(self) -> bool:
        return not (
            self.terminating
            or self.stopped
            or self.missing_flavors
            or self.missing_checks
            or self.inactive_checks
        )


def _check_active(ac: AdmissionCheck) -> bool:
    for c in (ac.status.conditions if ac.status else None) or ():
        if c.type == Cond.ACTIVE:
            return c.status == "True"
    return False


class KueueCache:
    """See the module docstring. Every name-keyed map is iterated in sorted order where it matters."""

    def __init__(self, options: InfoOptions | None = None, pods_ready_tracking: bool = False) -> None:
        # the scheduling hash (``SchedulingEquivalenceHashing``) is read only for pending
        # workloads (the queues' infos); the cache's are admitted ones, so it is not computed
        self.options = replace(options or InfoOptions(), equivalence_hashing=False)
        self.pods_ready_tracking = pods_ready_tracking
        self.tree = Tree()
        self.cluster_queues: dict[str, ClusterQueueNode] = {}
        self.states: dict[str, CQState] = {}
        self.cohorts: dict[str, CohortNode] = {}
        self.flavors: dict[str, ResourceFlavor] = {}
        self.checks: dict[str, bool] = {}
        self.assigned: dict[str, str] = {}  # workload key -> ClusterQueue name
        # ``ConcurrentAdmission``: the ClusterQueues with a ``concurrentAdmissionPolicy`` (the
        # manager's set, empty with the gate off); a parent's copied admission holds no quota there,
        # its admitted Variant's does (``Cache.AddOrUpdateWorkload``)
        self.concurrent: set[str] = set()

    # --- cohorts ---------------------------------------------------------------------------------
    def _cohort(self, name: str) -> CohortNode:
        node = self.cohorts.get(name)
        if node is None:
            node = self.cohorts[name] = CohortNode(name, self.tree)
        return node

    def _forget_cohort_if_unused(self, node: CohortNode | None) -> None:
        while node is not None and not node.explicit and not node.child_cqs and not node.child_cohorts:
            parent = node.parent
            if parent is not None:
                parent.child_cohorts.pop(node.name, None)
            self.cohorts.pop(node.name, None)
            node = parent

    def _set_parent(self, node: Any, parent_name: str) -> None:
        old = node.parent
        if old is not None and old.name == parent_name:
            return
        if old is not None:
            (old.child_cohorts if isinstance(node, CohortNode) else old.child_cqs).pop(node.name, None)
        node.parent = None
        if parent_name:
            parent = self._cohort(parent_name)
            node.parent = parent
            (parent.child_cohorts if isinstance(node, CohortNode) else parent.child_cqs)[node.name] = node
        if old is not None:
            update_tree(old)
            self._forget_cohort_if_unused(old)

    def add_or_update_cohort(self, obj: Cohort) -> None:
        """``Cache.AddOrUpdateCohort``: the Cohort's own quotas, fair weight and parent."""
        node = self._cohort(obj.metadata.name or "")
        node.explicit = True
        spec = obj.spec
        node.quotas = quotas_of(spec.resource_groups if spec else None)
        node.fair_weight = fair_weight(spec.fair_sharing if spec else None)
        self._set_parent(node, (spec.parent_name if spec else None) or "")
        update_tree(node)

    def delete_cohort(self, name: str) -> None:
        node = self.cohorts.get(name)
        if node is None:
            return
        node.explicit = False
        node.quotas = {}
        node.fair_weight = 1.0
        self._set_parent(node, "")
        update_tree(node)
        self._forget_cohort_if_unused(node)

    # --- cluster queues ----------------------------------------------------------------------------
    def add_or_update_cluster_queue(self, obj: ClusterQueue) -> None:
        settings = settings_of(obj)
        name = settings.name
        node = self.cluster_queues.get(name)
        quotas = quotas_of(obj.spec.resource_groups if obj.spec else None)
        if node is None:
            node = self.cluster_queues[name] = ClusterQueueNode(settings, self.tree)
            self.states[name] = CQState()
            node.generation = 1
            node.quotas = quotas
        else:
            if quotas != node.quotas or settings.resource_groups != node.settings.resource_groups:
                node.generation += 1
            node.settings = settings
            node.quotas = quotas
            node.fair_weight = settings.fair_weight
        state = self.states[name]
        state.stopped = settings.stop_policy not in ("", "None")
        state.terminating = obj.metadata.deletion_timestamp is not None
        self._set_parent(node, settings.cohort)
        node.subtree_quota = {fr: q.nominal for fr, q in node.quotas.items()}
        update_tree(node)
        self._refresh(name)

    def delete_cluster_queue(self, name: str) -> None:
        node = self.cluster_queues.pop(name, None)
        self.states.pop(name, None)
        if node is None:
            return
        for key in [k for k, cq in self.assigned.items() if cq == name]:
            del self.assigned[key]
        parent = node.parent
        self._set_parent(node, "")
        if parent is not None:
            update_tree(parent)

    def _refresh(self, name: str) -> None:
        node, state = self.cluster_queues[name], self.states[name]
        flavors = node.settings.all_flavors()
        state.missing_flavors = tuple(f for f in flavors if f not in self.flavors)
        checks = [c for c, _ in node.settings.admission_checks]
        state.missing_checks = tuple(sorted(c for c in checks if c not in self.checks))
        state.inactive_checks = tuple(sorted(c for c in checks if c in self.checks and not self.checks[c]))
        node.active = state.active

    def refresh_all(self) -> list[str]:
        """Recompute every ClusterQueue's status facts; the names whose activity changed."""
        changed = []
        for name in sorted(self.cluster_queues):
            before = self.cluster_queues[name].active
            self._refresh(name)
            if self.cluster_queues[name].active != before:
                changed.append(name)
        return changed

    # --- flavors and checks -------------------------------------------------------------------------
    def add_or_update_flavor(self, obj: ResourceFlavor) -> list[str]:
        self.flavors[obj.metadata.name or ""] = obj
        return self.refresh_all()

    def delete_flavor(self, name: str) -> list[str]:
        self.flavors.pop(name, None)
        return self.refresh_all()

    def add_or_update_check(self, obj: AdmissionCheck) -> list[str]:
        self.checks[obj.metadata.name or ""] = _check_active(obj)
        return self.refresh_all()

    def delete_check(self, name: str) -> list[str]:
        self.checks.pop(name, None)
        return self.refresh_all()

    def clusterqueues_using_flavor(self, flavor: str) -> list[str]:
        return [
            n for n in sorted(self.cluster_queues) if flavor in self.cluster_queues[n].settings.all_flavors()
        ]

    def clusterqueues_using_check(self, check: str) -> list[str]:
        return [
            n
            for n in sorted(self.cluster_queues)
            if any(c == check for c, _ in self.cluster_queues[n].settings.admission_checks)
        ]

    # --- workloads -----------------------------------------------------------------------------------
    def add_or_update_workload(self, wl: Workload, info: WorkloadInfo | None = None) -> bool:
        """``Cache.AddOrUpdateWorkload``: added while it holds an active quota reservation."""
        key = workload_key(wl.metadata.namespace, wl.metadata.name)
        assigned = self.assigned.get(key)
        active = wl.spec is None or wl.spec.active is not False
        holds = (
            is_true(wl, Cond.QUOTA_RESERVED)
            and not is_true(wl, Cond.FINISHED)
            and active
            and wl.status is not None
            and wl.status.admission is not None
        )
        if not holds:
            if assigned is not None:
                self._remove(key, assigned)
            return False
        cq_name = wl.status.admission.cluster_queue or ""  # type: ignore[union-attr]
        if cq_name not in self.cluster_queues:
            return False
        if assigned is not None:
            self._remove(key, assigned)
        if cq_name in self.concurrent and not is_variant(wl):
            return False  # a concurrent-admission parent's copied admission holds no quota
        info = info if info is not None and info.obj is wl else WorkloadInfo.of(wl, self.options)
        self._add(info, cq_name)
        return True

    def delete_workload(self, key: str) -> None:
        assigned = self.assigned.get(key)
        if assigned is not None:
            self._remove(key, assigned)

    def _add(self, info: WorkloadInfo, cq_name: str) -> None:
        node, state = self.cluster_queues[cq_name], self.states[cq_name]
        self.assigned[info.key] = cq_name
        node.put_workload(info)
        usage = info.usage()
        for fr, value in usage.items():
            add_usage(node, fr, value)
        admitted = is_true(info.obj, Cond.ADMITTED)
        lq = state.local_queues.setdefault(f"{info.namespace}/{info.queue_name}", LocalQueueUsage())
        lq.reserving += 1
        _accumulate(lq.reserved, usage, 1)
        if admitted:
            _accumulate(state.admitted_usage, usage, 1)
            state.admitted_count += 1
            lq.admitted_count += 1
            _accumulate(lq.admitted, usage, 1)
        if self.pods_ready_tracking and not is_true(info.obj, Cond.PODS_READY):
            state.not_ready.add(info.key)

    def _remove(self, key: str, cq_name: str) -> None:
        self.assigned.pop(key, None)
        node, state = self.cluster_queues.get(cq_name), self.states.get(cq_name)
        if node is None or state is None:
            return
        info = node.workloads.get(key)
        if info is None:
            return
        usage = info.usage()
        for fr, value in usage.items():
            remove_usage(node, fr, value)
        node.drop_workload(key)
        node.generation += 1
        state.not_ready.discard(key)
        lq = state.local_queues.get(f"{info.namespace}/{info.queue_name}")
        if lq is not None:
            lq.reserving -= 1
            _accumulate(lq.reserved, usage, -1)
        if is_true(info.obj, Cond.ADMITTED):
            _accumulate(state.admitted_usage, usage, -1)
            state.admitted_count -= 1
            if lq is not None:
                lq.admitted_count -= 1
                _accumulate(lq.admitted, usage, -1)

    def is_added(self, key: str, cq_name: str) -> bool:
        node = self.cluster_queues.get(cq_name)
        return node is not None and key in node.workloads

    def pods_ready_for_all(self) -> bool:
        """``PodsReadyForAllAdmittedWorkloads``."""
        return not self.pods_ready_tracking or not any(s.not_ready for s in self.states.values())

    # --- queries -----------------------------------------------------------------------------------
    def active(self, name: str) -> bool:
        node = self.cluster_queues.get(name)
        return node is not None and node.active

    def schedulable(self, name: str) -> bool:
        """Active and not under a Cohort whose ancestry has a cycle (``skipInactiveCQReason``)."""
        node = self.cluster_queues.get(name)
        return node is not None and node.active and not (node.parent is not None and has_cycle(node.parent))

    def local_queue_usage(self, cq_name: str, lq_key: str) -> LocalQueueUsage:
        state = self.states.get(cq_name)
        return (state.local_queues.get(lq_key) if state else None) or LocalQueueUsage()


def _accumulate(into: dict[FlavorResource, int], usage: dict[FlavorResource, int], sign: int) -> None:
    for fr, value in usage.items():
        into[fr] = into.get(fr, 0) + sign * value
