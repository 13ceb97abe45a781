"""Which of a Workload's pod sets a ProvisioningRequest asks for, and how they merge. Pure.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning/controller.go``:

* ``reqIsNeeded``/``requiredPodSets``/``podUses``: with ``managedResources`` set, only the pod sets whose
  containers or init containers request (or limit) one of them count; a pod set of count 0 never
  does; none counting means no request is needed (the check is Ready, "the provisioning request is
  not needed"). A counted pod set without an assignment is ``errInconsistentPodSetAssignments``.
* ``mergePodSets``/``canMergePodSets``: the admitted count (``podSetAssignments[].count``, else the
  pod set's); with ``podSetMergePolicy`` a pod set joins the first earlier one it may merge with
  (``IdenticalPodTemplates``: equal templates; ``IdenticalWorkloadSchedulingRequirements``: equal
  container and init container requests, pod-level resources, node selector, tolerations, affinity
  and resource claims), adding its count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kbatch.api.core_v1 import Container, PodSpec
from kbatch.api.kueue_v1beta2 import PodSet, PodSetAssignment, Workload
from kbatch.api.kueue_v1beta2.provisioning import (
    IDENTICAL_POD_TEMPLATES,
    IDENTICAL_WORKLOAD_SCHEDULING_REQUIREMENTS,
)

__all__ = ["InconsistentAssignments", "MergedPodSet", "merge_pod_sets", "request_needed", "required_pod_sets"]


class InconsistentAssignments(ValueError):
    """``errInconsistentPodSetAssignments``: a pod set the request needs has no assignment."""


@dataclass(frozen=True, slots=True)
class MergedPodSet:
    name: str
    pod_set: PodSet
    assignment: PodSetAssignment
    count: int


def _container_uses(c: Container, resources: frozenset[str]) -> bool:
    res = c.resources
    return res is not None and any(r in resources for r in (*(res.requests or {}), *(res.limits or {})))


def _pod_uses(spec: PodSpec, resources: frozenset[str]) -> bool:
    return any(_container_uses(c, resources) for c in (*(spec.init_containers or ()), *spec.containers))


def _spec(ps: PodSet) -> PodSpec:
    return ps.template.spec if ps.template is not None else PodSpec()


def _counts(ps: PodSet, managed: frozenset[str]) -> bool:
    return (ps.count or 0) > 0 and (not managed or _pod_uses(_spec(ps), managed))


def _assignments(wl: Workload) -> dict[str, PodSetAssignment]:
    admission = wl.status.admission if wl.status else None
    return {a.name or "": a for a in (admission.pod_set_assignments if admission else None) or ()}


def _pod_sets(wl: Workload) -> list[PodSet]:
    return list((wl.spec.pod_sets if wl.spec else None) or ())


def request_needed(wl: Workload, managed_resources: Iterable[str]) -> bool:
    """``reqIsNeeded``; raises :class:`InconsistentAssignments`."""
    managed, assignments = frozenset(managed_resources), _assignments(wl)
    for ps in _pod_sets(wl):
        if not _counts(ps, managed):
            continue
        psa = assignments.get(ps.name or "")
        if psa is None:
            raise InconsistentAssignments(f'missing assignment for PodSet "{ps.name}"')
        if (psa.count if psa.count is not None else ps.count or 0) > 0:
            return True
    return False


def required_pod_sets(wl: Workload, managed_resources: Iterable[str]) -> list[str]:
    """``requiredPodSets``."""
    managed = frozenset(managed_resources)
    return [ps.name or "" for ps in _pod_sets(wl) if _counts(ps, managed)]


def _same_requirements(a: PodSet, b: PodSet) -> bool:
    """``arePodSetsSimilar``."""
    sa, sb = _spec(a), _spec(b)

    def requests(containers: Iterable[Container] | None) -> list[object]:
        return [(c.resources.requests if c.resources else None) or {} for c in containers or ()]

    return (
        requests(sa.containers) == requests(sb.containers)
        and requests(sa.init_containers) == requests(sb.init_containers)
        and all(
            getattr(sa, f) == getattr(sb, f)
            for f in ("resources", "node_selector", "tolerations", "affinity", "resource_claims")
        )
    )


def _can_merge(a: PodSet, b: PodSet, policy: str) -> bool:
    if policy == IDENTICAL_POD_TEMPLATES:
        return a.template == b.template
    if policy == IDENTICAL_WORKLOAD_SCHEDULING_REQUIREMENTS:
        return _same_requirements(a, b)
    return False


def merge_pod_sets(wl: Workload, managed_resources: Iterable[str], policy: str | None) -> list[MergedPodSet]:
    """``mergePodSets``; raises :class:`InconsistentAssignments`."""
    by_name = {ps.name or "": ps for ps in _pod_sets(wl)}
    assignments = _assignments(wl)
    merged: list[MergedPodSet] = []
    for name in required_pod_sets(wl, managed_resources):
        ps, psa = by_name.get(name), assignments.get(name)
        if ps is None or psa is None:
            raise InconsistentAssignments("inconsistent podSet assignments")
        count = psa.count if psa.count is not None else ps.count or 0
        if count <= 0:
            continue
        at = next((i for i, m in enumerate(merged) if policy and _can_merge(m.pod_set, ps, policy)), None)
        if at is None:
            merged.append(MergedPodSet(name, ps, psa, count))
        else:
            m = merged[at]
            merged[at] = MergedPodSet(m.name, m.pod_set, m.assignment, m.count + count)
    return merged
