"""How long a check may wait for an outcome, derived from the semantics it checks.

On a virtual-clock target a wait jumps from deadline to deadline, so its bound only has to be above
the semantic's own time; on a real clock (a cluster, ``kbatch serve --clock real``) the same bound
is real seconds, so it is built from what upstream says the outcome takes:

* the Job controller's pod-recreation back-off after the n-th failure in a row is
  ``10 s x 2^(n-1)``, capped (``DefaultJobPodFailureBackOff`` / ``MaxJobPodFailureBackOff`` in
  kubernetes/kubernetes ``pkg/controller/job/job_controller.go``; 10 min in the code, "six
  minutes" on the docs page — the larger is used here);
* every round of pods needs time to be scheduled, pull ``busybox:1.36`` and start:
  :func:`pod_start` seconds (``KBATCH_CONFORMANCE_POD_START``, default 60), plus what its command
  sleeps;
* controllers react within a sync; :data:`SLACK` covers a few of them.
"""

from __future__ import annotations

import os

__all__ = ["BACKOFF_BASE", "BACKOFF_CAP", "POD_START_ENV", "SLACK", "backoff", "budget", "pod_start"]

BACKOFF_BASE = 10.0
BACKOFF_CAP = 600.0
POD_START_ENV = "KBATCH_CONFORMANCE_POD_START"
SLACK = 15.0


def pod_start() -> float:
    """Seconds allowed for one round of pods to start (``KBATCH_CONFORMANCE_POD_START``, default 60)."""
    return float(os.environ.get(POD_START_ENV) or 60.0)


def backoff(failures: int) -> float:
    """The delay before the Job controller recreates a pod after ``failures`` failures in a row."""
    if failures <= 0:
        return 0.0
    return min(BACKOFF_CAP, BACKOFF_BASE * 2.0 ** (failures - 1))


def budget(*, rounds: int = 1, failures: int = 0, runs: float = 0.0, extra: float = 0.0) -> float:
    """The bound on a wait that sees ``rounds`` rounds of pods start, the back-off after each of
    ``failures`` failures in a row, ``runs`` seconds of commands running and ``extra`` seconds the
    semantic itself waits (a deadline, a TTL)."""
    backoffs = sum(backoff(n) for n in range(1, failures + 1))
    return rounds * pod_start() + backoffs + runs + extra + SLACK
