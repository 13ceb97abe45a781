"""The JobSet decision, one documented behaviour per test (kubernetes-sigs/jobset v0.12.0
``pkg/controllers/jobset_controller_test.go`` and the integration suite restate the same cases)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kbatch.controllers.jobset import FailureRule, Gates, PodView, RJob, sync_jobset
from kbatch.controllers.jobset.views import ChildJob

from .world import T0, World, make_jobset

WORKERS = RJob("workers", replicas=2, parallelism=1, completions=1)
DRIVER = RJob("driver", replicas=1, parallelism=1, completions=1)


def conditions(w: World) -> dict[str, tuple[str, str, str]]:
    return {c.type: (c.status, c.reason, c.message) for c in w.js.status.conditions}


def test_creates_every_replica_and_records_statuses_by_name_descending() -> None:
    w = World(make_jobset(DRIVER, WORKERS))
    plan = w.sync()
    assert [[c.name for c in g] for g in plan.creates] == [["js-driver-0"], ["js-workers-0", "js-workers-1"]]
    assert plan.ensure_service and not plan.ensure_claims
    assert [s.name for s in w.js.status.replicated_jobs_status] == ["workers", "driver"]
    w.ready("js-driver-0")
    w.sync()
    assert w.js.status.rjob("driver").ready == 1 and w.js.status.rjob("driver").active == 1


def test_all_jobs_succeeded_completes_the_jobset() -> None:
    w = World(make_jobset(WORKERS))
    w.sync()
    w.succeed("js-workers-0")
    w.sync()
    assert not w.js.finished
    w.succeed("js-workers-1")
    w.sync()
    assert conditions(w)["Completed"] == ("True", "AllJobsCompleted", "jobset completed successfully")
    assert w.js.status.terminal_state == "Completed" and w.reasons() == ["AllJobsCompleted"]


def test_any_of_the_targeted_jobs_completes_the_jobset() -> None:
    w = World(make_jobset(DRIVER, WORKERS, success_operator="Any", success_targets=("driver",)))
    w.sync()
    w.succeed("js-workers-0")
    w.sync()
    assert not w.js.finished
    w.succeed("js-driver-0")
    w.sync()
    assert w.js.status.is_true("Completed")


def test_without_failure_policy_one_failed_job_fails_the_jobset() -> None:
    w = World(make_jobset(WORKERS))
    w.sync()
    w.fail("js-workers-1")
    w.advance(5)
    w.fail("js-workers-0")
    w.sync()
    assert conditions(w)["Failed"] == ("True", "FailedJobs", "jobset failed due to one or more job failures "
                                                             "(first failed job: js-workers-1)")
    assert w.js.status.terminal_state == "Failed"
    assert w.events[-1].type == "Warning"
    plan = w.sync()  # finished: the remaining active Jobs are deleted
    assert plan.delete_active == () and not plan.creates


def test_default_action_restarts_the_whole_set_then_recreates_after_deletion() -> None:
    w = World(make_jobset(WORKERS, failure_policy=True, max_restarts=2))
    w.sync()
    w.fail("js-workers-0")
    w.sync()
    st = w.js.status
    assert (st.restarts, st.restarts_count_towards_max) == (1, 1)
    message = "applying RestartJobSet failure policy action (first failed job: js-workers-0)"
    assert conditions(w)["RestartingJobSet"] == ("True", "DefaultFailurePolicy", message)
    assert w.reasons() == ["DefaultFailurePolicy", "RestartJobSetFailurePolicyAction"]
    plan = w.sync()  # every Job of attempt 0 is now "previous": deleted, not yet recreated
    assert sorted(plan.delete_previous) == ["js-workers-0", "js-workers-1"] and not any(plan.creates)
    w.gc()
    w.sync()
    assert {j.restart_attempt for j in w.jobs.values()} == {"1"} and len(w.jobs) == 2
    w.ready(*w.jobs)
    w.sync()
    assert conditions(w)["RestartingJobSet"] == ("False", "JobsReady", "all jobs are ready")


def test_recreate_replaces_each_job_as_soon_as_it_is_gone_blocking_waits_for_all() -> None:
    for strategy, expected in (("Recreate", ["js-workers-0"]), ("BlockingRecreate", [])):
        w = World(make_jobset(WORKERS, failure_policy=True, max_restarts=2, restart_strategy=strategy))
        w.sync()
        w.fail("js-workers-0")
        w.run(2)
        del w.jobs["js-workers-0"]  # only one of the two is gone
        plan = w.sync()
        assert [c.name for g in plan.creates for c in g] == expected, strategy


def test_reaching_max_restarts_fails_the_jobset() -> None:
    w = World(make_jobset(WORKERS, failure_policy=True, max_restarts=1))
    w.sync()
    w.fail("js-workers-0")
    w.sync()
    w.sync()
    w.gc()
    w.sync()
    w.fail("js-workers-1")
    w.sync()
    message = "jobset failed due to reaching max number of restarts (first failed job: js-workers-1)"
    assert conditions(w)["Failed"] == ("True", "ReachedMaxRestarts", message)
    assert conditions(w)["RestartingJobSet"] == ("False", "JobSetFailed", "jobset failed")
    assert w.js.status.restarts == 1


def test_rules_match_reason_message_and_target_first_rule_wins() -> None:
    rules = (FailureRule("ignoreDriver", "FailJobSet", target_replicated_jobs=("driver",)),
             FailureRule("preempted", "RestartJobSetAndIgnoreMaxRestarts", ("PodFailurePolicy",),
                         ("^Pod .* preempted",)),
             FailureRule("fatal", "FailJobSet", ("PodFailurePolicy",)))
    w = World(make_jobset(DRIVER, WORKERS, failure_policy=True, max_restarts=0, rules=rules))
    w.sync()
    w.fail("js-workers-0", "PodFailurePolicy", "Pod default/x was preempted")
    w.sync()
    assert (w.js.status.restarts, w.js.status.restarts_count_towards_max) == (1, 0)
    assert conditions(w)["RestartingJobSet"][1] == "FailurePolicy_preempted"
    w.run(1)
    w.gc()
    w.sync()
    w.fail("js-workers-1", "PodFailurePolicy", "container exited with 3")
    w.sync()
    assert conditions(w)["Failed"] == ("True", "FailJobSetFailurePolicyAction", "applying FailJobSet failure "
                                                                                "policy action (first failed "
                                                                                "job: js-workers-1)")


def test_restart_job_recreates_only_the_failed_job_and_counts_it() -> None:
    gates = Gates(restart_job=True)
    w = World(make_jobset(WORKERS, failure_policy=True, max_restarts=1,
                          rules=(FailureRule("one", "RestartJob"),)), gates)
    w.sync()
    assert {j.job_restart_attempt for j in w.jobs.values()} == {"0"}
    w.fail("js-workers-1")
    w.sync()
    st = w.js.status.rjob("workers")
    assert st.job_restarts == (0, 1) and st.job_restarts_count_towards_max == (0, 1)
    assert w.js.status.restarts == 0 and w.reasons() == ["RestartJobFailurePolicyAction"]
    plan = w.sync()
    assert plan.delete_previous == ("js-workers-1",)
    w.gc()
    w.sync()
    assert [w.jobs[f"js-workers-{i}"].job_restart_attempt for i in (0, 1)] == ["0", "1"]
    w.fail("js-workers-0")
    w.sync()
    assert conditions(w)["Failed"][1] == "ReachedMaxRestarts"


def test_restart_job_without_its_gate_is_an_error() -> None:
    w = World(make_jobset(WORKERS, failure_policy=True, rules=(FailureRule("one", "RestartJob"),)))
    w.sync()
    w.fail("js-workers-0")
    plan = w.sync()
    assert plan.error == ("RestartJob failure policy action cannot be used when the feature gate RestartJob "
                          "is disabled") and plan.status is None


def test_in_order_startup_waits_for_each_replicated_job_to_be_ready() -> None:
    w = World(make_jobset(DRIVER, WORKERS, in_order=True))
    plan = w.sync()
    assert [c.name for g in plan.creates for c in g] == ["js-driver-0"]
    assert conditions(w)["StartupPolicyInProgress"] == ("True", "InOrderStartupPolicyInProgress",
                                                        "in order startup policy is in progress")
    w.sync()
    assert set(w.jobs) == {"js-driver-0"}
    w.ready("js-driver-0")
    w.sync()
    assert set(w.jobs) == {"js-driver-0", "js-workers-0", "js-workers-1"}
    w.ready("js-workers-0", "js-workers-1")
    w.sync()
    assert conditions(w)["StartupPolicyCompleted"][0] == "True"
    assert conditions(w)["StartupPolicyInProgress"][0] == "False"


@pytest.mark.parametrize("wanted", ["Ready", "Complete"])
def test_depends_on_creates_after_the_dependency_reaches_its_state(wanted: str) -> None:
    workers = replace(WORKERS, depends_on=(("driver", wanted),))
    w = World(make_jobset(DRIVER, workers))
    w.sync()
    assert set(w.jobs) == {"js-driver-0"}
    w.ready("js-driver-0")
    w.sync()
    assert (len(w.jobs) == 3) is (wanted == "Ready")
    w.succeed("js-driver-0")
    w.sync()
    assert len(w.jobs) == 3


def test_suspended_jobset_creates_suspended_jobs_and_resumes_them() -> None:
    w = World(make_jobset(WORKERS, suspend=True))
    w.sync()
    assert all(j.suspended for j in w.jobs.values())
    assert conditions(w)["Suspended"] == ("True", "SuspendedJobs", "jobset is suspended")
    w.jobs["js-workers-0"] = replace(w.jobs["js-workers-0"], started=True)
    w.js = replace(w.js, suspend=False)
    plan = w.sync()
    assert [(r.name, r.reset_start_time) for r in plan.resume] == [("js-workers-0", True),
                                                                   ("js-workers-1", False)]
    assert conditions(w)["Suspended"] == ("False", "ResumeJobs", "jobset is resumed")
    w.js = replace(w.js, suspend=True)
    plan = w.sync()
    assert plan.suspend == ("js-workers-0", "js-workers-1")


def test_ttl_after_finished_deletes_the_jobset_when_due() -> None:
    w = World(make_jobset(WORKERS, ttl_seconds_after_finished=60))
    w.sync()
    w.succeed("js-workers-0", "js-workers-1")
    w.sync()
    w.advance(20)
    plan = w.sync()
    assert plan.requeue_after == 40 and not plan.delete_jobset
    w.advance(40)
    assert w.sync().delete_jobset


def test_a_jobset_managed_elsewhere_or_being_deleted_is_left_alone() -> None:
    elsewhere = make_jobset(managed_by="kueue.x-k8s.io/multikueue")
    assert sync_jobset(elsewhere, [], T0).skip == "ManagedExternally"
    assert sync_jobset(make_jobset(managed_by="jobset.sigs.k8s.io/jobset-controller"), [], T0).skip == ""
    assert sync_jobset(make_jobset(deleting=True), [], T0).skip == "Deleting"


def test_an_unparsable_restart_label_fails_the_reconcile() -> None:
    plan = sync_jobset(make_jobset(), [ChildJob("js-workers-0", "workers", "0", "x")], T0)
    assert plan.error == ('invalid value for label jobset.sigs.k8s.io/restart-attempt, must be integer: '
                          'strconv.Atoi: parsing "x": invalid syntax')


def test_in_place_restart_raises_previous_then_current_attempt() -> None:
    rjob = RJob("workers", replicas=1, parallelism=2, completions=2)
    js = make_jobset(rjob, failure_policy=True, max_restarts=3, restart_strategy="InPlaceRestart")
    gates = Gates(in_place_restart=True)
    pods = (PodView("a", "Running", "1"), PodView("b", "Running", "0"))
    plan = sync_jobset(js, [], T0, gates, pods)
    assert plan.status.previous_in_place_restart_attempt == 0
    plan = sync_jobset(js, [], T0, gates, (PodView("a", "Running", "1"), PodView("b", "Running", "1")))
    assert plan.status.current_in_place_restart_attempt == 1
    plan = sync_jobset(js, [], T0, gates, (PodView("a", "Running", "5"),))
    assert plan.status.is_true("Failed") and plan.status.condition("Failed").reason == "ReachedMaxRestarts"
    plan = sync_jobset(js, [], T0, gates, (PodView("a", "Running", "0", max_restart_count=4),))
    assert plan.status.is_true("Failed")


@pytest.mark.parametrize("text, reason", [
    ("99999999999999999999", "value out of range"),  # Atoi's int64 range; a label value may hold 20 digits
    ("1_0", "invalid syntax"),
])
def test_a_restart_label_is_read_as_go_atoi_reads_it(text: str, reason: str) -> None:
    plan = sync_jobset(make_jobset(), [ChildJob("js-workers-0", "workers", "0", text)], T0)
    assert plan.error == ('invalid value for label jobset.sigs.k8s.io/restart-attempt, must be integer: '
                          f'strconv.Atoi: parsing "{text}": {reason}')


def _in_place(*attempts: str) -> object:
    rjob = RJob("workers", replicas=1, parallelism=len(attempts), completions=len(attempts))
    js = make_jobset(rjob, failure_policy=True, max_restarts=3, restart_strategy="InPlaceRestart")
    pods = tuple(PodView(f"p{i}", "Running", a) for i, a in enumerate(attempts))
    return sync_jobset(js, [], T0, Gates(in_place_restart=True), pods)


@pytest.mark.parametrize("text, value", [("+1", 1), ("01", 1), ("-0", 0)])
def test_an_in_place_restart_attempt_takes_what_go_atoi_takes(text: str, value: int) -> None:
    plan = _in_place(text, str(value))
    assert plan.error == "" and plan.status.current_in_place_restart_attempt == value


@pytest.mark.parametrize("text", ["٣", "²", " 1", "1\n", "1_0", "-1", "", "99999999999999999999"])
def test_an_in_place_restart_attempt_go_atoi_refuses_fails_the_reconcile(text: str) -> None:
    plan = _in_place(text)
    assert plan.error == ("invalid value for annotation jobset.sigs.k8s.io/in-place-restart-attempt, must be "
                          "non-negative integer")


def test_an_in_place_restart_attempt_is_narrowed_to_int32_as_upstream_does() -> None:
    plan = _in_place(str(2**32 + 1), "1")  # int32(4294967297) == 1
    assert plan.error == "" and plan.status.current_in_place_restart_attempt == 1
