"""What the simulated drivers' controllers queue: the claims allocated from a pool (a slice event),
and a claim's allocated device results."""

from __future__ import annotations

from typing import Any

from kbatch.api.resource_v1 import ResourceClaim
from kbatch.runtime.reconcile import Request

__all__ = ["claims_of_pool", "results"]


def results(claim: ResourceClaim) -> list[Any]:
    """The claim's allocated device results (none when it is not allocated)."""
    allocation = claim.status.allocation if claim.status is not None else None
    devices = allocation.devices if allocation is not None else None
    return list(devices.results or ()) if devices is not None else []


def claims_of_pool(cache: Any, pool: tuple[str, str]) -> list[Request]:
    """The claims allocated from the (driver, pool) ``pool``, in key order."""
    out = {Request(claim.metadata.namespace or "", claim.metadata.name or "")
           for claim in cache.list(ResourceClaim) if any((r.driver, r.pool) == pool for r in results(claim))}
    return sorted(out)
