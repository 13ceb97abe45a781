"""Arrival processes: when each workload of a generator is created, in seconds from the start.

* fixed interval ``T``: ``start + k·T`` — seed 002's "inter-job request interval";
* Poisson of mean ``m``: gaps drawn from the exponential distribution of rate ``1/m`` by a
  ``random.Random(seed)`` of the generator's own (the same seed, the same times, on any machine and
  in any process: Python's Mersenne Twister and ``expovariate`` are specified);
* a trace: the given times, sorted (a file of one time a line, ``#`` comments, numbers in seconds
  or Go durations — e.g. arrival times exported from a real cluster's Jobs).

All three are pure: :func:`arrival_times` gives the same list for the same spec.
"""

from __future__ import annotations

import random
from pathlib import Path

from kbatch.experiment.errors import ExperimentError
from kbatch.experiment.spec import Arrival, Trace
from kbatch.runtime.duration import parse_duration

__all__ = ["arrival_times", "fixed_interval", "poisson", "read_trace"]


def fixed_interval(count: int, interval: float, start: float = 0.0) -> list[float]:
    return [start + k * interval for k in range(count)]


def poisson(count: int, mean: float, seed: int, start: float = 0.0) -> list[float]:
    """A Poisson process's first ``count`` arrivals: the first after one gap (as a process started
    at ``start``), each further one a fresh exponential gap later."""
    rng = random.Random(seed)
    out, t = [], start
    for _ in range(count):
        t += rng.expovariate(1.0 / mean)
        out.append(t)
    return out


def read_trace(trace: Trace, base: Path | None, path: str) -> list[float]:
    """The trace's times, sorted; ``path`` names the field for errors."""
    if trace.times is not None:
        return sorted(trace.times)
    assert trace.file is not None
    file = Path(trace.file)
    if not file.is_absolute() and base is not None:
        file = base / file
    try:
        lines = file.read_text().splitlines()
    except OSError as err:
        raise ExperimentError(f"{path}.file", f"cannot read {file}: {err.strerror or err}") from None
    out = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            out.append(parse_duration(text))
        except ValueError as err:
            raise ExperimentError(f"{path}.file", f"{file}:{number}: {err}") from None
    if not out:
        raise ExperimentError(f"{path}.file", f"{file} holds no arrival times")
    return sorted(out)


def arrival_times(arrival: Arrival, count: int | None, base: Path | None = None,
                  path: str = "arrival") -> list[float]:
    """The arrival times of ``count`` workloads (a trace without ``count``: all its times)."""
    if arrival.trace is not None:
        times = [arrival.start + t for t in read_trace(arrival.trace, base, f"{path}.trace")]
        if count is not None and count > len(times):
            raise ExperimentError(f"{path}.trace",
                                  f"holds {len(times)} arrival times, fewer than count {count}")
        return times if count is None else times[:count]
    assert count is not None
    if arrival.poisson is not None:
        return poisson(count, arrival.poisson.mean, arrival.poisson.seed, arrival.start)
    assert arrival.interval is not None
    return fixed_interval(count, arrival.interval, arrival.start)
