"""The JobSet decision: a JobSet, its child Jobs (and, for in-place restart, its pods) and ``now`` →
a :class:`~kbatch.controllers.jobset.actions.Plan` (kubernetes-sigs/jobset v0.12.0
``pkg/controllers/jobset_controller.go`` ``Reconcile``/``reconcile``).

Steps, in upstream's order:

1. Skip a JobSet being deleted, and one managed by another controller (``spec.managedBy``).
2. Bucket the child Jobs (:mod:`.children`) and recompute ``replicatedJobsStatus``.
3. Finished (Completed or Failed): delete the Jobs still active; with ``ttlSecondsAfterFinished``,
   delete the JobSet once the terminal condition is that old (else come back then). Stop.
4. Delete the Jobs of earlier restart attempts (foreground).
5. Not suspended and every Job ready: ``RestartingJobSet`` False (``JobsReady``).
6. A failed Job: the failure policy (:mod:`.policies`). Stop.
7. A succeeded Job: the success policy; stop when it completed the JobSet.
8. The headless Service (DNS hostnames), the volume claims, elastic scaling of active Jobs.
9. Create the missing Jobs, replicated job by replicated job (each after its ``dependsOn`` is
   reached; with ``InOrder`` startup one replicated job at a time, waiting for it to start, with the
   ``StartupPolicy*`` conditions; with ``BlockingRecreate`` only once no earlier attempt's Job is left).
10. Suspended: suspend active Jobs, ``Suspended`` True. Else resume suspended Jobs (the same
    dependency and startup gating), ``Suspended`` False once all are.
11. In-place restart (:mod:`.in_place`).

The status is written at the end, with the events its changes queued, when something changed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from kbatch.api import jobset_constants as c
from kbatch.controllers.jobset.actions import JobCreate, JobResume, JobScale, Plan
from kbatch.controllers.jobset.children import (
    ChildError,
    Children,
    bucket,
    job_restarts,
    replicated_job_statuses,
    statuses_equal,
)
from kbatch.controllers.jobset.conditions import Draft, set_restarting_false
from kbatch.controllers.jobset.in_place import reconcile_in_place_restart
from kbatch.controllers.jobset.names import job_name
from kbatch.controllers.jobset.policies import (
    all_jobs_ready,
    all_replicas_started,
    dependency_reached,
    execute_failure_policy,
    execute_success_policy,
)
from kbatch.controllers.jobset.views import ChildJob, Gates, JobSetView, PodView, RJobStatus

__all__ = ["sync_jobset"]


def _plan(draft: Draft, **fields: object) -> Plan:
    if not draft.should_update:
        return Plan(**fields)  # type: ignore[arg-type]
    return Plan(status=draft.status, events=tuple(draft.events), **fields)  # type: ignore[arg-type]


def _finished(js: JobSetView, children: Children, draft: Draft, now: datetime) -> Plan:
    """Step 3 (``executeTTLAfterFinishedPolicy``)."""
    deletes = tuple(j.name for j in children.active if not j.deleting)
    if js.ttl_seconds_after_finished is None:
        return _plan(draft, delete_active=deletes)
    cond = next((x for x in js.status.conditions if x.type in (c.COMPLETED, c.FAILED) and x.status == "True"),
                None)
    if cond is None or cond.last_transition_time is None:
        return _plan(draft, delete_active=deletes,
                     error=f"error checking if ttl expired: unable to find the time when the JobSet "
                           f"{js.namespace}/{js.name} finished")
    expiry = cond.last_transition_time + timedelta(seconds=js.ttl_seconds_after_finished)
    left = (expiry - now).total_seconds()
    if left <= 0:
        return _plan(draft, delete_active=deletes, delete_jobset=True)
    return _plan(draft, delete_active=deletes, requeue_after=left)


def _scale(js: JobSetView, active: list[ChildJob]) -> tuple[JobScale, ...]:
    """``syncJobScaling`` (ElasticJobSet): active Jobs whose size differs from their template's, when
    the template's parallelism equals its completions."""
    desired = {r.name: (r.parallelism, r.completions) for r in js.replicated_jobs}
    out = []
    for job in active:
        want = desired.get(job.rjob or "")
        if want is None or want[0] != want[1]:
            continue
        if (job.parallelism, job.completions) != want:
            out.append(JobScale(job.name, want[0], want[1]))
    return tuple(out)


def _missing(js: JobSetView, i: int, existing: set[str], gates: Gates) -> tuple[JobCreate, ...]:
    """``constructJobsFromTemplate``: the Jobs of replicated job ``i`` that do not exist."""
    rjob = js.replicated_jobs[i]
    restarts = job_restarts(js, rjob.name) if gates.restart_job else None
    names = (job_name(js.name, rjob.name, idx) for idx in range(rjob.replicas))
    return tuple(JobCreate(i, idx, name, restarts[idx] if restarts is not None else None)
                 for idx, name in enumerate(names) if name not in existing)


