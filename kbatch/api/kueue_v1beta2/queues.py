"""ClusterQueue, LocalQueue and Cohort (kueue.x-k8s.io/v1beta2).

Upstream: kubernetes-sigs/kueue ``apis/kueue/v1beta2/{clusterqueue,localqueue,cohort}_types.go`` at
v0.19.2, and the generated CRDs (``config/components/crd/bases``) for short names and printer
columns. ``concurrentAdmissionPolicy`` (alpha gate ``ConcurrentAdmission``) acts with the gate on
(``kbatch.controllers.kueue.concurrent_admission``) and is data with it off.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.kueue_v1beta2.common import (
    GROUP,
    VERSION,
    AdmissionScope,
    FairSharing,
    FairSharingStatus,
    FlavorUsage,
    Int32,
    Int64,
    ResourceGroup,
)
from kbatch.api.meta import Condition, LabelSelector, Resource
from kbatch.api.quantity import Quantity

__all__ = [
    "AdmissionCheckStrategyRule",
    "AdmissionChecksStrategy",
    "BorrowWithinCohort",
    "ClusterQueue",
    "ClusterQueuePreemption",
    "ClusterQueueSpec",
    "ClusterQueueStatus",
    "Cohort",
    "CohortSpec",
    "CohortStatus",
    "ConcurrentAdmissionConstraints",
    "ConcurrentAdmissionMigration",
    "ConcurrentAdmissionPolicy",
    "FlavorFungibility",
    "LocalQueue",
    "LocalQueueAdmissionFairSharingStatus",
    "LocalQueueFairSharingStatus",
    "LocalQueueFlavorUsage",
    "LocalQueueResourceUsage",
    "LocalQueueSpec",
    "LocalQueueStatus",
]


class FlavorFungibility(KubeModel):
    when_can_borrow: str | None = None  # MayStopSearch (default) | TryNextFlavor
    when_can_preempt: str | None = None  # MayStopSearch | TryNextFlavor (default)
    preference: str | None = None  # BorrowingOverPreemption | PreemptionOverBorrowing


class BorrowWithinCohort(KubeModel):
    policy: str | None = None  # Never (default) | LowerPriority
    max_priority_threshold: Int32 | None = None


class ClusterQueuePreemption(KubeModel):
    reclaim_within_cohort: str | None = None  # Never (default) | LowerPriority | Any
    borrow_within_cohort: BorrowWithinCohort | None = None
    within_cluster_queue: str | None = None  # Never (default) | LowerPriority | LowerOrNewerEqualPriority


class AdmissionCheckStrategyRule(KubeModel):
    name: str | None = None
    on_flavors: list[str] | None = None


class AdmissionChecksStrategy(KubeModel):
    admission_checks: list[AdmissionCheckStrategyRule] | None = None


class ConcurrentAdmissionConstraints(KubeModel):
    last_acceptable_flavor_name: str | None = None


class ConcurrentAdmissionMigration(KubeModel):
    mode: str | None = None
    constraints: ConcurrentAdmissionConstraints | None = None


class ConcurrentAdmissionPolicy(KubeModel):
    migration: ConcurrentAdmissionMigration | None = None


class ClusterQueueSpec(KubeModel):
    resource_groups: list[ResourceGroup] | None = None
    cohort_name: str | None = None
    queueing_strategy: str | None = None
    namespace_selector: LabelSelector | None = None
    flavor_fungibility: FlavorFungibility | None = None
    preemption: ClusterQueuePreemption | None = None
    admission_checks_strategy: AdmissionChecksStrategy | None = None
    stop_policy: str | None = None
    fair_sharing: FairSharing | None = None
    admission_scope: AdmissionScope | None = None
    concurrent_admission_policy: ConcurrentAdmissionPolicy | None = None


class ClusterQueueStatus(KubeModel):
    conditions: list[Condition] | None = None
    flavors_reservation: list[FlavorUsage] | None = None
    flavors_usage: list[FlavorUsage] | None = None
    pending_workloads: Int32 | None = None
    reserving_workloads: Int32 | None = None
    admitted_workloads: Int32 | None = None
    fair_sharing: FairSharingStatus | None = None


class ClusterQueue(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP, VERSION, "ClusterQueue", "clusterqueues", False, short_names=("cq",), singular="clusterqueue"
    )
    spec: ClusterQueueSpec | None = None
    status: ClusterQueueStatus | None = None


class LocalQueueSpec(KubeModel):
    cluster_queue: str | None = None
    stop_policy: str | None = None
    fair_sharing: FairSharing | None = None


class LocalQueueResourceUsage(KubeModel):
    name: str | None = None
    total: Quantity | None = None


class LocalQueueFlavorUsage(KubeModel):
    name: str | None = None
    resources: list[LocalQueueResourceUsage] | None = None


class LocalQueueAdmissionFairSharingStatus(KubeModel):
    consumed_resources: dict[str, Quantity] | None = None
    last_update: Time | None = None


class LocalQueueFairSharingStatus(KubeModel):
    weighted_share: Int64 | None = None
    admission_fair_sharing_status: LocalQueueAdmissionFairSharingStatus | None = None


class LocalQueueStatus(KubeModel):
    conditions: list[Condition] | None = None
    pending_workloads: Int32 | None = None
    reserving_workloads: Int32 | None = None
    admitted_workloads: Int32 | None = None
    flavors_reservation: list[LocalQueueFlavorUsage] | None = None
    flavors_usage: list[LocalQueueFlavorUsage] | None = None
    fair_sharing: LocalQueueFairSharingStatus | None = None


class LocalQueue(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "LocalQueue",
        "localqueues",
        True,
        short_names=("queue", "queues", "lq"),
        singular="localqueue",
    )
    spec: LocalQueueSpec | None = None
    status: LocalQueueStatus | None = None


class CohortSpec(KubeModel):
    parent_name: str | None = None
    resource_groups: list[ResourceGroup] | None = None
    fair_sharing: FairSharing | None = None


class CohortStatus(KubeModel):
    fair_sharing: FairSharingStatus | None = None


class Cohort(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP, VERSION, "Cohort", "cohorts", False, short_names=("co",), singular="cohort"
    )
    spec: CohortSpec | None = None
    status: CohortStatus | None = None
