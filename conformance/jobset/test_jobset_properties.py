"""Property checks over a Target: random JobSet specs and random child-Job outcomes, the invariants
after each step (kubernetes-sigs/jobset v0.12.0 ``failure_policy.go``, ``success_policy.go``,
``jobset_controller.go``). Kept small: each example runs a fresh target.

* restarts never exceed ``maxRestarts`` unless an ``...AndIgnoreMaxRestarts`` action fired;
* exactly one terminal condition once finished, never removed, matching ``terminalState``;
* ``Completed`` agrees with the success policy (All / Any over the targets) and the Jobs' states;
* children's names and labels are a function of the spec.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.job.driver import active_pods
from conformance.jobset.driver import finish, finished, jobs_of, jobset, label, rjob
from conformance.target import has_condition

ACTIONS = ("FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts")
specs = st.fixed_dictionaries({
    "replicas": st.lists(st.integers(1, 2), min_size=1, max_size=2),
    "operator": st.sampled_from(["All", "Any"]), "target_first": st.booleans(),
    "policy": st.booleans(), "max_restarts": st.integers(0, 2),
    "rules": st.lists(st.sampled_from(ACTIONS), max_size=2)})
steps = st.lists(st.tuples(st.sampled_from(["succeed", "fail", "wait"]), st.integers(0, 5)), max_size=6)


def _manifest(spec):
    rjobs = [rjob(f"r{i}", replicas=n) for i, n in enumerate(spec["replicas"])]
    extra = {"successPolicy": {"operator": spec["operator"],
                               **({"targetReplicatedJobs": ["r0"]} if spec["target_first"] else {})}}
    if spec["policy"]:
        extra["failurePolicy"] = {"maxRestarts": spec["max_restarts"], "rules": [
            {"name": f"rule{i}", "action": a} for i, a in enumerate(spec["rules"])]}
    return jobset("prop", *rjobs, **extra)


def _current(target, js):
    return jobs_of(target, "prop", str((js.get("status") or {}).get("restarts", 0)))


def _policy_holds(spec, jobs):
    targets = ["r0"] if spec["target_first"] else [f"r{i}" for i in range(len(spec["replicas"]))]
    done = [j for j in jobs if has_condition(j, "Complete")]
    matching = [j for j in done if label(j, "jobset.sigs.k8s.io/replicatedjob-name") in targets]
    expected = 1 if spec["operator"] == "Any" else sum(spec["replicas"][int(t[1:])] for t in targets)
    return bool(done) and len(matching) >= expected and not any(has_condition(j, "Failed") for j in jobs)


def _check_children(target, spec, js):
    total = sum(spec["replicas"])
    for job in _current(target, js):
        name = job["metadata"]["name"]
        rj = label(job, "jobset.sigs.k8s.io/replicatedjob-name")
        idx = label(job, "jobset.sigs.k8s.io/job-index")
        assert name == f"prop-{rj}-{idx}"
        ns = job["metadata"]["namespace"]
        assert label(job, "jobset.sigs.k8s.io/job-key") == hashlib.sha1(f"{ns}/{name}".encode()).hexdigest()
        assert label(job, "jobset.sigs.k8s.io/global-replicas") == str(total)
        offset = sum(spec["replicas"][:int(rj[1:])])
        assert label(job, "jobset.sigs.k8s.io/job-global-index") == str(offset + int(idx))


@pytest.mark.needs_virtual_clock
@pytest.mark.plays_kubelet
@pytest.mark.semantic("invariants under random specs and Job outcomes: restarts within maxRestarts unless "
                      "ignored, one sticky terminal condition, Completed iff the success policy holds, "
                      "children named and labelled from the spec",
                      source="kubernetes-sigs/jobset pkg/controllers/failure_policy.go, success_policy.go, "
                             "jobset_controller.go")
@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(specs, steps)
def test_random_outcomes_keep_invariants(fresh_targets, spec, plan):
    ignoring = any(a.endswith("IgnoreMaxRestarts") for a in spec["rules"]) if spec["policy"] else False
    with fresh_targets() as target:
        target.apply(_manifest(spec))
        terminal = None
        for action, n in plan:
            js = target.get("JobSet", "prop")
            live = [j["metadata"]["name"] for j in _current(target, js)
                    if not (has_condition(j, "Complete") or has_condition(j, "Failed"))
                    and active_pods(target, j["metadata"]["name"])]
            if action != "wait" and live and not finished(js):
                finish(target, live[n % len(live)], success=action == "succeed")
            target.advance(5 if action != "wait" else 30)
            js = target.get("JobSet", "prop")
            st_ = js.get("status") or {}
            if spec["policy"]:
                assert st_.get("restartsCountTowardsMax", 0) <= spec["max_restarts"]
                assert st_.get("restarts", 0) == st_.get("restartsCountTowardsMax", 0) or ignoring
            else:
                assert st_.get("restarts", 0) == 0
            trues = [t for t in ("Completed", "Failed") if has_condition(js, t)]
            assert len(trues) <= 1
            if trues:
                assert st_["terminalState"] == trues[0] and terminal in (None, trues[0])
                terminal = trues[0]
            current = _current(target, js)
            if not trues:  # settled: had the policy held, the JobSet would be Completed
                assert not _policy_holds(spec, current)
            elif terminal == "Completed":
                assert _policy_holds(spec, current)
            _check_children(target, spec, js)
