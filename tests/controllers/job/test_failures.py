"""Failures: backoffLimit, recreation back-off, pod failure policy, replacement policy, per-index.

Upstream: job_controller.go, backoff_utils.go, pod_failure_policy.go; KEP-3329, KEP-3850, KEP-3939.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from kbatch.controllers.job import ContainerInfo, PodConditionInfo, PodInfo
from kbatch.controllers.job.backoff import BackoffRecord, backoff_delay, fold_backoff, remaining_time
from kbatch.controllers.job.failure_policy import match_pod_failure_policy

from .builders import SEED_003_COUNT_POLICY, SEED_003_POLICY, SEED_004_POLICY, cond_rule, make_job
from .world import T0, World

DISRUPTED = (PodConditionInfo("DisruptionTarget", "True"),)


def _failed_pod(code: int, *, conditions=(), name="p", container="main", init=False) -> PodInfo:
    c = (ContainerInfo(container, 0, code, T0),)
    return PodInfo(name=name, uid=name, namespace="ns", phase="Failed", conditions=conditions,
                   containers=() if init else c, init_containers=c if init else ())


@pytest.mark.parametrize(("n", "want"), [(0, 0), (1, 10), (2, 20), (3, 40), (6, 320), (7, 600), (30, 600)])
def test_backoff_delay_doubles_from_10s_capped_at_10min(n, want):
    assert backoff_delay(n) == want


def test_backoff_record_resets_on_success_and_counts_later_failures():
    from datetime import timedelta
    ok = PodInfo("ok", "ok", phase="Succeeded", containers=(ContainerInfo("c", 0, 0, T0),))
    late = PodInfo("late", "late", phase="Failed", containers=(ContainerInfo("c", 0, 1, T0 + timedelta(1)),))
    early = PodInfo("early", "early", phase="Failed",
                    containers=(ContainerInfo("c", 0, 1, T0 - timedelta(1)),))
    rec = fold_backoff(BackoffRecord(5, T0), [ok], [early, late])
    assert rec.failures_after_last_success == 1 and rec.last_failure_time == T0 + timedelta(1)
    assert remaining_time(BackoffRecord(2, T0), T0 + timedelta(seconds=5)) == 15


def test_backoff_limit_exceeded_goes_through_failure_target():
    w = World(make_job(parallelism=1, completions=1, backoff_limit=1))
    w.sync()
    w.fail(w.active()[0])
    w.sync()
    assert w.job.status.failed == 1 and w.cond("FailureTarget") is None
    assert w.active() == [] and w.requeue_after == pytest.approx(10)
    w.advance(10)
    w.sync()
    w.fail(w.active()[0])
    w.sync()
    ft, failed = w.cond("FailureTarget"), w.cond("Failed")
    assert ft.reason == failed.reason == "BackoffLimitExceeded"
    assert failed.message == "Job has reached the specified backoff limit"
    assert w.job.status.failed == 2 and w.job.status.completion_time is None
    assert "BackoffLimitExceeded" in w.reasons()


def test_recreation_waits_for_backoff_then_doubles():
    w = World(make_job(parallelism=1, completions=1, backoff_limit=6))
    w.sync()
    w.fail(w.active()[0])
    w.sync()
    assert not w.active() and w.requeue_after == pytest.approx(10)
    w.advance(9)
    w.sync()
    assert not w.active()
    w.advance(1)
    w.sync()
    w.fail(w.active()[0])
    w.sync()
    assert w.requeue_after == pytest.approx(20)


def test_on_failure_restart_counts_reach_backoff_limit():
    w = World(make_job(parallelism=1, completions=1, backoff_limit=2, restart_policy="OnFailure"))
    w.sync()
    pod = w.run_pod(w.active()[0])
    w._put(replace(pod, containers=(ContainerInfo("main", restart_count=2),)))
    w.sync()
    assert w.cond("FailureTarget").reason == "BackoffLimitExceeded"


def test_deadline_exceeded_and_requeue_at_deadline():
    w = World(make_job(parallelism=1, completions=1, active_deadline_seconds=30))
    w.sync()
    assert w.requeue_after == pytest.approx(30)
    w.run_pod(w.active()[0])
    w.advance(30)
    w.sync()
    assert w.cond("FailureTarget").reason == "DeadlineExceeded"
    assert w.cond("Failed") is None and w.job.status.terminating == 1  # waits for the pod to go
    w.finish_terminating()
    w.sync()
    assert w.cond("Failed").message == "Job was active longer than specified deadline"
    assert w.job.status.failed == 1 and w.job.status.active == 0 and w.job.status.terminating == 0


def test_backoff_wins_over_deadline():
    w = World(make_job(parallelism=1, completions=1, backoff_limit=0, active_deadline_seconds=5))
    w.sync()
    w.advance(10)
    w.fail(w.active()[0])
    w.sync()
    assert w.cond("Failed").reason == "BackoffLimitExceeded"


# --- pod failure policy: seed examples verbatim ---------------------------------------------------

@pytest.mark.parametrize(("pod", "action", "counted"), [
    (_failed_pod(1, conditions=(PodConditionInfo("ConfigIssue", "True"),)), "FailJob", True),
    (_failed_pod(137, conditions=DISRUPTED), "Ignore", False),
    (_failed_pod(127), "FailJob", True),
    (_failed_pod(137), "Ignore", False),
    (_failed_pod(3), None, True),
])
def test_seed_003_policy(pod, action, counted):
    m = match_pod_failure_policy(SEED_003_POLICY, pod)
    assert (m.action, m.count_failed) == (action, counted)


def test_seed_003_count_policy_counts_disruptions_and_fails_on_any_code():
    disrupted = _failed_pod(9, conditions=DISRUPTED)
    assert match_pod_failure_policy(SEED_003_COUNT_POLICY, disrupted).action == "Count"
    assert match_pod_failure_policy(SEED_003_COUNT_POLICY, _failed_pod(9)).action == "FailJob"


def test_seed_004_policy_and_messages():
    m = match_pod_failure_policy(SEED_004_POLICY, _failed_pod(3, name="p1"))
    assert m.action == "FailJob"
    assert m.message == ("Container main for pod ns/p1 failed with exit code 3 "
                         "matching FailJob rule at index 0")
    assert match_pod_failure_policy(SEED_004_POLICY, _failed_pod(42)).action is None
    m = match_pod_failure_policy(SEED_004_POLICY, _failed_pod(42, conditions=DISRUPTED, name="p2"))
    assert m.action == "Ignore"
    assert m.message == "Pod ns/p2 has condition DisruptionTarget matching Ignore rule at index 1"


def test_exit_code_rule_container_name_and_init_containers():
    from .builders import exit_rule
    rules = (exit_rule("FailJob", "In", [5], container="setup"),)
    assert match_pod_failure_policy(rules, _failed_pod(5, container="setup", init=True)).action == "FailJob"
    assert match_pod_failure_policy(rules, _failed_pod(5, container="main")).action is None


def test_exit_code_zero_never_matches_not_in():
    from .builders import exit_rule
    rules = (exit_rule("FailJob", "NotIn", [1]),)
    assert match_pod_failure_policy(rules, _failed_pod(0)).action is None


def test_fail_job_rule_fails_job_with_pod_failure_policy_reason():
    w = World(make_job(parallelism=2, completions=2, pod_failure_policy=SEED_004_POLICY))
    w.sync()
    a, b = w.active()
    w.run_pod(b)
    w.fail(a, exit_code=3)
    w.sync()
    ft = w.cond("FailureTarget")
    assert ft.reason == "PodFailurePolicy"
    assert ft.message.startswith(f"Container main for pod default/{a.name}")
    assert w.cond("Failed") is None  # b is still terminating
    w.finish_terminating()
    w.sync()
    failed = w.cond("Failed")
    assert (failed.reason, failed.message) == (ft.reason, ft.message)
    assert w.job.status.failed == 2


def test_ignored_failures_do_not_count_but_delay_recreation():
    w = World(make_job(parallelism=1, completions=1, backoff_limit=0, pod_failure_policy=SEED_004_POLICY))
    w.sync()
    w.fail(w.active()[0], exit_code=42, conditions=DISRUPTED)
    w.sync()
    assert w.job.status.failed == 0 and w.cond("FailureTarget") is None
    assert not w.active() and w.requeue_after == pytest.approx(10)
    w.advance(10)
    w.sync()
    assert len(w.active()) == 1


# --- podReplacementPolicy ----------------------------------------------------------------------

def test_terminating_or_failed_counts_deleted_running_pod_and_replaces_at_once():
    w = World(make_job(parallelism=1, completions=1))
    w.sync()
    pod = w.run_pod(w.active()[0])
    w.delete(pod)
    w.sync()
    assert w.job.status.failed == 1
    assert len(w.active()) == 0 and w.requeue_after == pytest.approx(10)  # back-off applies


def test_failed_policy_waits_for_terminating_pod():
    w = World(make_job(parallelism=1, completions=1, pod_replacement_policy="Failed"))
    w.sync()
    w.delete(w.run_pod(w.active()[0]))
    w.sync()
    assert w.job.status.failed == 0 and w.job.status.terminating == 1 and not w.active()
    w.finish_terminating()
    w.sync()
    assert w.job.status.failed == 1 and w.job.status.terminating == 0


# --- backoffLimitPerIndex ------------------------------------------------------------------------

def _by_index(w: World) -> dict[int, PodInfo]:
    return {int(p.annotations["batch.kubernetes.io/job-completion-index"]): p for p in w.active()}


def test_backoff_limit_per_index_annotations_and_failed_indexes():
    w = World(make_job(parallelism=2, completions=2, indexed=True, backoff_limit_per_index=1))
    w.sync()
    assert w.job.status.failed_indexes == ""
    first = _by_index(w)[0]
    assert first.annotations["batch.kubernetes.io/job-index-failure-count"] == "0"
    w.fail(first)
    w.sync()
    assert first.uid in w.pods and w.pods[first.uid].has_finalizer  # delayed until replaced
    w.advance(10)
    w.sync()
    second = _by_index(w)[0]
    assert second.annotations["batch.kubernetes.io/job-index-failure-count"] == "1"
    w.sync()
    assert first.uid not in w.pods or not w.pods[first.uid].has_finalizer
    w.fail(second)
    w.sync()
    assert w.job.status.failed_indexes == "0" and w.job.status.failed == 2
    assert 0 not in _by_index(w)
    w.succeed(_by_index(w)[1])
    w.sync()
    assert w.cond("Failed").reason == "FailedIndexes"
    assert w.job.status.completed_indexes == "1"


def test_max_failed_indexes_exceeded_fails_at_once():
    w = World(make_job(parallelism=3, completions=3, indexed=True, backoff_limit_per_index=0,
                       max_failed_indexes=0))
    w.sync()
    w.fail(_by_index(w)[1])
    w.sync()
    assert w.cond("FailureTarget").reason == "MaxFailedIndexesExceeded"


def test_fail_index_action_and_ignored_count_annotation():
    rules = (cond_rule("Ignore", "DisruptionTarget"), cond_rule("FailIndex", "ConfigIssue"))
    w = World(make_job(parallelism=2, completions=2, indexed=True, backoff_limit_per_index=3,
                       pod_failure_policy=rules))
    w.sync()
    w.fail(_by_index(w)[0], conditions=DISRUPTED)
    w.fail(_by_index(w)[1], conditions=(PodConditionInfo("ConfigIssue", "True"),))
    w.sync()
    assert w.job.status.failed_indexes == "1" and w.job.status.failed == 1
    w.advance(10)
    w.sync()
    repl = _by_index(w)[0]
    assert repl.annotations["batch.kubernetes.io/job-index-ignored-failure-count"] == "1"
    assert repl.annotations["batch.kubernetes.io/job-index-failure-count"] == "0"


def test_failed_pod_of_a_succeeded_index_is_not_held_back():
    # getPodsWithDelayedDeletionPerIndex skips succeeded indexes: once the replacement of index 0
    # succeeded, the earlier failed pod's finalizer is removed and the failure counted at once.
    w = World(make_job(parallelism=2, completions=2, indexed=True, backoff_limit_per_index=2))
    w.sync()
    first = _by_index(w)[0]
    w.fail(first)
    w.sync()
    w.advance(10)
    w.sync()  # the replacement of index 0 is created in this sync
    second = _by_index(w)[0]
    assert w.pods[first.uid].has_finalizer  # held: the replacement was not seen active yet
    w.succeed(second)
    w.sync()
    assert not w.pods.get(first.uid) or not w.pods[first.uid].has_finalizer
    assert w.job.status.failed == 1 and w.job.status.completed_indexes == "0"


def test_finish_time_includes_sidecars_which_end_last():
    # backoff_utils.go getFinishTimeFromContainers: with SidecarContainers (GA 1.33) the restartable
    # init containers' ends count too; a sidecar still running means "no container end" -> the
    # Ready=False transition. Plain init containers are not looked at.
    from kbatch.controllers.job.classification import finish_time, sidecar_names

    template = {"spec": {"initContainers": [{"name": "setup"}, {"name": "proxy", "restartPolicy": "Always"}],
                         "containers": [{"name": "main"}]}}
    sidecars = sidecar_names(make_job(template=template))
    assert sidecars == frozenset({"proxy"})
    ready_false = (PodConditionInfo("Ready", "False", T0 + timedelta(seconds=3)),)
    main = (ContainerInfo("main", 0, 1, T0 + timedelta(seconds=5)),)
    setup = ContainerInfo("setup", 0, 0, T0 + timedelta(seconds=1))
    ended = PodInfo("p", "u", phase="Failed", conditions=ready_false, containers=main,
                    init_containers=(setup, ContainerInfo("proxy", 0, 137, T0 + timedelta(seconds=8))))
    assert finish_time(ended, sidecars) == T0 + timedelta(seconds=8)
    assert finish_time(ended) == T0 + timedelta(seconds=5)  # no sidecars declared
    running = replace(ended, init_containers=(setup, ContainerInfo("proxy")))
    assert finish_time(running, sidecars) == T0 + timedelta(seconds=3)
