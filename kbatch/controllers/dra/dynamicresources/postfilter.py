"""DynamicResources' PostFilter (upstream ``PostFilter`` in
``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go``, Kubernetes 1.37): when no
node fits, free what keeps the pod from fitting, so that its next attempt can allocate anew.

* An allocated claim Filter found **unavailable** (its allocation's node selector does not match a
  node, or, with ``DRADeviceBindingConditions``, its binding failed or timed out unready) that is
  reserved for no pod, or only for this one, is **deallocated**: its status update clears
  ``reservedFor``, ``allocation`` and ``devices`` ("deallocation of ResourceClaim completed").
  Upstream picks one such claim at random (a Go map's order); kbatch takes the first in the pod's
  ``spec.resourceClaims`` order.
* Else the pod's **special claim** for extended resources backed by DRA, when it is a stored claim
  (left by an earlier attempt: it has a real name, not ``<extended-resources>``), is **deleted**,
  its ``delete-protection`` finalizer removed first (``deleteClaim``; "deletion of ResourceClaim
  completed").
* Else nothing: "still not schedulable", which precedes preemption's message in the pod's
  condition (``… cannot allocate all claims. still not schedulable, preemption: …``), as upstream's
  ``RunPostFilterPlugins`` joins the plugins' reasons. A pod without claims gets no message here
  (upstream since 1.33, kubernetes#129823, drops its "no new claims to deallocate" there).

:func:`choose` decides; :func:`act` writes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.api.model_copy import shallow_copy
from kbatch.controllers.dra.dynamicresources.extended_claim import IN_MEMORY_NAME, delete_claim

__all__ = ["DEALLOCATED", "DELETED", "STILL_NOT_SCHEDULABLE", "Action", "act", "choose"]

DEALLOCATED = "deallocation of ResourceClaim completed"
DELETED = "deletion of ResourceClaim completed"
STILL_NOT_SCHEDULABLE = "still not schedulable"


@dataclass(frozen=True, slots=True)
class Action:
    """What PostFilter does: ``deallocate`` a user claim or ``delete`` the special claim."""

    verb: str
    claim: Any


def choose(claims: Sequence[Any], unavailable: Collection[str], extended: Any, pod_uid: str) -> Action | None:
    """The claim to free, if any. ``unavailable``: uids of the claims Filter found unavailable on
    some node; ``extended``: the special claim of this attempt (stored or in memory) or None."""
    for claim in claims:
        if claim.metadata.uid not in unavailable:
            continue
        reserved = claim.status.reserved_for or () if claim.status is not None else ()
        if not reserved or (len(reserved) == 1 and reserved[0].uid == pod_uid):
            return Action("deallocate", claim)
    if extended is not None and extended.metadata.name != IN_MEMORY_NAME:
        return Action("delete", extended)
    return None


def act(client: Any, action: Action) -> str:
    """Carry out ``action`` through ``client``; returns upstream's status message. A failed write
    raises the API's :class:`~kbatch.api.errors.StatusError`."""
    if action.verb == "delete":
        delete_claim(client, action.claim)
        return DELETED
    claim = action.claim
    request = shallow_copy(claim)
    request.status = shallow_copy(claim.status)
    request.status.reserved_for = None
    request.status.allocation = None
    request.status.devices = None
    client.update_status(request)
    return DEALLOCATED
