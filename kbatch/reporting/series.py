"""The cluster over time: utilisation per resource, pending pods and pending workloads.

Each series is a step function, a list of :class:`Step` ``(t, value)``: the value holds from ``t``
to the next step's ``t`` (the last one holds until the report's end). ``t`` is seconds since the
report's origin.

* **utilisation** of a resource: the requests of the pods running on nodes (each pod from its
  ``started`` to its ``finished``, or the end) divided by the allocatable of the nodes that exist
  then (each node from its creation to its deletion). Requests, not use: the simulation runs no
  real processes, and on a real cluster requests are what the scheduler packs against.
* **pending pods**: pods from creation until they are scheduled (or end unscheduled).
* **pending workloads**: workloads from creation until their first pod is scheduled (or they end).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from kbatch.reporting.pods import PodFacts

__all__ = ["Interval", "Step", "UtilisationSeries", "count_series", "mean_of", "utilisation"]


@dataclass(frozen=True, slots=True)
class Step:
    t: float
    value: float


@dataclass(frozen=True, slots=True)
class Interval:
    start: datetime
    end: datetime | None  # None: still open at the report's end
    amounts: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class UtilisationSeries:
    resource: str
    used: tuple[Step, ...]
    capacity: tuple[Step, ...]
    ratio: tuple[Step, ...]
    mean: float | None  # time-weighted: ∫used / ∫capacity over [origin, origin + window]


def _steps(intervals: Iterable[Interval], key: str, origin: datetime, end: datetime) -> list[Step]:
    deltas: dict[float, float] = {}
    for iv in intervals:
        amount = iv.amounts.get(key, 0.0)
        stop = iv.end if iv.end is not None and iv.end < end else end
        if not amount or stop <= iv.start:
            continue
        a, b = (iv.start - origin).total_seconds(), (stop - origin).total_seconds()
        deltas[a] = deltas.get(a, 0.0) + amount
        if stop < end:  # open at the end: no closing step
            deltas[b] = deltas.get(b, 0.0) - amount
    out, level = [Step(0.0, 0.0)], 0.0
    for t in sorted(deltas):
        level += deltas[t]
        level = 0.0 if abs(level) < 1e-9 else level
        if t <= 0:
            out[0] = Step(0.0, level)
        elif level != out[-1].value:
            out.append(Step(t, level))
    return out


def _ratio(used: Sequence[Step], capacity: Sequence[Step]) -> list[Step]:
    """``used / capacity`` as one step series (0 where there is no capacity), by a merge of the two."""
    times = sorted({s.t for s in used} | {s.t for s in capacity})
    out: list[Step] = []
    i = j = 0
    u = c = 0.0
    for t in times:
        while i < len(used) and used[i].t <= t:
            u = used[i].value
            i += 1
        while j < len(capacity) and capacity[j].t <= t:
            c = capacity[j].value
            j += 1
        value = u / c if c > 0 else 0.0
        if not out or out[-1].value != value:
            out.append(Step(t, value))
    return out


def _integral(steps: Sequence[Step], horizon: float) -> float:
    total = 0.0
    for i, s in enumerate(steps):
        nxt = steps[i + 1].t if i + 1 < len(steps) else horizon
        total += s.value * max(0.0, min(nxt, horizon) - s.t)
    return total


def mean_of(steps: Sequence[Step], horizon: float) -> float | None:
    return _integral(steps, horizon) / horizon if horizon > 0 else None


def utilisation(pods: Iterable[PodFacts], nodes: Iterable[Interval], resources: Sequence[str],
                origin: datetime, end: datetime, window: float | None = None,
                extra: Iterable[Interval] = ()) -> list[UtilisationSeries]:
    """Series from ``origin`` to ``end``; the mean over the first ``window`` seconds (default: all).
    ``extra``: use beyond the pods' requests (a shared claim's devices, held per instant)."""
    running = [Interval(p.started, p.finished, p.requests) for p in pods
               if p.node and p.started is not None] + list(extra)
    nodes = list(nodes)
    horizon = window if window is not None else (end - origin).total_seconds()
    out = []
    for name in resources:
        used, capacity = _steps(running, name, origin, end), _steps(nodes, name, origin, end)
        ratio = _ratio(used, capacity)
        cap_area = _integral(capacity, horizon)
        mean = _integral(used, horizon) / cap_area if cap_area > 0 else None
        out.append(UtilisationSeries(name, tuple(used), tuple(capacity), tuple(ratio), mean))
    return out


def count_series(spans: Iterable[tuple[datetime | None, datetime | None]], origin: datetime,
                 end: datetime) -> list[Step]:
    """How many of the ``(start, end)`` spans are open over time (a span with no start is skipped)."""
    intervals = [Interval(s, e, {"n": 1.0}) for s, e in spans if s is not None]
    return _steps(intervals, "n", origin, end)
