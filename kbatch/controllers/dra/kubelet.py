"""The kubelet's side of DRA: a pod's containers start only when every claim it uses is allocated and
reserved for it (upstream kubelet ``pkg/kubelet/cm/dra/manager.go`` ``PrepareResources``: a claim
that is not reserved for the pod fails preparation, the kubelet reports ``FailedPrepareDynamicResources``
and retries). The special claim the scheduler created for extended resources backed by DRA
(``status.extendedResourceClaimStatus``, KEP-5004) is prepared as any claim (upstream
``GetPodClaimNames`` / the DRA manager's ``prepareResources`` include it). kbatch's simulated
drivers need no preparation beyond that check."""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import NotFound
from kbatch.controllers.dra.podclaims import NOT_CREATED, claim_name
from kbatch.controllers.dra.podgroupclaims import is_group_consumer

__all__ = ["unprepared_reason"]


def unprepared_reason(cache: Any, pod: Any) -> str:
    """Why ``pod``'s claims cannot be prepared yet ("" when they can, or it has none)."""
    claims = pod.spec.resource_claims
    status = pod.status
    extended = status.extended_resource_claim_status if status is not None else None
    if not claims and extended is None:
        return ""
    statuses = (
        {s.name: s.resource_claim_name for s in (status.resource_claim_statuses or ())}
        if status is not None
        else {}
    )
    for entry in claims or ():
        name = claim_name(entry.resource_claim_name, entry.resource_claim_template_name, entry.name, statuses)
        if name is NOT_CREATED:
            return f"pod claim {entry.name}: ResourceClaim not created yet"
        if not name:
            continue  # no claim needed (upstream resourceclaim.Name)
        reason = _unprepared(cache, pod, name)
        if reason:
            return reason
    return _unprepared(cache, pod, extended.resource_claim_name) if extended is not None else ""


def _unprepared(cache: Any, pod: Any, name: str) -> str:
    """Why the claim ``name`` cannot be prepared for ``pod`` ("" when it can)."""
    from kbatch.api.resource_v1 import ResourceClaim

    namespace, uid = pod.metadata.namespace, pod.metadata.uid
    try:
        claim = cache.get(ResourceClaim, name, namespace)
    except NotFound:
        return (f"failed to fetch ResourceClaim {name} referenced by pod: "
                f'resourceclaims.resource.k8s.io "{name}" not found')
    status = claim.status
    if status is None or status.allocation is None:
        return f"claim {namespace}/{name}: not allocated"
    group = pod.spec.scheduling_group
    group_name = (group.pod_group_name or "") if group is not None else ""
    if not any(r.uid == uid or (group_name and _for_group(r, group_name)) for r in status.reserved_for or ()):
        return f"claim {namespace}/{name} is not reserved for pod {namespace}/{pod.metadata.name}"
    return ""


def _for_group(ref: Any, group: str) -> bool:
    """A reservation for the pod's PodGroup (KEP-5729: upstream's kubelet accepts a claim reserved for
    the PodGroup of the pod)."""
    return is_group_consumer(ref) and ref.name == group
