"""What one JobSet reconcile decides (:class:`Plan`), applied by the controller in upstream's order.

``jobset_controller.go`` ``reconcile`` acts step by step and stops at the first error, and the
status (with the events queued for it) is written once at the end, only when nothing failed
(``updateJobSetStatus``). The controller applies a plan the same way: the finished JobSet's active
Jobs deleted, its TTL; previous attempts' Jobs deleted; the headless Service; the claims; elastic
scaling; the Job creations, one replicated job after another (a group that fails ends the
reconcile); suspend / resume; then the status and its events.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.controllers.jobset.views import Status

__all__ = ["Event", "JobCreate", "JobResume", "JobScale", "Plan"]


@dataclass(frozen=True, slots=True)
class Event:
    type: str  # Normal | Warning
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class JobCreate:
    """Create the child Job of replicated job ``rjob`` (its position in the spec) with index ``index``;
    ``job_restart`` is its ``job-restart-attempt`` label (RestartJob gate), None without the gate."""

    rjob: int
    index: int
    name: str
    job_restart: int | None = None


@dataclass(frozen=True, slots=True)
class JobResume:
    """Unsuspend a child Job: reset its ``startTime`` first when set, merge the replicated job's pod
    template scheduling fields into it (``resumeJob``)."""

    name: str
    rjob: str
    reset_start_time: bool


@dataclass(frozen=True, slots=True)
class JobScale:
    """ElasticJobSet: patch an active Job's ``parallelism`` and ``completions``."""

    name: str
    parallelism: int | None
    completions: int | None


@dataclass(frozen=True, slots=True)
class Plan:
    skip: str = ""  # "Deleting" | "ManagedExternally": nothing to do
    error: str = ""  # the reconcile fails here (after the effects above it): retried with back-off
    status: Status | None = None  # the status to write; None when unchanged
    events: tuple[Event, ...] = ()  # emitted once the status write succeeded
    delete_active: tuple[str, ...] = ()  # the finished JobSet's remaining Jobs (foreground)
    delete_jobset: bool = False  # ttlSecondsAfterFinished has passed (foreground)
    delete_previous: tuple[str, ...] = ()  # Jobs of an earlier restart attempt (foreground)
    ensure_service: bool = False
    ensure_claims: bool = False
    scale: tuple[JobScale, ...] = ()
    creates: tuple[tuple[JobCreate, ...], ...] = ()  # per replicated job, in spec order
    suspend: tuple[str, ...] = ()
    resume: tuple[JobResume, ...] = ()
    requeue_after: float | None = None
