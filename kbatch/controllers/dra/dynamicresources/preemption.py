"""What preemption's what-if removes from and gives back to the devices (KEP-5690 "DRA Preemption",
gate ``DRAPreemption``; upstream ``AddPod``/``RemovePod`` of the DynamicResources plugin, the
``PreFilterExtensions`` DefaultPreemption calls while it simulates evicting victims).

A :class:`Simulation` belongs to one pod's scheduling attempt, one copy per node preemption tries
(upstream ``stateData.Clone``). It records, per claim uid, the pods simulated as removed
(``simulatedRemovedPodsForClaim``) and the claims released (``simulatedReleasedClaims``): a claim is
released once every consumer in its ``reservedFor`` is a removed pod. A claim reserved for anything
but pods (a PodGroup) is never released, nor one with a consumer still there. Releasing takes the
claim's devices out of a private copy of the allocated state (``allocatedState``), from which Filter
then allocates; giving a removed pod back restores them. So:

* a victim holding a device only it uses frees that device;
* a claim shared with a pod that stays is not freed (rows ``shared-claim-single-user-out-not-released``,
  ``partial-preemption-shared-claim-fails`` of upstream's ``dynamicresources_preemption_test.go``);
* a claim reserved for a PodGroup is not freed (row ``pod-group-claim-not-released``).

The preemptor's own claims that get released are allocated again by Filter, as upstream's (its
``claims.all()`` loop skips only allocated claims not in ``simulatedReleasedClaims``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from kbatch.controllers.dra.podclaims import NOT_CREATED, claim_name
from kbatch.controllers.dra.structured import AllocatedState, claim_devices

__all__ = ["ClaimPod", "Simulation"]


class ClaimPod(Protocol):
    """What the simulation reads of a pod (the scheduler's ``PodInfo``)."""

    uid: str
    namespace: str
    resource_claims: Any
    claim_statuses: Any


ClaimLookup = Callable[[str, str], Any]  # (namespace, name) -> the claim, or None


def _pod_claims(pod: ClaimPod, lookup: ClaimLookup) -> list[Any]:
    """The claims of ``pod`` that exist, once each (upstream skips a claim not created yet, an entry
    needing no claim, a claim not found, and a claim named twice)."""
    statuses = dict(pod.claim_statuses)
    seen: set[str] = set()
    found = []
    for entry, direct, template in pod.resource_claims:
        name = claim_name(direct, template, entry, statuses)
        if name is NOT_CREATED or not name:
            continue
        claim = lookup(pod.namespace, name)
        if claim is None or claim.metadata.uid in seen:
            continue
        seen.add(claim.metadata.uid)
        found.append(claim)
    return found


Terminating = Callable[[str, Any], bool]  # (namespace, reservedFor entry) -> a pod being deleted


def _releasable(claim: Any, removed: set[str], terminating: Terminating | None = None) -> bool:
    """Every consumer of the claim is a pod simulated as removed (none: an allocated, unused claim)
    or, with ``terminating`` (KEP-5690's ``AddNominatedPod``: "every reserving pod is in victims or
    already terminating"), a pod already being deleted."""
    namespace = claim.metadata.namespace or ""
    for consumer in (claim.status.reserved_for if claim.status is not None else None) or ():
        if consumer.resource != "pods" or consumer.api_group:
            return False  # a PodGroup (or any non-pod consumer): its pods cannot be counted
        if consumer.uid not in removed and not (terminating is not None and terminating(namespace, consumer)):
            return False
    return True


class Simulation:
    """The released claims and the allocated state of one preemption what-if."""

    __slots__ = ("allocated", "nominated", "released", "removed", "subtracted")

    def __init__(self, allocated: AllocatedState | None = None) -> None:
        self.allocated = allocated  # a private copy, made at the first release
        self.released: set[str] = set()
        self.removed: dict[str, set[str]] = {}
        # claim nominations (:mod:`.nomination`): victim claims taken out for a nominated pod, and
        # whether some nominated pod's allocation was added
        self.subtracted: set[str] = set()
        self.nominated = False

    def copy(self) -> Simulation:
        """Upstream ``Clone``: the sets and the allocated state are not shared with the copy."""
        other = Simulation(self.allocated.copy() if self.allocated is not None else None)
        other.released = set(self.released)
        other.removed = {uid: set(pods) for uid, pods in self.removed.items()}
        other.subtracted = set(self.subtracted)
        other.nominated = self.nominated
        return other

    def active(self) -> bool:
        """Some claim is released or a nominated pod's allocation added: Filter must allocate from
        :attr:`allocated`."""
        return bool(self.released) or self.nominated

    def remove_pod(self, pod: ClaimPod, lookup: ClaimLookup, base: AllocatedState,
                   node_local: Callable[[Any], bool] | None = None,
                   terminating: Terminating | None = None) -> list[str]:
        """Upstream ``RemovePod``; returns the uids of the claims this removal released.
        ``node_local``: KEP-5690 releases only claims whose devices all come from slices with a
        ``nodeName`` (multi-node and network-attached devices are out of its scope);
        ``terminating``: consumers already being deleted count as removed (``AddNominatedPod``)."""
        freed = []
        for claim in _pod_claims(pod, lookup):
            uid = claim.metadata.uid
            removed = self.removed.setdefault(uid, set())
            removed.add(pod.uid)
            if uid in self.released or not _releasable(claim, removed, terminating):
                continue
            if node_local is not None and not node_local(claim):
                continue
            self.released.add(uid)
            if self.allocated is None:
                self.allocated = base.copy()
            self.allocated.add(claim_devices(claim), -1)
            freed.append(uid)
        return freed

    def add_pod(self, pod: ClaimPod, lookup: ClaimLookup) -> None:
        """Upstream ``AddPod``: the pod is no longer removed; a claim it released holds its devices
        again."""
        for claim in _pod_claims(pod, lookup):
            uid = claim.metadata.uid
            removed = self.removed.get(uid)
            if removed is not None:
                removed.discard(pod.uid)
            if uid in self.released:
                self.released.discard(uid)
                if self.allocated is not None:
                    self.allocated.add(claim_devices(claim), 1)

    def add_nominated(self, results: list[Any], victims: Iterable[Any], base: AllocatedState) -> None:
        """Upstream ``AddPod`` of a nominated preemptor (KEP-5690, "Holding capacity for the
        preemptor"): its victims' claims still allocated are taken out (once; not those a removal
        already released), then its nominated devices are added."""
        if self.allocated is None:
            self.allocated = base.copy()
        for claim in victims:
            uid = claim.metadata.uid
            if uid in self.released or uid in self.subtracted:
                continue
            self.subtracted.add(uid)
            self.allocated.add(claim_devices(claim), -1)
        self.allocated.add(results, 1)
        self.nominated = True

    def to_allocate(self, pending: list[Any], allocated: Iterable[Any]) -> list[Any]:
        """The claims Filter allocates: the pending ones, then the pod's allocated claims that were
        released (in the pod's order)."""
        return [*pending, *(c for c in allocated if c.metadata.uid in self.released)]
