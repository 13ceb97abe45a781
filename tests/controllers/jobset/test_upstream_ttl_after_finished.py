"""Upstream's TTL-after-finished tables, through the JobSet decision.

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/controllers/ttl_after_finished_test.go``
(``TestExecuteTTLAfterFinishedPolicy``, ``TestCheckIfTTLExpired``, ``TestTimeLeft``,
``TestRequeueJobSetAfter``) and ``ttl_after_finished.go``. Upstream's helpers answer (expired,
requeue-after, error); the decision answers a Plan: ``delete_jobset``, ``requeue_after`` (seconds),
``error``. Upstream's helpers run only for a finished JobSet (``Reconcile`` calls
``executeTTLAfterFinishedPolicy`` after ``jobSetFinished``), so the helper errors for an unfinished
JobSet ("unable to find the status of the finished JobSet") are, through the decision, a JobSet that
is simply not finished: no TTL action. ``timeLeft``'s "nil now" case does not translate (the decision
always has a ``now``).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from kbatch.api import jobset_constants as c
from kbatch.controllers.jobset import Cond, JobSetView, Plan, RJob, Status, sync_jobset

from .world import T0

UNFINISHED = None  # no terminal condition
ZERO = "zero"  # a terminal condition without a transition time


def _plan(ttl: int | None, finished: str | None = c.COMPLETED, ago: float | str = 0,
          deleting: bool = False) -> Plan:
    conds: tuple[Cond, ...] = ()
    if finished is not None:
        when = None if ago == ZERO else T0 - timedelta(seconds=float(ago))
        conds = (Cond(finished, "True", "r", "m", when),)
    js = JobSetView(name="test-jobset", namespace="default", replicated_jobs=(RJob("rj", replicas=0),),
                    ttl_seconds_after_finished=ttl, deleting=deleting,
                    status=Status(conditions=conds, terminal_state=finished or ""))
    return sync_jobset(js, [], T0)


def _ttl(plan: Plan) -> tuple[bool, float | None, str]:
    return plan.delete_jobset, plan.requeue_after, plan.error


NOTHING = (False, None, "")
NO_TIME = ("error checking if ttl expired: unable to find the time when the JobSet default/test-jobset "
           "finished")


@pytest.mark.parametrize(("case", "ttl", "finished", "ago", "deleting", "want"), [
    # TestExecuteTTLAfterFinishedPolicy
    ("execute: jobset not finished, TTL not set", None, UNFINISHED, 0, False, NOTHING),
    ("execute: jobset not finished, TTL 5s", 5, UNFINISHED, 0, False, NOTHING),
    ("execute: jobset completed now, TTL is not set", None, c.COMPLETED, 0, False, NOTHING),
    ("execute: jobset completed 10s ago, TTL 5s", 5, c.COMPLETED, 10, False, (True, None, "")),
    ("execute: jobset completed 2s ago, TTL 5s", 5, c.COMPLETED, 2, False, (False, 3.0, "")),
    # TestCheckIfTTLExpired
    ("check: jobset completed, TTL not set", None, c.COMPLETED, 0, False, NOTHING),
    ("check: jobset completed, TTL not expired", 10, c.COMPLETED, 0, False, (False, 10.0, "")),
    ("check: jobset completed, TTL expired", 10, c.COMPLETED, 15, False, (True, None, "")),
    ("check: jobset running, TTL set", 10, UNFINISHED, 0, False, NOTHING),
    ("check: jobset running, TTL not set", None, UNFINISHED, 0, False, NOTHING),
    ("check: jobset completed, deletion in progress", 10, c.COMPLETED, 0, True, NOTHING),
    ("check: invalid jobset completion time", 10, c.COMPLETED, ZERO, False, (False, None, NO_TIME)),
    # TestTimeLeft (remaining 0 is expired: deleted)
    ("timeLeft: jobset not finished", 0, UNFINISHED, 0, False, NOTHING),
    ("timeLeft: jobset completed now, 0s TTL", 0, c.COMPLETED, 0, False, (True, None, "")),
    ("timeLeft: jobset completed now, 10s TTL", 10, c.COMPLETED, 0, False, (False, 10.0, "")),
    ("timeLeft: jobset completed 10s ago, 15s TTL", 15, c.COMPLETED, 10, False, (False, 5.0, "")),
    ("timeLeft: jobset failed now, 0s TTL", 0, c.FAILED, 0, False, (True, None, "")),
    ("timeLeft: jobset failed now, 10s TTL", 10, c.FAILED, 0, False, (False, 10.0, "")),
    ("timeLeft: jobset failed 10s ago, 15s TTL", 15, c.FAILED, 10, False, (False, 5.0, "")),
    # TestRequeueJobSetAfter
    ("requeue: jobset not finished, TTL not set", None, UNFINISHED, 0, False, NOTHING),
    ("requeue: jobset not finished, TTL 5s", 5, UNFINISHED, 0, False, NOTHING),
    ("requeue: jobset completed now, TTL is not set", None, c.COMPLETED, 0, False, NOTHING),
    ("requeue: jobset completed now, TTL 5s", 5, c.COMPLETED, 0, False, (False, 5.0, "")),
    ("requeue: jobset completed 2s ago, TTL 5s", 5, c.COMPLETED, 2, False, (False, 3.0, "")),
])
def test_ttl_after_finished(case: str, ttl: int | None, finished: str | None, ago: float | str,
                            deleting: bool, want: tuple[bool, float | None, str]) -> None:
    plan = _plan(ttl, finished, ago, deleting)
    if deleting:
        assert plan.skip == "Deleting", case
    assert _ttl(plan) == want, case
