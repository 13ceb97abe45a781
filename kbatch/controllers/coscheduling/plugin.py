"""The Coscheduling scheduler plugin (kubernetes-sigs/scheduler-plugins ``pkg/coscheduling/coscheduling.go``
and ``core/core.go``): all-or-nothing placement of the pods labelled ``scheduling.x-k8s.io/pod-group``.

* **QueueSort**: higher priority first; then the group's creation time, or the time it last failed
  (so a failing group does not block the queue's head), or, for a pod without a group, its own
  time; then the pod's ``namespace/name``. A pod without the label keeps PrioritySort's order
  among its peers (kbatch breaks its ties by arrival, as PrioritySort does here).
* **PreFilter** (``UnschedulableAndUnresolvable``: no preemption for it): the group is in back-off;
  fewer non-terminal labelled pods than ``minMember``; scheduling-gated pods make the quorum
  unreachable; ``minResources`` (plus ``minMember`` pod slots) not free in the cluster, checked once
  per ``permitWaitingTimeSeconds`` while it passes.
* **PostFilter** (a group pod fit no node): nothing when ``minMember`` pods are already assigned,
  or when the share still missing is at most ``podGroupRejectPercentage``; otherwise every waiting
  sibling is rejected ("optimistic rejection in PostFilter"), the group backs off for
  ``podGroupBackoffSeconds`` (when it has its quorum of pods) and is marked failed.
* **Permit**: a pod with a label but no PodGroup is rejected ("PodGroup not found"); the pod is
  assigned; once ``minMember`` are assigned, every waiting sibling is allowed and the pod goes on;
  otherwise it waits (``scheduleTimeoutSeconds``, else ``permitWaitingTimeSeconds``), the first one
  asking the scheduler to activate its siblings.
* **Unreserve** (a pod's timeout, rejection or failed bind): the pod is unassigned, every waiting
  sibling rejected ("rejection in Unreserve"), the group marked failed.

Waiting pods hold their node's resources in the scheduler only; nothing binds before the quorum.
kbatch differences (docs/gang.md): PreFilter's rejection does not run PostFilter (kbatch's
framework ends the attempt there); a pod without the label gets no PostFilter reason (upstream adds
"can not find pod group" to its FailedScheduling message); Pod/Add events requeue a rejected pod
only for a pod of its own group (upstream registers no hint); the resource-gap message prints the
missing quantities plainly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.pod_resources import CPU, PODS
from kbatch.api.quantity import Quantity
from kbatch.api.scheduling_x_v1alpha1 import POD_GROUP_LABEL, PodGroup
from kbatch.controllers.coscheduling.args import CoschedulingArgs, parse_args
from kbatch.controllers.coscheduling.manager import GroupMemory, full_name
from kbatch.controllers.scheduler.convert import quantity_map
from kbatch.controllers.scheduler.events import (
    QUEUE,
    QUEUE_SKIP,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
    on_pod,
)
from kbatch.controllers.scheduler.framework import Code, CycleState, PostFilterResult, Status
from kbatch.controllers.scheduler.services import KindEvents
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["NAME", "POD_GROUP_EVENT", "Coscheduling", "new"]

NAME = "Coscheduling"
POD_GROUP_EVENT = "podgroups.v1alpha1.scheduling.x-k8s.io"  # the plugin's custom event resource
_ACTIVATE = "PermitCoscheduling"  # cycle-state key: this pod asks to activate its siblings
_TERMINAL = ("Succeeded", "Failed")


def group_of(pod: PodInfo) -> str:
    return pod.labels.get(POD_GROUP_LABEL, "")


class Coscheduling:
    name = NAME

    def __init__(self, args: CoschedulingArgs, handle: Any) -> None:
        self.args = args
        self.handle = handle
        self.memory = GroupMemory()
        self.reject_threshold = args.pod_group_reject_percentage / 100.0

    # -- helpers ---------------------------------------------------------------------------------
    def _now(self) -> float:
        return float(self.handle.clock.now())

    def pod_group(self, namespace: str, name: str) -> PodGroup | None:
        try:
            return self.handle.cache.get(PodGroup, name, namespace)
        except NotFound:
            return None

    def _members(self, namespace: str, group: str) -> list[Pod]:
        """The group's pods as the scheduler's pod informer lists them (terminal pods excluded)."""
        pods = self.handle.cache.list(Pod, namespace, labels={POD_GROUP_LABEL: group})
        return [p for p in pods if (p.status.phase if p.status else None) not in _TERMINAL]

    def _creation(self, pg: PodGroup) -> float:
        created = pg.metadata.creation_timestamp
        return (created - self.handle.clock.to_datetime(0)).total_seconds() if created else 0.0

    def _waiting_siblings(self, namespace: str, group: str) -> list[Any]:
        services = self.handle.scheduler
        if services is None:
            return []
        return [w for w in services.waiting_pods()
                if w.pod.namespace == namespace and group_of(w.pod) == group]

    def _reject(self, namespace: str, group: str, message: str) -> None:
        siblings = self._waiting_siblings(namespace, group)
        if siblings:
            self.handle.scheduler.reject_all(siblings, self.name, message)

    # -- QueueSort ---------------------------------------------------------------------------------
    def sort_key(self, pod: PodInfo, timestamp: float) -> tuple[Any, ...]:
        """Priority, then the pod group's creation (or last failure); a pod without a group by its
        own creation. The queue timestamp is not used (scheduler-plugins orders by the pod group's
        creation time, its own ``InitialAttemptTimestamp`` for a pod without one)."""
        group = group_of(pod)
        if not group:
            return (-pod.priority, pod.creation, "", pod.seq)
        failed = self.memory.last_failed.get(full_name(pod.namespace, group))
        if failed is not None:
            return (-pod.priority, failed, pod.key, pod.seq)
        pg = self.pod_group(pod.namespace, group)
        return (-pod.priority, self._creation(pg) if pg is not None else pod.creation, pod.key, pod.seq)

    # -- PreFilter ---------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Any) -> Status | None:
        group = group_of(pod)
        if not group:
            return None
        pg = self.pod_group(pod.namespace, group)
        if pg is None:
            return None
        message = self._pre_filter_error(pod, group, pg, snapshot)
        return Status.unresolvable(self.name, message) if message else None

    def _pre_filter_error(self, pod: PodInfo, group: str, pg: PodGroup, snapshot: Any) -> str:
        full, now = full_name(pod.namespace, group), self._now()
        if self.memory.in_backoff(full, now):
            return f"podGroup {full} failed recently"
        members = self._members(pod.namespace, group)
        gap = pg.min_member - len(members)
        if gap > 0:
            return (f"pre-filter pod {pod.name} cannot find enough sibling pods, current pods number: "
                    f"{len(members)}, minMember of group: {pg.min_member}")
        for member in members:  # gated pods cannot join the quorum (upstream checks inside the loop)
            if member.spec.scheduling_gates:
                gap += 1
            if gap > 0:
                return f"pre-filter pod {pod.name} cannot proceed due to gated pods in the same PodGroup"
        if not pg.spec.min_resources or self.memory.resources_permitted(full, now):
            return ""
        wanted = {**quantity_map(pg.spec.min_resources), PODS: pg.min_member}
        gap_left = cluster_gap(snapshot, wanted, full)
        if gap_left:
            missing = " ".join(f"{k}:{_quantity(k, v)}" for k, v in sorted(gap_left.items()))
            return f"resource gap: map[{missing}]"
        self.memory.permit_resources(full, now, self.args.permit_waiting_time_seconds)
        return ""

    # -- PostFilter --------------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: PodInfo, snapshot: Any,
                    statuses: Mapping[str, Status]) -> PostFilterResult:
        group = group_of(pod)
        if not group:
            return PostFilterResult(None)  # kbatch: no reason for pods outside any group
        pg = self.pod_group(pod.namespace, group)
        if pg is None:
            return PostFilterResult(None, message="can not find pod group")
        full = full_name(pod.namespace, group)
        assigned = self.memory.assigned_count(full)
        if assigned >= pg.min_member:
            return PostFilterResult(None)
        if (pg.min_member - assigned) / pg.min_member <= self.reject_threshold:
            return PostFilterResult(None)
        self._reject(pod.namespace, group, "optimistic rejection in PostFilter")
        now = self._now()
        backoff = self.args.pod_group_backoff_seconds
        if backoff > 0 and len(self._members(pod.namespace, group)) >= pg.min_member:
            self.memory.back_off(full, now, backoff)
        self.memory.failed(full, now)
        return PostFilterResult(None, message=f"PodGroup {full} gets rejected due to Pod {pod.name} is "
                                              "unschedulable even after PostFilter")

    @staticmethod
    def post_filter_per_pod(pod: PodInfo) -> bool:
        """PostFilter names a group's pod and acts on its group: the scheduler must not answer it with
        an equal pod's cached failure (upstream runs PostFilter for every failed pod)."""
        return bool(group_of(pod))

    # -- Reserve / Permit --------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        group = group_of(pod)
        if not group or self.pod_group(pod.namespace, group) is None:
            return
        full = full_name(pod.namespace, group)
        self.memory.unassign(full, pod.name)
        self._reject(pod.namespace, group, "rejection in Unreserve")
        self.memory.failed(full, self._now())

    def permit(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        group = group_of(pod)
        if not group:
            return None
        pg = self.pod_group(pod.namespace, group)
        if pg is None:
            return Status.unschedulable(self.name, "PodGroup not found")
        full = full_name(pod.namespace, group)
        count = self.memory.assign(full, pod.name)
        if count >= pg.min_member:
            self.memory.last_failed.pop(full, None)
            for waiting in self._waiting_siblings(pod.namespace, group):
                waiting.allow(self.name)
            return None
        if count == 1:
            state[_ACTIVATE] = True  # only the first assigned pod activates its siblings (issue #682)
        timeout = pg.spec.schedule_timeout_seconds or self.args.permit_waiting_time_seconds
        self._activate_siblings(pod, group, state)
        return Status(Code.WAIT, plugin=self.name, timeout=float(timeout))

    def _activate_siblings(self, pod: PodInfo, group: str, state: CycleState) -> None:
        services = self.handle.scheduler
        if not state.get(_ACTIVATE) or services is None:
            return
        keys = [f"{p.metadata.namespace}/{p.metadata.name}" for p in self.handle.cache.list(
            Pod, pod.namespace, labels={POD_GROUP_LABEL: group}) if p.metadata.uid != pod.uid]
        if keys:
            services.activate(keys)

    # -- events ------------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pod/Add and the PodGroup's Add|Update (upstream ``EventsToRegister``)."""
        return [on_pod(ActionType.ADD, self._after_pod_added),
                ClusterEventWithHint(ClusterEvent(POD_GROUP_EVENT, ActionType.ADD | ActionType.UPDATE),
                                     self._after_pod_group_change)]

    @staticmethod
    def _after_pod_added(pod: PodInfo, old: Any, new: PodInfo | None) -> QueueingHint:
        group = group_of(pod)
        if new is None or not group:
            return QUEUE
        return QUEUE if new.namespace == pod.namespace and group_of(new) == group else QUEUE_SKIP

    @staticmethod
    def _after_pod_group_change(pod: PodInfo, old: Any, new: Any) -> QueueingHint:
        group = group_of(pod)
        if not group or new is None:
            return QUEUE
        return QUEUE if new.metadata.namespace == pod.namespace and new.metadata.name == group else QUEUE_SKIP

    def event_handlers(self) -> dict[type, Any]:
        """The scheduler's pod informer (assigned pods) and the PodGroup informer (custom events)."""
        return {Pod: _PodEvents(self), PodGroup: KindEvents(self.handle, POD_GROUP_EVENT)}


def _bound_group(pod: Pod) -> str:
    """The full name of a bound pod's group ("" for an unbound or ungrouped pod)."""
    group = (pod.metadata.labels or {}).get(POD_GROUP_LABEL)
    return full_name(pod.metadata.namespace or "", group) if group and pod.spec.node_name else ""


class _PodEvents:
    """``AddPodFactory`` and the delete handler of ``NewPodGroupManager``."""

    __slots__ = ("plugin",)

    def __init__(self, plugin: Coscheduling) -> None:
        self.plugin = plugin

    def on_add(self, pod: Pod) -> None:
        if group := _bound_group(pod):
            self.plugin.memory.assign(group, pod.metadata.name or "")

    def on_update(self, old: Pod, new: Pod) -> None:
        return None

    def on_delete(self, pod: Pod) -> None:
        if group := _bound_group(pod):
            self.plugin.memory.unassign(group, pod.metadata.name or "")


def _quantity(name: str, value: int) -> str:
    """A gap amount as a quantity: kbatch counts CPU in millicores (``convert.quantity_map``)."""
    return str(Quantity.milli(value)) if name == CPU else str(value)


def cluster_gap(snapshot: Any, wanted: Mapping[str, int], group: str) -> dict[str, int]:
    """Upstream ``CheckClusterResource``: walk the nodes, taking from ``wanted`` what each has free
    (the group's own pods' requests counted as free); what is still missing (empty: it fits)."""
    missing = {k: v for k, v in wanted.items() if v > 0}
    for node in snapshot:
        free = dict(node.shape.allocatable)
        free[PODS] = free.get(PODS, 0) - len(node.pods)
        for pod in node.pods.values():
            if group_of(pod) and full_name(pod.namespace, group_of(pod)) == group:
                free[PODS] += 1
                for name, value in pod.requests.items():
                    free[name] = free.get(name, 0) + value
        for name, value in node.requested.items():
            if name != PODS:
                free[name] = free.get(name, 0) - value
        for name in list(missing):
            missing[name] -= free.get(name, 0)
            if missing[name] <= 0:
                del missing[name]
        if not missing:
            return {}
    return missing


def new(args: Mapping[str, Any], handle: Any) -> Coscheduling:
    return Coscheduling(parse_args(args), handle)
