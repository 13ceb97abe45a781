"""The job framework's owner walk: is an object's owner, or an ancestor, managed by Kueue?

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler.go``
``FindAncestorJobManagedByKueue`` and ``integrationmanager.go`` (``IsOwnerManagedByKueueForObject``,
``getJobTypeForOwner``, ``isKnownOwner``). The walk follows controller references through owners
of any registered integration's kind (a "known" owner, enabled or not), stops at an unknown owner
or an owner whose UID differs from the reference, and returns the top-most ancestor of an
*enabled* integration that has a queue name (or any, with ``manageJobsWithoutQueueName``). A known
owner that does not exist, a cycle, or more than 10 owners are errors. Owner kinds match the
reference's ``apiVersion`` and ``kind`` exactly. (Upstream also treats apps/v1 ReplicaSets as
known, for Deployments; kbatch has neither kind.)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2.constants import QUEUE_LABEL

__all__ = [
    "CHAIN_LIMIT",
    "AncestorError",
    "ChainLimitReached",
    "find_managed_ancestor",
    "integration_for",
    "owner_managed",
]

CHAIN_LIMIT = 10  # managedOwnersChainLimit


class AncestorError(Exception):
    """The walk could not finish (upstream's ErrWorkloadOwnerNotFound, ErrCyclicOwnership,
    ErrManagedOwnersChainLimitReached); the message is upstream's error text."""


class ChainLimitReached(AncestorError):
    """``ErrManagedOwnersChainLimitReached``: the walk passed ``CHAIN_LIMIT`` owners (the job
    reconciler reports it with a ``JobNestingTooDeep`` event)."""


def integration_for(ref: Any, integrations: Iterable[Any]) -> Any | None:
    """The integration whose kind the owner reference names (``matchingOwnerReference``)."""
    for integ in integrations:
        info = integ.model.api_info
        if ref.kind == info.kind and ref.api_version == info.api_version:
            return integ
    return None


def owner_managed(obj: Any, integrations: Iterable[Any], enabled: Collection[str]) -> bool:
    """``IsOwnerManagedByKueueForObject``: the controller owner is of an enabled integration's kind."""
    ref = obj.metadata.controller_ref()
    if ref is None:
        return False
    return integration_for(ref, (i for i in integrations if i.name in enabled)) is not None


def find_managed_ancestor(
    obj: Any,
    integrations: Iterable[Any],
    enabled: Collection[str],
    get: Callable[[Any, str, str], Any],
    manage_without_queue: bool,
) -> Any | None:
    """``FindAncestorJobManagedByKueue``; ``get(model, name, namespace)`` reads an owner."""
    known = list(integrations)
    namespace = obj.metadata.namespace or ""
    seen: set[str] = set()
    current, top = obj, None
    while True:
        uid = current.metadata.uid or ""
        if uid in seen:
            raise AncestorError("cyclic ownership")
        seen.add(uid)
        ref = current.metadata.controller_ref()
        integ = integration_for(ref, known) if ref is not None else None
        if ref is None or integ is None:
            return top
        try:
            parent = get(integ.model, ref.name, namespace)
        except NotFound as err:
            raise AncestorError(f"workload owner not found\n{err.message}") from err
        if parent.metadata.uid != ref.uid:
            return top
        queued = bool((parent.metadata.labels or {}).get(QUEUE_LABEL))
        if integ.name in enabled and (manage_without_queue or queued):
            top = parent
        current = parent
        if len(seen) > CHAIN_LIMIT:
            raise ChainLimitReached("managed owner chain limit reached")
