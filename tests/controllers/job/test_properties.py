"""Property tests of the pure core: random Job specs and random pod outcomes, invariants after each
sync. The same invariants are checked end-to-end in conformance/job/test_properties.py."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.batch_indexes import count_indexes, iter_indexes, parse_indexes_lenient
from kbatch.controllers.job import PodConditionInfo

from .builders import SEED_003_POLICY, SEED_004_POLICY, make_job
from .world import World

DISRUPTED = (PodConditionInfo("DisruptionTarget", "True"),)

specs = st.fixed_dictionaries({
    "parallelism": st.integers(0, 4),
    "completions": st.one_of(st.none(), st.integers(0, 5)),
    "indexed": st.booleans(),
    "backoff_limit": st.integers(0, 3),
    "policy": st.sampled_from([None, SEED_003_POLICY, SEED_004_POLICY]),
    "per_index": st.one_of(st.none(), st.integers(0, 2)),
    "replacement": st.sampled_from([None, "Failed"]),
})

steps = st.lists(st.tuples(
    st.sampled_from(["succeed", "fail", "disrupt", "delete", "suspend", "resume", "scale", "wait",
                     "terminate"]),
    st.integers(0, 7), st.sampled_from([1, 2, 3, 42, 137])), max_size=25)


def _job(spec: dict):
    indexed = spec["indexed"] and spec["completions"] is not None
    policy = spec["policy"]
    per_index = spec["per_index"] if indexed else None
    kw = dict(parallelism=spec["parallelism"], completions=spec["completions"], indexed=indexed,
              backoff_limit=spec["backoff_limit"], pod_failure_policy=policy)
    if per_index is not None:
        kw["backoff_limit_per_index"] = per_index
    if policy is None and spec["replacement"]:
        kw["pod_replacement_policy"] = spec["replacement"]
    return make_job(**kw)


def _step(w: World, action: str, n: int, code: int) -> None:
    active = w.active()
    pod = active[n % len(active)] if active else None
    if action == "succeed" and pod:
        w.succeed(w.run_pod(pod))
    elif action == "fail" and pod:
        w.fail(w.run_pod(pod), exit_code=code)
    elif action == "disrupt" and pod:
        w.fail(w.run_pod(pod), exit_code=code, conditions=DISRUPTED)
    elif action == "delete" and pod:
        w.delete(w.run_pod(pod))
    elif action == "suspend":
        w.job = replace(w.job, suspend=True)
    elif action == "resume":
        w.job = replace(w.job, suspend=False)
    elif action == "scale" and not w.job.indexed:
        w.job = replace(w.job, parallelism=n % 5)
    elif action == "terminate":
        w.finish_terminating()
    elif action == "wait":
        w.advance(n * 30)


def _check(w: World, prev_failed: int, prev_terminal: set[str]) -> None:
    st_ = w.job.status
    active = w.active()
    terminal = {c.type for c in st_.conditions if c.type in ("Complete", "Failed") and c.status == "True"}
    assert len(terminal) <= 1, st_.conditions
    assert prev_terminal <= terminal, "a terminal condition was removed"
    assert st_.failed >= prev_failed, "failed decreased"
    # Upstream keeps what runs once a work-queue Job has a success (wantActive = active).
    work_queue_tail = w.job.completions is None and st_.succeeded > 0
    if not terminal and not work_queue_tail:
        assert len(active) <= w.job.parallelism
    assert st_.active == len(active)
    # status.ready counts the Ready active pods (countReadyPods, minus the ready ones this sync
    # deleted): never above active, as the API's status validation requires.
    assert (st_.ready or 0) == sum(1 for p in active if p.ready) <= st_.active
    if w.job.indexed:
        done = list(iter_indexes(parse_indexes_lenient(st_.completed_indexes, w.job.completions or 0)))
        assert len(done) == len(set(done)) == st_.succeeded
        if st_.failed_indexes:
            failed = set(iter_indexes(parse_indexes_lenient(st_.failed_indexes, w.job.completions or 0)))
            assert not failed & set(done)
            assert count_indexes(parse_indexes_lenient(st_.failed_indexes, 10**6)) <= st_.failed
    if terminal:
        assert st_.active == 0 and (st_.terminating or 0) == 0 and not w.active()
        assert not st_.uncounted_failed and not st_.uncounted_succeeded
    ft = st_.condition("FailureTarget")
    if "Failed" in terminal and ft is not None:
        assert st_.condition("Failed").reason == ft.reason


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs, steps)
def test_invariants_hold_after_every_sync(spec, plan):
    w = World(_job(spec))
    w.sync()
    prev_failed, prev_terminal = 0, set()
    for action, n, code in plan:
        if w.job.finished:
            break
        _step(w, action, n, code)
        w.sync()
        _check(w, prev_failed, prev_terminal)
        prev_failed = w.job.status.failed
        prev_terminal = {c.type for c in w.job.status.conditions
                         if c.type in ("Complete", "Failed") and c.status == "True"}
    if w.job.suspend and not w.job.finished:
        w.finish_terminating()
        w.sync()
        assert not w.active() and w.job.status.active == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.lists(st.sampled_from([1, 42, 137]), min_size=1, max_size=6))
def test_ignored_failures_never_count(parallelism, codes):
    # Seed 003: Ignore on DisruptionTarget comes before the exit-code FailJob rule.
    w = World(make_job(parallelism=parallelism, completions=parallelism, backoff_limit=0,
                       pod_failure_policy=SEED_003_POLICY))
    w.sync()
    for code in codes:
        for pod in w.active()[:1]:
            w.fail(w.run_pod(pod), exit_code=code, conditions=DISRUPTED)
        w.sync()
        w.advance(700)
        w.sync()
    assert w.job.status.failed == 0 and w.cond("Failed") is None


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2), st.sampled_from([1, 2, 126, 127, 128, 139]))
def test_fail_job_match_always_ends_failed_with_pod_failure_policy(parallelism, which, code):
    w = World(make_job(parallelism=parallelism, completions=parallelism, backoff_limit=6,
                       pod_failure_policy=SEED_003_POLICY))
    w.sync()
    pods = [w.run_pod(p) for p in w.active()]
    w.fail(pods[which % len(pods)], exit_code=code)
    for _ in range(3):
        w.sync()
        w.finish_terminating()
    assert w.cond("Failed").reason == "PodFailurePolicy"
