"""Pure deletion decisions: grace periods, GC finalizers, and whether an object goes now.

Upstream: ``pkg/registry/rest/delete.go`` BeforeDelete (graceful deletion, shortening a pending grace
period), ``pkg/registry/generic/registry/store.go`` Delete / ``deletionFinalizersForGarbageCollection``
/ ``markAsDeleting``, and the pod strategy's ``CheckGracefulDeleteStrategy``
(``pkg/registry/core/pod/strategy.go``). Nothing here touches the store: :func:`decide` returns what
to do with one object and the server performs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from kbatch.api.meta import Resource

__all__ = [
    "FOREGROUND",
    "ORPHAN",
    "DeleteDecision",
    "decide",
    "gc_finalizers",
    "pod_grace_period",
]

ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
_DEFAULT_POD_GRACE = 30
_LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)


def _after(now: datetime, seconds: int) -> datetime:
    """``now`` + ``seconds``, saturating at the last second Python's datetime holds: upstream computes
    ``now.Add(time.Duration(period) * time.Second)``, which overflows (and wraps) past ~292 years;
    a grace period that long must not crash the delete (found by fuzzing ``gracePeriodSeconds``)."""
    try:
        return min(now + timedelta(seconds=seconds), _LATEST)
    except OverflowError:
        return _LATEST


@dataclass(frozen=True, slots=True)
class DeleteDecision:
    """``delete``: remove the key now; ``update``: write ``obj`` (now terminating); ``keep``: a
    graceful deletion is already pending, nothing to write."""

    action: Literal["delete", "update", "keep"]


def pod_grace_period(pod: Any, requested: int | None) -> int:
    """The pod strategy's rule: the requested grace or spec.terminationGracePeriodSeconds (default
    30); 0 for a pod that is not scheduled or already terminal."""
    spec, status = getattr(pod, "spec", None), getattr(pod, "status", None)
    if requested is not None:
        period = requested
    else:
        declared = getattr(spec, "termination_grace_period_seconds", None)
        period = _DEFAULT_POD_GRACE if declared is None else declared
    if not getattr(spec, "node_name", None):
        return 0
    if getattr(status, "phase", None) in ("Succeeded", "Failed"):
        return 0
    return period


def gc_finalizers(finalizers: list[str], policy: str) -> list[str]:
    """The finalizers after applying a propagation policy (Orphan adds ``orphan``, Foreground adds
    ``foregroundDeletion``, each removing the other; Background removes both)."""
    out = [f for f in finalizers if f not in (ORPHAN, FOREGROUND)]
    if policy == "Orphan":
        out.append(ORPHAN)
    elif policy == "Foreground":
        out.append(FOREGROUND)
    return out


def _bump_generation(obj: Resource) -> None:
    if obj.metadata.generation and obj.metadata.generation > 0:
        obj.metadata.generation += 1


def decide(obj: Resource, *, now: datetime, policy: str, grace: int | None,
           graceful: bool, grace_of: Any = None) -> DeleteDecision:
    """Decide, changing ``obj`` in place when the answer is ``update``.

    ``graceful``: the kind supports graceful deletion (pods); ``grace_of(obj, requested)`` gives the
    grace period for a first deletion (``None``: delete this one without grace).
    ``grace``: the caller's gracePeriodSeconds (negative → 1).
    """
    meta = obj.metadata
    if grace is not None and grace < 0:
        grace = 1
    finalizers = list(meta.finalizers or [])
    if meta.deletion_timestamp is not None:
        pending = meta.deletion_grace_period_seconds
        if graceful and pending and pending > 0:
            if grace is None or grace >= pending:
                return DeleteDecision("keep")  # only a shorter grace period may be given
            meta.deletion_timestamp = meta.deletion_timestamp - timedelta(seconds=pending - grace)
            meta.deletion_grace_period_seconds = grace
            if grace == 0 and not finalizers:
                return DeleteDecision("delete")
            return DeleteDecision("update")
        new_finalizers = gc_finalizers(finalizers, policy)
        if not new_finalizers:
            return DeleteDecision("delete")
        if new_finalizers == finalizers:
            return DeleteDecision("keep")
        meta.finalizers = new_finalizers
        return DeleteDecision("update")
    new_finalizers = gc_finalizers(finalizers, policy)
    meta.finalizers = new_finalizers or (None if meta.finalizers is None else [])
    period = (grace_of(obj, grace) if grace_of is not None else grace or 0) if graceful else None
    if period is not None:
        meta.deletion_timestamp = _after(now, period)
        meta.deletion_grace_period_seconds = period
        _bump_generation(obj)
        if period == 0 and not new_finalizers:
            return DeleteDecision("delete")
        return DeleteDecision("update")
    if not new_finalizers:
        return DeleteDecision("delete")
    meta.deletion_timestamp = now
    meta.deletion_grace_period_seconds = 0
    _bump_generation(obj)
    return DeleteDecision("update")
