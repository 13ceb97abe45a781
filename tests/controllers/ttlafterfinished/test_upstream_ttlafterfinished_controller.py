"""Upstream's ttl-after-finished table, through kbatch's decision functions and control plane.

Source: kubernetes/kubernetes ``pkg/controller/ttlafterfinished/ttlafterfinished_controller_test.go``
(``TestTimeLeft``) against ``ttlafterfinished_controller.go`` (``needsCleanup``,
``getFinishAndExpireTime``, ``timeLeft``, ``jobFinishTime``, ``processTTL``: expired when the time left
is <= 0). Upstream's "should not be cleaned up" error is kbatch's ``needs_cleanup`` false /
``expires_at`` None; its time left is ``expires_at - now``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.errors import NotFound
from kbatch.runtime.builtin.ttl_after_finished import expires_at, needs_cleanup
from kbatch.runtime.controlplane import ControlPlane
from kbatch.testing import make_job

NOW = datetime(2025, 1, 1, 0, 10, tzinfo=UTC)


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _job(completed: datetime | None, failed: datetime | None, ttl: int | None) -> Job:
    """Upstream ``newJob``: a Complete and/or Failed condition with those transition times."""
    conditions = [{"type": t, "status": "True", "lastTransitionTime": _stamp(at)}
                  for t, at in (("Complete", completed), ("Failed", failed)) if at is not None]
    builder = make_job("foobar")
    if ttl is not None:
        builder = builder.ttl_after_finished(ttl)
    return builder.status(conditions=conditions).obj() if conditions else builder.obj()  # type: ignore[no-any-return]


TIME_LEFT: list[tuple[str, datetime | None, datetime | None, int | None, float | None]] = [
    ("Error case: Job unfinished", None, None, 100, None),
    ("Error case: Job completed now, no TTL", NOW, None, None, None),
    ("Job completed now, 0s TTL", NOW, None, 0, 0.0),
    ("Job completed now, 10s TTL", NOW, None, 10, 10.0),
    ("Job completed 10s ago, 15s TTL", NOW - timedelta(seconds=10), None, 15, 5.0),
    ("Error case: Job failed now, no TTL", None, NOW, None, None),
    ("Job failed now, 0s TTL", None, NOW, 0, 0.0),
    ("Job failed now, 10s TTL", None, NOW, 10, 10.0),
    ("Job failed 10s ago, 15s TTL", None, NOW - timedelta(seconds=10), 15, 5.0),
]


@pytest.mark.parametrize(("completed", "failed", "ttl", "left"), [c[1:] for c in TIME_LEFT],
                         ids=[c[0] for c in TIME_LEFT])
def test_time_left(completed: datetime | None, failed: datetime | None, ttl: int | None,
                   left: float | None) -> None:
    """TestTimeLeft: the expiry is the finish time plus the TTL; no expiry without both."""
    job = _job(completed, failed, ttl)
    expiry = expires_at(job)
    if left is None:
        assert not needs_cleanup(job) and expiry is None
        return
    assert needs_cleanup(job)
    assert expiry is not None and (expiry - NOW).total_seconds() == left
    assert expiry == NOW + timedelta(seconds=left)


def _plane_with_finished_job(ttl: int, finished_ago: int = 0) -> ControlPlane:
    """A Job that completed at t=0, written ``finished_ago`` seconds later (virtual time)."""
    cp = ControlPlane(controllers="ttl-after-finished")
    cp.advance(finished_ago)
    cp.apply(make_job("foobar").manual_selector().ttl_after_finished(ttl).obj())
    at = "2025-01-01T00:00:00Z"
    conditions = [{"type": t, "status": "True", "lastTransitionTime": at, "lastProbeTime": at, "reason": "X"}
                  for t in ("SuccessCriteriaMet", "Complete")]
    status: dict[str, Any] = {"startTime": at, "completionTime": at, "succeeded": 1, "conditions": conditions}
    cp.client.patch_status(Job, "foobar", {"status": status}, "default")
    return cp


@pytest.mark.parametrize(("ttl", "finished_ago", "left"), [(0, 0, 0.0), (10, 0, 10.0), (15, 10, 5.0)],
                         ids=["Job completed now, 0s TTL", "Job completed now, 10s TTL",
                              "Job completed 10s ago, 15s TTL"])
def test_processjob_deletes_at_expiry_with_foreground_propagation(ttl: int, finished_ago: int,
                                                                  left: float) -> None:
    """TestTimeLeft's finished cases through ``processJob``: once the time left is <= 0 the Job is
    deleted with ``Foreground`` propagation (no garbage collector here, so the
    ``foregroundDeletion`` finalizer keeps it, terminating); a second earlier it is untouched."""
    cp = _plane_with_finished_job(ttl, finished_ago)
    if left > 0:
        cp.advance(left - 1)
        assert cp.client.get(Job, "foobar", "default").metadata.deletion_timestamp is None
        cp.advance(1)
    else:
        cp.run_until_idle()
    job = cp.client.get(Job, "foobar", "default")
    assert job.metadata.deletion_timestamp is not None
    assert job.metadata.finalizers == ["foregroundDeletion"]


def test_processjob_ignores_a_job_already_being_deleted() -> None:
    """``processTTL``: a Job with a ``deletionTimestamp`` is not cleaned up again."""
    cp = _plane_with_finished_job(0)
    cp.run_until_idle()
    before = cp.client.get(Job, "foobar", "default")
    cp.advance(60)
    after = cp.client.get(Job, "foobar", "default")
    assert after.metadata.resource_version == before.metadata.resource_version
    cp.client.patch(Job, "foobar", {"metadata": {"finalizers": None}}, "default")
    with pytest.raises(NotFound):
        cp.client.get(Job, "foobar", "default")
