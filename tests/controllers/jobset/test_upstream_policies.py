"""Upstream's policy tables, on kbatch's pure policy functions (the decision's building blocks).

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/controllers/failure_policy_test.go``
(``TestFindFirstFailedJob``, ``TestFailurePolicyRuleIsApplicable``,
``TestFindFirstFailedPolicyRuleAndJob``, ``TestApplyFailurePolicyRuleAction``),
``success_policy_test.go`` (``TestJobMatchesSuccessPolicy``, ``TestReplicatedJobMatchesSuccessPolicy``,
``TestNumJobsMatchingSuccessPolicy``, ``TestNumJobsExpectedToSucceed``), ``startup_policy_test.go``
(``TestInOrderStartupPolicy``, ``TestReplicatedJobStarted``) and ``depends_on_test.go``
(``TestDependencyReachedStatus``).

Upstream tests unexported helpers one by one; kbatch folds some of them into the function that uses
them, so a case is checked through that function's observable result: whether a rule applies is
whether :func:`execute_failure_policy` applies it (a lone ``FailJobSet`` rule fails the JobSet with
``FailJobSetFailurePolicyAction``; an inapplicable one leaves the default ``RestartJobSet``), a success
policy helper is whether :func:`execute_success_policy` completes the JobSet, ``inOrderStartupPolicy``
is the view's ``in_order`` read from the API object.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from kbatch.api import jobset_constants as c
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset.adapt import jobset_view
from kbatch.controllers.jobset.conditions import Draft
from kbatch.controllers.jobset.policies import (
    all_replicas_started,
    dependency_reached,
    execute_failure_policy,
    execute_success_policy,
    first_failed,
)
from kbatch.controllers.jobset.views import (
    ChildJob,
    FailureRule,
    Gates,
    JobSetView,
    RJob,
    RJobStatus,
    Status,
)

from .world import T0

BACKOFF, DEADLINE, FAILED_INDEXES = "BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes"
RJ1, RJ2 = "test-replicated-job-1", "test-replicated-job-2"


def _failed(name: str, hours_ago: float, reason: str = BACKOFF, rjob: str | None = RJ1, message: str = "",
            index: str | None = "0") -> ChildJob:
    return ChildJob(name=name, rjob=rjob, job_index=index, finished="Failed", failure_reason=reason,
                    failure_message=message, failure_time=T0 - timedelta(hours=hours_ago))


def _js(*rules: FailureRule, max_restarts: int = 0, status: Status | None = None,
        rjobs: tuple[RJob, ...] = (RJob(RJ1), RJob(RJ2))) -> JobSetView:
    return JobSetView(name="test-js", namespace="default", replicated_jobs=rjobs, failure_policy=True,
                      max_restarts=max_restarts, rules=rules, status=status or Status())


def _run(js: JobSetView, failed: list[ChildJob], gates: Gates = Gates()) -> Draft:
    draft = Draft(js.status, T0)
    execute_failure_policy(js, failed, draft, gates)
    return draft


def _cond(draft: Draft, type_: str) -> tuple[str, str] | None:
    cond = next((x for x in draft.status.conditions if x.type == type_), None)
    return (cond.status, cond.reason) if cond else None


# --- TestFindFirstFailedJob ----------------------------------------------------------------------------
@pytest.mark.parametrize(("case", "jobs", "want"), [
    ("No failed jobs", [], None),
    ("Single failed job", [_failed("job1", 1)], "job1"),
    ("Multiple failed jobs, earliest first", [_failed("job1", 3), _failed("job2", 5)], "job2"),
    ("Jobs without failed condition", [ChildJob("job1"), ChildJob("job2")], None),
])
def test_find_first_failed_job(case: str, jobs: list[ChildJob], want: str | None) -> None:
    found = first_failed(jobs)
    assert (found.name if found else None) == want, case


# --- TestFailurePolicyRuleIsApplicable -----------------------------------------------------------------
def _rule(**fields: Any) -> FailureRule:
    return FailureRule(name="rule", action=c.FAIL_JOBSET, **fields)


@pytest.mark.parametrize(("case", "rule", "rjob", "reason", "message", "applies"), [
    ("matches all possible parent replicated jobs and matches all possible job failure reasons",
     _rule(), RJ1, BACKOFF, "", True),
    ("matches all possible parent replicated jobs and matches the job failure reason",
     _rule(on_job_failure_reasons=(BACKOFF,)), RJ1, BACKOFF, "", True),
    ("matches all possible parent replicated jobs and does not match the job failure reason",
     _rule(on_job_failure_reasons=(BACKOFF,)), RJ1, DEADLINE, "", False),
    ("matches the parent replicatedJob and matches all possible job failure reasons",
     _rule(target_replicated_jobs=(RJ1,)), RJ1, BACKOFF, "", True),
    ("matches the parent replicatedJob and matches the job failure reason",
     _rule(on_job_failure_reasons=(BACKOFF,), target_replicated_jobs=(RJ1,)), RJ1, BACKOFF, "", True),
    ("matches the parent replicatedJob and does not match the job failure reason",
     _rule(on_job_failure_reasons=(BACKOFF,), target_replicated_jobs=(RJ1,)), RJ1, DEADLINE, "", False),
    ("does not match the parent replicatedJob and matches all possible job failure reasons",
     _rule(target_replicated_jobs=(RJ1,)), RJ2, BACKOFF, "", False),
    ("does not match the parent replicatedJob and matches the job failure reason",
     _rule(on_job_failure_reasons=(BACKOFF,), target_replicated_jobs=(RJ1,)), RJ2, BACKOFF, "", False),
    ("does not match the parent replicatedJob and does not match the job failure reason",
     _rule(on_job_failure_reasons=(BACKOFF,), target_replicated_jobs=(RJ1,)), RJ2, DEADLINE, "", False),
    ("matches the job failure message pattern",
     _rule(on_job_failure_message_patterns=("^job failed because.*",)), RJ1, "",
     "job failed because of a bug", True),
    ("does not match the job failure message pattern",
     _rule(on_job_failure_message_patterns=("^job failed because.*",)), RJ1, "", "another error message",
     False),
    ("matches both the job failure reason and message pattern",
     _rule(on_job_failure_reasons=(BACKOFF,), on_job_failure_message_patterns=(".*bug.*",)), RJ1, BACKOFF,
     "job failed because of a bug", True),
    ("matches the job failure reason but not the message pattern",
     _rule(on_job_failure_reasons=(BACKOFF,), on_job_failure_message_patterns=(".*bug.*",)), RJ1, BACKOFF,
     "job failed due to something else", False),
])
def test_failure_policy_rule_is_applicable(case: str, rule: FailureRule, rjob: str, reason: str, message: str,
                                           applies: bool) -> None:
    draft = _run(_js(rule, max_restarts=1), [_failed("test-job", 0, reason, rjob, message)])
    if applies:
        assert _cond(draft, c.FAILED) == ("True", c.FAIL_JOBSET_ACTION_REASON), case
    else:
        assert _cond(draft, c.RESTARTING) == ("True", c.RESTARTING_DEFAULT_FAILURE_POLICY), case


@pytest.mark.parametrize(("case", "patterns", "message", "applies"), [
    # the patterns are Go regular expressions (failure_policy.go: regexp.MatchString), not Python's
    ("$ is the end of the message", ("bug$",), "a bug\n", False),
    ("\\d is an ASCII digit", ("exit code \\d",), "exit code \u0663", False),
    ("a look-ahead Go refuses is skipped", ("bug(?= here)",), "bug here", False),
    ("a back-reference Go refuses is skipped", ("(a)\\1",), "aa", False),
    ("a refused pattern is skipped, the next one used", ("(", "bug"), "a bug", True),
])
def test_failure_message_patterns_are_go_regexps(case: str, patterns: tuple[str, ...], message: str,
                                                 applies: bool) -> None:
    rule = _rule(on_job_failure_message_patterns=patterns)
    draft = _run(_js(rule, max_restarts=1), [_failed("test-job", 0, BACKOFF, RJ1, message)])
    if applies:
        assert _cond(draft, c.FAILED) == ("True", c.FAIL_JOBSET_ACTION_REASON), case
    else:
        assert _cond(draft, c.RESTARTING) == ("True", c.RESTARTING_DEFAULT_FAILURE_POLICY), case


# --- TestFindFirstFailedPolicyRuleAndJob ---------------------------------------------------------------
JOB1 = _failed("job1", 6, BACKOFF, "test-replicatedJob")
JOB1_EARLIER = _failed("job1DupEarlierFailure", 12, BACKOFF, "test-replicatedJob")
JOB2 = _failed("job2", 3, DEADLINE, "test-replicatedJob")
JOB3 = _failed("job3", 1, FAILED_INDEXES, "test-replicatedJob")
R1 = FailureRule("rule1", c.FAIL_JOBSET, on_job_failure_reasons=(BACKOFF,))
R2 = FailureRule("rule2", c.FAIL_JOBSET, on_job_failure_reasons=(DEADLINE,))
R3 = FailureRule("rule3", c.FAIL_JOBSET, on_job_failure_reasons=(FAILED_INDEXES,))
UNMATCHED = FailureRule("unmatched", c.FAIL_JOBSET, target_replicated_jobs=("fakeReplicatedJobName",))


@pytest.mark.parametrize(("case", "rules", "jobs", "want"), [
    ("0 failed jobs and 0 failure policy rules", (), [], None),
    ("1 failed job and 0 failure policy rules", (), [JOB1], None),
    ("1 failed job, 1 rule that does not match", (R2,), [JOB1], None),
    ("1 failed job, 3 rules, matches the first", (R1, R2, R3), [JOB1], ("rule1", "job1")),
    ("1 failed job, 3 rules, matches the second", (R1, R2, R3), [JOB2], ("rule2", "job2")),
    ("1 failed job, 3 rules, matches the third", (R1, R2, R3), [JOB3], ("rule3", "job3")),
    ("2 failed jobs and 0 failure policy rules", (), [JOB1, JOB2], None),
    ("2 failed jobs, the second failed first, 1 rule matching neither", (R2,), [JOB1, JOB1_EARLIER], None),
    ("2 failed jobs, the second failed first, 1 rule matching both", (R1,), [JOB1, JOB1_EARLIER],
     ("rule1", "job1DupEarlierFailure")),
    ("2 failed jobs, the second failed first, 2 rules, the first matching neither", (UNMATCHED, R1),
     [JOB1, JOB1_EARLIER], ("rule1", "job1DupEarlierFailure")),
])
def test_find_first_failed_policy_rule_and_job(case: str, rules: tuple[FailureRule, ...],
                                               jobs: list[ChildJob], want: tuple[str, str] | None) -> None:
    """Each rule ``FailJobSet`` (upstream's are ``RestartJobSet``: the action is not what the helper
    decides): the rule found and its Job are read from the Failed condition; no rule found is the
    default ``RestartJobSet`` (or nothing at all without failed Jobs, which the decision never asks)."""
    if not jobs:
        assert first_failed(jobs) is None
        return
    draft = _run(_js(*rules, max_restarts=5, rjobs=(RJob("test-replicatedJob"),)), jobs)
    failed = next((x for x in draft.status.conditions if x.type == c.FAILED), None)
    if want is None:
        assert failed is None and _cond(draft, c.RESTARTING) == ("True", c.RESTARTING_DEFAULT_FAILURE_POLICY)
        return
    assert failed is not None and failed.message.endswith(f"(first failed job: {want[1]})"), case


# --- TestApplyFailurePolicyRuleAction ------------------------------------------------------------------
def _rstatus(job_restarts: int, counted: int) -> tuple[RJobStatus, ...]:
    return (RJobStatus("rjob", job_restarts=(job_restarts,), job_restarts_count_towards_max=(counted,)),)


ONE = (RJob("rjob", replicas=1),)
MAXED = dict(restarts=(1, 1), jobs=((1,), (1,)), terminal="Failed",
             cond=(c.FAILED, c.REACHED_MAX_RESTARTS_REASON))


@pytest.mark.parametrize(("case", "action", "rule_name", "max_restarts", "status", "rjobs", "want"), [
    ("FailJobSet action", c.FAIL_JOBSET, None, 0, Status(), ONE,
     dict(terminal="Failed", cond=(c.FAILED, c.FAIL_JOBSET_ACTION_REASON))),
    ("RestartJobSet when restarts < maxRestarts increments restarts count and counts towards max",
     c.RESTART_JOBSET, None, 5, Status(restarts=1, restarts_count_towards_max=1), ONE,
     dict(restarts=(2, 2), cond=(c.RESTARTING, c.RESTARTING_DEFAULT_FAILURE_POLICY))),
    ("RestartJobSet when restarts < maxRestarts with matching rule sets FailurePolicy_{RuleName} reason",
     c.RESTART_JOBSET, "Rule1", 5, Status(restarts=1, restarts_count_towards_max=1), ONE,
     dict(restarts=(2, 2), cond=(c.RESTARTING, "FailurePolicy_Rule1"))),
    ("RestartJobSet action when restarts >= maxRestarts fails the jobset", c.RESTART_JOBSET, None, 2,
     Status(restarts=2, restarts_count_towards_max=2), ONE,
     dict(restarts=(2, 2), terminal="Failed", cond=(c.FAILED, c.REACHED_MAX_RESTARTS_REASON))),
    ("RestartJobSetAndIgnoreMaxRestarts action does not count toward max restarts",
     c.RESTART_JOBSET_IGNORE_MAX, "r", 1, Status(restarts=1, restarts_count_towards_max=1), ONE,
     dict(restarts=(2, 1), cond=(c.RESTARTING, "FailurePolicy_r"))),  # upstream: no rule (unreachable)
    ("RestartJob action when combined restarts < maxRestarts increments jobRestart count and counts "
     "towards max", c.RESTART_JOB, None, 5, Status(replicated_jobs_status=_rstatus(0, 0)), ONE,
     dict(restarts=(0, 0), jobs=((1,), (1,)))),
    ("RestartJob action when combined restarts >= maxRestarts fails the jobset", c.RESTART_JOB, None, 2,
     Status(restarts=1, restarts_count_towards_max=1, replicated_jobs_status=_rstatus(1, 1)), ONE,
     MAXED),
    ("RestartJobSet action when combined restarts >= maxRestarts and a previous individual restart fails the "
     "jobset", c.RESTART_JOBSET, None, 2,
     Status(restarts=1, restarts_count_towards_max=1, replicated_jobs_status=_rstatus(1, 1)), ONE,
     MAXED),
    ("RestartJobAndIgnoreMaxRestarts action does not count toward max restarts", c.RESTART_JOB_IGNORE_MAX,
     None, 1, Status(replicated_jobs_status=_rstatus(1, 0)), ONE, dict(restarts=(0, 0), jobs=((2,), (0,)))),
])
def test_apply_failure_policy_rule_action(case: str, action: str, rule_name: str | None, max_restarts: int,
                                          status: Status, rjobs: tuple[RJob, ...],
                                          want: dict[str, Any]) -> None:
    """Upstream applies the action to a given rule (or none: the default action); here a rule with that
    action matches the failed Job (``rule_name`` None: no rule, the default ``RestartJobSet``)."""
    rules = (FailureRule(rule_name or "r", action),) if rule_name or action != c.RESTART_JOBSET else ()
    js = _js(*rules, max_restarts=max_restarts, status=status, rjobs=rjobs)
    draft = _run(js, [_failed("failed-job", 0, rjob="rjob")], Gates(restart_job=True))
    st = draft.status
    assert draft.should_update, case
    assert st.terminal_state == want.get("terminal", ""), case
    assert (st.restarts, st.restarts_count_towards_max) == want.get("restarts", (0, 0)), case
    if "jobs" in want:
        entry = next(s for s in st.replicated_jobs_status if s.name == "rjob")
        assert (entry.job_restarts, entry.job_restarts_count_towards_max) == want["jobs"], case
    true = [(x.type, x.reason) for x in st.conditions if x.status == "True"]
    assert true == ([want["cond"]] if "cond" in want else []), case


# --- success policy ------------------------------------------------------------------------------------
def _success(targets: tuple[str, ...], operator: str = c.OPERATOR_ALL,
             rjobs: tuple[RJob, ...] = (RJob(RJ1), RJob(RJ2))) -> JobSetView:
    return JobSetView(name="test-jobset", namespace="default", replicated_jobs=rjobs,
                      success_operator=operator, success_targets=targets)


def _succeeded(*rjobs: str) -> list[ChildJob]:
    return [ChildJob(f"test-job-{i}", rjob=r, finished="Complete") for i, r in enumerate(rjobs)]


def _completes(js: JobSetView, jobs: list[ChildJob]) -> bool:
    return execute_success_policy(js, jobs, Draft(Status(), T0))


@pytest.mark.parametrize(("case", "targets", "rjob", "matches"), [
    ("jobset's TargetReplicatedJobs is empty", (), RJ1, True),
    ("job matches one of the TargetReplicatedJobs", (RJ1, RJ2), RJ1, True),
    ("job does not match any of the TargetReplicatedJobs", (RJ1, RJ2), "test-replicated-job-3", False),
])
def test_job_matches_success_policy(case: str, targets: tuple[str, ...], rjob: str, matches: bool) -> None:
    """With ``Any``, the one succeeded Job completes the JobSet exactly when it matches."""
    assert _completes(_success(targets, c.OPERATOR_ANY), _succeeded(rjob)) is matches, case


@pytest.mark.parametrize(("case", "targets", "rjob", "matches"), [
    ("jobset's TargetReplicatedJobs is empty", (), RJ1, True),
    ("matching case", (RJ1, RJ2), RJ1, True),
    ("non-matching case", (RJ1, RJ2), "test-replicated-job-3", False),
])
def test_replicated_job_matches_success_policy(case: str, targets: tuple[str, ...], rjob: str,
                                               matches: bool) -> None:
    """With ``All`` over one replicated job of one replica, no succeeded Job completes the JobSet exactly
    when that replicated job is not targeted (then 0 Jobs are expected)."""
    js = _success(targets, rjobs=(RJob(rjob),))
    assert _completes(js, []) is (not matches), case


@pytest.mark.parametrize(("case", "targets", "rjobs", "matching"), [
    ("one job matches the success policy", (RJ1, RJ2), (RJ1, "test-replicated-job-3"), 1),
    ("all jobs matches the success policy", (RJ1, RJ2), (RJ1, RJ2), 2),
    ("no jobs match the success policy", (RJ1, RJ2), ("test-replicated-job-3", "test-replicated-job-4"), 0),
    ("empty target replicated jobs, all job matches the success policy", (), (RJ1, RJ2), 2),
])
def test_num_jobs_matching_success_policy(case: str, targets: tuple[str, ...], rjobs: tuple[str, ...],
                                          matching: int) -> None:
    """``All`` over replicated jobs expecting ``n`` Jobs completes with the given Jobs exactly when
    ``n`` <= the number matching."""
    for expected in (matching, matching + 1):
        js = _success(targets, rjobs=(RJob(RJ1, replicas=expected), RJob(RJ2, replicas=0)))
        assert _completes(js, _succeeded(*rjobs)) is (expected <= matching), (case, expected)


@pytest.mark.parametrize(("case", "operator", "targets", "rjobs", "expected"), [
    ("any job completion fulfills success policy", c.OPERATOR_ANY, (), (RJob(RJ1, replicas=3),), 1),
    ("all replicated jobs match success policy", c.OPERATOR_ALL, (RJ1, RJ2),
     (RJob(RJ1, replicas=1), RJob(RJ2, replicas=2)), 3),
    ("some replicated jobs don't match success policy", c.OPERATOR_ALL, (RJ1, "test-replicated-job-3"),
     (RJob(RJ1, replicas=1), RJob(RJ2, replicas=2), RJob("test-replicated-job-3", replicas=3)), 4),
])
def test_num_jobs_expected_to_succeed(case: str, operator: str, targets: tuple[str, ...],
                                      rjobs: tuple[RJob, ...], expected: int) -> None:
    js = _success(targets, operator, rjobs)
    target = targets[0] if targets else rjobs[0].name
    assert not _completes(js, _succeeded(*[target] * (expected - 1))), case
    assert _completes(js, _succeeded(*[target] * expected)), case


# --- startup policy ------------------------------------------------------------------------------------
def _view(startup: dict[str, Any] | None) -> JobSetView:
    spec: dict[str, Any] = {"replicatedJobs": [{"name": "rj", "template": {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": "i"}]}}}}}]}
    if startup is not None:
        spec["startupPolicy"] = startup
    meta = {"name": "js", "namespace": "default"}
    return jobset_view(JobSet.model_validate({"metadata": meta, "spec": spec}))


@pytest.mark.parametrize(("case", "startup", "in_order"), [
    ("startup policy AnyOrder", {"startupPolicyOrder": "AnyOrder"}, False),
    ("startup policy InOrder", {"startupPolicyOrder": "InOrder"}, True),
    ("nil startup policy", None, False),
])
def test_in_order_startup_policy(case: str, startup: dict[str, Any] | None, in_order: bool) -> None:
    assert _view(startup).in_order is in_order, case


@pytest.mark.parametrize(("case", "replicas", "status", "started"), [
    ("replicas 1; no replicatedJobStatus", 1, RJobStatus(""), False),
    ("replicas 4; replicatedJobStatus all ready", 4, RJobStatus("test", ready=4), True),
    ("replicas 4; replicatedJobStatus mix of ready, failed and succeeded", 4,
     RJobStatus("test", ready=2, succeeded=1, failed=1), True),
    ("replicas 4; replicatedJobStatus all active", 4, RJobStatus("test", active=4), False),
])
def test_replicated_job_started(case: str, replicas: int, status: RJobStatus, started: bool) -> None:
    assert all_replicas_started(replicas, status) is started, case


# --- TestDependencyReachedStatus -----------------------------------------------------------------------
MODEL, DATASET, TRAINER = "model-initializer", "dataset-initializer", "trainer-node"


def _st(name: str, ready: int = 0, succeeded: int = 0, failed: int = 0, active: int = 0) -> RJobStatus:
    return RJobStatus(name, ready=ready, succeeded=succeeded, failed=failed, active=active)


ON_MODEL = RJob(TRAINER, depends_on=((MODEL, "Complete"),))


def _on(status: str) -> RJob:
    return RJob(TRAINER, depends_on=((MODEL, status), (DATASET, status)))


@pytest.mark.parametrize(("case", "rjob", "replicas", "statuses", "reached"), [
    ("ReplicatedJob doesn't have any dependencies", RJob(MODEL), {MODEL: 1}, (), True),
    ("status for ReplicatedJob is nil", ON_MODEL, {MODEL: 1, TRAINER: 1}, (_st("invalid", succeeded=1),),
     False),
    ("rJobStatuses is nil", ON_MODEL, {MODEL: 1, TRAINER: 1}, (), False),
    ("depends on ReplicatedJob reaches complete status", _on("Complete"), {MODEL: 2, DATASET: 2, TRAINER: 1},
     (_st(MODEL, succeeded=2), _st(DATASET, succeeded=2)), True),
    ("one depends on ReplicatedJob doesn't reach complete status", _on("Complete"),
     {MODEL: 2, DATASET: 2, TRAINER: 1}, (_st(MODEL, ready=1, succeeded=1), _st(DATASET, succeeded=2)),
     False),
    ("two depends on ReplicatedJob doesn't reach complete status", _on("Complete"),
     {MODEL: 2, DATASET: 2, TRAINER: 1},
     (_st(MODEL, ready=1, succeeded=1), _st(DATASET, ready=1, succeeded=1)), False),
    ("depends on ReplicatedJob reaches ready status", _on("Ready"), {MODEL: 3, DATASET: 3, TRAINER: 1},
     (_st(MODEL, 1, 1, 1), _st(DATASET, 1, 1, 1)), True),
    ("one depends on ReplicatedJob doesn't reach ready status", _on("Ready"),
     {MODEL: 3, DATASET: 3, TRAINER: 1}, (_st(MODEL, ready=2, active=1), _st(DATASET, 1, 1, 1)), False),
    ("two depends on ReplicatedJobs doesn't reach ready status", _on("Ready"),
     {MODEL: 3, DATASET: 3, TRAINER: 1}, (_st(MODEL, ready=2, active=1), _st(DATASET, ready=2, active=1)),
     False),
])
def test_dependency_reached_status(case: str, rjob: RJob, replicas: dict[str, int],
                                   statuses: tuple[RJobStatus, ...], reached: bool) -> None:
    assert dependency_reached(rjob, replicas, statuses) is reached, case

