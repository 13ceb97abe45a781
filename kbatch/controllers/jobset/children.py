"""A JobSet's child Jobs, bucketed, and the ``replicatedJobsStatus`` they give
(``jobset_controller.go`` ``getChildJobs``, ``calculateReplicatedJobStatuses``).

Buckets: a Job whose ``restart-attempt`` label is below ``status.restarts`` belongs to an earlier
attempt (``previous``: to delete); with the RestartJob gate, so does one whose
``job-restart-attempt`` is below its entry of ``replicatedJobsStatus[].jobRestarts``. The others
are the current run's: ``active``, ``succeeded`` (Complete) or ``failed`` (Failed). A label that does
not parse (or, with RestartJob, a missing replicated-job name or job index, an index out of range)
makes the reconcile fail, as upstream (:class:`ChildError`).

Statuses: per replicated job of the spec, the current run's Jobs counted ``ready`` (an active Job
whose succeeded + ready pods reach ``min(parallelism, completions)``), ``active`` (an active Job with
an active pod), ``suspended``, ``succeeded``, ``failed``; the per-Job restart counters carried over
with the RestartJob gate (dropped without it). Upstream builds the list from a Go map and sorts it
by name, descending, while comparing it with the stored one: that is the order it is written in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kbatch.api import jobset_constants as c
from kbatch.api.go_int import NumError, go_parse_int
from kbatch.controllers.jobset.views import ChildJob, Gates, JobSetView, RJobStatus, Status

__all__ = ["ChildError", "Children", "bucket", "job_restarts", "replicated_job_statuses", "statuses_equal"]


class ChildError(Exception):
    """A child Job the controller cannot place (a bad label): the reconcile fails and is retried."""


@dataclass(slots=True)
class Children:
    active: list[ChildJob] = field(default_factory=list)
    succeeded: list[ChildJob] = field(default_factory=list)
    failed: list[ChildJob] = field(default_factory=list)
    previous: list[ChildJob] = field(default_factory=list)

    def names(self) -> set[str]:
        return {j.name for group in (self.active, self.succeeded, self.failed, self.previous) for j in group}


def _atoi(text: str | None, label: str) -> int:
    """Go's ``strconv.Atoi`` of a label value (a missing label is ``""``, which does not parse);
    upstream getChildJobs (pkg/controllers/jobset_controller.go) wraps its error."""
    try:
        return go_parse_int(text or "", func="Atoi")
    except NumError as err:
        raise ChildError(f"invalid value for label {label}, must be integer: {err}") from None


def job_restarts(js: JobSetView, rjob: str, status: Status | None = None, *,
                 towards_max: bool = False) -> list[int]:
    """``getJobRestarts`` / ``getJobRestartsCountTowardsMax``: the stored list, or zeros (one per
    replica) when it is missing or empty."""
    st = (status or js.status).rjob(rjob)
    stored = (st.job_restarts_count_towards_max if towards_max else st.job_restarts) if st else None
    return list(stored) if stored else [0] * js.replicas_of(rjob)


def _previous_by_job_restart(js: JobSetView, job: ChildJob) -> bool:
    """With RestartJob: whether the Job's own restart attempt is behind its target."""
    if job.rjob is None:
        raise ChildError(f"missing label {c.REPLICATED_JOB_NAME_KEY}")
    if job.job_index is None:
        raise ChildError(f"missing label {c.JOB_INDEX_KEY}")
    index = _atoi(job.job_index, c.JOB_INDEX_KEY)
    if job.job_restart_attempt is None:
        return False  # upstream only logs it (backward compatibility)
    attempt = _atoi(job.job_restart_attempt, c.JOB_RESTART_ATTEMPT_KEY)
    targets = job_restarts(js, job.rjob)
    if index >= len(targets):
        raise ChildError(f"job index {index} is out of bounds for replicated job {job.rjob}")
    return attempt < targets[index]


def bucket(js: JobSetView, jobs: list[ChildJob], gates: Gates) -> Children:
    out = Children()
    for job in jobs:
        if _atoi(job.restart_attempt, c.RESTARTS_KEY) < js.status.restarts:
            out.previous.append(job)
            continue
        if gates.restart_job and _previous_by_job_restart(js, job):
            out.previous.append(job)
            continue
        if job.finished == "Failed":
            out.failed.append(job)
        elif job.finished == "Complete":
            out.succeeded.append(job)
        else:
            out.active.append(job)
    return out


def replicated_job_statuses(js: JobSetView, children: Children, gates: Gates) -> tuple[RJobStatus, ...]:
    counts = {r.name: {"ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}
              for r in js.replicated_jobs}
    for job in children.active:
        entry = counts.get(job.rjob or "")
        if entry is None:
            continue  # upstream logs a Job without (or with an unknown) replicated job name
        if job.succeeded + job.ready >= job.pods_count:
            entry["ready"] += 1
        if job.active > 0:
            entry["active"] += 1
        if job.suspended:
            entry["suspended"] += 1
    for bucket_name, jobs in (("succeeded", children.succeeded), ("failed", children.failed)):
        for job in jobs:
            entry = counts.get(job.rjob or "")
            if entry is not None:
                entry[bucket_name] += 1
    out = []
    for name in sorted(counts, reverse=True):
        kept = js.status.rjob(name) if gates.restart_job else None
        out.append(RJobStatus(name=name, **counts[name],
                              job_restarts=kept.job_restarts if kept else None,
                              job_restarts_count_towards_max=kept.job_restarts_count_towards_max if kept
                              else None))
    return tuple(out)


def statuses_equal(old: tuple[RJobStatus, ...], new: tuple[RJobStatus, ...]) -> bool:
    """``replicatedJobStatusesEqual``: both sorted by name, compared semantically."""
    a = sorted(old, key=lambda s: s.name, reverse=True)
    b = sorted(new, key=lambda s: s.name, reverse=True)
    return len(a) == len(b) and all(x.same(y) for x, y in zip(a, b, strict=True))
