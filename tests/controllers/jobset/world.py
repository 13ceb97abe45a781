"""A tiny in-memory world for the pure JobSet decision: applies a Plan to ChildJob values.

It plays the API server and the Job controller as far as the decision sees them: a created Job gets
the restart labels the controller would write; a deleted Job stays (``deleting``) until
:meth:`World.gc` removes it (foreground deletion); tests decide Job outcomes (ready, succeeded,
failed). No store, no runtime: only ``sync_jobset``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from kbatch.controllers.jobset import ChildJob, Event, Gates, JobSetView, Plan, RJob, sync_jobset

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def make_jobset(*rjobs: RJob, **fields: object) -> JobSetView:
    return JobSetView(name="js", namespace="ns", uid="js-uid",
                      replicated_jobs=rjobs or (RJob("workers", replicas=2, parallelism=1, completions=1),),
                      **fields)  # type: ignore[arg-type]


class World:
    def __init__(self, js: JobSetView, gates: Gates = Gates()) -> None:
        self.js = js
        self.gates = gates
        self.jobs: dict[str, ChildJob] = {}
        self.now = T0
        self.events: list[Event] = []
        self.plans: list[Plan] = []
        self.created: list[str] = []
        self.deleted: list[str] = []
        self.jobset_deleted = False

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def sync(self) -> Plan:
        plan = sync_jobset(self.js, sorted(self.jobs.values(), key=lambda j: j.name), self.now, self.gates)
        self.plans.append(plan)
        if plan.skip:
            return plan
        for name in (*plan.delete_active, *plan.delete_previous):
            self.jobs[name] = replace(self.jobs[name], deleting=True)
            self.deleted.append(name)
        self.jobset_deleted = self.jobset_deleted or plan.delete_jobset
        for group in plan.creates:
            for create in group:
                self._create(create.rjob, create.index, create.name, create.job_restart)
        for name in plan.suspend:
            self.jobs[name] = replace(self.jobs[name], suspended=True)
        for resume in plan.resume:
            self.jobs[resume.name] = replace(self.jobs[resume.name], suspended=False, started=False)
        if plan.error:
            return plan
        if plan.status is not None:
            self.js = replace(self.js, status=plan.status)
            self.events += plan.events
        return plan

    def run(self, rounds: int = 3) -> None:
        for _ in range(rounds):
            self.sync()

    def _create(self, rjob: int, index: int, name: str, job_restart: int | None) -> None:
        spec = self.js.replicated_jobs[rjob]
        self.jobs[name] = ChildJob(
            name=name, rjob=spec.name, job_index=str(index), restart_attempt=str(self.js.status.restarts),
            job_restart_attempt=str(job_restart) if job_restart is not None else None,
            parallelism=spec.parallelism if spec.parallelism is not None else 1, completions=spec.completions,
            suspended=self.js.suspend)
        self.created.append(name)

    # --- what the Job controller and garbage collector would do -----------------------------------
    def gc(self) -> None:
        """Foreground deletion finishes: every deleting Job is gone."""
        self.jobs = {n: j for n, j in self.jobs.items() if not j.deleting}

    def ready(self, *names: str) -> None:
        for name in names:
            job = self.jobs[name]
            self.jobs[name] = replace(job, ready=job.pods_count, active=job.pods_count, started=True)

    def succeed(self, *names: str) -> None:
        for name in names:
            job = self.jobs[name]
            self.jobs[name] = replace(job, finished="Complete", succeeded=job.pods_count, ready=0, active=0)

    def fail(self, name: str, reason: str = "BackoffLimitExceeded", message: str = "failed") -> None:
        self.jobs[name] = replace(self.jobs[name], finished="Failed", failure_reason=reason,
                                  failure_message=message, failure_time=self.now, ready=0, active=0)

    def reasons(self) -> list[str]:
        return [e.reason for e in self.events]
