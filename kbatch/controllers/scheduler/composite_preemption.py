"""Workload-aware preemption for a CompositePodGroup tree that did not fit (KEP-6012 with KEP-5710;
kubernetes/kubernetes#140634, in 1.37: ``schedule_one_podgroup.go`` ``podGroupCycle`` runs the
PodGroupPostFilter plugins for the root when the root's status is Unschedulable, with the whole
tree's algorithm as the placing to test; ``applyPodGroupPostFilterResult`` marks every group of the
tree waiting on preemption and nominates the leaves' pods).

The preemptor is the tree: every queued pod of every leaf, at the root's priority, eligible by the
root's ``preemptionPolicy`` (gate ``PodGroupPreemptionPolicy``) or else by its pods'. The victims are
chosen as for a standalone group (:mod:`.group_preemption`: units below the root's priority, all
removed, the tree placed depth first on that snapshot once, then the in-place reprieve on the
nodes proposed there), the placing being the tree cycle's own (:meth:`.CompositeCycle.trial`), so a
tree preempts only what lets its whole ``minGroupCount`` quorum place. The reprieve checks the
leaves' pods in the order the tree placed them (upstream collects them from a map of leaf results:
its order is Go's map order). Then each leaf's pods wait nominated where the victims make room,
each PodGroup and composite ``...InitiallyScheduled=False``/``Unschedulable`` "..., waiting for
preemption to complete"; while those victims are still on their nodes the tree preempts nothing new.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.controllers.scheduler.composite_tree import TreeNode, composites, leaves
from kbatch.controllers.scheduler.group_preemption import (
    choose_victims,
    evict,
    may_preempt,
    park_pods,
    units,
    waiting_for_victims,
)

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.composite_cycle import CompositeCycle

__all__ = ["preempt_for_tree"]

WAITING = ", waiting for preemption to complete"


def preempt_for_tree(cc: CompositeCycle, tree: TreeNode, now: float) -> bool:
    """True when the tree's pods now wait for victims (parked, conditions written), False when
    preemption cannot help (the caller submits the failure as it is)."""
    cycle = cc.cycle
    pods = [p for leaf in leaves(tree) for p in cc.pods.get(leaf.key, [])]
    if not pods or not may_preempt(cycle, tree.group, pods):
        return False
    if waiting_for_victims(cycle, tree.key):
        _park(cc, tree, now, {})
        return True
    chosen = choose_victims(cycle, units(cycle, tree.group.spec.priority or 0), lambda: cc.trial(tree),
                            pods[0].scheduler_name)
    if chosen is None:
        cycle.preempting.pop(tree.key, None)
        return False
    victims, placement = chosen
    evict(cycle, tree.key, victims)
    _park(cc, tree, now, placement)
    return True


def _park(cc: CompositeCycle, tree: TreeNode, now: float, placement: dict[str, str]) -> None:
    """Every leaf's pods wait (nominated by ``placement``), every group of the tree says why."""
    for leaf in leaves(tree):
        message = cc.leaf_results[leaf.key].message + WAITING
        park_pods(cc.cycle, cc.pods.get(leaf.key, []), message, now, placement)
        cc.cycle.write_condition(leaf.group, "False", "Unschedulable", message)
    for node in composites(tree):
        cc.write_condition(node.name, "False", "Unschedulable", cc.outcomes[node.key].message + WAITING)
