"""The DynamicResources score (upstream ``dynamicresources.go`` ``Score`` / ``computeScore``, with
DRAPrioritizedList): a node is worth more when the claims' ``firstAvailable`` requests got an
earlier subrequest there. Each such request adds ``FirstAvailableDeviceRequestMaxSize`` (8) minus
the index of the subrequest allocated on the node; the plugin then normalizes with
``DefaultNormalizeScore``.

Upstream pairs ``state.claims.all()`` with the node's allocation results by position, which only
lines up when no claim of the pod is allocated already; kbatch pairs each claim to allocate with its
own result, which is what the computation means."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kbatch.api.resource_v1 import FIRST_AVAILABLE_MAX_SIZE

__all__ = ["first_available_score"]


def first_available_score(claims: Sequence[Any], allocations: Sequence[Any]) -> int:
    """``claims``: the claims allocated in this attempt; ``allocations``: their results on a node."""
    score = 0
    for claim, allocation in zip(claims, allocations, strict=True):
        results = allocation.devices.results if allocation.devices is not None else None
        chosen = {r.request for r in results or () if "/" in r.request}
        if not chosen:
            continue
        for request in claim.spec.devices.requests or ():
            for index, sub in enumerate(request.first_available or ()):
                if f"{request.name}/{sub.name}" in chosen:
                    score += FIRST_AVAILABLE_MAX_SIZE - index
    return score
