"""The workload scheduling cycle of a CompositePodGroup tree (KEP-6012, gate ``CompositePodGroup``,
alpha in 1.37; upstream ``pkg/scheduler/schedule_one_podgroup.go``: ``runRootSchedulingAlgorithm``,
``podGroupSchedulingRecursiveAlgorithm``, ``compositePodGroupSchedulingDefaultAlgorithm``,
``completeCompositePodGroupAlgorithmResultMap``, ``submitPodGroupAlgorithmResult``).

When a pod of a PodGroup that has a parent composite is popped, the queued entity is the whole tree
under its root composite:

1. the root is found and its tree built (:mod:`.composite_tree`); a cycle, more than 4 levels or
   groups of several Workloads fail every popped pod (``SchedulerError``) and mark the composites
   ``CompositePodGroupInitiallyScheduled=False``/``Invalid``;
2. every queued pod of every leaf is taken out of the queue; the pods (and the members already
   scheduled) are validated against the root's priority, scheduler name and preemption policy
   (``validatePodGroup``);
3. the tree is placed depth first on one snapshot. A leaf PodGroup is placed as a standalone group is
   (:meth:`.GroupCycle.place`, its own ``minCount``); a composite asks ``PlacementFeasible`` with
   ``remaining`` = its children and ``scheduled`` = 0, then again after each child (a child that
   succeeded counts as scheduled): GangScheduling's ``minGroupCount`` (1 for ``basic``) decides,
   ``Unschedulable`` stops early, a final ``Wait`` is ``Unschedulable``; a composite that fails takes
   its whole subtree off the snapshot;
4. a child that succeeded under a failed ancestor fails with that ancestor's status; the root
   succeeding with no pod placed anywhere is ``Unschedulable``;
5. each leaf's pods are submitted as a standalone group's are (bind, or back to the queue with the
   group's message) and each PodGroup gets ``PodGroupInitiallyScheduled``; each composite gets
   ``CompositePodGroupInitiallyScheduled`` (True/``Scheduled``, False/``Unschedulable`` or
   ``SchedulerError``; never back from True).

When the root is Unschedulable, the PodGroup PostFilter plugins free what each leaf holds
(DynamicResources deallocates its claims; their reasons join every group's message, as upstream's
``applyPodGroupPostFilterResult`` appends the PostFilter status to each), then the tree may preempt
(:mod:`.composite_preemption`).

Not modelled for trees (docs/gang.md): topology constraints on composites.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kbatch.api.scheduling_v1alpha3 import (
    COMPOSITE_INITIALLY_SCHEDULED,
    REASON_INVALID,
    CompositePodGroup,
)
from kbatch.controllers.scheduler.composite_tree import InvalidTree, TreeNode, build_tree, leaves, root_of
from kbatch.controllers.scheduler.framework import Code, PodGroupPostFilterPlugin
from kbatch.controllers.scheduler.group_cycle import (
    POD_GROUP_UNSCHEDULABLE,
    GroupResult,
    group_message,
    outcome_condition,
    validate_group,
    write_scheduled_condition,
)
from kbatch.controllers.scheduler.placement import (
    GroupInfo,
    PlacementFeasiblePlugin,
    PlacementProgress,
    run_placement_feasible,
)
from kbatch.controllers.scheduler.reprieve import Assignment
from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.group_cycle import GroupCycle

__all__ = ["CompositeCycle"]


@dataclass(slots=True)
class _Outcome:
    """A composite's result: ``code`` and message (with the reasons it lists)."""

    code: Code = Code.UNSCHEDULABLE
    message: str = POD_GROUP_UNSCHEDULABLE
    any_scheduled: bool = False


