"""The kueue.x-k8s.io/v1beta1 models, derived from v1beta2's where the two versions differ.

Upstream: kubernetes-sigs/kueue ``apis/kueue/v1beta1/*_types.go`` at v0.19.2. The differences from
v1beta2 (everything else is shared, type for type):

* ClusterQueue ``spec.cohort`` (v1beta2 ``cohortName``), ``spec.admissionChecks`` (a list of names),
  no ``concurrentAdmissionPolicy``; status ``pendingWorkloadsStatus``; ``fairSharing`` status with
  ``admissionFairSharingStatus``; Cohort status ``fairSharing`` with ``admissionFairSharingStatus``
  too (``config/components/crd/bases/kueue.x-k8s.io_cohorts.yaml``);
* LocalQueue status ``flavorUsage`` (v1beta2 ``flavorsUsage``) and ``flavors``;
* Workload ``spec.priorityClassName`` + ``priorityClassSource`` (v1beta2 ``priorityClassRef``), no
  ``preemptionGates``; status ``accumulatedPastExexcutionTimeSeconds`` (sic); topology assignments
  as ``domains`` (v1beta2 ``slices``);
* AdmissionCheck ``spec.retryDelayMinutes``;
* MultiKueueCluster ``spec.kubeConfig`` (v1beta2 ``spec.clusterSource.kubeConfig``); MultiKueueConfig
  without ``spec.quotaManagement``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import create_model

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1 import Taint
from kbatch.api.kueue_v1beta2 import cluster as v2c
from kbatch.api.kueue_v1beta2 import multikueue as v2mk
from kbatch.api.kueue_v1beta2 import provisioning as v2p
from kbatch.api.kueue_v1beta2 import queues as v2q
from kbatch.api.kueue_v1beta2 import workload as v2w
from kbatch.api.kueue_v1beta2.common import GROUP, Int32, Int64
from kbatch.api.meta import Resource
from kbatch.api.quantity import Quantity

__all__ = [
    "AdmissionCheck",
    "ClusterQueue",
    "Cohort",
    "LocalQueue",
    "MultiKueueCluster",
    "MultiKueueConfig",
    "ProvisioningRequestConfig",
    "ResourceFlavor",
    "Topology",
    "Workload",
    "WorkloadPriorityClass",
]

VERSION = "v1beta1"


def derive(base: type[KubeModel], name: str, drop: tuple[str, ...] = (), **add: Any) -> type[KubeModel]:
    """A model with ``base``'s fields but ``drop``, plus ``add`` (``name=(annotation, default)``)."""
    fields: dict[str, Any] = {
        n: (f.annotation, f.default) for n, f in base.model_fields.items() if n not in drop
    }
    fields.update(add)
    return create_model(name, __base__=KubeModel, __module__=__name__, **fields)  # type: ignore[call-overload,no-any-return]


def _info(v2: type[Resource]) -> ApiInfo:
    i = v2.api_info
    return ApiInfo(
        GROUP,
        VERSION,
        i.kind,
        i.plural,
        i.namespaced,
        short_names=i.short_names,
        singular=i.singular,
        subresources=i.subresources,
    )


# --- ClusterQueue ------------------------------------------------------------------------------


class ClusterQueuePendingWorkload(KubeModel):
    name: str | None = None
    namespace: str | None = None


class ClusterQueuePendingWorkloadsStatus(KubeModel):
    cluster_queue_pending_workload: list[ClusterQueuePendingWorkload] | None = None
    last_change_time: Time | None = None


class AdmissionFairSharingStatus(KubeModel):
    consumed_resources: dict[str, Quantity] | None = None
    last_update: Time | None = None


class FairSharingStatus(KubeModel):
    weighted_share: Int64 | None = None
    admission_fair_sharing_status: AdmissionFairSharingStatus | None = None


ClusterQueueSpec = derive(
    v2q.ClusterQueueSpec,
    "ClusterQueueSpec",
    drop=("cohort_name", "concurrent_admission_policy"),
    cohort=(str | None, None),
    admission_checks=(list[str] | None, None),
)
ClusterQueueStatus = derive(
    v2q.ClusterQueueStatus,
    "ClusterQueueStatus",
    drop=("fair_sharing",),
    fair_sharing=(FairSharingStatus | None, None),
    pending_workloads_status=(ClusterQueuePendingWorkloadsStatus | None, None),
)


class ClusterQueue(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2q.ClusterQueue)
    spec: ClusterQueueSpec | None = None  # type: ignore[valid-type]
    status: ClusterQueueStatus | None = None  # type: ignore[valid-type]


# --- LocalQueue --------------------------------------------------------------------------------


class TopologyInfo(KubeModel):
    name: str | None = None
    levels: list[str] | None = None


class LocalQueueFlavorStatus(KubeModel):
    name: str | None = None
    resources: list[str] | None = None
    node_labels: dict[str, str] | None = None
    node_taints: list[Taint] | None = None
    topology: TopologyInfo | None = None


