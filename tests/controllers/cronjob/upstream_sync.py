"""A harness for upstream's ``TestControllerV2SyncCronJob`` cases on a kbatch control plane.

Each case builds the state upstream's table hands ``syncCronJob`` — the CronJob (created at its
creation time), its status (``lastScheduleTime``, ``active``) and its earlier Job — with no
controller running, moves the virtual clock to the case's ``now``, then starts the CronJob
controller, whose first sync is the one under test, and reports what it did: the Jobs it created
and deleted, its Events, the CronJob's status and when it asked to be synced again.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.core_v1 import Event, Namespace
from kbatch.controllers.cronjob.sync import build_job
from kbatch.runtime.controlplane import ControlPlane


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


# upstream's fixed instants (cronjob_controllerv2_test.go)
JUST_BEFORE_THE_PRIOR_HOUR = at("2016-05-19T08:59:00Z")
JUST_AFTER_THE_PRIOR_HOUR = at("2016-05-19T09:01:00Z")
JUST_BEFORE_THE_HOUR = at("2016-05-19T09:59:00Z")
TOP_OF_THE_HOUR = at("2016-05-19T10:00:00Z")
JUST_AFTER_THE_HOUR = at("2016-05-19T10:01:00Z")
JUST_BEFORE_THE_NEXT_HOUR = at("2016-05-19T10:59:00Z")
WEEK_AFTER_THE_HOUR = at("2016-05-26T10:00:00Z")
NEXT_SCHEDULE_DELTA = 0.1  # nextScheduleDelta: 100 ms
NS = "snazzycats"
COMPONENT = "cronjob-controller"

SHORT_DEAD, MEDIUM_DEAD, LONG_DEAD = 10, 2 * 60 * 60, 1_000_000
ON_THE_HOUR, EVERY_HOUR = "0 * * * ?", "@every 1h"

TEMPLATE = {
    "metadata": {"labels": {"a": "b"}, "annotations": {"x": "y"}},
    "spec": {
        "parallelism": 1,
        "completions": 1,
        "template": {
            "metadata": {"labels": {"foo": "bar"}},
            "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "foo/bar"}]},
        },
    },
}


@dataclass
class Case:
    policy: str = "Allow"
    schedule: str = ON_THE_HOUR
    time_zone: str | None = None
    deadline: int | None = None
    suspend: bool = False
    ran_previously: bool = False
    still_active: bool = False
    cronjob_created: datetime | None = None
    job_created: datetime = JUST_AFTER_THE_PRIOR_HOUR
    last_schedule: datetime | None = None
    now: datetime = JUST_BEFORE_THE_HOUR
    job_in_status: bool = True
    existing: datetime | None = None  # a Job of this CronJob named for that time exists already
    namespace_terminating: bool = False


@dataclass
class Outcome:
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    events: list[tuple[str, str, str]] = field(default_factory=list)
    active: int = 0
    last_schedule_time: datetime | None = None
    last_successful_time: datetime | None = None
    requeue: float | None = None

    @property
    def warnings(self) -> int:
        return sum(1 for t, _, _ in self.events if t == "Warning")


def _store_spec(cp: ControlPlane, cj: CronJob, spec: dict[str, Any]) -> CronJob:
    """Write a spec no 1.37 API server accepts (a bad schedule or zone) as an older one left it."""
    wire = copy.deepcopy(cj.to_dict())
    wire["spec"].update(spec)
    del wire["metadata"]["resourceVersion"]
    server = cp.server
    key = server.kind(CronJob).keys.key(NS, "mycronjob")
    server.store.put(key, CronJob.model_validate(wire).to_json())
    return cp.client.get(CronJob, "mycronjob", NS)


def _cronjob(cp: ControlPlane, case: Case) -> CronJob:
    spec: dict[str, Any] = {
        "schedule": "0 * * * *",
        "concurrencyPolicy": case.policy,
        "suspend": case.suspend,
        "jobTemplate": TEMPLATE,
    }
    if case.deadline is not None:
        spec["startingDeadlineSeconds"] = case.deadline
    cp.apply(
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "mycronjob"}, "spec": spec},
        namespace=NS,
    )
    cj = cp.client.get(CronJob, "mycronjob", NS)
    return _store_spec(cp, cj, {"schedule": case.schedule, "timeZone": case.time_zone})


def _earlier_job(cp: ControlPlane, cj: CronJob, case: Case) -> Job:
    body = build_job(cj, case.job_created, UTC)
    job = cp.client.create(Job.model_validate(body))
    if not case.still_active:
        start = case.job_created.strftime("%Y-%m-%dT%H:%M:%SZ")
        done = (case.job_created + timedelta(seconds=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
        wire = copy.deepcopy(job.to_dict())
        wire["status"] = {
            "startTime": start,
            "completionTime": done,
            "succeeded": 1,
            "conditions": [
                {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": done},
                {"type": "Complete", "status": "True", "lastTransitionTime": done},
            ],
        }
        job = cp.client.update_status(Job.model_validate(wire))
    return job


def _set_status(cp: ControlPlane, cj: CronJob, case: Case, job: Job | None) -> None:
    status: dict[str, Any] = {
        "lastScheduleTime": (case.last_schedule or JUST_AFTER_THE_PRIOR_HOUR).strftime("%Y-%m-%dT%H:%M:%SZ")
    }
    if case.still_active and case.job_in_status and job is not None:
        status["active"] = [
            {
                "kind": "Job",
                "namespace": NS,
                "name": job.metadata.name,
                "uid": job.metadata.uid,
                "apiVersion": "batch/v1",
            }
        ]
    wire = copy.deepcopy(cj.to_dict())
    wire["status"] = status
    cp.client.update_status(CronJob.model_validate(wire))


def run(case: Case) -> Outcome:
    default_created = JUST_BEFORE_THE_PRIOR_HOUR if case.ran_previously else JUST_BEFORE_THE_HOUR
    start = case.cronjob_created or default_created
    cp = ControlPlane(seed=0, controllers="", start=start, event_ttl=None)
    cp.client.create(Namespace.model_validate({"metadata": {"name": NS}}))
    cj = _cronjob(cp, case)
    before: set[str] = set()
    if case.ran_previously:
        job = _earlier_job(cp, cj, case)
        before.add(job.metadata.name or "")
        _set_status(cp, cj, case, job)
    if case.existing is not None:
        before.add(
            cp.client.create(Job.model_validate(build_job(cj, case.existing, UTC))).metadata.name or ""
        )
    if case.namespace_terminating:
        cp.client.delete(Namespace, NS)  # no namespace controller: it stays Terminating
    cp.advance((case.now - cp.now()).total_seconds())
    cp.add_controller("cronjob")
    cp.run_until_idle()
    names = {j.metadata.name or "" for j in cp.client.list(Job, NS).items}
    status = cp.client.get(CronJob, "mycronjob", NS).status
    deadline = cp.timers.next_deadline()
    return Outcome(
        created=sorted(names - before),
        deleted=sorted(before - names),
        events=[
            (e.type or "", e.reason or "", e.message or "")
            for e in cp.client.list(Event, NS).items
            if e.source is not None and e.source.component == COMPONENT
        ],
        active=len(status.active or []) if status else 0,
        last_schedule_time=status.last_schedule_time if status else None,
        last_successful_time=status.last_successful_time if status else None,
        requeue=None if deadline is None else round(deadline - cp.clock.now(), 6),
    )
