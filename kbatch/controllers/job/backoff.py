"""Pod-recreation back-off after failures (upstream pkg/controller/job/backoff_utils.go).

A Job keeps an in-memory :class:`BackoffRecord`: failures since the last success and when the last
one happened. Each sync folds in the pods it newly counted: failures only add; any success resets
the count, after which only failures finishing strictly after the latest success count. The delay
before creating replacements is ``base x 2^(n-1)`` capped at ``cap``. Upstream's code uses
10 s and 10 min (``DefaultJobPodFailureBackOff``, ``MaxJobPodFailureBackOff``); the Job doc page
says "capped at six minutes", which was the older code's value.

With backoffLimitPerIndex the delay is per index, computed from the last failed pod of the index:
``n`` = its failure-count + ignored-failure-count annotations + 1, from its finish time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from kbatch.controllers.job.classification import annotation_count, finish_time
from kbatch.controllers.job.views import PodInfo

__all__ = [
    "DEFAULT_BACKOFF",
    "MAX_BACKOFF",
    "BackoffRecord",
    "backoff_delay",
    "fold_backoff",
    "remaining_for_index",
    "remaining_time",
]

DEFAULT_BACKOFF = 10.0
MAX_BACKOFF = 600.0


@dataclass(frozen=True, slots=True)
class BackoffRecord:
    failures_after_last_success: int = 0
    last_failure_time: datetime | None = None


def fold_backoff(record: BackoffRecord | None, succeeded: Iterable[PodInfo],
                 failed: Iterable[PodInfo], sidecars: frozenset[str] = frozenset()) -> BackoffRecord:
    """The record after newly finished pods (``newBackoffRecord``)."""
    record = record or BackoffRecord()
    ok = sorted(finish_time(p, sidecars) for p in succeeded)
    bad = sorted(finish_time(p, sidecars) for p in failed)
    if not ok:
        if not bad:
            return record
        return BackoffRecord(record.failures_after_last_success + len(bad), bad[-1])
    after = [t for t in bad if t > ok[-1]]
    return BackoffRecord(len(after), after[-1] if after else None)


def backoff_delay(failures: int, base: float = DEFAULT_BACKOFF, cap: float = MAX_BACKOFF) -> float:
    """``base x 2^(failures-1)``, capped; 0 when there were no failures."""
    if failures <= 0:
        return 0.0
    delay = base
    for _ in range(1, failures):
        delay *= 2
        if delay >= cap:
            return cap
    return min(delay, cap)


def _remaining(failures: int, last: datetime | None, now: datetime, base: float, cap: float) -> float:
    if failures <= 0 or last is None:
        return 0.0
    delay = backoff_delay(failures, base, cap)
    elapsed = (now - last).total_seconds()
    return 0.0 if delay < elapsed else delay - elapsed


def remaining_time(record: BackoffRecord, now: datetime, base: float = DEFAULT_BACKOFF,
                   cap: float = MAX_BACKOFF) -> float:
    """Seconds to wait before creating replacement pods (0 = now)."""
    return _remaining(record.failures_after_last_success, record.last_failure_time, now, base, cap)


def remaining_for_index(last_failed: PodInfo | None, now: datetime, base: float = DEFAULT_BACKOFF,
                        cap: float = MAX_BACKOFF, sidecars: frozenset[str] = frozenset()) -> float:
    """Per-index wait (``getRemainingTimePerIndex``)."""
    if last_failed is None:
        return 0.0
    failures = annotation_count(last_failed) + annotation_count(last_failed, ignored=True) + 1
    return _remaining(failures, finish_time(last_failed, sidecars), now, base, cap)
