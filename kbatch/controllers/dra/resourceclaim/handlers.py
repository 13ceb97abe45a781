"""What the ``resourceclaim`` controller's informer events enqueue, as upstream's handlers decide it
(``pkg/controller/resourceclaim/controller.go``: ``enqueuePod``, ``podNeedsClaims``, ``podNeedsWork``,
``enqueueResourceClaim``, ``podResourceClaimIndexFunc``, and the template handler with
``podResourceClaimTemplateIndexFunc`` of kubernetes#135983, 1.36).

Requests are ``pod/<name>`` and ``claim/<name>`` in the object's namespace (upstream's ``podKeyPrefix``
and ``claimKeyPrefix`` keys). Updates read the new object only (upstream's ``UpdateFunc`` passes
``updated``).

**A pod event** (``enqueuePod``), for a pod with ``spec.resourceClaims`` or
``status.extendedResourceClaimStatus`` (kubernetes#134312; DRAExtendedResource is GA in 1.37):

* its claims, only when the pod no longer needs them (``podNeedsClaims``: deleted, terminal, or being
  deleted before it was scheduled), so that their ``reservedFor`` drops the pod; a template's claim not
  recorded in ``status.resourceClaimStatuses`` yet, or recorded without a name, is skipped; the claim
  ``status.extendedResourceClaimStatus`` names is one of them;
* the pod itself, only when it needs work (``podNeedsWork``): not being deleted, and a template's claim
  is not recorded yet or recorded but missing, or the pod is bound and one of its claims is allocated,
  not reserved for it and below the 256-consumer limit. The walk ends, with no work, at the first
  entry recorded as needing no claim, at a missing claim the user must create, and at a claim a
  template generated for another pod.

**A claim event** (``enqueueResourceClaim``): the claim itself on add and update (a consumer in
``reservedFor`` may be gone), not on delete; then, for add, update and delete, ``enqueuePod`` for
every pod that uses the claim (the :data:`BY_POD_CLAIM` index), e.g. a bound pod waiting for the
allocation to reserve it.

**A PodGroup event** (added or updated; with PodGroup claims on, KEP-5729): the PodGroup itself
(``podgroup/<name>``: its template claims), and every pod of the group with claims (the
:data:`BY_POD_GROUP` index), which records the group's claim once the PodGroup's status names it.
A claim a PodGroup controls queues that PodGroup on add, update and delete (a deleted one is made
again). A PodGroup deleted queues its claims (the named ones and those its status records), whose
``reservedFor`` then drops it.

**A template event** (added or updated; kubernetes#135983): ``enqueuePod`` for every pod with an
entry naming the template (the :data:`BY_POD_TEMPLATE` index), so a pod created before its template
gets its claim when the template appears, not at its next retry.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import RESERVED_FOR_MAX_SIZE, ResourceClaim
from kbatch.controllers.dra.podclaims import NOT_CREATED, claim_name
from kbatch.runtime.reconcile import Request

__all__ = ["BY_POD_CLAIM", "BY_POD_GROUP", "BY_POD_TEMPLATE", "ClaimEvents", "PodEvents", "PodGroupEvents",
           "TemplateEvents", "enqueue_pod", "pod_claim_keys", "pod_group_keys", "pod_needs_claims",
           "pod_needs_work", "pod_template_keys"]

BY_POD_CLAIM = "dra-pod-claim"  # upstream podResourceClaimIndex
BY_POD_GROUP = "dra-pod-group"  # pods with claims by ``<namespace>/<PodGroup>`` (KEP-5729)
BY_POD_TEMPLATE = "dra-pod-claim-template"  # upstream podResourceClaimTemplateIndexKey
_TERMINAL = ("Succeeded", "Failed")


class Cache(Protocol):
    def get(self, kind: Any, name: str, namespace: str | None = None) -> Any: ...

    def list(self, kind: Any, *, index: tuple[str, str] | None = None) -> Iterable[Any]: ...


def _statuses(pod: Any) -> dict[str, str | None]:
    status = pod.status
    if status is None:
        return {}
    return {s.name: s.resource_claim_name for s in status.resource_claim_statuses or ()}


def _claim_names(pod: Any) -> list[str]:
    """The names of the claims the pod's entries use (upstream ``resourceclaim.Name`` for each entry,
    those with no error and a name)."""
    statuses = _statuses(pod)
    out = []
    for entry in pod.spec.resource_claims or ():
        name = claim_name(entry.resource_claim_name, entry.resource_claim_template_name, entry.name, statuses)
        if name:
            out.append(name)
    return out


def pod_claim_keys(pod: Any) -> tuple[str, ...]:
    """Upstream ``podResourceClaimIndexFunc``: ``<namespace>/<claim>`` for each claim the pod's entries
    use (a template's claim once recorded in the pod's status)."""
    if not pod.spec.resource_claims:
        return ()
    ns = pod.metadata.namespace or ""
    return tuple(sorted({f"{ns}/{n}" for n in _claim_names(pod)}))


def pod_group_keys(pod: Any) -> tuple[str, ...]:
    """``<namespace>/<PodGroup>`` of a pod with claims in a PodGroup."""
    group = pod.spec.scheduling_group
    name = group.pod_group_name if group is not None else None
    return (f"{pod.metadata.namespace}/{name}",) if name and pod.spec.resource_claims else ()


def pod_template_keys(pod: Any) -> tuple[str, ...]:
    """Upstream ``podResourceClaimTemplateIndexFunc``: ``<namespace>/<template>`` for each entry that
    names a template."""
    if not pod.spec.resource_claims:
        return ()
    ns = pod.metadata.namespace or ""
    names = {e.resource_claim_template_name for e in pod.spec.resource_claims}
    return tuple(sorted(f"{ns}/{n}" for n in names if n))


def _extended_claim(pod: Any) -> str:
    """The claim ``status.extendedResourceClaimStatus`` names (``""``: none)."""
    status = pod.status
    extended = status.extended_resource_claim_status if status is not None else None
    return (extended.resource_claim_name or "") if extended is not None else ""


def _terminal(pod: Any) -> bool:
    return pod.status is not None and pod.status.phase in _TERMINAL


def pod_needs_claims(pod: Any, deleted: bool) -> bool:
    """Upstream ``podNeedsClaims``: whether the pod might still run (and keep its claims reserved)."""
    if deleted or _terminal(pod):
        return False
    return not (pod.metadata.deletion_timestamp is not None and not pod.spec.node_name)


def _get_claim(cache: Cache, name: str, namespace: str) -> Any | None:
    try:
        return cache.get(ResourceClaim, name, namespace)
    except NotFound:
        return None


def _is_for_pod(pod: Any, claim: Any) -> bool:
    """Upstream ``resourceclaim.IsForPod``: the claim's controlling owner is this pod (by uid)."""
    uid = pod.metadata.uid
    return any(ref.controller and ref.uid == uid for ref in claim.metadata.owner_references or ())


