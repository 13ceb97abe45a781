"""scheduling.k8s.io/v1beta1 Workload and PodGroup: Kubernetes' own gang scheduling API (KEP-4671).

Shapes as Kubernetes 1.37 released them (k8s-openapi 0.29 ``v1_37/api/scheduling/v1beta1``; upstream
``staging/src/k8s.io/api/scheduling/v1beta1/types.go``):

* a **Workload** (no status) lists up to 8 ``podGroupTemplates``, each a name, a scheduling policy
  (``basic: {}`` or ``gang: {minCount}``), optional topology constraints, up to 4 shared resource
  claims, a disruption mode (``single: {}`` | ``all: {}``), a priority class and priority;
  ``controllerRef`` names the object that owns it (a Job, ...);
* a **PodGroup** is one runtime instance of a template (``workloadRef: {workloadName,
  templateName}``) or a standalone group; its ``/status`` carries the scheduler's
  ``PodGroupInitiallyScheduled`` condition (terminal once True) and ``DisruptionTarget``;
* pods join a PodGroup by name through ``spec.schedulingGroup.podGroupName``
  (:class:`kbatch.api.core_v1.PodSchedulingGroup`);
* two alpha fields of PodGroups and templates, each served only with its gate (off by default):
  ``schedulingConstraints.topology`` (TopologyAwareWorkloadScheduling, KEP-5732: the group within
  one domain of a node label) and ``preemptionPolicy`` (PodGroupPreemptionPolicy: ``Never`` groups
  do not preempt).

With the ``CompositePodGroup`` gate (alpha, off) a Workload may list ``compositePodGroupTemplates``
instead of ``podGroupTemplates`` (a tree of groups of groups, at most 4 deep, KEP-6012) and a PodGroup
may name its ``parentCompositePodGroupName``; the CompositePodGroup kind itself is v1alpha3's
(:mod:`kbatch.api.scheduling_v1alpha3`).

The reusable building blocks controllers embed (KEP-6089; upstream places them in v1alpha3) are here
too: :class:`WorkloadPodGroupSchedulingPolicy` (``minCount``
optional: the embedding controller defaults it), used by the Job's ``spec.scheduling``. Served only
while the ``GenericWorkload`` feature gate is on (beta, off by default in 1.37), as upstream.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1.common import TypedLocalObjectReference
from kbatch.api.gotypes import Int32  # Go's scalar types, decoded strictly
from kbatch.api.meta import Condition, Resource

__all__ = [
    "ALL_DISRUPTION",
    "COMPOSITE_POD_GROUP",
    "DISRUPTION_TARGET",
    "GENERIC_WORKLOAD",
    "MANAGED_BY_ANNOTATION",
    "PODGROUP_INITIALLY_SCHEDULED",
    "PODGROUP_PREEMPTION_POLICY",
    "PODGROUP_PROTECTION_FINALIZER",
    "PREEMPTION_POLICIES",
    "TOPOLOGY_AWARE_WORKLOAD_SCHEDULING",
    "WORKLOAD_RESOURCE_CLAIMS",
    "WORKLOAD_WITH_JOB",
    "AllDisruptionMode",
    "BasicSchedulingPolicy",
    "CompositeDisruptionMode",
    "CompositeGangSchedulingPolicy",
    "CompositePodGroupSchedulingConstraints",
    "CompositePodGroupSchedulingPolicy",
    "CompositePodGroupTemplate",
    "DisruptionMode",
    "GangSchedulingPolicy",
    "PodGroup",
    "PodGroupResourceClaim",
    "PodGroupResourceClaimStatus",
    "PodGroupSchedulingConstraints",
    "PodGroupSchedulingPolicy",
    "PodGroupSpec",
    "PodGroupStatus",
    "PodGroupTemplate",
    "SingleDisruptionMode",
    "TopologyConstraint",
    "Workload",
    "WorkloadPodGroupGangSchedulingPolicy",
    "WorkloadPodGroupSchedulingPolicy",
    "WorkloadReference",
    "WorkloadSpec",
]

GROUP = "scheduling.k8s.io"
GENERIC_WORKLOAD = "GenericWorkload"  # the API, the pod field, the scheduler's workload cycle (beta, off)
# PodGroup ResourceClaims (KEP-5729, beta, off; declared by the DRA family)
WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims"
WORKLOAD_WITH_JOB = "WorkloadWithJob"  # the Job controller's Workload/PodGroup (KEP-5547, alpha, off)
# schedulingConstraints.topology served and honoured by the workload cycle (KEP-5732; alpha, off in 1.37)
TOPOLOGY_AWARE_WORKLOAD_SCHEDULING = "TopologyAwareWorkloadScheduling"
# PodGroup / template preemptionPolicy served and honoured (KEP-5710 follow-up; alpha, off in 1.37)
PODGROUP_PREEMPTION_POLICY = "PodGroupPreemptionPolicy"
# CompositePodGroup (v1alpha3), Workload compositePodGroupTemplates, PodGroup parentCompositePodGroupName
# and the scheduler's tree cycle (KEP-6012; alpha, off in 1.37)
COMPOSITE_POD_GROUP = "CompositePodGroup"
PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")  # v1beta1 PreemptionPolicy (+k8s:enum)
PODGROUP_INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"  # the scheduler's condition (1.37 name)
DISRUPTION_TARGET = "DisruptionTarget"  # set on a PodGroup preempted as a whole (KEP-5710)
PODGROUP_PROTECTION_FINALIZER = "scheduling.k8s.io/podgroup-protection"
ALL_DISRUPTION = "all"
MANAGED_BY_ANNOTATION = "batch.kubernetes.io/workload-managed-by"  # batch.JobWorkloadManagedByAnnotation
"""Marks Workloads/PodGroups the Job controller created (upstream's key for
``batch.JobWorkloadManagedByAnnotation`` was not found in the sources consulted; this is kbatch's
spelling, documented in docs/gang.md)."""


class BasicSchedulingPolicy(KubeModel):
    """Standard scheduling: each pod on its own (still through the workload scheduling cycle)."""


class GangSchedulingPolicy(KubeModel):
    min_count: Int32 = 0  # required, > 0; mutable in 1.37


class PodGroupSchedulingPolicy(KubeModel):
    """Exactly one of ``basic`` / ``gang``; the variant is fixed at creation."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None