class CompositeCycle:
    """One tree's cycle, run by :class:`.GroupCycle` for a pod whose PodGroup has a parent."""

    def __init__(self, cycle: GroupCycle, first: PodInfo, parent: str, now: float) -> None:
        self.cycle, self.first, self.now = cycle, first, now
        self.namespace = first.key.partition("/")[0]
        self.parent = parent
        self.pods: dict[str, list[PodInfo]] = {}  # leaf key -> its popped pods
        self.leaf_results: dict[str, GroupResult] = {}
        self.outcomes: dict[str, _Outcome] = {}

    # -- steps 1-2 ---------------------------------------------------------------------------------
    def run(self) -> None:
        s = self.cycle.scheduler
        try:
            root = root_of(s.ctx.cache, self.namespace, self.parent)
            tree = build_tree(s.ctx.cache, self.namespace, root) if root else None
        except InvalidTree as invalid:
            self._invalid(str(invalid), invalid.names)
            return
        if tree is None:
            missing = f'compositepodgroups.scheduling.k8s.io "{self.parent}" not found'
            s.error_pod(self.first, missing, self.now)
            return
        self._pop(tree)
        error = self._validate(tree)
        if error:
            for pods in self.pods.values():
                for pod in pods:
                    s.error_pod(pod, error, self.now)
            self._write_all(tree, "False", "SchedulerError", error)
            return
        outcome = self._place(tree)
        if outcome.code == Code.SUCCESS and not outcome.any_scheduled:
            outcome.code, outcome.message = Code.UNSCHEDULABLE, POD_GROUP_UNSCHEDULABLE
            self._revert(tree)
        self._propagate(tree, None)
        if outcome.code == Code.UNSCHEDULABLE:
            self._post_filter(tree)
            from kbatch.controllers.scheduler.composite_preemption import preempt_for_tree

            if preempt_for_tree(self, tree, self.now):
                return
        self._submit(tree)

    def _pop(self, tree: TreeNode) -> None:
        s, index = self.cycle.scheduler, self.cycle.index
        for leaf in leaves(tree):
            pods = []
            for member in index.members(leaf.key):
                if member == self.first.key:
                    pods.append(self.first)
                elif (info := s.queue.pop_specific(member, self.now)) is not None:
                    pods.append(info)
            self.pods[leaf.key] = sorted(pods, key=lambda p: (-p.priority, p.seq))

    def _validate(self, tree: TreeNode) -> str:
        pods = [p for group in self.pods.values() for p in group]
        scheduled = [p for leaf in leaves(tree) for p in self.cycle.scheduled_members(leaf.key)]
        return validate_group(pods, scheduled, tree.group, self.cycle.policy_gate) if pods else ""

    # -- steps 3-4 ---------------------------------------------------------------------------------
    def _place(self, node: TreeNode) -> _Outcome:
        if not node.composite:
            result = self.leaf_results[node.key] = self._place_leaf(node)
            if result.code != Code.SUCCESS:
                self.cycle.revert(result)  # podGroupSchedulingDefaultAlgorithm's deferred revert
            return _Outcome(result.code, result.message, result.code == Code.SUCCESS and bool(result.placed))
        plugins = self._plugins()
        group = GroupInfo(node.key, node.group)
        progress = PlacementProgress(0, len(node.children))
        status = run_placement_feasible(plugins, group, progress)
        outcome = _Outcome()
        if status is None or status.code == Code.WAIT:
            for child in node.children:
                done = self._place(child)
                if done.code == Code.ERROR:
                    status = None
                    outcome = _Outcome(Code.ERROR, "composite pod group evaluation failed due to child "
                                                   f"error: {done.message}")
                    break
                outcome.any_scheduled = outcome.any_scheduled or done.any_scheduled
                progress = PlacementProgress(progress.scheduled + (done.code == Code.SUCCESS),
                                             progress.remaining - 1)
                status = run_placement_feasible(plugins, group, progress)
                if status is not None and status.code == Code.UNSCHEDULABLE:
                    break
        if outcome.code != Code.ERROR:
            if status is None:
                outcome.code, outcome.message = Code.SUCCESS, ""
            else:
                outcome.message = group_message(status.reasons)
        if outcome.code != Code.SUCCESS:
            outcome.any_scheduled = False
            self._revert(node)
        self.outcomes[node.key] = outcome
        return outcome

    def _plugins(self) -> list[PlacementFeasiblePlugin]:
        profile = self.cycle.scheduler.profiles[self.first.scheduler_name]
        return [p for p in profile.plugins.values() if isinstance(p, PlacementFeasiblePlugin)]

    def _place_leaf(self, node: TreeNode) -> GroupResult:
        pods, group = self.pods.get(node.key, []), GroupInfo(node.key, node.group)
        if pods:
            return self.cycle.place(group, pods)
        return self.cycle.place_default(group, pods, self.first.scheduler_name)

    def _revert(self, node: TreeNode) -> None:
        for leaf in leaves(node):
            result = self.leaf_results.get(leaf.key)
            if result is not None:
                self.cycle.revert(result)

    def _propagate(self, node: TreeNode, failed: _Outcome | None) -> None:
        """``completeCompositePodGroupAlgorithmResultMap``: a failed ancestor's status replaces a
        child's success, and stands for a child never evaluated."""
        if node.composite:
            own = self.outcomes.get(node.key)
            if own is None or (failed is not None and own.code == Code.SUCCESS):
                own = _Outcome(failed.code, failed.message) if failed else _Outcome()
                self.outcomes[node.key] = own
            for child in node.children:
                self._propagate(child, own if own.code != Code.SUCCESS else None)
            return
        result = self.leaf_results.get(node.key)
        if result is None:  # never evaluated: the parent stopped before it
            result = self.leaf_results[node.key] = GroupResult(reverted=True)
            if failed is not None:
                result.code, result.message = failed.code, failed.message
        elif failed is not None and result.code == Code.SUCCESS:
            result.code, result.message, result.reasons = failed.code, failed.message, ()

    def trial(self, tree: TreeNode) -> list[Assignment] | None:
        """The tree placed as steps 3-4 place it and taken off again, nothing written: each pod
        placed, in placing order, with its node and cycle state, or None when the root does not
        succeed with a pod placed (the placing workload-aware preemption runs once, upstream's
        ``pgSchedulingFunc``)."""
        saved = self.leaf_results, self.outcomes
        self.leaf_results, self.outcomes = {}, {}
        try:
            outcome = self._place(tree)
            placed = [Assignment(p.pod, p.node, p.state) for r in self.leaf_results.values()
                      if not r.reverted for p in r.placed]
            self._revert(tree)
            return placed if outcome.code == Code.SUCCESS and outcome.any_scheduled else None
        finally:
            self.leaf_results, self.outcomes = saved

    def _post_filter(self, tree: TreeNode) -> None:
        """The PodGroup PostFilter for the failed tree: each leaf PodGroup's claims are freed
        (KEP-5729 "Deallocate", as a standalone group's); the reasons join every group's message."""
        reasons: tuple[str, ...] = ()
        plugins = [p for p in self.cycle.scheduler.profiles[self.first.scheduler_name].plugins.values()
                   if isinstance(p, PodGroupPostFilterPlugin)]
        for leaf in leaves(tree):
            for plugin in plugins:
                status = plugin.post_filter_pod_group(leaf.key, leaf.group)
                if status is not None and status.reasons:
                    reasons = (*reasons, *(r for r in status.reasons if r not in reasons))
        if not reasons:
            return
        for result in self.leaf_results.values():
            result.reasons = (*result.reasons, *reasons)
            result.message = f"{result.message}, {', '.join(reasons)}"
        for outcome in self.outcomes.values():
            outcome.message = f"{outcome.message}, {', '.join(reasons)}"

    # -- step 5 ------------------------------------------------------------------------------------
    def _submit(self, tree: TreeNode) -> None:
        for leaf in leaves(tree):
            self.cycle.submit(leaf.group, self.pods.get(leaf.key, []), self.leaf_results[leaf.key], self.now)
        for node_key, outcome in sorted(self.outcomes.items()):
            name = node_key.partition("/")[2]
            self.write_condition(name, *outcome_condition(outcome.code, outcome.message))

    def _write_all(self, tree: TreeNode, status: str, reason: str, message: str) -> None:
        for leaf in leaves(tree):
            self.cycle.write_condition(leaf.group, status, reason, message)
        stack = [tree]
        while stack:
            node = stack.pop()
            if node.composite:
                self.write_condition(node.name, status, reason, message)
                stack.extend(node.children)

    def _invalid(self, message: str, names: tuple[str, ...]) -> None:
        s = self.cycle.scheduler
        s.error_pod(self.first, message, self.now)
        for name in sorted(set(names)):
            self.write_condition(name, "False", REASON_INVALID, message)

    def write_condition(self, name: str, status: str, reason: str, message: str) -> None:
        """``CompositePodGroupInitiallyScheduled`` on the composite, as a PodGroup's condition."""
        write_scheduled_condition(self.cycle.scheduler, CompositePodGroup, COMPOSITE_INITIALLY_SCHEDULED,
                                  name, self.namespace, (status, reason, message))
