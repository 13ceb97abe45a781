"""Property checks over a Target: random Job specs and pod outcome sequences, invariants after each
step (the semantics the Job docs and KEPs imply). Kept small: each example runs a fresh target."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.job.driver import INDEX, active_pods, fail, job_manifest, run, succeed
from conformance.target import has_condition

SEED_004 = {"rules": [
    {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [40, 41, 42]}},
    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}

specs = st.fixed_dictionaries({
    "parallelism": st.integers(1, 3), "completions": st.integers(1, 4), "indexed": st.booleans(),
    "backoffLimit": st.integers(0, 2), "pfp": st.booleans(), "suspend": st.booleans()})
actions = st.lists(st.tuples(st.sampled_from(["succeed", "fail", "disrupt", "delete", "suspend",
                                              "resume", "wait"]),
                             st.integers(0, 5), st.sampled_from([1, 40, 137])), max_size=10)


def _terminal(job):
    return [t for t in ("Complete", "Failed") if has_condition(job, t)]


def _apply_action(target, name, action, n, code):
    pods = active_pods(target, name)
    pod = pods[n % len(pods)] if pods else None
    if action == "succeed" and pod:
        succeed(target, pod)
    elif action == "fail" and pod:
        fail(target, pod, code=code)
    elif action == "disrupt" and pod:
        fail(target, pod, code=code, conditions=("DisruptionTarget",))
    elif action == "delete" and pod:
        run(target, pod)
        target.delete("Pod", pod["metadata"]["name"])
    elif action in ("suspend", "resume"):
        target.patch("Job", name, {"spec": {"suspend": action == "suspend"}})
    target.advance(2 if action != "wait" else 30 * (n + 1))


def _check(target, name, seen):
    job = target.get("Job", name)
    st_ = job.get("status", {})
    terminal = _terminal(job)
    assert len(terminal) <= 1
    assert seen["terminal"] <= set(terminal), "terminal condition removed"
    assert st_.get("failed", 0) >= seen["failed"], "failed decreased"
    active = active_pods(target, name)
    if not terminal:
        assert len(active) <= job["spec"]["parallelism"]
    if job["spec"].get("completionMode") == "Indexed":
        idx = [p["metadata"]["annotations"][INDEX] for p in active]
        assert len(idx) == len(set(idx)), "two active pods for one index"
    if terminal:
        assert st_.get("active", 0) == 0 and st_.get("terminating", 0) == 0
    if "Failed" in terminal and has_condition(job, "FailureTarget"):
        ft = next(c for c in st_["conditions"] if c["type"] == "FailureTarget")
        assert next(c for c in st_["conditions"] if c["type"] == "Failed")["reason"] == ft["reason"]
    seen["terminal"] = set(terminal)
    seen["failed"] = st_.get("failed", 0)


@pytest.mark.needs_virtual_clock
@pytest.mark.plays_kubelet
@pytest.mark.semantic("invariants under random specs and pod outcomes (active<=parallelism, failed "
                      "monotonic, one sticky terminal condition, finished => active=terminating=0)",
                      source="job docs; KEP-3329/3939/4368; job_controller.go")
@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(specs, actions)
def test_random_outcomes_keep_invariants(fresh_targets, spec, plan):
    # derandomized and without an example database: a conformance run is reproducible and writes
    # nothing to the directory it runs in
    kw = {"parallelism": spec["parallelism"], "completions": spec["completions"],
          "backoffLimit": spec["backoffLimit"]}
    if spec["indexed"]:
        kw["completionMode"] = "Indexed"
    if spec["pfp"]:
        kw["podFailurePolicy"] = SEED_004
    with fresh_targets() as target:
        target.apply(job_manifest("prop", **kw))
        seen = {"terminal": set(), "failed": 0}
        for action, n, code in plan:
            _apply_action(target, "prop", action, n, code)
            _check(target, "prop", seen)
        job = target.get("Job", "prop")
        if job["spec"].get("suspend") and not _terminal(job):
            target.advance(5)
            assert not active_pods(target, "prop")
