"""ResourceClaims of a PodGroup (KEP-5729, gate ``DRAWorkloadResourceClaims``, beta and off by default
in 1.37; the PodGroup API itself needs ``GenericWorkload``).

A PodGroup's ``spec.resourceClaims`` lists claims its pods share: a named ResourceClaim, or a
template from which the resourceclaim controller makes one claim per PodGroup (``generateName``
``<podgroup>-<entry>-``, the PodGroup its controlling owner), recorded in the PodGroup's
``status.resourceClaimStatuses``. A pod of the group (``spec.schedulingGroup.podGroupName``) uses
the group's claim through an entry of its own ``spec.resourceClaims`` that matches the group's
exactly: the same name and the same source (upstream PodGroupSpec.ResourceClaims: "The claim must
have the same name and refer to the same ResourceClaim or ResourceClaimTemplate"). For a template
entry the controller records the group's claim in the pod's ``status.resourceClaimStatuses`` rather
than creating one for the pod. Such a claim is reserved for the PodGroup (a ``reservedFor`` entry
``{apiGroup: scheduling.k8s.io, resource: podgroups, name, uid}``, upstream ``resourceclaim.BindTo``),
not for each pod, so it is allocated once for the gang and is not bound by the 256-consumer limit.

Upstream: ``pkg/controller/resourceclaim/controller.go`` and its ``controller_test.go`` rows
("create for PodGroup", "update Pod status with PodGroup claim", "clear-reserved-podgroup",
"add-reserved-podgroup"); ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go``
(``podResourceClaimBindings``, ``getPodGroup``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from kbatch.api.resource_v1 import ResourceClaimConsumerReference
from kbatch.api.scheduling_v1beta1 import GENERIC_WORKLOAD, WORKLOAD_RESOURCE_CLAIMS

__all__ = ["GROUP", "RESOURCE", "Entry", "consumer", "enabled", "entries", "group_name", "is_group_consumer",
           "shared_entries"]

GROUP, RESOURCE = "scheduling.k8s.io", "podgroups"


class Gates(Protocol):
    def enabled(self, name: str) -> bool: ...

    def __contains__(self, name: object) -> bool: ...


def enabled(gates: Gates | None) -> bool:
    """Both gates on (upstream: WorkloadResourceClaims depends on GenericWorkload); False where a
    gate is not declared."""
    if gates is None:
        return False
    return all(name in gates and gates.enabled(name) for name in (GENERIC_WORKLOAD, WORKLOAD_RESOURCE_CLAIMS))


def group_name(pod: Any) -> str:
    """The PodGroup a Pod model names in ``spec.schedulingGroup`` ("" when none)."""
    group = pod.spec.scheduling_group
    return (group.pod_group_name or "") if group is not None else ""


Entry = tuple[str, str, str]  # (name, resourceClaimName, resourceClaimTemplateName), "" for unset


def entries(models: Iterable[Any] | None) -> tuple[Entry, ...]:
    """``spec.resourceClaims`` items (a pod's or a PodGroup's) as :data:`Entry` tuples."""
    return tuple((m.name, m.resource_claim_name or "", m.resource_claim_template_name or "")
                 for m in models or ())


def shared_entries(pod_entries: Iterable[Entry], group_entries: Iterable[Entry]) -> set[str]:
    """The names of the pod's entries that match one of the group's exactly (name and source)."""
    wanted = set(group_entries)
    return {e[0] for e in pod_entries if e in wanted}


def consumer(pod_group: Any) -> ResourceClaimConsumerReference:
    meta = pod_group.metadata
    return ResourceClaimConsumerReference(api_group=GROUP, resource=RESOURCE, name=meta.name or "",
                                          uid=meta.uid or "")


def is_group_consumer(ref: Any) -> bool:
    return ref.resource == RESOURCE and (ref.api_group or "") == GROUP