class WorkloadPodGroupGangSchedulingPolicy(KubeModel):
    min_count: Int32 | None = None  # optional here: the embedding controller defaults it


class WorkloadPodGroupSchedulingPolicy(KubeModel):
    """The building block controllers embed (KEP-6089; upstream v1alpha3)."""

    basic: BasicSchedulingPolicy | None = None
    gang: WorkloadPodGroupGangSchedulingPolicy | None = None


class TopologyConstraint(KubeModel):
    key: str = ""  # a node label key


class PodGroupSchedulingConstraints(KubeModel):
    topology: list[TopologyConstraint] | None = None  # at most 1 (TopologyAwareWorkloadScheduling)


class SingleDisruptionMode(KubeModel):
    """Pods of the group may be disrupted one by one (the default)."""


class AllDisruptionMode(KubeModel):
    """The group is disrupted (preempted) as a whole."""


class DisruptionMode(KubeModel):
    """Exactly one of ``single`` / ``all``; defaults to ``single``; immutable."""

    single: SingleDisruptionMode | None = None
    all: AllDisruptionMode | None = None


class PodGroupResourceClaim(KubeModel):
    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodGroupTemplate(KubeModel):
    name: str = ""
    scheduling_policy: PodGroupSchedulingPolicy = Field(default_factory=PodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    preemption_policy: str | None = None  # gate PodGroupPreemptionPolicy (alpha)


class CompositeGangSchedulingPolicy(KubeModel):
    min_group_count: Int32 = 0  # required, >= 1: child groups that must be schedulable together


class CompositePodGroupSchedulingPolicy(KubeModel):
    """Exactly one of ``basic`` (children scheduled independently) / ``gang``."""

    basic: BasicSchedulingPolicy | None = None
    gang: CompositeGangSchedulingPolicy | None = None


class CompositePodGroupSchedulingConstraints(KubeModel):
    topology: list[TopologyConstraint] | None = None  # at most 1


class CompositeDisruptionMode(KubeModel):
    """Exactly one of ``single`` / ``all`` (children disrupted together); defaults to ``single``."""

    single: SingleDisruptionMode | None = None
    all: AllDisruptionMode | None = None


class CompositePodGroupTemplate(KubeModel):
    """A node of a Workload's template tree: its policy and its children (PodGroup templates and
    further composite templates, at least one, at most 8 of each)."""

    name: str = ""
    scheduling_policy: CompositePodGroupSchedulingPolicy = Field(
        default_factory=CompositePodGroupSchedulingPolicy)
    scheduling_constraints: CompositePodGroupSchedulingConstraints | None = None
    disruption_mode: CompositeDisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    preemption_policy: str | None = None  # gate PodGroupPreemptionPolicy (alpha)
    pod_group_templates: list[PodGroupTemplate] | None = None
    composite_pod_group_templates: list[CompositePodGroupTemplate] | None = None


class WorkloadSpec(KubeModel):
    controller_ref: TypedLocalObjectReference | None = None
    pod_group_templates: list[PodGroupTemplate] | None = None
    composite_pod_group_templates: list[CompositePodGroupTemplate] | None = None  # gate CompositePodGroup


class Workload(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP, version="v1beta1", kind="Workload", plural="workloads", namespaced=True,
        singular="workload", subresources=(),
    )

    spec: WorkloadSpec = Field(default_factory=WorkloadSpec)


class WorkloadReference(KubeModel):
    workload_name: str = ""
    template_name: str = ""


class PodGroupSpec(KubeModel):
    workload_ref: WorkloadReference | None = None
    scheduling_policy: PodGroupSchedulingPolicy = Field(default_factory=PodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    parent_composite_pod_group_name: str | None = None  # gate CompositePodGroup (alpha)
    preemption_policy: str | None = None  # gate PodGroupPreemptionPolicy (alpha); unset: PreemptLowerPriority


class PodGroupResourceClaimStatus(KubeModel):
    name: str = ""
    resource_claim_name: str | None = None


class PodGroupStatus(KubeModel):
    conditions: list[Condition] | None = None
    resource_claim_statuses: list[PodGroupResourceClaimStatus] | None = None


class PodGroup(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP, version="v1beta1", kind="PodGroup", plural="podgroups", namespaced=True,
        singular="podgroup",
    )

    spec: PodGroupSpec = Field(default_factory=PodGroupSpec)
    status: PodGroupStatus | None = None

    def min_count(self) -> int:
        """The gang's ``minCount``; 1 for a basic group (upstream ``getMinCount``)."""
        gang = self.spec.scheduling_policy.gang
        return gang.min_count if gang is not None else 1

    def scheduled_initially(self) -> bool:
        """``PodGroupInitiallyScheduled`` is True (terminal: it never reverts)."""
        conditions = self.status.conditions if self.status is not None else None
        return any(c.type == PODGROUP_INITIALLY_SCHEDULED and c.status == "True" for c in conditions or ())

    def topology_key(self) -> str:
        """The node label of ``schedulingConstraints.topology[0]``, or "" (upstream
        ``TopologyPlacement.getTopologyKey``: one constraint at most)."""
        constraints = self.spec.scheduling_constraints
        topology = constraints.topology if constraints is not None else None
        return topology[0].key if topology else ""

    def preempts(self) -> bool:
        """``preemptionPolicy`` is not ``Never`` (unset: PreemptLowerPriority, upstream
        ``podGroupPreemptionPolicy``)."""
        return self.spec.preemption_policy != "Never"

    def disrupted_as_a_whole(self) -> bool:
        return self.spec.disruption_mode is not None and self.spec.disruption_mode.all is not None