def _needs_reservation(pod: Any, claim: Any) -> bool:
    """Allocated, not reserved for the pod, and ``resourceclaim.CanBeReserved``."""
    status = claim.status
    if status is None or status.allocation is None:
        return False
    reserved = status.reserved_for or ()
    uid = pod.metadata.uid
    return not any(r.uid == uid for r in reserved) and len(reserved) < RESERVED_FOR_MAX_SIZE


def pod_needs_work(pod: Any, cache: Cache) -> bool:
    """Upstream ``podNeedsWork``: whether ``syncPod`` has something to do for the pod."""
    if pod.metadata.deletion_timestamp is not None:
        return False
    statuses = _statuses(pod)
    ns = pod.metadata.namespace or ""
    for entry in pod.spec.resource_claims or ():
        template = entry.resource_claim_template_name
        name = claim_name(entry.resource_claim_name, template, entry.name, statuses)
        if name is NOT_CREATED:
            return True  # resourceclaim.Name's ErrClaimNotFound: the claim must be generated
        if not name:
            return False  # "claim is not needed" (upstream ends the walk here)
        claim = _get_claim(cache, name, ns)
        if claim is None:
            return bool(template)  # generate it again; a user's claim is the user's to create
        if template and not _is_for_pod(pod, claim):
            return False  # a conflicting claim the user must remove
        if pod.spec.node_name and _needs_reservation(pod, claim):
            return True
    return False


