"""What DynamicResources frees when a PodGroup's scheduling fails (KEP-5729 "Deallocate",
kubernetes/enhancements ``keps/sig-scheduling/5729-resourceclaim-support-for-workloads``; gate
``DRAWorkloadResourceClaims``).

* **Unreserve** of a member: the PodGroup leaves ``reservedFor`` of each claim reserved for it when no
  *other* member of the group is scheduled (bound or assumed) in the scheduler's own view. Other
  consumers (another PodGroup, pods) stay; the allocation stays too (the claim is then reserved for
  nobody, and the resourceclaim controller, which deallocates only when it drops the last consumer
  itself, leaves it; the group's next attempt reuses it or the group's PostFilter frees it).
* **PostFilter of the PodGroup cycle**: every claim of the group that is allocated and reserved only
  for that PodGroup, or for nobody, is deallocated and unreserved (one status update clearing
  ``reservedFor``, ``allocation`` and ``devices``, as the pod-level PostFilter's), when no member of
  the group is scheduled. The KEP puts no "unavailable on some node" condition on it, unlike the
  pod-level PostFilter: a gang that failed holds no devices afterwards. kbatch adds the "no member
  scheduled" guard of Unreserve, so that devices a running member uses are never taken from it.
  When it freed a claim its status is upstream's ``Unschedulable`` "deallocation and deletion of
  ResourceClaims completed" (:data:`GROUP_RELEASED`), whose reason the group cycle adds to the group's
  message, as the pod-level PostFilter's "deallocation of ResourceClaim completed" joins a pod's.

The functions here decide; the plugin writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kbatch.api.resource_v1 import ResourceClaim, ResourceClaimConsumerReference
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.controllers.dra.podclaims import NOT_CREATED, claim_name

__all__ = ["GROUP_RELEASED", "group_claim_names", "holds_group", "only_for_group"]

# upstream ``PodGroupPostFilter``'s Unschedulable status (kubernetes/kubernetes#140535, "Add
# PodGroupPostFilter for DRA", 1.37: ``dynamicresources.go``), its reason after the group's
GROUP_RELEASED = "deallocation and deletion of ResourceClaims completed"


def group_claim_names(pod_group: PodGroup) -> list[str]:
    """The names of the PodGroup's claims, in ``spec.resourceClaims`` order: a named claim, or the
    one ``status.resourceClaimStatuses`` records for a template entry (skipped until recorded)."""
    recorded: Mapping[str, str | None] = {
        s.name: s.resource_claim_name for s in (pod_group.status.resource_claim_statuses or ())
    } if pod_group.status is not None else {}
    names = []
    for entry in pod_group.spec.resource_claims or ():
        name = claim_name(entry.resource_claim_name, entry.resource_claim_template_name, entry.name, recorded)
        if name is not NOT_CREATED and name:
            names.append(name)
    return names


def _reserved(claim: ResourceClaim) -> Iterable[ResourceClaimConsumerReference]:
    return (claim.status.reserved_for or ()) if claim.status is not None else ()


def holds_group(claim: ResourceClaim, group_uid: str) -> bool:
    """The claim is reserved for the PodGroup (Unreserve takes the entry out)."""
    return any(ref.uid == group_uid for ref in _reserved(claim))


def only_for_group(claim: ResourceClaim, group_uid: str) -> bool:
    """The claim is allocated and reserved for that PodGroup alone, or for nobody (PostFilter may
    deallocate it)."""
    if claim.status is None or claim.status.allocation is None:
        return False
    return all(ref.uid == group_uid for ref in _reserved(claim))
