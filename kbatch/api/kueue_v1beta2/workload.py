"""Workload (kueue.x-k8s.io/v1beta2): what Kueue queues, admits and evicts.

Upstream: kubernetes-sigs/kueue ``apis/kueue/v1beta2/workload_types.go`` at v0.19.2. Every field of
the spec and status is modelled; the topology-aware fields (``topologyRequest``,
``topologyAssignment``, ``delayedTopologyRequest``, ``unhealthyNodes``) and the MultiKueue fields
(``clusterName``, ``nominatedClusterNames``) are kept as data (kbatch does not implement TAS or
MultiKueue, see docs/kueue.md).
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1 import PodTemplateSpec, Toleration
from kbatch.api.kueue_v1beta2.common import GROUP, VERSION, Bool, Int32
from kbatch.api.meta import Condition, Resource
from kbatch.api.quantity import Quantity

__all__ = [
    "Admission",
    "AdmissionCheckState",
    "PodSet",
    "PodSetAssignment",
    "PodSetRequest",
    "PodSetTopologyRequest",
    "PodSetUpdate",
    "PodsetSliceRequiredTopologyConstraint",
    "PreemptionGate",
    "PreemptionGateState",
    "PriorityClassRef",
    "ReclaimablePod",
    "RequeueState",
    "SchedulingStats",
    "TopologyAssignment",
    "TopologyAssignmentSlice",
    "TopologyAssignmentSliceLevelIndividualValues",
    "TopologyAssignmentSliceLevelValues",
    "TopologyAssignmentSlicePodCounts",
    "UnhealthyNode",
    "Workload",
    "WorkloadSchedulingStatsEviction",
    "WorkloadSpec",
    "WorkloadStatus",
]


class PriorityClassRef(KubeModel):
    group: str | None = None  # kueue.x-k8s.io | scheduling.k8s.io
    kind: str | None = None  # WorkloadPriorityClass | PriorityClass
    name: str | None = None


class PodsetSliceRequiredTopologyConstraint(KubeModel):
    topology: str | None = None
    size: Int32 | None = None


class PodSetTopologyRequest(KubeModel):
    required: str | None = None
    preferred: str | None = None
    unconstrained: Bool | None = None
    pod_index_label: str | None = None
    sub_group_index_label: str | None = None
    sub_group_count: Int32 | None = None
    pod_set_group_name: str | None = None
    pod_set_slice_required_topology: str | None = None
    pod_set_slice_size: Int32 | None = None
    podset_slice_required_topology_constraints: list[PodsetSliceRequiredTopologyConstraint] | None = None


class PodSet(KubeModel):
    name: str | None = None
    template: PodTemplateSpec | None = None
    count: Int32 | None = None
    min_count: Int32 | None = None
    topology_request: PodSetTopologyRequest | None = None


class PreemptionGate(KubeModel):
    name: str | None = None


class WorkloadSpec(KubeModel):
    pod_sets: list[PodSet] | None = None
    queue_name: str | None = None
    priority_class_ref: PriorityClassRef | None = None
    priority: Int32 | None = None
    active: Bool | None = None
    maximum_execution_time_seconds: Int32 | None = None
    preemption_gates: list[PreemptionGate] | None = None


class TopologyAssignmentSliceLevelIndividualValues(KubeModel):
    prefix: str | None = None
    suffix: str | None = None
    roots: list[str] | None = None


class TopologyAssignmentSliceLevelValues(KubeModel):
    universal: str | None = None
    individual: TopologyAssignmentSliceLevelIndividualValues | None = None


class TopologyAssignmentSlicePodCounts(KubeModel):
    universal: Int32 | None = None
    individual: list[Int32] | None = None


class TopologyAssignmentSlice(KubeModel):
    domain_count: Int32 | None = None
    values_per_level: list[TopologyAssignmentSliceLevelValues] | None = None
    pod_counts: TopologyAssignmentSlicePodCounts | None = None


class TopologyAssignment(KubeModel):
    levels: list[str] | None = None
    slices: list[TopologyAssignmentSlice] | None = None


class PodSetAssignment(KubeModel):
    name: str | None = None
    flavors: dict[str, str] | None = None
    resource_usage: dict[str, Quantity] | None = None
    count: Int32 | None = None
    topology_assignment: TopologyAssignment | None = None
    delayed_topology_request: str | None = None


class Admission(KubeModel):
    cluster_queue: str | None = None
    pod_set_assignments: list[PodSetAssignment] | None = None


class RequeueState(KubeModel):
    count: Int32 | None = None
    requeue_at: Time | None = None


class ReclaimablePod(KubeModel):
    name: str | None = None
    count: Int32 | None = None


class PodSetUpdate(KubeModel):
    name: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    node_selector: dict[str, str] | None = None
    tolerations: list[Toleration] | None = None


class AdmissionCheckState(KubeModel):
    name: str | None = None
    state: str | None = None  # Pending | Ready | Retry | Rejected
    last_transition_time: Time | None = None
    message: str | None = None
    requeue_after_seconds: Int32 | None = None
    retry_count: Int32 | None = None
    pod_set_updates: list[PodSetUpdate] | None = None


class PodSetRequest(KubeModel):
    name: str | None = None
    resources: dict[str, Quantity] | None = None


class WorkloadSchedulingStatsEviction(KubeModel):
    reason: str | None = None
    underlying_cause: str | None = None
    count: Int32 | None = None


class SchedulingStats(KubeModel):
    evictions: list[WorkloadSchedulingStatsEviction] | None = None


class UnhealthyNode(KubeModel):
    name: str | None = None


class PreemptionGateState(KubeModel):
    name: str | None = None
    position: str | None = None  # Closed | Open
    last_transition_time: Time | None = None


class WorkloadStatus(KubeModel):
    conditions: list[Condition] | None = None
    admission: Admission | None = None
    requeue_state: RequeueState | None = None
    reclaimable_pods: list[ReclaimablePod] | None = None
    admission_checks: list[AdmissionCheckState] | None = None
    resource_requests: list[PodSetRequest] | None = None
    accumulated_past_execution_time_seconds: Int32 | None = None
    scheduling_stats: SchedulingStats | None = None
    nominated_cluster_names: list[str] | None = None
    cluster_name: str | None = None
    unhealthy_nodes: list[UnhealthyNode] | None = None
    preemption_gates: list[PreemptionGateState] | None = None


class Workload(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "Workload",
        "workloads",
        True,
        short_names=("kwl", "kueueworkload", "kueueworkloads"),
        singular="workload",
    )
    spec: WorkloadSpec | None = None
    status: WorkloadStatus | None = None
