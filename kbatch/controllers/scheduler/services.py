"""What a plugin may ask of the running scheduler beyond the cluster state: the pods waiting at
Permit, activating pods, and cluster events about kinds only the plugin watches.

Upstream ``framework.Handle`` gives plugins ``IterateOverWaitingPods`` / ``GetWaitingPod`` (a
``WaitingPod`` can be ``Allow``-ed or ``Reject``-ed by a Permit plugin), the ``PodActivator``
(``Activate``: move pods to the active queue, what Coscheduling does for a group's siblings), and
registers informers for the custom resources plugins name in ``EventsToRegister`` (Coscheduling's
``podgroups.v1alpha1.scheduling.x-k8s.io`` Add/Update), whose events requeue the pods those plugins
rejected. :class:`SchedulerServices` is that part of the handle (``Handle.scheduler``); it is
``None`` for a profile built without a scheduler (pure tests).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kbatch.controllers.scheduler.events import ActionType, ClusterEvent
from kbatch.controllers.scheduler.types import PodInfo
from kbatch.runtime.events import ObjectRef

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.controller import Scheduler

__all__ = ["KindEvents", "SchedulerServices", "WaitingPodHandle"]


class WaitingPodHandle:
    """One pod held at Permit (upstream ``fwk.WaitingPod``)."""

    __slots__ = ("_scheduler", "node", "pod")

    def __init__(self, scheduler: Scheduler, pod: PodInfo, node: str) -> None:
        self._scheduler, self.pod, self.node = scheduler, pod, node

    def allow(self, plugin: str) -> None:
        """This plugin lets the pod go; it binds once no plugin holds it any more."""
        self._scheduler.allow(self.pod.key, plugin)

    def reject(self, plugin: str, message: str) -> None:
        """The pod goes back to the queue, unschedulable with ``message``; what it held is free."""
        self._scheduler.reject(self.pod.key, plugin, message)


class SchedulerServices:
    __slots__ = ("_scheduler",)

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler

    def waiting_pods(self) -> list[WaitingPodHandle]:
        """Every pod waiting at Permit, in key order (a snapshot: allowing or rejecting one while
        iterating is fine)."""
        scheduler, waiting = self._scheduler, self._scheduler.waiting
        return [WaitingPodHandle(scheduler, waiting[key].pod, waiting[key].node) for key in sorted(waiting)]

    def get_waiting_pod(self, key: str) -> WaitingPodHandle | None:
        entry = self._scheduler.waiting.get(key)
        return WaitingPodHandle(self._scheduler, entry.pod, entry.node) if entry is not None else None

    def reject_all(self, pods: Iterable[WaitingPodHandle], plugin: str, message: str) -> None:
        """Reject these waiting pods together: each is rejected before any runs Unreserve (upstream's
        ``Reject`` only signals the pod's binding goroutine, so a plugin rejecting a group in a loop
        rejects every member with its own message)."""
        self._scheduler.reject_all([p.pod.key for p in pods], plugin, message)

    def activate(self, keys: Iterable[str]) -> None:
        """Move these pods (``namespace/name``) from the unschedulable pool or back-off to the active
        queue (upstream ``PodActivator.Activate``)."""
        scheduler = self._scheduler
        if scheduler.queue.activate(sorted(set(keys)), scheduler.ctx.clock.now()):
            scheduler.enqueue()

    def pod_group_of(self, pod_key: str) -> str:
        """The scheduling.k8s.io PodGroup (``namespace/name``) the pod names, "" for none or while
        the GenericWorkload gate is off (upstream ``Handle.PodGroupManager``)."""
        cycle = self._scheduler.group_cycle
        return cycle.index.group_of(pod_key) if cycle is not None else ""

    def pod_group_members(self, group: str) -> list[str]:
        """The keys of the group's pods the scheduler knows, sorted."""
        cycle = self._scheduler.group_cycle
        return cycle.index.members(group) if cycle is not None else []

    def pod_group_scheduled(self, group: str) -> list[str]:
        """The keys of the group's pods the scheduler holds as scheduled (bound or assumed), sorted:
        the scheduler's own view of the group that KEP-5729's DynamicResources Unreserve consults."""
        cycle = self._scheduler.group_cycle
        return [info.key for info in cycle.scheduled_members(group)] if cycle is not None else []

    def pod_group_count(self, group: str) -> int:
        """How many pods of the group the scheduler knows (upstream ``AllPodsCount``)."""
        cycle = self._scheduler.group_cycle
        return cycle.index.count(group) if cycle is not None else 0

    def pod_reference(self, pod: PodInfo) -> ObjectRef:
        """The reference an event about ``pod`` names it by: upstream's ``GetReference`` of the
        informer's pod, its last resourceVersion included (an events.k8s.io/v1 series key)."""
        return self._scheduler.pod_reference(pod)

    def cluster_event(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """A change of a kind a plugin watches: requeue the pods whose rejecting plugins' hints
        accept it (the objects are passed to the hints as they are)."""
        self._scheduler.cluster_event(event, old, new)


class KindEvents:
    """A plugin's informer handler for a custom kind (``event_handlers()``): an Add or Update becomes
    the cluster event ``resource``/action the plugin registered for (upstream: the scheduler's dynamic
    informer for a plugin's resource); a Delete is not an event anyone registers."""

    __slots__ = ("handle", "resource")

    def __init__(self, handle: Any, resource: str) -> None:
        self.handle, self.resource = handle, resource

    def _event(self, action: ActionType, old: Any, new: Any) -> None:
        if self.handle.scheduler is not None:
            self.handle.scheduler.cluster_event(ClusterEvent(self.resource, action), old, new)

    def on_add(self, obj: Any) -> None:
        self._event(ActionType.ADD, None, obj)

    def on_update(self, old: Any, new: Any) -> None:
        self._event(ActionType.UPDATE, old, new)

    def on_delete(self, obj: Any) -> None:
        return None
