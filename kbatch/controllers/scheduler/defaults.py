"""The default profile: kube-scheduler's default plugin set, as far as kbatch models it.

Order and weights follow upstream ``pkg/scheduler/apis/config/v1/default_plugins.go``: filters
NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit, InterPodAffinity;
scores TaintToleration (3), NodeAffinity (2), NodeResourcesFit (1). Node-static filters run first,
which preserves upstream's "first failing plugin" per node.
"""

from __future__ import annotations

from kbatch.controllers.scheduler.framework import Profile
from kbatch.controllers.scheduler.plugins import (
    LEAST_ALLOCATED,
    DefaultPreemption,
    InterPodAffinity,
    NodeAffinity,
    NodeName,
    NodeResourcesFit,
    NodeUnschedulable,
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
    filters = [NodeUnschedulable(), NodeName(), taints, affinity, fit, pod_affinity]
    return Profile(
        queue_sort=PrioritySort(),
        pre_enqueue=[SchedulingGates()],
        pre_filter=[pod_affinity],
        filter=filters,
        post_filter=[DefaultPreemption(filters)] if preemption else [],
        score=[taints, affinity, fit],
        percentage_of_nodes_to_score=percentage_of_nodes_to_score,
    )
