"""The CronJob decision (upstream pkg/controller/cronjob/cronjob_controllerv2.go ``syncCronJob``,
``cleanupFinishedJobs``; utils.go ``getJobFromTemplate2``, ``getJobName``).

Given the CronJob, the Jobs it controls and ``now``, in upstream's order (``sync``: first
``cleanupFinishedJobs``, then ``syncCronJob``, one status write for both):

1. delete the oldest finished Jobs (by ``status.startTime``, unstarted last, name as tie-break)
   beyond the history limits, and drop them from ``status.active`` — also while the CronJob is
   suspended or being deleted;
2. reconcile ``status.active`` with the Jobs: finished ones leave it (``SawCompletedJob``; not for
   the ones step 1 already removed), missing ones too (``MissingJob``), unknown running ones are
   reported (``UnexpectedJob``); ``lastSuccessfulTime`` follows the latest completion;
3. stop there if the CronJob is being deleted, its zone is invalid (``UnknownTimeZone``) or it is
   suspended; a schedule naming ``TZ``/``CRON_TZ`` gets the ``UnsupportedSchedule`` warning
   (``formatSchedule``), an unparseable one ``UnparseableSchedule``;
4. find the most recent unmet fire time (``TooManyMissedTimes`` past 100 missed); too late for
   ``startingDeadlineSeconds`` → ``MissSchedule``; already started → nothing; ``Forbid`` with active
   Jobs → ``JobAlreadyActive``; ``Replace`` → delete the active Jobs (background propagation) first;
   then create ``<cronjob>-<minutes since epoch>``;
5. requeue at the next fire time (+100 ms).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

from kbatch.api.batch_constants import CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION
from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.cron import CronError, load_zone, parse_schedule
from kbatch.api.go_quote import go_quote
from kbatch.controllers.cronjob.schedule import MANY_MISSED, most_recent_schedule_time, next_check_delay

__all__ = ["CronEvent", "CronPlan", "build_job", "finished_type", "job_name", "sync_cronjob"]


@dataclass(frozen=True, slots=True)
class CronEvent:
    type: str
    reason: str
    message: str


@dataclass
class CronPlan:
    active: list[dict[str, Any]]  # status.active object references (wire form)
    last_schedule_time: datetime | None
    last_successful_time: datetime | None
    update_status: bool = False
    create: dict[str, Any] | None = None  # the Job to create (wire form)
    delete: list[str] = field(default_factory=list)  # finished Jobs past the history limits
    replace: list[dict[str, Any]] = field(default_factory=list)  # active refs Replace deletes first
    previous_schedule_time: datetime | None = None  # lastScheduleTime before this sync
    events: list[CronEvent] = field(default_factory=list)
    requeue_after: float | None = None


def job_name(cronjob_name: str, scheduled: datetime) -> str:
    return f"{cronjob_name}-{int(scheduled.timestamp()) // 60}"


def finished_type(job: Job) -> str | None:
    for cond in (job.status.conditions if job.status else None) or ():
        if cond.type in ("Complete", "Failed") and cond.status == "True":
            return cond.type
    return None


def _reconcile_active(cj: CronJob, jobs: list[Job], plan: CronPlan) -> None:
    by_uid = {j.metadata.uid: j for j in jobs}
    for job in jobs:
        done = finished_type(job)
        found = any(r.get("uid") == job.metadata.uid for r in plan.active)
        if not found and done is None:
            plan.events.append(CronEvent("Warning", "UnexpectedJob",
                                         f"Saw a job that the controller did not create or forgot: "
                                         f"{job.metadata.name}"))
        elif found and done is not None:
            plan.active = [r for r in plan.active if r.get("uid") != job.metadata.uid]
            plan.events.append(CronEvent("Normal", "SawCompletedJob",
                                         f"Saw completed job: {job.metadata.name}, condition: {done}"))
            plan.update_status = True
        completed = job.status.completion_time if job.status else None
        if done == "Complete" and completed is not None and (
                plan.last_successful_time is None or completed > plan.last_successful_time):
            plan.last_successful_time = completed
            plan.update_status = True
    for ref in list(plan.active):
        if ref.get("uid") not in by_uid:
            message = f"Active job went missing: {ref.get('name')}"
            plan.events.append(CronEvent("Normal", "MissingJob", message))
            plan.active = [r for r in plan.active if r is not ref]
            plan.update_status = True


def _zone(cj: CronJob, plan: CronPlan) -> tuple[bool, tzinfo | None]:
    if cj.spec.time_zone is None:
        return True, None
    try:
        return True, load_zone(cj.spec.time_zone)
    except CronError as err:  # Go: invalid timeZone: "X": unknown time zone X
        plan.events.append(CronEvent("Warning", "UnknownTimeZone",
                                     f"invalid timeZone: {go_quote(cj.spec.time_zone)}: {err}"))
        return False, None


def build_job(cj: CronJob, scheduled: datetime, tz: tzinfo | None) -> dict[str, Any]:
    """``getJobFromTemplate2``: template labels/annotations, the scheduled-timestamp annotation (in
    the CronJob's zone), a controller ownerReference, the template's spec."""
    tpl = cj.spec.job_template
    meta = tpl.metadata
    labels = dict(meta.labels or {}) if meta else {}
    annotations = dict(meta.annotations or {}) if meta else {}
    stamp = scheduled.astimezone(tz or UTC).isoformat()
    annotations[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION] = stamp.replace("+00:00", "Z")
    metadata: dict[str, Any] = {
        "name": job_name(cj.metadata.name or "", scheduled), "namespace": cj.metadata.namespace,
        "annotations": annotations,
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": cj.metadata.name,
                             "uid": cj.metadata.uid, "controller": True, "blockOwnerDeletion": True}],
    }
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata,
            "spec": copy.deepcopy(tpl.spec.to_dict())}


UNSUPPORTED_SCHEDULE = ("CRON_TZ or TZ used in schedule {!s} is not officially supported, see "
                        "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ "
                        "for more details")


def _schedule(cj: CronJob, now: datetime, plan: CronPlan) -> None:
    ok, tz = _zone(cj, plan)
    if not ok or cj.spec.suspend:
        return
    if "TZ" in cj.spec.schedule:  # formatSchedule: allowed on old objects, warned about every sync
        plan.events.append(CronEvent("Warning", "UnsupportedSchedule",
                                     UNSUPPORTED_SCHEDULE.format(go_quote(cj.spec.schedule))))
    try:
        sched = parse_schedule(cj.spec.schedule)
    except CronError as err:
        plan.events.append(CronEvent("Warning", "UnparseableSchedule",
                                     f"unparseable schedule: {go_quote(cj.spec.schedule)} : {err}"))
        return
    created = cj.metadata.creation_timestamp or now
    recent = most_recent_schedule_time(sched, tz, created, plan.last_schedule_time, now,
                                       cj.spec.starting_deadline_seconds)
    plan.requeue_after = next_check_delay(sched, tz, created, plan.last_schedule_time, now)
    if recent.error is not None:  # InvalidSchedule: not requeued until the spec changes
        plan.requeue_after = None
        plan.events.append(CronEvent("Warning", "InvalidSchedule",
                                     f"invalid schedule: {cj.spec.schedule} : {recent.error}"))
        return
    scheduled = recent.most_recent
    if scheduled is None:
        return
    if recent.missed > MANY_MISSED:
        plan.events.append(CronEvent("Warning", "TooManyMissedTimes",
                                     "too many missed start times. Set or decrease "
                                     ".spec.startingDeadlineSeconds or check clock skew"))
    deadline = cj.spec.starting_deadline_seconds
    if deadline is not None and (now - scheduled).total_seconds() > deadline:
        plan.events.append(CronEvent("Warning", "MissSchedule", "Missed scheduled time to start a job: "
                                     + scheduled.astimezone(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")))
        return
    name = job_name(cj.metadata.name or "", scheduled)
    if any(r.get("name") == name for r in plan.active) or plan.last_schedule_time == scheduled:
        return
    policy = cj.spec.concurrency_policy or "Allow"
    if policy == "Forbid" and plan.active:
        plan.events.append(CronEvent("Normal", "JobAlreadyActive", "Not starting job because prior "
                                     "execution is running and concurrency policy is Forbid"))
        return
    if policy == "Replace":
        # Each active Job is deleted (background propagation) and leaves status.active; the
        # controller keeps the ones whose delete fails and then creates nothing (deleteJob).
        plan.replace = list(plan.active)
        plan.active = []
        plan.update_status = True
    plan.create = build_job(cj, scheduled, tz)
    plan.last_schedule_time = scheduled
    plan.update_status = True
    plan.requeue_after = next_check_delay(sched, tz, created, scheduled, now)


def _start_key(job: Job) -> tuple[int, float, str]:
    """``byJobStartTime``: started Jobs oldest first, then unstarted ones; the name breaks ties."""
    start = job.status.start_time if job.status else None
    return (0, start.timestamp(), job.metadata.name or "") if start else (1, 0.0, job.metadata.name or "")


def _history(cj: CronJob, jobs: list[Job], plan: CronPlan) -> None:
    """``cleanupFinishedJobs`` / ``removeOldestJobs``: successful Jobs first, then failed ones."""
    limits = {"Complete": cj.spec.successful_jobs_history_limit, "Failed": cj.spec.failed_jobs_history_limit}
    for kind, limit in limits.items():
        if limit is None:
            continue
        done = sorted((j for j in jobs if finished_type(j) == kind), key=_start_key)
        for job in done[: max(0, len(done) - limit)]:
            plan.delete.append(job.metadata.name or "")
            if any(r.get("uid") == job.metadata.uid for r in plan.active):
                plan.active = [r for r in plan.active if r.get("uid") != job.metadata.uid]
                plan.update_status = True


def sync_cronjob(cj: CronJob, jobs: list[Job], now: datetime) -> CronPlan:
    """Decide one sync of ``cj``; ``jobs`` are the Jobs it controls."""
    status = cj.status
    last = status.last_schedule_time if status else None
    plan = CronPlan(active=[r.to_dict() for r in (status.active if status else None) or ()],
                    last_schedule_time=last, previous_schedule_time=last,
                    last_successful_time=status.last_successful_time if status else None)
    jobs = sorted(jobs, key=lambda j: j.metadata.name or "")
    _history(cj, jobs, plan)
    _reconcile_active(cj, jobs, plan)
    if cj.metadata.deletion_timestamp is None:
        _schedule(cj, now, plan)
    return plan

