"""API objects → the decision's views (:mod:`.views`), and a decided status → the model.

Missing webhook defaults (a JobSet created with ``mjobset.kb.io`` disabled) are read as the webhook
would have set them: no ``network`` means DNS hostnames on, no ``successPolicy`` means ``All``.
Upstream's controller dereferences those pointers and panics (the reconcile is retried forever);
kbatch runs such a JobSet instead (docs/jobset.md).
"""

from __future__ import annotations

from kbatch.api import jobset_constants as c
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.jobset_v1alpha2 import JobSet, JobSetStatus, ReplicatedJob, ReplicatedJobStatus
from kbatch.api.meta import Condition
from kbatch.controllers.jobset.views import (
    ChildJob,
    Cond,
    FailureRule,
    JobSetView,
    PodView,
    RJob,
    RJobStatus,
    Status,
)

__all__ = ["child_view", "jobset_view", "pod_view", "status_model", "status_view"]


def status_view(status: JobSetStatus | None) -> Status:
    if status is None:
        return Status()
    return Status(
        conditions=tuple(Cond(x.type, x.status, x.reason or "", x.message or "", x.last_transition_time,
                              x.observed_generation) for x in status.conditions or ()),
        restarts=status.restarts, restarts_count_towards_max=status.restarts_count_towards_max or 0,
        terminal_state=status.terminal_state or "",
        replicated_jobs_status=tuple(
            RJobStatus(s.name, s.ready, s.succeeded, s.failed, s.active, s.suspended,
                       tuple(s.job_restarts) if s.job_restarts is not None else None,
                       tuple(s.job_restarts_count_towards_max) if s.job_restarts_count_towards_max is not None
                       else None)
            for s in status.replicated_jobs_status or ()),
        previous_in_place_restart_attempt=status.previous_in_place_restart_attempt,
        current_in_place_restart_attempt=status.current_in_place_restart_attempt)


def status_model(status: Status) -> JobSetStatus:
    """The wire status (Go's ``omitempty`` fields left out when empty)."""
    return JobSetStatus(
        conditions=[Condition(type=x.type, status=x.status, reason=x.reason, message=x.message,
                              last_transition_time=x.last_transition_time,
                              observed_generation=x.observed_generation) for x in status.conditions] or None,
        restarts=status.restarts, restarts_count_towards_max=status.restarts_count_towards_max or None,
        terminal_state=status.terminal_state or None,
        replicated_jobs_status=[
            ReplicatedJobStatus(name=s.name, ready=s.ready, succeeded=s.succeeded, failed=s.failed,
                                active=s.active, suspended=s.suspended,
                                job_restarts=list(s.job_restarts) if s.job_restarts else None,
                                job_restarts_count_towards_max=list(s.job_restarts_count_towards_max)
                                if s.job_restarts_count_towards_max else None)
            for s in status.replicated_jobs_status] or None,
        previous_in_place_restart_attempt=status.previous_in_place_restart_attempt,
        current_in_place_restart_attempt=status.current_in_place_restart_attempt)


def _rjob(r: ReplicatedJob) -> RJob:
    spec = r.template.spec if r.template is not None else None
    return RJob(name=r.name or "",
                group_name=r.group_name if r.group_name is not None else c.DEFAULT_GROUP_NAME,
                replicas=r.replicas if r.replicas is not None else 1,
                depends_on=tuple((d.name or "", d.status or "") for d in r.depends_on or ()),
                parallelism=spec.parallelism if spec else None,
                completions=spec.completions if spec else None)


def jobset_view(js: JobSet) -> JobSetView:
    spec = js.spec
    fp, sp, network = spec.failure_policy, spec.success_policy, spec.network
    return JobSetView(
        name=js.name, namespace=js.namespace or "", uid=js.metadata.uid or "",
        replicated_jobs=tuple(_rjob(r) for r in spec.replicated_jobs or ()),
        suspend=bool(spec.suspend), deleting=js.metadata.deletion_timestamp is not None,
        managed_by=spec.managed_by,
        success_operator=sp.operator if sp is not None else None,
        success_targets=tuple(sp.target_replicated_jobs or ()) if sp is not None else (),
        failure_policy=fp is not None, max_restarts=(fp.max_restarts or 0) if fp else 0,
        restart_strategy=(fp.restart_strategy or c.RECREATE) if fp else c.RECREATE,
        rules=tuple(FailureRule(r.name or "", r.action or "", tuple(r.on_job_failure_reasons or ()),
                                tuple(r.on_job_failure_message_patterns or ()),
                                tuple(r.target_replicated_jobs or ()))
                    for r in (fp.rules or () if fp else ())),
        in_order=spec.startup_policy is not None and spec.startup_policy.startup_policy_order == c.IN_ORDER,
        dns_hostnames=network is None or bool(network.enable_dns_hostnames),
        has_volume_claims=bool(spec.volume_claim_policies),
        ttl_seconds_after_finished=spec.ttl_seconds_after_finished,
        status=status_view(js.status))


def child_view(job: Job) -> ChildJob:
    labels = job.metadata.labels or {}
    status = job.status
    finished, reason, message, when = "", "", "", None
    for cond in (status.conditions if status else None) or ():
        if cond.type in ("Complete", "Failed") and cond.status == "True":
            finished = cond.type
            if cond.type == "Failed":
                reason, message, when = cond.reason or "", cond.message or "", cond.last_transition_time
            break
    return ChildJob(
        name=job.name, rjob=labels.get(c.REPLICATED_JOB_NAME_KEY), job_index=labels.get(c.JOB_INDEX_KEY),
        restart_attempt=labels.get(c.RESTARTS_KEY), job_restart_attempt=labels.get(c.JOB_RESTART_ATTEMPT_KEY),
        finished=finished, failure_reason=reason, failure_message=message, failure_time=when,
        ready=(status.ready or 0) if status else 0, succeeded=(status.succeeded or 0) if status else 0,
        active=(status.active or 0) if status else 0,
        parallelism=job.spec.parallelism, completions=job.spec.completions, suspended=bool(job.spec.suspend),
        deleting=job.metadata.deletion_timestamp is not None,
        started=status is not None and status.start_time is not None)


def pod_view(pod: Pod) -> PodView:
    status = pod.status
    counts = [s.restart_count or 0 for s in (*(status.init_container_statuses or ()),
                                             *(status.container_statuses or ()))] if status else []
    attempt = (pod.metadata.annotations or {}).get(c.IN_PLACE_RESTART_ATTEMPT_KEY)
    return PodView(name=pod.name, phase=(status.phase or "") if status else "",
                   in_place_restart_attempt=attempt, max_restart_count=max(counts, default=0))
