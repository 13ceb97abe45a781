"""The scheduler-plugins PodGroup phase machine as a pure function (kubernetes-sigs/scheduler-plugins
``pkg/controllers/podgroup_controller.go`` ``Reconcile``).

1. ``Finished`` and ``Failed`` are terminal: nothing more.
2. A ``Pending``/``Scheduling`` group with no running pod whose ``scheduleStartTime`` lies more than
   48 h after its creation is left alone, with a ``Timeout`` warning (nobody sets
   ``scheduleStartTime`` upstream any more, so this never fires; kept as written).
3. ``""`` becomes ``Pending``.
4. ``Pending`` becomes ``Scheduling`` once the group has ``minMember`` labelled pods (counts not
   recomputed on that step); ``occupiedBy`` is then set from the first pod's owners
   (``<namespace>/<ownerName>`` for each owner reference, sorted, comma-joined).
5. Otherwise the counts are recomputed from the pods' phases and the phase follows, later rules
   winning: fewer pods than ``minMember`` → ``Pending``; running+succeeded below ``minMember`` →
   ``Scheduling``, else ``Running``; some failed and failed+running+succeeded ≥ ``minMember`` →
   ``Failed``; succeeded ≥ ``minMember`` → ``Finished``.

The pods are every pod carrying ``scheduling.x-k8s.io/pod-group: <name>`` — in any namespace, as
upstream lists them without a namespace (docs/gang.md) — in key order, the first of which names
``occupiedBy`` (upstream takes the first of an unordered list).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from kbatch.api.scheduling_x_v1alpha1 import FAILED, FINISHED, PENDING, RUNNING, SCHEDULING

__all__ = ["TIMEOUT", "GroupStatus", "Outcome", "PodFacts", "next_status"]

TIMEOUT = 48 * 3600.0
TIMEOUT_EVENT = ("Warning", "Timeout", "schedule time longer than 48 hours")


@dataclass(frozen=True, slots=True)
class GroupStatus:
    """The status fields the controller writes (0 and "" are Go's empty values: not written)."""

    phase: str = ""
    occupied_by: str = ""
    running: int = 0
    succeeded: int = 0
    failed: int = 0


@dataclass(frozen=True, slots=True)
class PodFacts:
    namespace: str
    phase: str
    owners: tuple[str, ...] = ()  # owner reference names


@dataclass(frozen=True, slots=True)
class Outcome:
    status: GroupStatus | None = None  # None: leave the group alone
    event: tuple[str, str, str] | None = None  # (type, reason, message)


def _occupied_by(pod: PodFacts) -> str:
    return ",".join(sorted(f"{pod.namespace}/{owner}" for owner in pod.owners))


def next_status(current: GroupStatus, min_member: int, pods: Sequence[PodFacts],
                schedule_wait: float | None) -> Outcome:
    """``schedule_wait``: ``scheduleStartTime`` minus creation in seconds (None when unset)."""
    phase = current.phase
    if phase in (FINISHED, FAILED):
        return Outcome()
    if (phase in (SCHEDULING, PENDING) and current.running == 0 and schedule_wait is not None
            and schedule_wait > TIMEOUT):
        return Outcome(event=TIMEOUT_EVENT)
    if phase == "":
        return Outcome(replace(current, phase=PENDING))
    if phase == PENDING:
        if len(pods) < min_member:
            return Outcome(current)
        occupied = _occupied_by(pods[0]) if pods and pods[0].owners else current.occupied_by
        return Outcome(replace(current, phase=SCHEDULING, occupied_by=occupied))
    running = sum(1 for p in pods if p.phase == "Running")
    succeeded = sum(1 for p in pods if p.phase == "Succeeded")
    failed = sum(1 for p in pods if p.phase == "Failed")
    status = replace(current, running=running, succeeded=succeeded, failed=failed)
    if len(pods) < min_member:
        return Outcome(replace(status, phase=PENDING))
    phase = SCHEDULING if succeeded + running < min_member else RUNNING
    if failed != 0 and failed + running + succeeded >= min_member:
        phase = FAILED
    if succeeded >= min_member:
        phase = FINISHED
    return Outcome(replace(status, phase=phase))
