"""The closed-form FIFO queue the experiment examples are checked against.

``c`` identical servers, jobs served in arrival order (no overtaking), each holding one server for
``service`` seconds from its start; a job starts at ``max(its arrival, the earliest time a server is
free, the previous job's start)``. A job's completion, as a Job reports it, comes ``completion_lag``
after its service ends: the Job controller writes ``Complete`` one batching period after the pod's
end (``syncJobBatchPeriod`` = 1 s, kubernetes ``pkg/controller/job/job_controller.go``), so a
``sleep 72`` pod on a free node gives a completion time of 73 s.

What a "server" is depends on the study: a whole 8-GPU node for one-pod 8-GPU Jobs (seed 002); a pair
of nodes for two-pod gangs; a ClusterQueue's quota share for Kueue, whose quota is held until the
Workload finishes, i.e. until the Job completes (``service`` = occupancy + 1 s, no further lag).

For a fixed interval ``T`` the recursion has a closed form (D/D/c, jobs cycling through the servers):
``start_k = max(k·T, (k mod c)·T + ⌊k/c⌋·S)``: no queue while ``c·T ≥ S``, else job ``k`` waits
``⌊k/c⌋·(S − c·T)`` (for ``k mod c`` = 0). Seed 002: ``c`` = 4 nodes, ``S`` = 72 s → queueing starts
below ``T`` = 18 s; two-pod gangs (``c`` = 2) → below 36 s.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FifoJob", "fifo_jobs", "fixed_interval_start"]


@dataclass(frozen=True, slots=True)
class FifoJob:
    arrival: float
    start: float
    end: float  # the server is free again
    completion: float  # end + completion lag

    @property
    def wait(self) -> float:
        """Queueing delay: start − arrival."""
        return self.start - self.arrival

    @property
    def completion_time(self) -> float:
        return self.completion - self.arrival


def fifo_jobs(arrivals: Sequence[float], servers: int, service: float,
              completion_lag: float = 0.0) -> list[FifoJob]:
    """Each job of the FIFO queue, for non-decreasing ``arrivals``."""
    if servers < 1 or service < 0 or completion_lag < 0:
        raise ValueError("need servers >= 1, service >= 0 and completion_lag >= 0")
    if any(b < a for a, b in zip(arrivals, arrivals[1:], strict=False)):
        raise ValueError("arrivals must not decrease (FIFO serves them in that order)")
    free = [float("-inf")] * servers
    out, last = [], float("-inf")
    for arrival in arrivals:
        start = max(arrival, heapq.heappop(free), last)
        heapq.heappush(free, start + service)
        last = start
        out.append(FifoJob(arrival, start, start + service, start + service + completion_lag))
    return out


def fixed_interval_start(k: int, interval: float, servers: int, service: float) -> float:
    """When job ``k`` (from 0) of arrivals every ``interval`` starts: the closed form."""
    return max(k * interval, (k % servers) * interval + (k // servers) * service)
