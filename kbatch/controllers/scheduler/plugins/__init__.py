"""The in-tree plugins kbatch implements, one module each (upstream
``pkg/scheduler/framework/plugins/<name>``)."""

from kbatch.controllers.scheduler.plugins.balanced_allocation import BalancedAllocation
from kbatch.controllers.scheduler.plugins.default_preemption import DefaultPreemption, select_victims
from kbatch.controllers.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from kbatch.controllers.scheduler.plugins.node_affinity import NodeAffinity
from kbatch.controllers.scheduler.plugins.node_name import NodeName
from kbatch.controllers.scheduler.plugins.node_ports import NodePorts
from kbatch.controllers.scheduler.plugins.node_resources_fit import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    NodeResourcesFit,
)
from kbatch.controllers.scheduler.plugins.node_unschedulable import NodeUnschedulable
from kbatch.controllers.scheduler.plugins.pod_topology_spread import PodTopologySpread, ServiceSelectors
from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.plugins.scheduling_gates import SchedulingGates
from kbatch.controllers.scheduler.plugins.taint_toleration import TaintToleration

__all__ = [
    "LEAST_ALLOCATED",
    "MOST_ALLOCATED",
    "BalancedAllocation",
    "DefaultPreemption",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeName",
    "NodePorts",
    "NodeResourcesFit",
    "NodeUnschedulable",
    "PodTopologySpread",
    "PrioritySort",
    "SchedulingGates",
    "ServiceSelectors",
    "TaintToleration",
    "select_victims",
]
