"""Success, failure, startup and dependency policies of a JobSet
(``success_policy.go``, ``failure_policy.go``, ``startup_policy.go``, ``depends_on.go``).

Failure policy, run when the current attempt has a failed Job:

* no ``failurePolicy``: ``Failed`` (``FailedJobs``) naming the first failed Job (the oldest ``Failed``
  condition);
* otherwise the rules in order: a rule matches a failed Job when its reason is in
  ``onJobFailureReasons``, its message matches one of ``onJobFailureMessagePatterns`` (a Go regular
  expression *search*, ``regexp.MatchString``; a pattern Go refuses is skipped) and its replicated job is in
  ``targetReplicatedJobs`` (each list empty: anything); the first rule matching any Job wins, with the
  earliest-failed Job it matches. No rule: ``RestartJobSet`` for the first failed Job.
* ``FailJobSet``: ``Failed`` (``FailJobSetFailurePolicyAction``). ``RestartJobSet``: ``Failed``
  (``ReachedMaxRestarts``) when ``restartsCountTowardsMax`` (plus, with the RestartJob gate, the sum of
  every ``jobRestartsCountTowardsMax``) has reached ``maxRestarts``, else ``restarts`` and
  ``restartsCountTowardsMax`` + 1, ``RestartingJobSet=True`` (``FailurePolicy_<rule>`` or
  ``DefaultFailurePolicy``) and a Warning event. ``...AndIgnoreMaxRestarts``: ``restarts`` + 1 only.
  ``RestartJob`` (gate): the same limit, then that Job's ``jobRestarts`` and
  ``jobRestartsCountTowardsMax`` + 1; ``RestartJobAndIgnoreMaxRestarts``: its ``jobRestarts`` only.

Messages end with `` (first failed job: <name>)``. Failure times compare at the second (what the
API stores); a tie keeps the Job met first, in name order (upstream: the cache's list order).
"""

from __future__ import annotations

from dataclasses import replace

from kbatch.api import jobset_constants as c
from kbatch.api.goregexp import GoRegexpError, compile_go
from kbatch.controllers.jobset.children import ChildError, job_restarts
from kbatch.controllers.jobset.conditions import Draft, set_completed, set_failed
from kbatch.controllers.jobset.views import ChildJob, FailureRule, Gates, JobSetView, RJob, RJobStatus

__all__ = [
    "all_jobs_ready",
    "all_replicas_started",
    "dependency_reached",
    "execute_failure_policy",
    "execute_success_policy",
    "first_failed",
    "total_restarts_towards_max",
]


# --- success ----------------------------------------------------------------------------------------
def _targeted(targets: tuple[str, ...], rjob: str | None) -> bool:
    return not targets or rjob in targets


def execute_success_policy(js: JobSetView, succeeded: list[ChildJob], draft: Draft) -> bool:
    """``executeSuccessPolicy``: Completed when enough targeted Jobs succeeded (Any: one; All: every
    replica of the targeted replicated jobs). Returns whether the JobSet completed."""
    operator = js.success_operator or c.OPERATOR_ALL
    matching = sum(1 for j in succeeded if _targeted(js.success_targets, j.rjob))
    if operator == c.OPERATOR_ANY:
        expected = 1
    elif operator == c.OPERATOR_ALL:
        expected = sum(r.replicas for r in js.replicated_jobs if _targeted(js.success_targets, r.name))
    else:
        expected = 0
    if matching >= expected:
        set_completed(draft)
        return True
    return False


# --- startup and dependencies -------------------------------------------------------------------------
def all_replicas_started(replicas: int, status: RJobStatus | None) -> bool:
    st = status or RJobStatus("")
    return replicas == st.failed + st.ready + st.succeeded