LocalQueueStatus = derive(
    v2q.LocalQueueStatus,
    "LocalQueueStatus",
    drop=("flavors_usage", "fair_sharing"),
    flavor_usage=(list[v2q.LocalQueueFlavorUsage] | None, None),
    flavors=(list[LocalQueueFlavorStatus] | None, None),
    fair_sharing=(FairSharingStatus | None, None),
)


class LocalQueue(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2q.LocalQueue)
    spec: v2q.LocalQueueSpec | None = None
    status: LocalQueueStatus | None = None  # type: ignore[valid-type]


CohortStatus = derive(
    v2q.CohortStatus,
    "CohortStatus",
    drop=("fair_sharing",),
    fair_sharing=(FairSharingStatus | None, None),
)


class Cohort(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2q.Cohort)
    spec: v2q.CohortSpec | None = None
    status: CohortStatus | None = None  # type: ignore[valid-type]


# --- Workload ----------------------------------------------------------------------------------


class TopologyDomainAssignment(KubeModel):
    values: list[str] | None = None
    count: Int32 | None = None


class TopologyAssignment(KubeModel):
    levels: list[str] | None = None
    domains: list[TopologyDomainAssignment] | None = None


PodSetTopologyRequest = derive(
    v2w.PodSetTopologyRequest, "PodSetTopologyRequest", drop=("podset_slice_required_topology_constraints",)
)
PodSet = derive(
    v2w.PodSet, "PodSet", drop=("topology_request",), topology_request=(PodSetTopologyRequest | None, None)
)
PodSetAssignment = derive(
    v2w.PodSetAssignment,
    "PodSetAssignment",
    drop=("topology_assignment",),
    topology_assignment=(TopologyAssignment | None, None),
)
Admission = derive(
    v2w.Admission,
    "Admission",
    drop=("pod_set_assignments",),
    pod_set_assignments=(list[PodSetAssignment] | None, None),  # type: ignore[valid-type]
)
WorkloadSpec = derive(
    v2w.WorkloadSpec,
    "WorkloadSpec",
    drop=("priority_class_ref", "preemption_gates", "pod_sets"),
    pod_sets=(list[PodSet] | None, None),  # type: ignore[valid-type]
    priority_class_name=(str | None, None),
    priority_class_source=(str | None, None),
)
WorkloadStatus = derive(
    v2w.WorkloadStatus,
    "WorkloadStatus",
    drop=("accumulated_past_execution_time_seconds", "preemption_gates", "admission"),
    admission=(Admission | None, None),
    accumulated_past_exexcution_time_seconds=(Int32 | None, None),
)


class Workload(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2w.Workload)
    spec: WorkloadSpec | None = None  # type: ignore[valid-type]
    status: WorkloadStatus | None = None  # type: ignore[valid-type]


# --- the cluster-scoped kinds ------------------------------------------------------------------


class ResourceFlavor(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2c.ResourceFlavor)
    spec: v2c.ResourceFlavorSpec | None = None


class WorkloadPriorityClass(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2c.WorkloadPriorityClass)
    value: Int32 | None = None
    description: str | None = None


AdmissionCheckSpec = derive(
    v2c.AdmissionCheckSpec, "AdmissionCheckSpec", retry_delay_minutes=(Int64 | None, None)
)


class AdmissionCheck(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2c.AdmissionCheck)
    spec: AdmissionCheckSpec | None = None  # type: ignore[valid-type]
    status: v2c.AdmissionCheckStatus | None = None


class Topology(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2c.Topology)
    spec: v2c.TopologySpec | None = None


class ProvisioningRequestConfig(Resource):
    """v1beta1's fields are v1beta2's (``apis/kueue/v1beta1/provisioningrequestconfig_types.go``)."""

    api_info: ClassVar[ApiInfo] = _info(v2p.ProvisioningRequestConfig)
    spec: v2p.ProvisioningRequestConfigSpec | None = None


# --- MultiKueue (apis/kueue/v1beta1/multikueue_types.go) ----------------------------------------


class MultiKueueClusterSpec(KubeModel):
    """v1beta1 keeps the kubeconfig at ``spec.kubeConfig`` (v1beta2 ``spec.clusterSource.kubeConfig``)."""

    kube_config: v2mk.KubeConfig | None = None
    cluster_profile_ref: v2mk.ClusterProfileReference | None = None


class MultiKueueCluster(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2mk.MultiKueueCluster)
    spec: MultiKueueClusterSpec | None = None
    status: v2mk.MultiKueueClusterStatus | None = None


class MultiKueueConfigSpec(KubeModel):
    """v1beta1 has no ``quotaManagement``."""

    clusters: list[str] | None = None


class MultiKueueConfig(Resource):
    api_info: ClassVar[ApiInfo] = _info(v2mk.MultiKueueConfig)
    spec: MultiKueueConfigSpec | None = None

