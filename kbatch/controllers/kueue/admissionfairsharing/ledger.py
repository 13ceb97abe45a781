"""The usage ledger: each LocalQueue's decayed consumed resources and its pending entry penalties.

Upstream: kubernetes-sigs/kueue ``pkg/cache/queue/afs/{usage_ledger,entry_penalties}.go`` (the
ledger), ``pkg/controller/core/localqueue_controller.go`` (``initializeAfsIfNeeded``,
``reconcileConsumedUsage``: sampling) and ``pkg/controller/core/workload_controller.go``
(``updateAfsConsumedUsage``: settlement), v0.19.2.

The lifecycle of one workload's share:

1. the scheduler assumes it in a ``UsageBasedAdmissionFairSharing`` ClusterQueue: its LocalQueue gets
   an *entry penalty*, ``alpha_rate(samplingInterval)`` of its total requests
   (:meth:`UsageLedger.push_penalty`), so the next heads of that LocalQueue already rank behind,
   before any sample has seen it;
2. it becomes ``Admitted``: the LocalQueue's consumed resources decay to now with the admitted usage
   as the new sample, and the penalty is folded in and dropped (:meth:`UsageLedger.settle`);
3. the penalty is dropped unsettled if the admission write fails, the workload is deleted, moves to
   another LocalQueue, is deactivated without a reservation or finishes (:meth:`UsageLedger.sub_penalty`);
4. every ``usageSamplingInterval`` the LocalQueue controller decays the consumed resources toward the
   LocalQueue's admitted usage (:meth:`UsageLedger.sample`) and writes them to its status.

An entry's ``last_update`` never moves backwards, and an elapsed time is never negative (a negative
one would make the decay factor leave [0, 1] and inflate usage).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal

from kbatch.controllers.kueue.admissionfairsharing.arithmetic import (
    Amounts,
    decayed_consumed,
    duration_seconds,
    merge_sum,
)

__all__ = ["LedgerEntry", "UsageLedger"]


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """``UsageLedgerEntry``: ``status_accounted``: the LocalQueue's persisted status was merged."""

    resources: Mapping[str, Decimal] = field(default_factory=dict)
    last_update: datetime | None = None
    pending_penalty: Mapping[str, Decimal] = field(default_factory=dict)
    penalty_records: Mapping[str, Mapping[str, Decimal]] = field(default_factory=dict)
    status_accounted: bool = False

    def with_penalty(self, workload: str, penalty: Mapping[str, Decimal]) -> LedgerEntry:
        """``withPenalty``: replaces the workload's earlier record, so penalties never stack."""
        entry, _ = self.without_penalty(workload)
        records = dict(entry.penalty_records)
        records[workload] = dict(penalty)
        return replace(entry, penalty_records=records,
                       pending_penalty=merge_sum(entry.pending_penalty, penalty))

    def without_penalty(self, workload: str) -> tuple[LedgerEntry, Mapping[str, Decimal] | None]:
        """``WithoutPenalty``: the entry without the workload's record, and that record."""
        recorded = self.penalty_records.get(workload)
        if recorded is None:
            return self, None
        records = {k: v for k, v in self.penalty_records.items() if k != workload}
        negated = {k: -v for k, v in recorded.items()}
        pending = {k: v for k, v in merge_sum(self.pending_penalty, negated).items() if v != 0}
        return replace(self, penalty_records=records, pending_penalty=pending), recorded

    def has_pending_penalty(self) -> bool:
        return any(v != 0 for v in self.pending_penalty.values())


def _elapsed(last: datetime | None, now: datetime) -> float:
    return 0.0 if last is None else max(0.0, duration_seconds(now - last))


def _monotonic(last: datetime | None, now: datetime) -> datetime:
    return last if last is not None and last > now else now


class UsageLedger:
    """``AfsUsageLedger``: one entry per LocalQueue (``"<namespace>/<name>"``)."""

    def __init__(self) -> None:
        self.entries: dict[str, LedgerEntry] = {}

    def get(self, lq: str) -> LedgerEntry | None:
        return self.entries.get(lq)

    def set(self, lq: str, resources: Amounts, last_update: datetime) -> None:
        """``SetForTest``: an entry with these consumed resources and no penalties."""
        self.entries[lq] = LedgerEntry(resources=dict(resources), last_update=last_update)

    def delete(self, lq: str) -> None:
        self.entries.pop(lq, None)

    def has_pending_penalty(self, lq: str) -> bool:
        entry = self.entries.get(lq)
        return entry is not None and entry.has_pending_penalty()

    # --- entry penalties (the scheduler, the workload controller) ----------------------------------
    def push_penalty(self, lq: str, workload: str, penalty: Amounts, now: datetime) -> None:
        """``PushPenalty``: a new entry starts its decay clock now, its status not yet merged."""
        entry = self.entries.get(lq)
        if entry is None:
            entry = LedgerEntry(last_update=now)
        self.entries[lq] = entry.with_penalty(workload, penalty)

    def sub_penalty(self, lq: str, workload: str) -> Mapping[str, Decimal] | None:
        """``SubPenalty``: drop a penalty that will never settle; a no-op without a record (and no
        entry is created for a LocalQueue that has none)."""
        entry = self.entries.get(lq)
        if entry is None:
            return None
        self.entries[lq], removed = entry.without_penalty(workload)
        return removed

    def settle(self, lq: str, workload: str, admitted_usage: Amounts, now: datetime,
               half_life: float) -> LedgerEntry:
        """``updateAfsConsumedUsage``: decay to now with the admitted usage as the sample, then fold
        in exactly the workload's recorded penalty (none recorded: nothing folded)."""
        old = self.entries.get(lq)
        last = old.last_update if old is not None else now
        base = old if old is not None else LedgerEntry()
        consumed = decayed_consumed(base.resources, admitted_usage, _elapsed(last, now), half_life)
        remaining, penalty = base.without_penalty(workload)
        updated = replace(remaining, resources=merge_sum(consumed, penalty or {}),
                          last_update=_monotonic(last, now))
        self.entries[lq] = updated
        return updated

    # --- sampling (the LocalQueue controller) -------------------------------------------------------
    def initialize(self, lq: str, persisted: Amounts | None, now: datetime) -> tuple[bool, LedgerEntry]:
        """``initializeAfsIfNeeded``: whether an entry existed, and the entry. A new entry is seeded
        from the persisted status only (never from live usage, which a pending penalty may already
        price), starting now; an entry a settlement created first gets the persisted history merged
        once."""
        seeded = dict(persisted or {})
        entry = self.entries.get(lq)
        if entry is None:
            entry = LedgerEntry(resources=seeded, last_update=now, status_accounted=True)
            self.entries[lq] = entry
            return False, entry
        if not entry.status_accounted:
            entry = replace(entry, resources=merge_sum(entry.resources, seeded), status_accounted=True)
            self.entries[lq] = entry
        return True, entry

    def sample(self, lq: str, admitted_usage: Amounts, now: datetime, half_life: float) -> Amounts:
        """``reconcileConsumedUsage``: the consumed resources decayed to now toward the admitted
        usage (reset to nothing without a half-life); returns what the status gets."""
        entry = self.entries.get(lq) or LedgerEntry(status_accounted=True)
        if half_life == 0:
            self.entries[lq] = replace(entry, resources={}, last_update=now,
                                       status_accounted=entry.status_accounted or lq not in self.entries)
            return {}
        consumed = decayed_consumed(entry.resources, admitted_usage, _elapsed(entry.last_update, now),
                                    half_life)
        self.entries[lq] = replace(entry, resources=consumed,
                                   last_update=_monotonic(entry.last_update, now))
        return consumed
