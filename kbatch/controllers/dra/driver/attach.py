"""What a simulated driver's attachment controller reports for devices with binding conditions
(KEP-5007, ``keps/sig-scheduling/5007-device-attach-before-pod-scheduled``; ``DRADeviceBindingConditions``,
beta and on by default in 1.37): a pure decision, :func:`attach_entries`.

Upstream the scheduler's PreBind waits until every binding condition of every allocated device is
``True`` in the claim's ``status.devices`` (``isClaimReadyForBinding``) and gives up when a binding
failure condition is ``True``. Who sets them is outside Kubernetes: the KEP's "composable DRA
controller" watches ResourceClaims, attaches a fabric device allocated to a claim to the chosen node
and then updates the claim's status. kbatch's simulated driver does that after ``attach_delay``
virtual seconds counted from the allocation's ``allocationTimestamp`` (which PreBind stamps): each
binding condition ``True`` (reason ``Attached``), or, for a driver whose attachments fail, the first
binding failure condition ``True`` (reason ``AttachFailed``), which makes PreBind fail and the
scheduler's next attempt deallocate the claim (upstream Filter / PostFilter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from kbatch.api.base import format_time
from kbatch.controllers.dra.driver.entries import Owner, entry_key

__all__ = ["ATTACHED", "ATTACH_FAILED", "AttachPool", "Attachment", "attach_entries"]

ATTACHED, ATTACH_FAILED = "Attached", "AttachFailed"


@dataclass(frozen=True, slots=True)
class AttachPool:
    """A pool whose devices the driver attaches: its node, the delay and whether attaching fails, and
    the condition types its devices publish (the attachment controller's part of their entries)."""

    node: str
    delay: float
    fails: bool
    conditions: frozenset[str]

    def owner(self) -> Owner:
        return Owner(self.conditions)


@dataclass(frozen=True, slots=True)
class Attachment:
    """The decision: the entries to report now (by key) and when the next one is due (None: never)."""

    entries: dict[tuple, dict[str, Any]]
    next_due: datetime | None


def _conditions(result: Any, pool: AttachPool, when: str) -> list[dict[str, Any]]:
    if pool.fails:
        failures = list(result.binding_failure_conditions or ())
        message = f"simulated attachment of the device to node {pool.node} failed"
        return [{"type": failures[0], "status": "True", "reason": ATTACH_FAILED, "message": message,
                 "lastTransitionTime": when}] if failures else []
    message = f"device attached to node {pool.node}"
    return [{"type": name, "status": "True", "reason": ATTACHED, "message": message,
             "lastTransitionTime": when} for name in result.binding_conditions or ()]


def attach_entries(claim: Any, pools: Mapping[tuple[str, str], AttachPool], now: datetime,
                   started: datetime | None = None) -> Attachment:
    """The entries the attachment controllers report for ``claim`` at ``now``: for each allocated
    device with binding conditions from one of ``pools`` whose delay has passed since the allocation
    (its ``allocationTimestamp``, else ``started``, when the controller first saw it), the outcome's
    conditions; and when the next device's outcome is due."""
    status = claim.status
    allocation = status.allocation if status is not None else None
    if allocation is None or allocation.devices is None:
        return Attachment({}, None)
    devices = allocation.devices
    since = allocation.allocation_timestamp or started or now
    out: dict[tuple, dict[str, Any]] = {}
    pending: datetime | None = None
    for result in devices.results or ():
        pool = pools.get((result.driver, result.pool))
        if pool is None or not result.binding_conditions:
            continue
        due = since + timedelta(seconds=pool.delay)
        if due > now:
            pending = due if pending is None else min(pending, due)
            continue
        entry: dict[str, Any] = {"driver": result.driver, "pool": result.pool, "device": result.device,
                                 "conditions": _conditions(result, pool, format_time(due))}
        if result.share_id:
            entry["shareID"] = result.share_id
        out[entry_key(entry)] = entry
    return Attachment(out, pending)
