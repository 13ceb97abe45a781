"""Aggregates over workloads: mean and percentiles of each duration, throughput, makespan, grouping.

Percentiles interpolate linearly between the closest ranks (numpy's default ``linear`` method,
Hyndman & Fan's definition 7): ``p50`` of ``[10, 20]`` is 15, and ``p0``/``p100`` are the min/max.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from kbatch.reporting.workloads import DURATIONS, WorkloadRecord

__all__ = ["GroupSummary", "Summary", "group_key", "percentile", "summarise", "summarise_group"]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0 to 100) of non-empty ``values``."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True, slots=True)
class Summary:
    count: int
    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None
    max: float | None


def summarise(values: Iterable[float | None]) -> Summary:
    known = [v for v in values if v is not None]
    if not known:
        return Summary(0, None, None, None, None, None)
    return Summary(len(known), math.fsum(known) / len(known), percentile(known, 50), percentile(known, 90),
                   percentile(known, 99), max(known))


@dataclass(frozen=True, slots=True)
class GroupSummary:
    group: str
    workloads: int
    finished: int
    succeeded: int
    failed: int
    makespan: float | None  # first creation to last finish (to the end while any is unfinished)
    throughput_per_min: float | None  # finished workloads per minute of makespan
    durations: dict[str, Summary]


def summarise_group(group: str, records: Sequence[WorkloadRecord], end: datetime) -> GroupSummary:
    finished = [r for r in records if r.finished is not None]
    created = sorted(r.created for r in records if r.created is not None)
    ends = [r.finished for r in finished if r.finished is not None]
    last = max(ends, default=None) if len(finished) == len(records) else end
    makespan = (last - created[0]).total_seconds() if created and last is not None else None
    rate = len(finished) * 60 / makespan if makespan else None
    return GroupSummary(group=group, workloads=len(records), finished=len(finished),
                        succeeded=sum(r.outcome == "Succeeded" for r in records),
                        failed=sum(r.outcome == "Failed" for r in records), makespan=makespan,
                        throughput_per_min=rate,
                        durations={d: summarise(getattr(r, d) for r in records) for d in DURATIONS})


def group_key(by: str | None) -> Callable[[WorkloadRecord], str]:
    """``None``: one group ``all``; ``namespace``; ``queue`` (Kueue ClusterQueue); ``kind``;
    ``label=KEY`` (workloads without the label group under ``<none>``)."""
    if by is None:
        return lambda r: "all"
    if by == "namespace":
        return lambda r: r.namespace or "<none>"
    if by in ("queue", "clusterqueue"):
        return lambda r: r.queue or "<none>"
    if by == "kind":
        return lambda r: r.kind
    if by.startswith("label="):
        key = by.partition("=")[2]
        if key:
            return lambda r: r.labels.get(key, "<none>")
    raise ValueError(f'invalid --by "{by}": use namespace, queue, kind or label=KEY')
