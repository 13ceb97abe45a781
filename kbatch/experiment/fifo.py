"""The closed-form FIFO queue the experiment examples are checked against.

``c`` identical servers, jobs served in arrival order (no overtaking), each holding one server for
``hold`` seconds from its start; a job starts at ``max(its arrival, the earliest time a server is
free, the previous job's start)`` and its completion, as the workload reports it, comes
``completion`` seconds after its start (default: ``hold``). The two differ in kbatch as upstream:

* a one-pod Job holds its node for the pod's 72 s but reports ``Complete`` one batching period later
  (``syncJobBatchPeriod`` = 1 s, kubernetes ``pkg/controller/job/job_controller.go``): ``hold`` 72,
  ``completion`` 73 — a ``sleep 72`` Job on a free node completes in 73 s;
* under Kueue the quota is held until the Workload finishes with its Job (73 s), and the workloads
  waiting for it are requeued one batch period after that (``NotifyRetryInadmissible``, 1 s; Kueue
  ``pkg/queue/manager.go``, kbatch ``controllers/kueue/manager.py``): ``hold`` 74, ``completion`` 73.

What a "server" is depends on the study: a whole 8-GPU node for one-pod 8-GPU Jobs (seed 002); a pair
of nodes for two-pod gangs; a ClusterQueue's quota share for Kueue, whose quota is held until the
Workload finishes (as above).

For a fixed interval ``T`` the recursion has a closed form (D/D/c, jobs cycling through the servers):
``start_k = max(k·T, (k mod c)·T + ⌊k/c⌋·H)``: no queue while ``c·T ≥ H``, else job ``k`` waits
``⌊k/c⌋·(H - c·T)`` (``H`` the hold). Seed 002: ``c`` = 4 nodes, ``H`` = 72 s → queueing starts
below ``T`` = 18 s; two-pod gangs (``c`` = 2) → below 36 s.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FifoJob", "fifo_jobs", "fixed_interval_start"]


@dataclass(frozen=True, slots=True)
class FifoJob:
    arrival: float
    start: float
    end: float  # its server is free again
    completion: float  # when the workload reports it finished

    @property
    def wait(self) -> float:
        """Queueing delay: start - arrival."""
        return self.start - self.arrival

    @property
    def completion_time(self) -> float:
        return self.completion - self.arrival


def fifo_jobs(arrivals: Sequence[float], servers: int, hold: float,
              completion: float | None = None) -> list[FifoJob]:
    """Each job of the FIFO queue, for non-decreasing ``arrivals``."""
    if servers < 1 or hold < 0 or (completion is not None and completion < 0):
        raise ValueError("need servers >= 1, hold >= 0 and completion >= 0")
    if any(b < a for a, b in itertools.pairwise(arrivals)):
        raise ValueError("arrivals must not decrease (FIFO serves them in that order)")
    after = hold if completion is None else completion
    free = [float("-inf")] * servers
    out, last = [], float("-inf")
    for arrival in arrivals:
        start = max(arrival, heapq.heappop(free), last)
        heapq.heappush(free, start + hold)
        last = start
        out.append(FifoJob(arrival, start, start + hold, start + after))
    return out


def fixed_interval_start(k: int, interval: float, servers: int, hold: float) -> float:
    """When job ``k`` (from 0) of arrivals every ``interval`` starts: the closed form."""
    return max(k * interval, (k % servers) * interval + (k // servers) * hold)
