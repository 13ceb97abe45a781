"""Invariants of the JobSet decision over random specs and random child outcomes (hypothesis).

* restarts never exceed ``maxRestarts`` unless an ``...AndIgnoreMaxRestarts`` action fired;
* at most one terminal condition, and a terminal JobSet stays as it ended;
* ``Completed`` is set exactly when the success policy (All / Any over the targets) holds for the
  current attempt's Jobs, and never while a current Job has failed;
* children's names and labels are a function of the spec (:func:`build_job`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api import jobset_constants as c
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset import FailureRule, Gates, RJob, build_job

from .world import World, make_jobset

_ACTIONS = c.FAILURE_ACTIONS
_REASONS = ("BackoffLimitExceeded", "PodFailurePolicy", "DeadlineExceeded")


@st.composite
def jobsets(draw: Any) -> tuple[Any, Gates]:
    names = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True))
    rjobs = tuple(RJob(n, group_name=draw(st.sampled_from(["default", "g"])),
                       replicas=draw(st.integers(0, 3)), parallelism=1, completions=1) for n in names)
    operator = draw(st.sampled_from([c.OPERATOR_ALL, c.OPERATOR_ANY]))
    targets = tuple(draw(st.lists(st.sampled_from(names), unique=True, max_size=2)))
    policy = draw(st.booleans())
    rules = tuple(FailureRule(f"r{i}", draw(st.sampled_from(_ACTIONS)),
                              tuple(draw(st.lists(st.sampled_from(_REASONS), unique=True, max_size=1))),
                              (), tuple(draw(st.lists(st.sampled_from(names), unique=True, max_size=1))))
                  for i in range(draw(st.integers(0, 3)))) if policy else ()
    strategy = draw(st.sampled_from([c.RECREATE, c.BLOCKING_RECREATE]))
    js = make_jobset(*rjobs, success_operator=operator, success_targets=targets, failure_policy=policy,
                     max_restarts=draw(st.integers(0, 3)), restart_strategy=strategy, rules=rules)
    return js, Gates(restart_job=True)


_STEPS = st.lists(st.tuples(st.sampled_from(["ready", "succeed", "fail", "gc", "sync"]), st.integers(0, 8),
                            st.sampled_from(_REASONS)), max_size=30)


def _current(w: World) -> list[Any]:
    """The current attempt's Jobs: the set's restart attempt and, with RestartJob, the Job's own."""
    status = w.js.status

    def target(job: Any) -> int:
        entry = status.rjob(job.rjob)
        restarts = entry.job_restarts if entry is not None and entry.job_restarts else ()
        return restarts[int(job.job_index)] if int(job.job_index) < len(restarts) else 0

    return [j for j in w.jobs.values() if not j.deleting and j.restart_attempt == str(status.restarts)
            and (j.job_restart_attempt is None or int(j.job_restart_attempt) >= target(j))]


def _policy_holds(w: World) -> bool:
    """Some current Job succeeded, and as many targeted ones as the operator asks (Any: 1; All: every
    replica of the targets, which may be 0: then any success completes the set, as upstream)."""
    js = w.js
    targeted = [r for r in js.replicated_jobs if not js.success_targets or r.name in js.success_targets]
    succeeded = [j for j in _current(w) if j.finished == "Complete"]
    done = sum(1 for j in succeeded if any(j.rjob == r.name for r in targeted))
    expected = 1 if js.success_operator == c.OPERATOR_ANY else sum(r.replicas for r in targeted)
    return bool(succeeded) and done >= expected


