"""Builders for the CompositePodGroup tests (scheduling.k8s.io/v1alpha3, gate CompositePodGroup): a
Workload with a composite template tree, the composites and their PodGroups, and condition readers."""

from __future__ import annotations

from typing import Any

from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.runtime.controlplane import ControlPlane

COMPOSITE = "GenericWorkload=true,CompositePodGroup=true"
V1ALPHA3 = "scheduling.k8s.io/v1alpha3"


def composite(name: str, min_group_count: int | None = None, *, parent: str | None = None,
              workload: str = "w", template: str | None = None) -> dict[str, Any]:
    """A CompositePodGroup: gang with ``min_group_count``, basic without."""
    policy = {"gang": {"minGroupCount": min_group_count}} if min_group_count is not None else {"basic": {}}
    spec: dict[str, Any] = {"workloadRef": {"workloadName": workload, "templateName": template or name},
                            "schedulingPolicy": policy}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return {"apiVersion": V1ALPHA3, "kind": "CompositePodGroup", "metadata": {"name": name}, "spec": spec}


def child_group(name: str, min_count: int | None, parent: str, *, workload: str = "w") -> dict[str, Any]:
    """A PodGroup under composite ``parent`` (gang with ``min_count``, basic without)."""
    policy = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    return {"apiVersion": V1ALPHA3, "kind": "PodGroup", "metadata": {"name": name},
            "spec": {"parentCompositePodGroupName": parent, "schedulingPolicy": policy,
                     "workloadRef": {"workloadName": workload, "templateName": name}}}


def _condition(cp: ControlPlane, kind: type, name: str, type_: str) -> tuple[str, str, str] | None:
    obj = cp.client.get(kind, name, "default")
    for c in (obj.status.conditions if obj.status else None) or ():
        if c.type == type_:
            return (c.status, c.reason or "", c.message or "")
    return None


def composite_condition(cp: ControlPlane, name: str) -> tuple[str, str, str] | None:
    return _condition(cp, CompositePodGroup, name, "CompositePodGroupInitiallyScheduled")


def group_condition(cp: ControlPlane, name: str) -> tuple[str, str, str] | None:
    return _condition(cp, PodGroup, name, "PodGroupInitiallyScheduled")
