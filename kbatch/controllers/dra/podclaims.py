"""Which ResourceClaim a pod's ``spec.resourceClaims`` entry uses (upstream
``k8s.io/dynamic-resource-allocation/resourceclaim.Name``): the entry's ``resourceClaimName``; for a
template, the name ``status.resourceClaimStatuses`` records for the entry. A recorded entry without a
name means no claim was needed: the entry is ignored. No recorded entry: the claim is not created
yet."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["NOT_CREATED", "claim_name"]

NOT_CREATED = None  # the template's claim is not recorded yet


def claim_name(
    direct: str | None, template: str | None, entry: str, statuses: Mapping[str, str | None]
) -> str | None:
    """The claim's name, ``""`` when the entry needs no claim, :data:`NOT_CREATED` when a template's
    claim is not recorded yet."""
    if direct:
        return direct
    if not template:
        return ""
    if entry not in statuses:
        return NOT_CREATED
    return statuses[entry] or ""
