"""The default profile: kube-scheduler's default plugin set, as far as kbatch models it.

Order and weights follow upstream ``pkg/scheduler/apis/config/v1/default_plugins.go``
(score weights in brackets): SchedulingGates, PrioritySort, NodeUnschedulable, NodeName,
TaintToleration (3), NodeAffinity (2), NodePorts, NodeResourcesFit (1), volume plugins,
PodTopologySpread (2), InterPodAffinity (2), DefaultPreemption, NodeResourcesBalancedAllocation (1),
ImageLocality (1), DefaultBinder; without
the plugins kbatch does not model (volumes, BalancedAllocation, ImageLocality). Node-static filters
run first, which preserves upstream's "first failing plugin" per node.
"""

from __future__ import annotations

from kbatch.controllers.scheduler.framework import Profile
from kbatch.controllers.scheduler.plugins import (
    LEAST_ALLOCATED,
    DefaultPreemption,
    InterPodAffinity,
    NodeAffinity,
    NodeName,
    NodePorts,
    NodeResourcesFit,
    NodeUnschedulable,
    PodTopologySpread,
    PrioritySort,
    SchedulingGates,
    TaintToleration,
)

__all__ = ["default_profile"]


def default_profile(
    scoring_strategy: str = LEAST_ALLOCATED,
    percentage_of_nodes_to_score: int | None = None,
    preemption: bool = True,
) -> Profile:
    fit = NodeResourcesFit(strategy=scoring_strategy)
    affinity, taints, pod_affinity = NodeAffinity(), TaintToleration(), InterPodAffinity()
    ports, spread = NodePorts(), PodTopologySpread()
    filters = [NodeUnschedulable(), NodeName(), taints, affinity, ports, fit, spread, pod_affinity]
    return Profile(
        queue_sort=PrioritySort(),
        pre_enqueue=[SchedulingGates()],
        pre_filter=[ports, spread, pod_affinity],
        filter=filters,
        post_filter=[DefaultPreemption(filters, extensions=[spread, pod_affinity])] if preemption else [],
        pre_score=[spread, pod_affinity],
        score=[taints, affinity, fit, spread, pod_affinity],
        percentage_of_nodes_to_score=percentage_of_nodes_to_score,
    )
