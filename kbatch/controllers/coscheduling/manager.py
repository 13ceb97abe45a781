"""The Coscheduling plugin's memory (upstream ``pkg/coscheduling/core/core.go`` ``PodGroupManager``):
plain values keyed by a group's full name ``<namespace>/<name>``, read against the scheduler's clock.

* ``assigned``: the pods of a group that reached Permit (assumed or bound), by pod name; a pod
  enters at Permit and when the scheduler's pod informer first sees it already bound, and leaves at
  Unreserve and when a bound pod is deleted (``AddPodFactory``, the informer's ``DeleteFunc``);
* ``permitted``: groups whose ``minResources`` check passed, until a deadline (go-cache
  ``permittedPG``, expiring after ``permitWaitingTimeSeconds``, its 3 s default when that is 0);
* ``backed_off``: groups PreFilter rejects until a deadline (``backedOffPG``, ``podGroupBackoffSeconds``);
* ``last_failed``: when a group last failed (``lastFailedSchedulePG``): QueueSort orders it by that
  instead of its creation time, so a failing group does not block the head of the queue.

Deadlines are compared with ``now`` when read (go-cache expires entries lazily the same way).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["GroupMemory", "full_name"]

DEFAULT_CACHE_TTL = 3.0  # go-cache.New(3*time.Second, ...) of permittedPG: Add with 0 uses it


def full_name(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


@dataclass(slots=True)
class GroupMemory:
    assigned: dict[str, set[str]] = field(default_factory=dict)
    permitted: dict[str, float] = field(default_factory=dict)
    backed_off: dict[str, float] = field(default_factory=dict)
    last_failed: dict[str, float] = field(default_factory=dict)

    # -- assigned pods -------------------------------------------------------------------------
    def assign(self, group: str, pod: str) -> int:
        """Record ``pod`` as assigned; the group's count after it."""
        members = self.assigned.setdefault(group, set())
        members.add(pod)
        return len(members)

    def unassign(self, group: str, pod: str) -> None:
        members = self.assigned.get(group)
        if members is not None:
            members.discard(pod)
            if not members:
                del self.assigned[group]

    def assigned_count(self, group: str) -> int:
        return len(self.assigned.get(group, ()))

    # -- timed sets ------------------------------------------------------------------------------
    def permit_resources(self, group: str, now: float, ttl: float) -> None:
        self.permitted[group] = now + (ttl if ttl > 0 else DEFAULT_CACHE_TTL)

    def resources_permitted(self, group: str, now: float) -> bool:
        return _live(self.permitted, group, now)

    def back_off(self, group: str, now: float, seconds: float) -> None:
        if seconds > 0:
            self.backed_off[group] = now + seconds

    def in_backoff(self, group: str, now: float) -> bool:
        return _live(self.backed_off, group, now)

    def failed(self, group: str, now: float) -> None:
        """``DeletePermittedPodGroup`` + ``MarkPodGroupScheduleFailure``."""
        self.permitted.pop(group, None)
        self.last_failed[group] = now


def _live(deadlines: dict[str, float], key: str, now: float) -> bool:
    deadline = deadlines.get(key)
    if deadline is None:
        return False
    if deadline <= now:
        del deadlines[key]
        return False
    return True
