"""scheduling.k8s.io/v1alpha3: the CompositePodGroup (KEP-6012), and Workload and PodGroup as v1alpha3
serves them (Kubernetes 1.37, gate ``CompositePodGroup``, alpha and off).

Upstream ``staging/src/k8s.io/api/scheduling/v1alpha3/types.go`` (kubernetes/api 2026-07-24) and its
``register.go``: v1alpha3 serves all three kinds. Workload and PodGroup have the same shape in v1alpha3
and v1beta1 (both carry ``compositePodGroupTemplates`` / ``parentCompositePodGroupName``); kbatch stores
them in v1beta1 and converts by apiVersion alone. The CompositePodGroup exists only in v1alpha3 and is
stored there.

A **CompositePodGroup** groups PodGroups (and further composites) named as its children through their
``spec.parentCompositePodGroupName``; it is one instance of a Workload's ``compositePodGroupTemplates``
entry (``workloadRef``, required). Its ``schedulingPolicy`` is ``basic: {}`` (children independent)
or ``gang: {minGroupCount}``: at least that many children must be schedulable together or none is
placed. Status: ``CompositePodGroupInitiallyScheduled`` (terminal once True; reasons
``Unschedulable``, ``SchedulerError``, ``Invalid`` for a bad tree layout) and ``DisruptionTarget``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.meta import Condition, Resource
from kbatch.api.scheduling_v1beta1 import (
    GROUP,
    CompositeDisruptionMode,
    CompositePodGroupSchedulingConstraints,
    CompositePodGroupSchedulingPolicy,
    Int32,
    PodGroup,
    Workload,
    WorkloadReference,
)

__all__ = [
    "COMPOSITE_INITIALLY_SCHEDULED",
    "REASON_INVALID",
    "VERSION",
    "CompositePodGroup",
    "CompositePodGroupSpec",
    "CompositePodGroupStatus",
    "PodGroupV1alpha3",
    "WorkloadV1alpha3",
    "from_storage",
    "to_storage",
]

VERSION = "v1alpha3"
COMPOSITE_INITIALLY_SCHEDULED = "CompositePodGroupInitiallyScheduled"
REASON_INVALID = "Invalid"  # a tree layout the scheduler rejects: a cycle, depth > 4, several Workloads


class CompositePodGroupSpec(KubeModel):
    parent_composite_pod_group_name: str | None = None
    workload_ref: WorkloadReference | None = None  # required
    scheduling_policy: CompositePodGroupSchedulingPolicy = Field(
        default_factory=CompositePodGroupSchedulingPolicy)
    scheduling_constraints: CompositePodGroupSchedulingConstraints | None = None
    disruption_mode: CompositeDisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    preemption_policy: str | None = None  # gate PodGroupPreemptionPolicy (alpha)


class CompositePodGroupStatus(KubeModel):
    conditions: list[Condition] | None = None


class CompositePodGroup(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP, version=VERSION, kind="CompositePodGroup", plural="compositepodgroups",
        namespaced=True, singular="compositepodgroup",
    )

    spec: CompositePodGroupSpec = Field(default_factory=CompositePodGroupSpec)
    status: CompositePodGroupStatus | None = None

    def min_group_count(self) -> int:
        """``gang.minGroupCount``; 1 for a basic composite (upstream ``getMinCount``)."""
        gang = self.spec.scheduling_policy.gang
        return gang.min_group_count if gang is not None else 1


class WorkloadV1alpha3(Workload):
    """Workload as scheduling.k8s.io/v1alpha3 serves it (the v1beta1 shape)."""

    api_info: ClassVar[ApiInfo] = replace(Workload.api_info, version=VERSION)


class PodGroupV1alpha3(PodGroup):
    """PodGroup as scheduling.k8s.io/v1alpha3 serves it (the v1beta1 shape)."""

    api_info: ClassVar[ApiInfo] = replace(PodGroup.api_info, version=VERSION)


def _with_version(obj: dict[str, Any], version: str) -> dict[str, Any]:
    if "apiVersion" not in obj and "kind" not in obj:
        return dict(obj)
    return {**obj, "apiVersion": f"{GROUP}/{version}"}


def to_storage(obj: dict[str, Any]) -> dict[str, Any]:
    """v1alpha3 → v1beta1: the same fields (upstream converts both through the internal type)."""
    return _with_version(obj, "v1beta1")


def from_storage(obj: dict[str, Any]) -> dict[str, Any]:
    return _with_version(obj, VERSION)
