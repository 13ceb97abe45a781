"""Strategies of scheduling.k8s.io/v1beta1 Workload and PodGroup (upstream
``pkg/registry/scheduling/workload/strategy.go``, ``pkg/registry/scheduling/podgroup/strategy.go``).

Workload has no status. PodGroup has ``/status``: main-resource writes keep the stored status, status
writes keep everything else. The fields of features kbatch does not model are dropped on create (and
on an update that does not already use them), as upstream drops them while their gates are off:
``schedulingConstraints`` (TopologyAwareWorkloadScheduling, alpha), ``resourceClaims``
(DRAWorkloadResourceClaims, beta off by default), ``parentCompositePodGroupName`` (CompositePodGroup,
alpha), ``preemptionPolicy`` (PodGroupPreemptionPolicy, alpha); and, with ``resourceClaims``, a
status write's ``resourceClaimStatuses``. docs/gang.md lists them.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.scheduling_v1beta1 import PodGroup, PodGroupSpec, PodGroupStatus, PodGroupTemplate, Workload
from kbatch.api.strategies.scheduling.validation import (
    validate_pod_group,
    validate_pod_group_status,
    validate_pod_group_update,
    validate_workload,
    validate_workload_update,
)
from kbatch.api.strategy import DefaultStrategy

__all__ = ["PodGroupStrategy", "WorkloadStrategy", "drop_unmodelled_fields"]

_UNMODELLED = ("scheduling_constraints", "resource_claims", "parent_composite_pod_group_name",
               "preemption_policy")


def drop_unmodelled_fields(new: PodGroupSpec | PodGroupTemplate, old: Any = None) -> None:
    """Clear the gated fields kbatch does not model unless ``old`` (the stored value) uses them."""
    for name in _UNMODELLED:
        if getattr(new, name, None) is not None and (old is None or getattr(old, name, None) is None):
            setattr(new, name, None)


def _templates(workload: Workload) -> list[PodGroupTemplate]:
    return workload.spec.pod_group_templates or []


class WorkloadStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def prepare_for_create(self, obj: Workload) -> None:  # type: ignore[override]
        for template in _templates(obj):
            drop_unmodelled_fields(template)

    def prepare_for_update(self, new: Workload, old: Workload) -> None:  # type: ignore[override]
        before = {t.name: t for t in _templates(old)}
        for template in _templates(new):
            drop_unmodelled_fields(template, before.get(template.name))

    def validate(self, obj: Workload) -> list[FieldError]:  # type: ignore[override]
        return validate_workload(obj)

    def validate_update(self, new: Workload, old: Workload) -> list[FieldError]:  # type: ignore[override]
        return validate_workload_update(new, old)


class PodGroupStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    @staticmethod
    def fill_empty_status(obj: PodGroup) -> None:
        """``status`` is a struct without omitempty upstream: a new PodGroup reads ``"status": {}``."""
        if obj.status is None:
            obj.status = PodGroupStatus()

    def prepare_for_create(self, obj: PodGroup) -> None:  # type: ignore[override]
        super().prepare_for_create(obj)
        drop_unmodelled_fields(obj.spec)

    def prepare_for_update(self, new: PodGroup, old: PodGroup) -> None:  # type: ignore[override]
        super().prepare_for_update(new, old)
        drop_unmodelled_fields(new.spec, old.spec)

    def prepare_for_status_update(self, new: PodGroup, old: PodGroup) -> None:  # type: ignore[override]
        """``dropDisabledPodGroupStatusFields``: with DRAWorkloadResourceClaims off (and unmodelled
        here), ``status.resourceClaimStatuses`` is dropped unless the stored spec uses resource
        claims (upstream ``pkg/registry/scheduling/podgroup/strategy.go``)."""
        super().prepare_for_status_update(new, old)
        if new.status is not None and old.spec.resource_claims is None:
            new.status.resource_claim_statuses = None

    def validate(self, obj: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_group(obj)

    def validate_update(self, new: PodGroup, old: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_group_update(new, old)

    def validate_status_update(self, new: PodGroup, old: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_group_status(new, old)