def dependency_reached(rjob: RJob, replicas_seen: dict[str, int], statuses: tuple[RJobStatus, ...]) -> bool:
    """``dependencyReachedStatus``: every ``dependsOn`` entry reached (Ready: ready + succeeded +
    failed Jobs equal its replicas; Complete: succeeded Jobs do). ``replicas_seen`` holds the replicated
    jobs before this one (a later one counts as 0 replicas, as upstream's map lookup)."""
    for name, wanted in rjob.depends_on:
        st = next((s for s in statuses if s.name == name), None)
        if st is None:
            return False
        replicas = replicas_seen.get(name, 0)
        if wanted == c.DEPENDENCY_COMPLETE and replicas != st.succeeded:
            return False
        if wanted == c.DEPENDENCY_READY and replicas != st.failed + st.ready + st.succeeded:
            return False
    return True


def all_jobs_ready(js: JobSetView, statuses: tuple[RJobStatus, ...]) -> bool:
    return sum(r.replicas for r in js.replicated_jobs) == sum(s.ready + s.succeeded for s in statuses)


# --- failure --------------------------------------------------------------------------------------------
def first_failed(jobs: list[ChildJob]) -> ChildJob | None:
    """``findFirstFailedJob``: the Job whose Failed condition is the oldest (the first on a tie)."""
    best: ChildJob | None = None
    for job in jobs:
        if job.failure_time is not None and (best is None or best.failure_time is None
                                             or job.failure_time < best.failure_time):
            best = job
    return best


def _pattern_matches(patterns: tuple[str, ...], message: str) -> bool:
    for pattern in patterns:
        try:
            if compile_go(pattern).match_string(message):
                return True
        except GoRegexpError:
            continue  # upstream logs an invalid pattern and goes on
    return False


def _applies(rule: FailureRule, job: ChildJob) -> bool:
    if rule.on_job_failure_reasons and job.failure_reason not in rule.on_job_failure_reasons:
        return False
    if rule.on_job_failure_message_patterns and not _pattern_matches(rule.on_job_failure_message_patterns,
                                                                     job.failure_message):
        return False
    if not job.rjob:
        return False
    return _targeted(rule.target_replicated_jobs, job.rjob)


def _first_rule(rules: tuple[FailureRule, ...],
                failed: list[ChildJob]) -> tuple[FailureRule, ChildJob] | None:
    for rule in rules:
        matched = first_failed([j for j in failed if _applies(rule, j)])
        if matched is not None:
            return rule, matched
    return None


def total_restarts_towards_max(js: JobSetView, draft: Draft) -> int:
    st = draft.status
    return st.restarts_count_towards_max + sum(sum(s.job_restarts_count_towards_max or ())
                                               for s in st.replicated_jobs_status)


def _with_job(message: str, job: ChildJob) -> str:
    return f"{message} (first failed job: {job.name})"


def _reached_max(js: JobSetView, draft: Draft, job: ChildJob) -> None:
    set_failed(draft, c.REACHED_MAX_RESTARTS_REASON, _with_job(c.REACHED_MAX_RESTARTS_MESSAGE, job))


def _restart_all(js: JobSetView, draft: Draft, rule: FailureRule | None, job: ChildJob,
                 towards_max: bool) -> None:
    """``failurePolicyRecreateAll``: bump the restart counters; the next reconcile recreates."""
    reason, base = ((c.RESTART_JOBSET_ACTION_REASON, c.RESTART_JOBSET_ACTION_MESSAGE) if towards_max else
                    (c.RESTART_JOBSET_IGNORE_MAX_ACTION_REASON, c.RESTART_JOBSET_IGNORE_MAX_ACTION_MESSAGE))
    message = _with_job(base, job)
    st = draft.status
    draft.update(restarts=st.restarts + 1,
                 restarts_count_towards_max=st.restarts_count_towards_max + (1 if towards_max else 0))
    cond_reason = (c.RESTARTING_FAILURE_POLICY_PREFIX + rule.name if rule is not None
                   else c.RESTARTING_DEFAULT_FAILURE_POLICY)
    draft.set_condition(c.RESTARTING, "True", cond_reason, message, "Warning")
    draft.event("Warning", reason, message)


