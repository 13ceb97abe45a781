"""Strategies of scheduling.k8s.io/v1beta1 Workload and PodGroup (upstream
``pkg/registry/scheduling/workload/strategy.go``, ``pkg/registry/scheduling/podgroup/strategy.go``).

Workload has no status. PodGroup has ``/status``: main-resource writes keep the stored status, status
writes keep everything else. A gated field is dropped on create (and on an update whose stored object
does not already use it) while its gate is off, as upstream's ``dropDisabled*Fields``:
``schedulingConstraints`` (TopologyAwareWorkloadScheduling, KEP-5732, alpha, off), ``preemptionPolicy``
(PodGroupPreemptionPolicy, alpha, off), ``resourceClaims`` (DRAWorkloadResourceClaims, KEP-5729,
beta, off; docs/dra.md "PodGroup claims"); ``parentCompositePodGroupName`` and a Workload's
``compositePodGroupTemplates`` (CompositePodGroup, KEP-6012, alpha, off). A status write's
``resourceClaimStatuses`` is dropped unless that gate is on or the
stored spec uses claims (``dropDisabledPodGroupStatusFields``). docs/gang.md lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import FieldError
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup, CompositePodGroupStatus
from kbatch.api.scheduling_v1beta1 import (
    COMPOSITE_POD_GROUP,
    PODGROUP_PREEMPTION_POLICY,
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
    WORKLOAD_RESOURCE_CLAIMS,
    PodGroup,
    PodGroupSpec,
    PodGroupStatus,
    PodGroupTemplate,
    Workload,
    WorkloadSpec,
)
from kbatch.api.strategies.scheduling.composite_validation import (
    validate_composite_pod_group,
    validate_composite_pod_group_status,
    validate_composite_pod_group_update,
)
from kbatch.api.strategies.scheduling.validation import (
    validate_pod_group,
    validate_pod_group_status,
    validate_pod_group_update,
    validate_workload,
    validate_workload_update,
)
from kbatch.api.strategy import DefaultStrategy, GateBound

if TYPE_CHECKING:
    from kbatch.api.features import FeatureGates

__all__ = ["CompositePodGroupStrategy", "PodGroupStrategy", "WorkloadStrategy", "drop_unmodelled_fields",
           "gate_declared_on", "workload_claims_enabled"]

# field -> the gate that serves it
_GATED = (("scheduling_constraints", TOPOLOGY_AWARE_WORKLOAD_SCHEDULING),
          ("preemption_policy", PODGROUP_PREEMPTION_POLICY),
          ("resource_claims", WORKLOAD_RESOURCE_CLAIMS),
          ("parent_composite_pod_group_name", COMPOSITE_POD_GROUP),
          ("composite_pod_group_templates", COMPOSITE_POD_GROUP))


def gate_declared_on(gates: FeatureGates | None, name: str) -> bool:
    """``name`` is on (False where no family declares it, or without gates)."""
    if gates is None or not name or name not in gates:
        return False
    return gates.enabled(name)


def workload_claims_enabled(gates: FeatureGates | None) -> bool:
    """``DRAWorkloadResourceClaims`` is on."""
    return gate_declared_on(gates, WORKLOAD_RESOURCE_CLAIMS)


def drop_unmodelled_fields(new: PodGroupSpec | PodGroupTemplate | WorkloadSpec, old: Any = None,
                           gates: FeatureGates | None = None) -> None:
    """Clear each gated field whose gate is off unless ``old`` (the stored value) uses it."""
    names = [name for name, gate in _GATED if not gate_declared_on(gates, gate)]
    for name in names:
        if getattr(new, name, None) is not None and (old is None or getattr(old, name, None) is None):
            setattr(new, name, None)


def _templates(workload: Workload) -> list[PodGroupTemplate]:
    return workload.spec.pod_group_templates or []


class WorkloadStrategy(GateBound, DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def prepare_for_create(self, obj: Workload) -> None:  # type: ignore[override]
        drop_unmodelled_fields(obj.spec, gates=self.gates)
        for template in _templates(obj):
            drop_unmodelled_fields(template, gates=self.gates)

    def prepare_for_update(self, new: Workload, old: Workload) -> None:  # type: ignore[override]
        drop_unmodelled_fields(new.spec, old.spec, self.gates)
        before = {t.name: t for t in _templates(old)}
        for template in _templates(new):
            drop_unmodelled_fields(template, before.get(template.name), self.gates)

    def validate(self, obj: Workload) -> list[FieldError]:  # type: ignore[override]
        return validate_workload(obj)

    def validate_update(self, new: Workload, old: Workload) -> list[FieldError]:  # type: ignore[override]
        return validate_workload_update(new, old)


class PodGroupStrategy(GateBound, DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    @staticmethod
    def fill_empty_status(obj: PodGroup) -> None:
        """``status`` is a struct without omitempty upstream: a new PodGroup reads ``"status": {}``."""
        if obj.status is None:
            obj.status = PodGroupStatus()

    def prepare_for_create(self, obj: PodGroup) -> None:  # type: ignore[override]
        super().prepare_for_create(obj)
        drop_unmodelled_fields(obj.spec, gates=self.gates)

    def prepare_for_update(self, new: PodGroup, old: PodGroup) -> None:  # type: ignore[override]
        super().prepare_for_update(new, old)
        drop_unmodelled_fields(new.spec, old.spec, self.gates)

    def prepare_for_status_update(self, new: PodGroup, old: PodGroup) -> None:  # type: ignore[override]
        """``dropDisabledPodGroupStatusFields``: with DRAWorkloadResourceClaims off,
        ``status.resourceClaimStatuses`` is dropped unless the stored spec uses resource claims
        (upstream ``pkg/registry/scheduling/podgroup/strategy.go``)."""
        super().prepare_for_status_update(new, old)
        kept = old.spec.resource_claims is not None or workload_claims_enabled(self.gates)
        if new.status is not None and not kept:
            new.status.resource_claim_statuses = None

    def validate(self, obj: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_group(obj)

    def validate_update(self, new: PodGroup, old: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_group_update(new, old)

    def validate_status_update(self, new: PodGroup, old: PodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_pod_group_status(new, old)


class CompositePodGroupStrategy(GateBound, DefaultStrategy):
    """``pkg/registry/scheduling/compositepodgroup/strategy.go``: ``/status`` as a PodGroup's (status
    reset on create, kept on main-resource writes); no generation; ``preemptionPolicy`` dropped while
    PodGroupPreemptionPolicy is off (``+k8s:ifDisabled=forbidden`` upstream, dropped as kbatch does for
    every gated scheduling field)."""

    has_generation = False

    @staticmethod
    def fill_empty_status(obj: CompositePodGroup) -> None:
        if obj.status is None:
            obj.status = CompositePodGroupStatus()

    def prepare_for_create(self, obj: CompositePodGroup) -> None:  # type: ignore[override]
        super().prepare_for_create(obj)
        if not gate_declared_on(self.gates, PODGROUP_PREEMPTION_POLICY):
            obj.spec.preemption_policy = None

    def prepare_for_update(self, new: CompositePodGroup, old: CompositePodGroup) -> None:  # type: ignore[override]
        super().prepare_for_update(new, old)
        served = gate_declared_on(self.gates, PODGROUP_PREEMPTION_POLICY)
        if old.spec.preemption_policy is None and not served:
            new.spec.preemption_policy = None

    def validate(self, obj: CompositePodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_composite_pod_group(obj)

    def validate_update(self, new: CompositePodGroup, old: CompositePodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_composite_pod_group_update(new, old)

    def validate_status_update(self, new: CompositePodGroup, old: CompositePodGroup) -> list[FieldError]:  # type: ignore[override]
        return validate_composite_pod_group_status(new, old)
