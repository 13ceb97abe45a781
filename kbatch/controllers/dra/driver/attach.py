"""What a simulated driver's attachment controller reports for devices with binding conditions
(KEP-5007, ``keps/sig-scheduling/5007-device-attach-before-pod-scheduled``; ``DRADeviceBindingConditions``,
beta and on by default in 1.37): a pure decision, :func:`attach_entries`.

Upstream the scheduler's PreBind waits until every binding condition of every allocated device is
``True`` in the claim's ``status.devices`` (``isClaimReadyForBinding``) and gives up when a binding
failure condition is ``True``. Who sets them is outside Kubernetes: the KEP's "composable DRA
controller" watches ResourceClaims, attaches a fabric device allocated to a claim to the chosen node
and then updates the claim's status. kbatch's simulated driver does that ``delay`` virtual seconds
after the attempt started: each binding condition ``True`` (reason ``Attached``), or, for an attempt
that fails (:class:`Failures`), the first binding failure condition ``True`` (reason
``AttachFailed``), which makes PreBind fail and the scheduler's next attempt deallocate the claim
(upstream Filter / PostFilter); the allocation after that is a new attempt.

An attempt is one allocation of one device. It starts at the allocation's ``allocationTimestamp``,
which upstream's ``bindClaim`` (PreBind) stamps when it writes the allocation with
``DRADeviceBindingConditions`` and ``DRAResourceClaimDeviceStatus`` on, so it is in the stored claim
and survives any restart. An allocation without one (written by someone else) gets its start recorded
in the claim too: until the outcome, the binding conditions ``False`` with reason ``Attaching`` and
their ``lastTransitionTime`` the start (a progress report upstream's PreBind reads as "not ready").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from kbatch.api.base import format_time, parse_time
from kbatch.controllers.dra.driver.entries import Owner, entry_key

__all__ = ["ATTACHED", "ATTACHING", "ATTACH_FAILED", "AttachPool", "Attachment", "Draw", "Failures",
           "attach_entries"]

ATTACHED, ATTACHING, ATTACH_FAILED = "Attached", "Attaching", "AttachFailed"

Draw = Callable[[str], float]  # a uniform number in [0, 1) for an attempt's label, the same every call


def never(label: str) -> float:
    """The draw when no attempt fails at random."""
    return 1.0


@dataclass(frozen=True, slots=True)
class Failures:
    """Which attachments fail: every one, every one of the named devices, and each attempt with
    probability ``rate`` (decided by the attempt's draw)."""

    every: bool = False
    devices: frozenset[str] = frozenset()
    rate: float = 0.0

    def fail(self, device: str, draw: Draw, attempt: str) -> bool:
        """Whether the attempt labelled ``attempt`` to attach ``device`` fails."""
        if self.every or device in self.devices:
            return True
        return self.rate > 0 and draw(attempt) < self.rate


@dataclass(frozen=True, slots=True)
class AttachPool:
    """A pool whose devices the driver attaches: its node, the delay and which attachments fail, and
    the condition types its devices publish (the attachment controller's part of their entries)."""

    node: str
    delay: float
    failures: Failures
    conditions: frozenset[str]

    def owner(self) -> Owner:
        return Owner(self.conditions)


@dataclass(frozen=True, slots=True)
class Attachment:
    """The decision: the entries to report now (by key) and when the next one is due (None: never)."""

    entries: dict[tuple, dict[str, Any]]
    next_due: datetime | None


def _condition(type_: str, status: str, reason: str, message: str, when: datetime) -> dict[str, Any]:
    return {"type": type_, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": format_time(when)}


def _outcome(result: Any, pool: AttachPool, failed: bool, when: datetime) -> list[dict[str, Any]]:
    if failed:
        failures = list(result.binding_failure_conditions or ())
        message = f"simulated attachment of the device to node {pool.node} failed"
        return [_condition(failures[0], "True", ATTACH_FAILED, message, when)] if failures else []
    message = f"device attached to node {pool.node}"
    return [_condition(name, "True", ATTACHED, message, when) for name in result.binding_conditions or ()]


def _attaching(result: Any, pool: AttachPool, since: datetime) -> list[dict[str, Any]]:
    message = f"attaching the device to node {pool.node}"
    return [_condition(name, "False", ATTACHING, message, since) for name in result.binding_conditions or ()]


def _recorded_start(claim: Any, pools: Mapping[tuple[str, str], AttachPool]) -> datetime | None:
    """When the attempts of an allocation without ``allocationTimestamp`` started, as the driver
    recorded it in ``status.devices``: an ``Attaching`` condition's transition time, or an outcome's
    less the pool's delay (the earliest)."""
    starts = []
    for device in claim.status.devices or ():
        pool = pools.get((device.driver, device.pool))
        if pool is None:
            continue
        for condition in device.conditions or ():
            if condition.type not in pool.conditions or condition.last_transition_time is None:
                continue
            when = parse_time(condition.last_transition_time)
            if condition.reason == ATTACHING:
                starts.append(when)
            elif condition.reason in (ATTACHED, ATTACH_FAILED):
                starts.append(when - timedelta(seconds=pool.delay))
    return min(starts, default=None)


def attach_entries(claim: Any, pools: Mapping[tuple[str, str], AttachPool], now: datetime,
                   draw: Draw = never) -> Attachment:
    """The entries the attachment controllers report for ``claim`` at ``now``: for each allocated
    device with binding conditions from one of ``pools`` whose delay has passed since the attempt
    started, the outcome's conditions (``draw`` decides a random failure, from the attempt's label:
    claim uid, start, device); and when the next device's outcome is due."""
    status = claim.status
    allocation = status.allocation if status is not None else None
    if allocation is None or allocation.devices is None:
        return Attachment({}, None)
    stamped = allocation.allocation_timestamp is not None
    since = allocation.allocation_timestamp or _recorded_start(claim, pools) or now
    attempt = f"{claim.metadata.uid or ''}@{format_time(since)}"
    out: dict[tuple, dict[str, Any]] = {}
    pending: datetime | None = None
    for result in allocation.devices.results or ():
        pool = pools.get((result.driver, result.pool))
        if pool is None or not result.binding_conditions:
            continue
        due = since + timedelta(seconds=pool.delay)
        if due > now:
            pending = due if pending is None else min(pending, due)
            conditions = [] if stamped else _attaching(result, pool, since)
        else:
            label = f"{attempt}/{result.driver}/{result.pool}/{result.device}/{result.share_id or ''}"
            conditions = _outcome(result, pool, pool.failures.fail(result.device, draw, label), due)
        if not conditions:
            continue
        entry: dict[str, Any] = {"driver": result.driver, "pool": result.pool, "device": result.device,
                                 "conditions": conditions}
        if result.share_id:
            entry["shareID"] = result.share_id
        out[entry_key(entry)] = entry
    return Attachment(out, pending)