def _restart_one(js: JobSetView, draft: Draft, job: ChildJob, towards_max: bool) -> None:
    """``failurePolicyRecreateJob``: bump the failed Job's own counters; the next reconcile sees it
    behind its target and recreates it alone."""
    if job.rjob is None:
        raise ChildError(f"failed job {job.name} missing {c.REPLICATED_JOB_NAME_KEY} label")
    if job.job_index is None:
        raise ChildError(f"failed job {job.name} missing {c.JOB_INDEX_KEY} label")
    if not job.job_index.isdigit():
        raise ChildError(f"failed job {job.name} has invalid {c.JOB_INDEX_KEY} label: {job.job_index}")
    index = int(job.job_index)
    restarts = job_restarts(js, job.rjob, draft.status)
    if index >= len(restarts):
        raise ChildError(f"failed job {job.name} has index {index} out of bounds for replicated job "
                         f"{job.rjob} (replicas: {len(restarts)})")
    restarts[index] += 1
    counted = job_restarts(js, job.rjob, draft.status, towards_max=True)
    if towards_max:
        counted[index] += 1
    entries = tuple(
        replace(s, job_restarts=tuple(restarts),
                job_restarts_count_towards_max=tuple(counted) if towards_max
                else s.job_restarts_count_towards_max)
        if s.name == job.rjob else s for s in draft.status.replicated_jobs_status)
    draft.update(replicated_jobs_status=entries)
    reason, base = ((c.RESTART_JOB_ACTION_REASON, c.RESTART_JOB_ACTION_MESSAGE) if towards_max else
                    (c.RESTART_JOB_IGNORE_MAX_ACTION_REASON, c.RESTART_JOB_IGNORE_MAX_ACTION_MESSAGE))
    draft.event("Warning", reason, _with_job(base, job))


def _apply(js: JobSetView, draft: Draft, gates: Gates, action: str, rule: FailureRule | None,
           job: ChildJob) -> None:
    if action == c.FAIL_JOBSET:
        set_failed(draft, c.FAIL_JOBSET_ACTION_REASON, _with_job(c.FAIL_JOBSET_ACTION_MESSAGE, job))
    elif action == c.RESTART_JOBSET:
        counted = total_restarts_towards_max(js, draft) if gates.restart_job else 0
        if counted >= js.max_restarts or draft.status.restarts_count_towards_max >= js.max_restarts:
            _reached_max(js, draft, job)
        else:
            _restart_all(js, draft, rule, job, towards_max=True)
    elif action == c.RESTART_JOBSET_IGNORE_MAX:
        _restart_all(js, draft, rule, job, towards_max=False)
    elif action in (c.RESTART_JOB, c.RESTART_JOB_IGNORE_MAX):
        if not gates.restart_job:
            raise ChildError(f"{action} failure policy action cannot be used when the feature gate "
                             "RestartJob is disabled")
        if action == c.RESTART_JOB and total_restarts_towards_max(js, draft) >= js.max_restarts:
            _reached_max(js, draft, job)
        else:
            _restart_one(js, draft, job, towards_max=action == c.RESTART_JOB)
    else:
        raise ChildError(f"failed to find a corresponding action for the FailurePolicyRuleAction {action}")


def execute_failure_policy(js: JobSetView, failed: list[ChildJob], draft: Draft, gates: Gates) -> None:
    """``executeFailurePolicy`` (``failed`` is not empty)."""
    if not js.failure_policy:
        job = first_failed(failed) or failed[0]
        set_failed(draft, c.FAILED_JOBS_REASON, _with_job(c.FAILED_JOBS_MESSAGE, job))
        return
    found = _first_rule(js.rules, failed)
    if found is None:
        job = first_failed(failed) or failed[0]
        _apply(js, draft, gates, c.RESTART_JOBSET, None, job)
        return
    rule, job = found
    _apply(js, draft, gates, rule.action, rule, job)