def _creates(js: JobSetView, children: Children, statuses: tuple[RJobStatus, ...], draft: Draft,
             gates: Gates) -> tuple[tuple[JobCreate, ...], ...]:
    """Step 9 (``reconcileReplicatedJobs``)."""
    blocking = js.restart_strategy == c.BLOCKING_RECREATE and bool(children.previous)
    existing = children.names()
    in_order = not js.suspend and js.in_order
    seen: dict[str, int] = {}
    groups: list[tuple[JobCreate, ...]] = []
    for i, rjob in enumerate(js.replicated_jobs):
        missing = () if blocking else _missing(js, i, existing, gates)
        seen[rjob.name] = rjob.replicas
        if not dependency_reached(rjob, seen, statuses):
            continue
        status = next((s for s in statuses if s.name == rjob.name), None)
        if in_order and all_replicas_started(rjob.replicas, status):
            continue
        groups.append(missing)
        if in_order:
            draft.set_condition(c.STARTUP_IN_PROGRESS, "True", c.IN_ORDER_IN_PROGRESS_REASON,
                                c.IN_ORDER_IN_PROGRESS_MESSAGE)
            return tuple(groups)
    if in_order:
        draft.set_condition(c.STARTUP_COMPLETED, "True", c.IN_ORDER_COMPLETED_REASON,
                            c.IN_ORDER_COMPLETED_MESSAGE)
    return tuple(groups)


def _resumes(js: JobSetView, active: list[ChildJob], statuses: tuple[RJobStatus, ...],
             draft: Draft) -> tuple[JobResume, ...]:
    """Step 10, not suspended (``resumeJobsIfNecessary``)."""
    by_rjob: dict[str, list[ChildJob]] = {}
    for job in active:
        by_rjob.setdefault(job.rjob or "", []).append(job)
    seen: dict[str, int] = {}
    out: list[JobResume] = []
    for rjob in js.replicated_jobs:
        seen[rjob.name] = rjob.replicas
        if not dependency_reached(rjob, seen, statuses):
            continue
        status = next((s for s in statuses if s.name == rjob.name), None)
        if js.in_order and all_replicas_started(rjob.replicas, status):
            continue
        out += [JobResume(j.name, rjob.name, j.started) for j in by_rjob.get(rjob.name, ()) if j.suspended]
        if js.in_order:
            draft.set_condition(c.STARTUP_IN_PROGRESS, "True", c.IN_ORDER_IN_PROGRESS_REASON,
                                c.IN_ORDER_IN_PROGRESS_MESSAGE)
            return tuple(out)
    draft.set_condition(c.SUSPENDED, "False", c.RESUMED_REASON, c.RESUMED_MESSAGE)
    return tuple(out)


def _suspends(active: list[ChildJob], draft: Draft) -> tuple[str, ...]:
    """Step 10, suspended (``suspendJobs``)."""
    draft.set_condition(c.SUSPENDED, "True", c.SUSPENDED_REASON, c.SUSPENDED_MESSAGE)
    set_restarting_false(draft, c.RESTARTING_JOBSET_SUSPENDED, c.SUSPENDED_MESSAGE)
    return tuple(j.name for j in active if not j.suspended)


def _run(js: JobSetView, children: Children, statuses: tuple[RJobStatus, ...], draft: Draft,
         gates: Gates, pods: tuple[PodView, ...] | None) -> Plan:
    """Steps 4 to 11."""
    previous = tuple(j.name for j in children.previous if not j.deleting)
    if not js.suspend and all_jobs_ready(js, statuses):
        set_restarting_false(draft, c.RESTARTING_JOBS_READY, c.RESTARTING_JOBS_READY_MESSAGE)
    if children.failed:
        try:
            execute_failure_policy(js, children.failed, draft, gates)
        except ChildError as err:  # the deletes above happened; nothing else does, no status write
            return Plan(delete_previous=previous, error=str(err))
        return _plan(draft, delete_previous=previous)
    if children.succeeded and execute_success_policy(js, children.succeeded, draft):
        return _plan(draft, delete_previous=previous)
    scale = _scale(js, children.active) if gates.elastic else ()
    creates = _creates(js, children, statuses, draft, gates)
    suspend: tuple[str, ...]
    resume: tuple[JobResume, ...]
    if js.suspend:
        suspend, resume = _suspends(children.active, draft), ()
    else:
        suspend, resume = (), _resumes(js, children.active, statuses, draft)
    effects = {"delete_previous": previous, "ensure_service": js.dns_hostnames,
               "ensure_claims": js.has_volume_claims, "scale": scale, "creates": creates,
               "suspend": suspend, "resume": resume}
    if js.restart_strategy == c.IN_PLACE_RESTART and gates.in_place_restart:
        try:
            reconcile_in_place_restart(js, pods or (), draft)
        except ChildError as err:
            return Plan(error=str(err), **effects)  # type: ignore[arg-type]
    return _plan(draft, **effects)


def sync_jobset(js: JobSetView, jobs: list[ChildJob], now: datetime, gates: Gates = Gates(),
                pods: tuple[PodView, ...] | None = None) -> Plan:
    """Decide one reconcile of ``js``; ``jobs`` are the Jobs it controls (by controller uid)."""
    if js.deleting:
        return Plan(skip="Deleting")
    if c.external_manager(js.managed_by) is not None:
        return Plan(skip="ManagedExternally")
    draft = Draft(js.status, now)
    try:
        children = bucket(js, jobs, gates)
        statuses = replicated_job_statuses(js, children, gates)
        if not statuses_equal(js.status.replicated_jobs_status, statuses):
            draft.update(replicated_jobs_status=statuses)
        if js.finished:
            return _finished(js, children, draft, now)
        view = replace(js, status=draft.status)
        return _run(view, children, statuses, draft, gates, pods)
    except ChildError as err:
        return Plan(error=str(err))
