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
  PodGroup updated with a smaller ``minCount``; with the ``CompositePodGroup`` gate, a
  CompositePodGroup added (``CompositePodGroup Add``), and "the same group" is the same tree (the
  same root composite, ``areSameHierarchy``).
* **Composites** (gate ``CompositePodGroup``, KEP-6012; ``preEnqueueWithHierarchies``,
  ``checkCPGHierarchyReadiness``): a pod whose PodGroup has a parent composite waits ("waiting for
  composite pod group %q tree to meet quorum") until the root composite exists and has
  ``minGroupCount`` ready children (a leaf is ready with ``minCount`` pods known, a composite with
  ``minGroupCount`` ready children; basic counts as 1); ``PlacementFeasible`` for a composite counts
  children, against ``minGroupCount`` (``getMinCount``).

Active only with the ``GenericWorkload`` gate (it is the gate of the whole API): with it off the
plugin is still in the profile but no pod names a group (the field is dropped at the API server).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.gates import gate_on
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import COMPOSITE_POD_GROUP, GENERIC_WORKLOAD, PodGroup
from kbatch.controllers.scheduler import composite_tree
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
COMPOSITE_RESOURCE = "CompositePodGroup"  # fwk.CompositePodGroup


class GangScheduling:
    name = NAME

    def __init__(self, handle: Any, enabled: bool = True, composites: bool = False) -> None:
        self.handle = handle
        self.enabled = enabled  # the GenericWorkload gate (off: the kind is not even served)
        self.composites = enabled and composites  # the CompositePodGroup gate

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
        parent = pg.spec.parent_composite_pod_group_name if self.composites else None
        if parent:
            return self._tree_ready(key.partition("/")[0], parent)
        gang = pg.spec.scheduling_policy.gang
        if gang is None:
            return None
        if self.handle.scheduler.pod_group_count(key) < gang.min_count:
            return Status.unresolvable(self.name, "waiting for minCount pods from a gang to appear in "
                                                  "scheduling queue")
        return None

    def _tree_ready(self, namespace: str, parent: str) -> Status | None:
        """``checkCPGHierarchyReadiness``: the root composite exists and has ``minGroupCount`` ready
        children."""
        try:
            root = composite_tree.root_of(self.handle.cache, namespace, parent)
            tree = (composite_tree.build_tree(self.handle.cache, namespace, root, strict=False)
                    if root else None)
        except composite_tree.InvalidTree:
            root, tree = "", None  # upstream's tracker finds no root for a cycle either
        if tree is not None:
            counts = self.handle.scheduler.pod_group_count
            if composite_tree.ready_children(tree, counts) >= tree.group.min_group_count():
                return None
        return Status.unresolvable(self.name, f'waiting for composite pod group "{root or parent}" tree '
                                              "to meet quorum")

    # -- PlacementFeasible -------------------------------------------------------------------------
    def placement_feasible(self, group: GroupInfo, progress: PlacementProgress) -> Status | None:
        """Pods against ``minCount`` for a PodGroup, children against ``minGroupCount`` for a
        composite (upstream's message says minCount for both)."""
        pg = group.pod_group
        min_count = pg.min_group_count() if isinstance(pg, CompositePodGroup) else pg.min_count()
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
            *([ClusterEventWithHint(ClusterEvent(COMPOSITE_RESOURCE, ActionType.ADD),
                                    self._after_composite_added, self._composite_members)]
              if self.composites else []),
        ]

    # kbatch: the hints below say QueueSkip to every pod outside the event's group, so the queue asks
    # them for that group's gated pods only (a per-group index, not a scan of every gated pod per event)
    def _members(self, group: str) -> list[str]:
        """The group's pods; with composites, every pod of its tree."""
        services = self.handle.scheduler
        if services is None or not group:
            return []
        tree = composite_tree.tree_of_group(self.handle.cache, group) if self.composites else None
        if tree is None:
            return services.pod_group_members(group)
        return sorted(m for leaf in composite_tree.leaves(tree) for m in services.pod_group_members(leaf.key))

    def _root(self, group: str) -> str:
        """``areSameHierarchy``'s key: the root composite of the group's tree, else the group."""
        if not self.composites or not group:
            return group
        tree = composite_tree.tree_of_group(self.handle.cache, group)
        return f"composite:{tree.key}" if tree is not None else group

    def _tree_of(self, cpg: CompositePodGroup) -> composite_tree.TreeNode | None:
        return composite_tree.tree_of_parent(self.handle.cache, cpg.metadata.namespace or "",
                                             cpg.metadata.name or "")

    def _composite_members(self, old: Any, new: Any) -> list[str]:
        if new is None:
            return []
        tree = self._tree_of(new)
        services = self.handle.scheduler
        if tree is None or services is None:
            return []
        return sorted(m for leaf in composite_tree.leaves(tree) for m in services.pod_group_members(leaf.key))

    def _after_composite_added(self, pod: PodInfo, old: Any, new: Any) -> QueueingHint:
        """``isSchedulableAfterCompositePodGroupAdded``: the pod's tree is the added composite's."""
        key = self._group_key(pod)
        if not key or new is None:
            return QUEUE_SKIP
        tree = self._tree_of(new)
        return QUEUE if tree is not None and self._root(key) == f"composite:{tree.key}" else QUEUE_SKIP

    def _pod_siblings(self, old: Any, new: PodInfo | None) -> list[str]:
        return self._members(self._group_key(new)) if new is not None else []

    def _group_members(self, old: Any, new: Any) -> list[str]:
        return self._members(f"{new.metadata.namespace}/{new.metadata.name}") if new is not None else []

    def _after_pod_added(self, pod: PodInfo, old: Any, new: PodInfo | None) -> QueueingHint:
        key = self._group_key(pod)
        if not key or new is None:
            return QUEUE_SKIP
        return QUEUE if self._root(self._group_key(new)) == self._root(key) else QUEUE_SKIP

    def _after_group_added(self, pod: PodInfo, old: Any, new: Any) -> QueueingHint:
        key = self._group_key(pod)
        if not key or new is None:
            return QUEUE_SKIP
        return QUEUE if self._root(f"{new.metadata.namespace}/{new.metadata.name}") == self._root(key) \
            else QUEUE_SKIP

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
        handlers: dict[type, Any] = {}
        if self.enabled:
            handlers[PodGroup] = KindEvents(self.handle, POD_GROUP_RESOURCE)
        if self.composites:
            handlers[CompositePodGroup] = KindEvents(self.handle, COMPOSITE_RESOURCE)
        return handlers


def new(args: Mapping[str, Any], handle: Any) -> GangScheduling:
    plugin_args(NAME, args)
    return GangScheduling(handle, gate_on(handle.features, GENERIC_WORKLOAD),
                          gate_on(handle.features, COMPOSITE_POD_GROUP))
