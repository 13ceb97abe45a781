"""Claim nominations (KEP-5690 "DRA Preemption", "Claim nomination"; gate ``DRAPreemption``).

The devices a preemption frees do not become allocatable when the victims are deleted but later,
when the resourceclaim controller deallocates their claims; meanwhile another pod could take them,
and the preemptor, retried before they are free, could preempt again. So when preemption picks a
node and victims for a pod, DynamicResources records, in the scheduler's memory:

* per preemptor (by pod uid), a :class:`Nomination`: the node and the allocation the preemptor
  would get there with the victims gone (upstream: the simulated ``AllocationResult`` s);
* per node, the victims' claims that the preemption releases (uid and ``namespace/name``), until
  each is deallocated (upstream's victim claim UIDs, tracked until ``status.allocation`` is nil).

A pod filtered against the node with the preemptor among the nominated pods it must leave room for
(priority at least its own) sees the victims' still-allocated claims taken out and the preemptor's
allocation in their place (``AddPod``); the DynamicResources plugin also keeps the preemptor from
preempting again on that node while any victim claim there is still allocated
(``PodEligibleToPreempt``), and its queueing hint does not wake the preemptor for the deallocation of
one victim claim while another on its nominated node is still allocated (the KEP's "secondary
optimization": the attempt would fail). A nomination lives as long as the pod's nomination in the scheduler's
nominator (``RemoveNominatedPod``); the tracked victim claims outlive it until deallocated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Nomination", "Nominations"]

StillAllocated = Callable[[str, str], bool]  # (claim uid, namespace/name) -> still allocated


@dataclass(frozen=True, slots=True)
class Nomination:
    """What a preemptor holds on its nominated node: ``allocations`` (one AllocationResult per claim
    it allocates there) and the victims' claims (uid -> ``namespace/name``) its preemption released."""

    node: str
    allocations: tuple[Any, ...]
    victims: tuple[tuple[str, str], ...]

    def results(self) -> list[Any]:
        """The device results of every allocation (what the preemptor's devices are)."""
        return [r for a in self.allocations for r in (a.devices.results or ())]


class Nominations:
    """The plugin's cross-cycle record (upstream: kept in ``draManager``, keyed by pod uid)."""

    __slots__ = ("by_pod", "victims")

    def __init__(self) -> None:
        self.by_pod: dict[str, Nomination] = {}
        self.victims: dict[str, dict[str, str]] = {}  # node -> claim uid -> namespace/name

    def add(self, pod_uid: str, nomination: Nomination) -> None:
        self.by_pod[pod_uid] = nomination
        if nomination.victims:
            self.victims.setdefault(nomination.node, {}).update(nomination.victims)

    def get(self, pod_uid: str) -> Nomination | None:
        return self.by_pod.get(pod_uid)

    def remove(self, pod_uid: str) -> Nomination | None:
        return self.by_pod.pop(pod_uid, None)

    def settling(self, node: str, still_allocated: StillAllocated) -> list[tuple[str, str]]:
        """The victim claims on ``node`` still allocated, in uid order; those deallocated (or gone)
        are forgotten."""
        tracked = self.victims.get(node)
        if not tracked:
            return []
        waiting = sorted((uid, key) for uid, key in tracked.items() if still_allocated(uid, key))
        if len(waiting) != len(tracked):
            if waiting:
                self.victims[node] = dict(waiting)
            else:
                del self.victims[node]
        return waiting

    def others_settling(self, node: str, claim_uid: str, still_allocated: StillAllocated) -> bool:
        """``claim_uid`` is a victim claim tracked on ``node`` and another one there is still
        allocated (the queueing hint's refinement; reads, forgets nothing)."""
        tracked = self.victims.get(node) or {}
        if claim_uid not in tracked:
            return False
        return any(still_allocated(uid, key) for uid, key in sorted(tracked.items()) if uid != claim_uid)

    def victim_claims(self, node: str, lookup: Callable[[str, str], Any]) -> Iterable[Any]:
        """The stored claims tracked as victims on ``node`` (``lookup(uid, key)``; missing skipped)."""
        for uid, key in sorted((self.victims.get(node) or {}).items()):
            claim = lookup(uid, key)
            if claim is not None:
                yield claim
