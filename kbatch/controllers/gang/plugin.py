"""The GangScheduling scheduler plugin of Kubernetes 1.37 (upstream
``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go``; KEP-4671): the all-or-nothing
rule of scheduling.k8s.io PodGroups inside the workload scheduling cycle
(:mod:`kbatch.controllers.scheduler.group_cycle`).

* **PreEnqueue**: a pod naming a PodGroup waits, ``UnschedulableAndUnresolvable``, until the
  PodGroup exists ("waiting for pods's pod group %q to appear in scheduling queue", upstream's words)
  and, for a gang, until the scheduler knows ``minCount`` of its pods ("waiting for minCount pods
  from a gang to appear in scheduling queue"); a basic group's pods pass at once.
* **PlacementFeasible**: with ``scheduled`` members placed and ``remaining`` still to try,
  ``scheduled + remaining < minCount`` is ``Unschedulable`` ("minCount (%d) cannot be satisfied: %d
  scheduled, %d remaining"), ``scheduled < minCount`` is ``Wait`` ("minCount (%d) is not yet
  satisfied: ..."), otherwise success. A basic group counts as ``minCount`` 1. No Permit wait.
* **Events**: an unscheduled or assigned pod of the same group added; the PodGroup added; the
  PodGroup updated with a smaller ``minCount``.

Active only with the ``GenericWorkload`` gate (it is the gate of the whole API): with it off the
plugin is still in the profile but no pod names a group (the field is dropped at the API server).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.gates import gate_on
from kbatch.api.scheduling_v1beta1 import GENERIC_WORKLOAD, PodGroup
from kbatch.controllers.scheduler.config import plugin_args
from kbatch.controllers.scheduler.events import (
    ASSIGNED_POD,
    QUEUE,
    QUEUE_SKIP,
    UNSCHEDULED_POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from kbatch.controllers.scheduler.framework import Code, Status
from kbatch.controllers.scheduler.placement import GroupInfo, PlacementProgress
from kbatch.controllers.scheduler.services import KindEvents
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["NAME", "POD_GROUP_RESOURCE", "GangScheduling", "new"]

NAME = "GangScheduling"
POD_GROUP_RESOURCE = "PodGroup"  # fwk.PodGroup, the cluster-event resource of the native kind


class GangScheduling:
    name = NAME

    def __init__(self, handle: Any, enabled: bool = True) -> None:
        self.handle = handle
        self.enabled = enabled  # the GenericWorkload gate (off: the kind is not even served)

    def _group_key(self, pod: PodInfo) -> str:
        services = self.handle.scheduler
        return services.pod_group_of(pod.key) if services is not None else ""

    def _pod_group(self, key: str) -> PodGroup | None:
        namespace, _, name = key.partition("/")
        try:
            return self.handle.cache.get(PodGroup, name, namespace)
        except NotFound:
            return None

    # -- PreEnqueue --------------------------------------------------------------------------------
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        key = self._group_key(pod) if self.enabled else ""
        if not key:
            return None
        pg = self._pod_group(key)
        if pg is None:
            name = key.partition("/")[2]
            # upstream's spelling, "pods's", in every 1.36/1.37 gangscheduling.go
            return Status.unresolvable(self.name, f'waiting for pods\'s pod group "{name}" to appear in '
                                                  "scheduling queue")
        gang = pg.spec.scheduling_policy.gang
        if gang is None:
            return None
        if self.handle.scheduler.pod_group_count(key) < gang.min_count:
            return Status.unresolvable(self.name, "waiting for minCount pods from a gang to appear in "
                                                  "scheduling queue")
        return None

    # -- PlacementFeasible -------------------------------------------------------------------------
    def placement_feasible(self, group: GroupInfo, progress: PlacementProgress) -> Status | None:
        min_count = group.pod_group.min_count()
        scheduled, remaining = progress.scheduled, progress.remaining
        if scheduled + remaining < min_count:
            return Status.unschedulable(self.name, f"minCount ({min_count}) cannot be satisfied: "
                                                   f"{scheduled} scheduled, {remaining} remaining")
        if scheduled < min_count:
            return Status(Code.WAIT, (f"minCount ({min_count}) is not yet satisfied: {scheduled} scheduled, "
                                      f"{remaining} remaining",), self.name)
        return None

    # -- events ------------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        added, updated = (ClusterEvent(POD_GROUP_RESOURCE, ActionType.ADD),
                          ClusterEvent(POD_GROUP_RESOURCE, ActionType.UPDATE))
        return [
            ClusterEventWithHint(ClusterEvent(UNSCHEDULED_POD, ActionType.ADD), self._after_pod_added,
                                 self._pod_siblings),
            ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.ADD), self._after_pod_added,
                                 self._pod_siblings),
            ClusterEventWithHint(added, self._after_group_added, self._group_members),
            ClusterEventWithHint(updated, self._after_group_updated, self._group_members),
        ]

    # kbatch: the hints below say QueueSkip to every pod outside the event's group, so the queue asks
    # them for that group's gated pods only (a per-group index, not a scan of every gated pod per event)
    def _members(self, group: str) -> list[str]:
        services = self.handle.scheduler
        return services.pod_group_members(group) if services is not None and group else []

    def _pod_siblings(self, old: Any, new: PodInfo | None) -> list[str]:
        return self._members(self._group_key(new)) if new is not None else []

    def _group_members(self, old: Any, new: Any) -> list[str]:
        return self._members(f"{new.metadata.namespace}/{new.metadata.name}") if new is not None else []

    def _after_pod_added(self, pod: PodInfo, old: Any, new: PodInfo | None) -> QueueingHint:
        key = self._group_key(pod)
        if not key or new is None:
            return QUEUE_SKIP
        return QUEUE if self._group_key(new) == key else QUEUE_SKIP

    def _after_group_added(self, pod: PodInfo, old: Any, new: Any) -> QueueingHint:
        key = self._group_key(pod)
        if not key or new is None:
            return QUEUE_SKIP
        return QUEUE if f"{new.metadata.namespace}/{new.metadata.name}" == key else QUEUE_SKIP

    def _after_group_updated(self, pod: PodInfo, old: Any, new: Any) -> QueueingHint:
        """Only a smaller gang ``minCount`` can help (``isSchedulableAfterPodGroupUpdated``)."""
        if self._after_group_added(pod, old, new) == QUEUE_SKIP or old is None:
            return QUEUE_SKIP
        before, after = old.spec.scheduling_policy.gang, new.spec.scheduling_policy.gang
        if before is None or after is None or after.min_count >= before.min_count:
            return QUEUE_SKIP
        return QUEUE

    def event_handlers(self) -> dict[type, Any]:
        """The PodGroup informer: Add and Update become the custom cluster events above."""
        return {PodGroup: KindEvents(self.handle, POD_GROUP_RESOURCE)} if self.enabled else {}


def new(args: Mapping[str, Any], handle: Any) -> GangScheduling:
    plugin_args(NAME, args)
    return GangScheduling(handle, gate_on(handle.features, GENERIC_WORKLOAD))
