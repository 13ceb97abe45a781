"""The node lifecycle controller's zone bookkeeping: per-zone Ready counts, zone states and the
zones' rate-limited NoExecute taint queues (upstream ``zoneStates`` and ``zoneNoExecuteTainter``
in ``pkg/controller/nodelifecycle/node_lifecycle_controller.go``). No I/O: the controller feeds it
what it sees on nodes and applies what it decides (:mod:`.controller`).

Upstream recounts every node each ``nodeMonitorPeriod`` (5 s); kbatch keeps the counts current
as node updates arrive (:meth:`Tainter.observe`), and the controller runs the zone pass
(:meth:`Tainter.disruption`, then :meth:`Tainter.try_all`) after every change and whenever a
queue's next token is due, so tainting happens exactly when the zone's bucket allows.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.controllers.nodelifecycle.ratelimit import Action, TaintQueue
from kbatch.controllers.nodelifecycle.zones import Disruption, EvictionConfig, handle_disruption

__all__ = ["Member", "Tainter"]


@dataclass(frozen=True, slots=True)
class Member:
    zone: str
    ready: str | None  # the Ready condition's status (None: the node has none)
    counted: bool  # not labelled node.kubernetes.io/exclude-disruption


class Tainter:
    def __init__(self, config: EvictionConfig) -> None:
        self.config = config
        self.states: dict[str, str] = {}
        self.queues: dict[str, TaintQueue] = {}
        self.members: dict[str, Member] = {}
        self._counts: dict[str, list[int]] = {}  # zone -> [ready, not ready], counted nodes only

    def queue(self, zone: str, now: float) -> TaintQueue:
        """The zone's taint queue, created at the normal rate (``addPodEvictorForNewZone``)."""
        queue = self.queues.get(zone)
        if queue is None:
            queue = self.queues[zone] = TaintQueue(self.config.node_eviction_rate, now)
        return queue

    def _count(self, member: Member | None, delta: int) -> None:
        if member is None or not member.counted:
            return
        counts = self._counts.setdefault(member.zone, [0, 0])
        counts[0 if member.ready == "True" else 1] += delta
        if counts == [0, 0]:
            del self._counts[member.zone]

    def observe(self, node: str, member: Member | None) -> bool:
        """Record what the node looks like now (None: deleted); True when the zone counts changed."""
        old = self.members.get(node)
        if old == member:
            return False
        self._count(old, -1)
        self._count(member, +1)
        if member is None:
            del self.members[node]
        else:
            self.members[node] = member
        counted = (old is not None and old.counted) or (member is not None and member.counted)
        return counted

    def counts(self) -> dict[str, tuple[int, int]]:
        return {zone: (c[0], c[1]) for zone, c in self._counts.items()}

    def mark(self, node: str, zone: str, tainted: bool, now: float) -> bool:
        """``markNodeForTainting``: queue the node; one that lacks the taint its condition calls
        for but was processed before is queued again. A node already waiting keeps its place
        (upstream re-queues waiting nodes each monitor pass, in its listing order)."""
        queue = self.queue(zone, now)
        if not tainted and node in queue and not queue.waiting(node):
            queue.remove(node)
        return queue.add(node, now)

    def unmark(self, node: str, zone: str) -> bool:
        """``markNodeAsReachable``'s dequeue."""
        queue = self.queues.get(zone)
        return queue.remove(node) if queue is not None else False

    def disruption(self, now: float) -> Disruption:
        """``handleDisruption``: the decision, with the zones' new states and rates applied."""
        decision = handle_disruption(self.states, self.counts(), self.config)
        for zone, rate in decision.rates.items():
            self.queue(zone, now).swap(rate, now)
        self.states = decision.states
        return decision

    def try_all(self, now: float, action: Action) -> None:
        """``doNoExecuteTaintingPass``: every zone's queue, in zone order."""
        for zone in sorted(self.queues):
            self.queues[zone].try_(now, action)

    def wake_at(self, now: float) -> float | None:
        """When some zone's queue can next taint (None: none can)."""
        times = [t for q in self.queues.values() if (t := q.wake_at(now)) is not None]
        return min(times, default=None)
