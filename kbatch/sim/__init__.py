"""The simulated cluster's vocabulary: container commands, KWOK-style stage rules, node templates
and fault injection (docs/simulation.md)."""

from kbatch.sim.command import DEFAULT_DURATION, ContainerRun, interpret
from kbatch.sim.faults import (
    FAULT_ANNOTATION,
    KUBELET_ANNOTATION,
    PROBE_FAULT_ANNOTATION,
    add_pod_condition,
    clear_probe_faults,
    delete_node,
    evict_pod,
    fail_pod,
    fail_probe,
    mark_node_not_ready,
    mark_node_ready,
    set_node_condition,
    start_kubelet,
    stop_kubelet,
    taint_node,
    untaint_node,
)
from kbatch.sim.nodes import GPU_RESOURCE, NodeTemplate, create_nodes, make_node
from kbatch.sim.stages import StageRule, load_stages

__all__ = [
    "DEFAULT_DURATION",
    "FAULT_ANNOTATION",
    "GPU_RESOURCE",
    "KUBELET_ANNOTATION",
    "PROBE_FAULT_ANNOTATION",
    "ContainerRun",
    "NodeTemplate",
    "StageRule",
    "add_pod_condition",
    "clear_probe_faults",
    "create_nodes",
    "delete_node",
    "evict_pod",
    "fail_pod",
    "fail_probe",
    "interpret",
    "load_stages",
    "make_node",
    "mark_node_not_ready",
    "mark_node_ready",
    "set_node_condition",
    "start_kubelet",
    "stop_kubelet",
    "taint_node",
    "untaint_node",
]
