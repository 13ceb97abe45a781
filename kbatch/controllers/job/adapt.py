"""Between API models and the core's views: ``Job``/``Pod`` → :mod:`views`, status view → ``JobStatus``.

The only module of the Job controller that knows the pydantic models. Conversions keep upstream's
wire shape: ``status.ready``/``terminating`` always written, ``uncountedTerminatedPods`` present
(``{}`` when empty), ``failedIndexes`` only with backoffLimitPerIndex.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER
from kbatch.api.batch_v1 import Job, JobCondition, JobStatus, UncountedTerminatedPods
from kbatch.api.core_v1 import Pod
from kbatch.controllers.job import views as v

__all__ = ["job_info", "pod_info", "status_info", "status_model"]


Memo = dict[tuple[Any, ...], tuple[Any, ...]]
"""Shares equal condition and container views between the pods of one sync (pods started together
carry equal ones): less to build and to hold per pod."""


def _containers(statuses: list[Any] | None, memo: Memo) -> tuple[v.ContainerInfo, ...]:
    if not statuses:
        return ()
    key = []
    for cs in statuses:
        term = cs.state.terminated if cs.state is not None else None
        key.append((cs.name, cs.restart_count or 0, term.exit_code if term is not None else None,
                    term.finished_at if term is not None else None))
    k = ("c", *key)
    hit = memo.get(k)
    if hit is None:
        hit = memo[k] = tuple(v.ContainerInfo(*c) for c in key)
    return hit


def _conditions(conditions: list[Any] | None, memo: Memo) -> tuple[v.PodConditionInfo, ...]:
    if not conditions:
        return ()
    key = tuple((c.type, c.status, c.last_transition_time) for c in conditions)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = tuple(v.PodConditionInfo(*c) for c in key)
    return hit


def pod_info(pod: Pod, memo: Memo | None = None) -> v.PodInfo:
    """The pod's view; ``memo`` (one per sync) shares equal condition/container tuples."""
    meta, status = pod.metadata, pod.status
    memo = {} if memo is None else memo
    conds: tuple[v.PodConditionInfo, ...]
    containers: tuple[v.ContainerInfo, ...]
    inits: tuple[v.ContainerInfo, ...]
    if status is None:
        phase, conds, containers, inits = "Pending", (), (), ()
    else:
        phase = status.phase or "Pending"
        conds = _conditions(status.conditions, memo)
        containers = _containers(status.container_statuses, memo)
        inits = _containers(status.init_container_statuses, memo)
    return v.PodInfo(
        name=meta.name or "", uid=meta.uid or "", namespace=meta.namespace or "", phase=phase,
        labels=meta.labels or {}, annotations=meta.annotations or {},
        has_finalizer=JOB_TRACKING_FINALIZER in (meta.finalizers or ()),
        creation_timestamp=meta.creation_timestamp, deletion_timestamp=meta.deletion_timestamp,
        deletion_grace_period_seconds=meta.deletion_grace_period_seconds,
        node_name=pod.spec.node_name, conditions=conds, containers=containers, init_containers=inits,
        resource_version=meta.resource_version,
    )


def status_info(status: JobStatus | None) -> v.JobStatusInfo:
    if status is None:
        return v.JobStatusInfo()
    unc = status.uncounted_terminated_pods
    conds = tuple(v.JobCondition(c.type, c.status, c.reason or "", c.message or "", c.last_probe_time,
                                 c.last_transition_time) for c in status.conditions or ())
    return v.JobStatusInfo(
        conditions=conds, start_time=status.start_time, completion_time=status.completion_time,
        active=status.active or 0, ready=status.ready, succeeded=status.succeeded or 0,
        failed=status.failed or 0, terminating=status.terminating,
        completed_indexes=status.completed_indexes or "", failed_indexes=status.failed_indexes,
        uncounted_succeeded=tuple(unc.succeeded or ()) if unc else (),
        uncounted_failed=tuple(unc.failed or ()) if unc else (),
        has_uncounted=unc is not None,
    )


def status_model(info: v.JobStatusInfo, indexed: bool) -> JobStatus:
    conds = [JobCondition(type=c.type, status=c.status, reason=c.reason or None,
                          message=c.message or None, last_probe_time=c.last_probe_time,
                          last_transition_time=c.last_transition_time) for c in info.conditions]
    return JobStatus(
        conditions=conds or None, start_time=info.start_time, completion_time=info.completion_time,
        active=info.active or None, ready=info.ready, succeeded=info.succeeded or None,
        failed=info.failed or None, terminating=info.terminating,
        completed_indexes=(info.completed_indexes or None) if indexed else None,
        failed_indexes=info.failed_indexes,
        uncounted_terminated_pods=UncountedTerminatedPods(
            succeeded=list(info.uncounted_succeeded) or None, failed=list(info.uncounted_failed) or None),
    )


def _rules(job: Job) -> tuple[v.PodFailurePolicyRule, ...] | None:
    pfp = job.spec.pod_failure_policy
    if pfp is None:
        return None
    out = []
    for rule in pfp.rules:
        codes = None
        if rule.on_exit_codes is not None:
            # (operator, action and a pattern type are required by api/strategies/batch/validation.py)
            codes = v.ExitCodesRule(rule.on_exit_codes.operator or "", tuple(rule.on_exit_codes.values or ()),
                                    rule.on_exit_codes.container_name)
        patterns = tuple((p.type or "", p.status or "True") for p in rule.on_pod_conditions or ())
        out.append(v.PodFailurePolicyRule(rule.action or "", codes, patterns))
    return tuple(out)


def job_info(job: Job, template: dict[str, Any] | None = None) -> v.JobInfo:
    """The core's view of ``job``. ``template`` may pass a cached ``spec.template`` dict."""
    spec = job.spec
    sp = spec.success_policy
    indexed = spec.completion_mode == "Indexed"
    return v.JobInfo(
        name=job.metadata.name or "", namespace=job.metadata.namespace or "", uid=job.metadata.uid or "",
        parallelism=spec.parallelism if spec.parallelism is not None else 1,
        completions=spec.completions, indexed=indexed,
        completion_mode=spec.completion_mode or "NonIndexed",
        backoff_limit=spec.backoff_limit if spec.backoff_limit is not None else 6,
        backoff_limit_per_index=spec.backoff_limit_per_index, max_failed_indexes=spec.max_failed_indexes,
        active_deadline_seconds=spec.active_deadline_seconds, suspend=bool(spec.suspend),
        pod_replacement_policy=spec.pod_replacement_policy,
        restart_policy=spec.template.spec.restart_policy or "Never",
        pod_failure_policy=_rules(job),
        success_policy=tuple(v.SuccessPolicyRule(r.succeeded_indexes, r.succeeded_count)
                             for r in sp.rules) if sp is not None else None,
        managed_by=spec.managed_by, deletion_timestamp=job.metadata.deletion_timestamp,
        template=template if template is not None else spec.template.to_dict(),
        status=status_info(job.status),
    )