@settings(max_examples=150, deadline=None)
@given(jobsets(), _STEPS)
def test_restart_accounting_terminal_conditions_and_success_policy(spec: tuple[Any, Gates],
                                                                 steps: list[tuple[str, int, str]]) -> None:
    js, gates = spec
    w = World(js, gates)
    w.sync()
    ignoring = any(r.action in (c.RESTART_JOBSET_IGNORE_MAX, c.RESTART_JOB_IGNORE_MAX) for r in js.rules)
    terminal = None
    for action, index, reason in steps:
        live = sorted(n for n, j in w.jobs.items() if not j.finished and not j.deleting)
        if action == "gc":
            w.gc()
        elif action in ("ready", "succeed", "fail") and live:
            name = live[index % len(live)]
            if action == "ready":
                w.ready(name)
            elif action == "succeed":
                w.succeed(name)
            else:
                w.fail(name, reason)
        had_failure = any(j.finished == "Failed" for j in _current(w))
        holds = _policy_holds(w) and not had_failure
        was_finished = w.js.finished
        plan = w.sync()
        st_ = w.js.status
        # restarts: counted ones never pass maxRestarts; uncounted ones only with an IgnoreMax rule
        counted = st_.restarts_count_towards_max + sum(sum(s.job_restarts_count_towards_max or ())
                                                       for s in st_.replicated_jobs_status)
        assert counted <= js.max_restarts
        assert st_.restarts == st_.restarts_count_towards_max or ignoring
        # one terminal condition, kept once set
        trues = [x.type for x in st_.conditions if x.type in (c.COMPLETED, c.FAILED) and x.status == "True"]
        assert len(trues) <= 1
        if trues:
            assert st_.terminal_state == trues[0]
            terminal = terminal or trues[0]
            assert trues[0] == terminal
        # Completed exactly when the success policy holds (before any failure of this attempt)
        if not was_finished and not plan.error:
            assert w.js.status.is_true(c.COMPLETED) == holds


_LABELED = (c.JOBSET_NAME_KEY, c.JOBSET_UID_KEY, c.REPLICATED_JOB_NAME_KEY, c.RESTARTS_KEY,
            c.REPLICATED_JOB_REPLICAS_KEY, c.GLOBAL_REPLICAS_KEY, c.JOB_INDEX_KEY, c.JOB_KEY,
            c.JOB_GLOBAL_INDEX_KEY, c.GROUP_NAME_KEY, c.GROUP_REPLICAS_KEY, c.JOB_GROUP_INDEX_KEY)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["x", "y"]), st.integers(0, 4)), min_size=1, max_size=4),
       st.integers(0, 5))
def test_child_names_and_labels_are_a_function_of_the_spec(rjobs: list[tuple[str, int]],
                                                           restarts: int) -> None:
    spec = [{"name": f"rj{i}", "groupName": group, "replicas": replicas,
             "template": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}}
            for i, (group, replicas) in enumerate(rjobs)]
    js = JobSet.model_validate({"metadata": {"name": "js", "namespace": "ns", "uid": "u"},
                                "spec": {"replicatedJobs": spec}, "status": {"restarts": restarts}})
    jobs = [build_job(js, i, idx) for i, (_, replicas) in enumerate(rjobs) for idx in range(replicas)]
    total = sum(r for _, r in rjobs)
    assert sorted(int(j.metadata.labels[c.JOB_GLOBAL_INDEX_KEY]) for j in jobs) == list(range(total))
    for group in ("x", "y"):
        members = [j for j in jobs if j.metadata.labels[c.GROUP_NAME_KEY] == group]
        indexes = sorted(int(j.metadata.labels[c.JOB_GROUP_INDEX_KEY]) for j in members)
        assert indexes == list(range(len(members)))
        assert all(j.metadata.labels[c.GROUP_REPLICAS_KEY] == str(len(members)) for j in members)
    for job in jobs:
        labels, annotations = job.metadata.labels, job.metadata.annotations
        rj, idx = labels[c.REPLICATED_JOB_NAME_KEY], labels[c.JOB_INDEX_KEY]
        assert job.name == f"js-{rj}-{idx}"
        assert labels[c.JOB_KEY] == hashlib.sha1(f"ns/{job.name}".encode()).hexdigest()
        assert labels[c.RESTARTS_KEY] == str(restarts) and labels[c.GLOBAL_REPLICAS_KEY] == str(total)
        pod = job.spec.template.metadata
        for key in _LABELED:
            assert labels[key] == annotations[key] == pod.labels[key] == pod.annotations[key]
        assert job.spec.template.spec.subdomain is None  # no network: DNS hostnames off
        assert job.metadata.owner_references[0].uid == "u" and job.spec.suspend is False
    assert [j.to_dict() for j in jobs] == [build_job(js, i, idx).to_dict()
                                           for i, (_, n) in enumerate(rjobs) for idx in range(n)]