def enqueue_pod(pod: Any, deleted: bool, cache: Cache) -> list[Request]:
    """Upstream ``enqueuePod``: the claims to release, then the pod when it needs work."""
    extended = _extended_claim(pod)
    if not pod.spec.resource_claims and not extended:
        return []
    ns = pod.metadata.namespace or ""
    out: list[Request] = []
    if not pod_needs_claims(pod, deleted):
        names = [*_claim_names(pod), extended] if extended else _claim_names(pod)
        out = [Request(ns, f"claim/{n}") for n in dict.fromkeys(names)]
    if pod_needs_work(pod, cache):
        out.append(Request(ns, f"pod/{pod.metadata.name}"))
    return out


def _pods_through(cache: Cache, index: tuple[str, str], out: list[Request]) -> list[Request]:
    """``out`` and what :func:`enqueue_pod` queues for each pod the index value finds (a live pod)."""
    for pod in cache.list(Pod, index=index):
        out += [r for r in enqueue_pod(pod, False, cache) if r not in out]
    return out


class PodEvents:
    """A pod's add and update (``deleted`` False) or delete (True) event: :func:`enqueue_pod`.
    A class, not a closure: a saved control plane pickles its mappers."""

    __slots__ = ("cache", "deleted")
    maps_old_on_update = False  # upstream's UpdateFunc reads the updated pod only

    def __init__(self, cache: Cache, deleted: bool) -> None:
        self.cache, self.deleted = cache, deleted

    def __call__(self, pod: Any) -> list[Request]:
        return enqueue_pod(pod, self.deleted, self.cache)

    def __getstate__(self) -> tuple[Cache, bool]:
        return (self.cache, self.deleted)

    def __setstate__(self, state: tuple[Cache, bool]) -> None:
        self.cache, self.deleted = state


class ClaimEvents:
    """A claim's add and update (``deleted`` False) or delete (True) event: upstream
    ``enqueueResourceClaim``."""

    __slots__ = ("cache", "deleted")
    maps_old_on_update = False  # upstream reads the new claim only

    def __init__(self, cache: Cache, deleted: bool) -> None:
        self.cache, self.deleted = cache, deleted

    def __call__(self, claim: Any) -> list[Request]:
        ns = claim.metadata.namespace or ""
        out = [] if self.deleted else [Request(ns, f"claim/{claim.metadata.name}")]
        owner = claim.metadata.controller_ref()
        if owner is not None and owner.kind == "PodGroup":
            out.append(Request(ns, f"podgroup/{owner.name}"))
        return _pods_through(self.cache, (BY_POD_CLAIM, f"{ns}/{claim.metadata.name}"), out)

    def __getstate__(self) -> tuple[Cache, bool]:
        return (self.cache, self.deleted)

    def __setstate__(self, state: tuple[Cache, bool]) -> None:
        self.cache, self.deleted = state


class PodGroupEvents:
    """A PodGroup's add and update (``deleted`` False): the PodGroup, then the pods of the group
    with claims; its delete: its claims."""

    __slots__ = ("cache", "deleted")
    maps_old_on_update = False

    def __init__(self, cache: Cache, deleted: bool = False) -> None:
        self.cache, self.deleted = cache, deleted

    def __call__(self, group: Any) -> list[Request]:
        ns, name = group.metadata.namespace or "", group.metadata.name
        if self.deleted:
            recorded = group.status.resource_claim_statuses if group.status is not None else None
            names = {c.resource_claim_name for c in group.spec.resource_claims or () if c.resource_claim_name}
            names |= {s.resource_claim_name for s in recorded or () if s.resource_claim_name}
            return [Request(ns, f"claim/{n}") for n in sorted(names)]
        out = [Request(ns, f"podgroup/{name}")]
        pods = self.cache.list(Pod, index=(BY_POD_GROUP, f"{ns}/{name}"))
        return out + sorted({Request(ns, f"pod/{p.metadata.name}") for p in pods}, key=lambda r: r.name)

    def __getstate__(self) -> tuple[Cache, bool]:
        return (self.cache, self.deleted)

    def __setstate__(self, state: tuple[Cache, bool]) -> None:
        self.cache, self.deleted = state


class TemplateEvents:
    """A template added or updated (kubernetes#135983): :func:`enqueue_pod` for the pods naming it."""

    __slots__ = ("cache",)
    maps_old_on_update = False

    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def __call__(self, template: Any) -> list[Request]:
        key = f"{template.metadata.namespace or ''}/{template.metadata.name}"
        return _pods_through(self.cache, (BY_POD_TEMPLATE, key), [])

    def __getstate__(self) -> Cache:
        return self.cache

    def __setstate__(self, state: Cache) -> None:
        self.cache = state
