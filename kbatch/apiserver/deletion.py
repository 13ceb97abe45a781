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
    30); 0 for a pod that is not scheduled or already terminal; 1 for a negative one."""
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
    return 1 if period < 0 else period  # a negative spec value means 1 second, as upstream's strategy


def _gc_choice(finalizers: list[str], policy: str | None, default: str) -> str:
    """The policy a delete applies: the request's, else the GC finalizer the object already carries
    (the first of ``orphan``/``foregroundDeletion`` in its list), else the kind's default.

    Upstream: ``store.go`` shouldOrphanDependents and shouldDeleteDependentsInForeground (options,
    then existing finalizers, then DefaultGarbageCollectionPolicy). ``orphanDependents`` reaches here
    as ``Orphan`` (true) or ``Background`` (false: neither finalizer), see
    :mod:`kbatch.server.deleteopts`."""
    if policy is not None:
        return policy
    for f in finalizers:
        if f == ORPHAN:
            return "Orphan"
        if f == FOREGROUND:
            return "Foreground"
    return default


def gc_finalizers(finalizers: list[str], policy: str | None, default: str = "Background") -> list[str]:
    """The finalizers after applying a propagation policy (Orphan adds ``orphan``, Foreground adds
    ``foregroundDeletion``, each removing the other; Background removes both). ``policy`` ``None``:
    the request named none (see :func:`_gc_choice`). When the set does not change, the list is
    returned as it was, order included (``deletionFinalizersForGarbageCollection`` compares sets)."""
    chosen = _gc_choice(finalizers, policy, default)
    out = [f for f in finalizers if f not in (ORPHAN, FOREGROUND)]
    if chosen == "Orphan":
        out.append(ORPHAN)
    elif chosen == "Foreground":
        out.append(FOREGROUND)
    return list(finalizers) if set(out) == set(finalizers) else out


def _bump_generation(obj: Resource) -> None:
    if obj.metadata.generation and obj.metadata.generation > 0:
        obj.metadata.generation += 1


def _shorten(obj: Resource, *, now: datetime, grace: int, pending: int) -> None:
    """A pending graceful deletion given a shorter ``grace``: deletionTimestamp moves back by the
    difference, but never before ``now``; a non-zero grace clamped that way becomes 1 second, so the
    deletion stays graceful (``delete.go`` BeforeDelete, "Prevent shortening the grace period moving
    deletionTimestamp into the past")."""
    meta = obj.metadata
    assert meta.deletion_timestamp is not None
    stamp = meta.deletion_timestamp - timedelta(seconds=pending - grace)
    if stamp < now:
        stamp = now
        grace = min(grace, 1)
    meta.deletion_timestamp = stamp
    meta.deletion_grace_period_seconds = grace


def decide(obj: Resource, *, now: datetime, policy: str | None, grace: int | None,
           graceful: bool, grace_of: Any = None, default: str = "Background") -> DeleteDecision:
    """Decide, changing ``obj`` in place when the answer is ``update``.

    ``graceful``: the kind supports graceful deletion (pods); ``grace_of(obj, requested)`` gives the
    grace period for a first deletion (``None``: delete this one without grace).
    ``grace``: the caller's gracePeriodSeconds (negative → 1). ``policy``: the request's
    propagationPolicy (``None``: unset); ``default``: the kind's DefaultGarbageCollectionPolicy.
    """
    meta = obj.metadata
    if grace is not None and grace < 0:
        grace = 1
    finalizers = list(meta.finalizers or [])
    new_finalizers = gc_finalizers(finalizers, policy, default)
    if meta.deletion_timestamp is not None:
        pending = meta.deletion_grace_period_seconds
        if graceful and pending and pending > 0:
            if grace is None or grace >= pending:
                return DeleteDecision("keep")  # only a shorter grace period may be given
            _shorten(obj, now=now, grace=grace, pending=pending)
            meta.finalizers = new_finalizers if new_finalizers != finalizers else meta.finalizers
            if meta.deletion_grace_period_seconds == 0 and not new_finalizers:
                return DeleteDecision("delete")
            return DeleteDecision("update")
        if not new_finalizers:
            return DeleteDecision("delete")
        if new_finalizers == finalizers:
            return DeleteDecision("keep")
        meta.finalizers = new_finalizers
        return DeleteDecision("update")
    if new_finalizers != finalizers:
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
