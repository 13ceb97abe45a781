"""KEP-5440: a suspended Job's template may change its containers' resources
(``MutablePodResourcesForSuspendedJobs``) and, once the Job is safely suspended, its scheduling
directives (``MutableSchedulingDirectivesForSuspendedJobs``); both gates beta and on since 1.36.

"Safely suspended" is the KEP's rule: ``spec.suspend``, no active pod, and either never started or
marked ``Suspended=True`` by the Job controller (the never-started case is kubernetes#139287). With
the gates off the 1.34 rule stands: scheduling directives only, suspended and never started."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job, JobStatus
from kbatch.api.features import FeatureGates
from kbatch.api.gates import (
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS,
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS,
)
from kbatch.api.strategies.batch import JobStrategy
from kbatch.families.batch import BATCH

UID = "1a2b3c4d-0000-4000-8000-000000000001"
STARTED = "2026-01-01T00:00:00Z"


def _strategy(**gates: bool) -> JobStrategy:
    return JobStrategy().for_gates(FeatureGates(BATCH.feature_gates, gates))  # type: ignore[no-any-return]


ON = _strategy()
OFF = _strategy(**{MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS: False,
                   MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS: False})


def _job(suspend: bool, *, started: bool = False, marked: bool = False, active: int = 0) -> Job:
    pod = {"restartPolicy": "Never",
           "initContainers": [{"name": "setup", "image": "busybox",
                               "resources": {"requests": {"cpu": "100m"}}}],
           "containers": [{"name": "main", "image": "busybox",
                           "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"},
                                         "limits": {"nvidia.com/gpu": "1"}}}]}
    job = Job.from_dict({"metadata": {"name": "train", "namespace": "default", "uid": UID},
                         "spec": {"suspend": suspend, "template": {"spec": pod}}})
    ON.default(job)
    ON.prepare_for_create(job)
    conditions = [{"type": "Suspended", "status": "True", "reason": "JobSuspended",
                   "message": "Job suspended"}] if marked else None
    job.status = JobStatus.from_dict({k: v for k, v in (
        ("startTime", STARTED if started else None), ("active", active or None),
        ("conditions", conditions)) if v is not None})
    return job


def _edit(old: Job, change: str) -> Job:
    data = old.to_dict()
    pod = data["spec"]["template"]["spec"]
    main = pod["containers"][0]
    if change == "requests":
        main["resources"]["requests"] = {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "2"}
        main["resources"]["limits"] = {"nvidia.com/gpu": "2", "memory": "8Gi"}
    elif change == "init-requests":
        pod["initContainers"][0]["resources"] = {"limits": {"cpu": "1"}}
    elif change == "drop-resources":
        del main["resources"]
    elif change == "node-selector":
        pod["nodeSelector"] = {"cloud.google.com/gke-accelerator": "a100"}
    elif change == "image":
        main["image"] = "busybox:1.37"
    elif change == "pod-claims":
        pod["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    else:
        raise AssertionError(change)
    return Job.from_dict(data)


def _fields(strategy: JobStrategy, old: Job, change: str) -> list[str]:
    return [e.field for e in strategy.validate_update(_edit(old, change), old)]


@pytest.mark.parametrize("change", ["requests", "init-requests", "drop-resources"])
def test_a_suspended_job_that_never_started_takes_new_container_resources(change: str) -> None:
    assert _fields(ON, _job(True), change) == []


@pytest.mark.parametrize("change", ["requests", "node-selector"])
def test_a_job_suspended_after_it_ran_takes_changes_once_marked_and_without_active_pods(change: str) -> None:
    assert _fields(ON, _job(True, started=True, marked=True), change) == []
    # not yet marked by the Job controller, or a pod still active: the old template may still run
    assert _fields(ON, _job(True, started=True), change) == ["spec.template"]
    assert _fields(ON, _job(True, started=True, marked=True, active=1), change) == ["spec.template"]


@pytest.mark.parametrize("change", ["requests", "init-requests", "node-selector"])
def test_a_running_job_template_stays_immutable(change: str) -> None:
    assert _fields(ON, _job(False, started=True), change) == ["spec.template"]


@pytest.mark.parametrize("change", ["image", "pod-claims"])
def test_nothing_else_in_the_template_changes_while_suspended(change: str) -> None:
    """The KEP's non-goals: other container fields, and the pod's ``resourceClaims`` (a
    ResourceClaimTemplate is replaced, not edited)."""
    assert _fields(ON, _job(True), change) == ["spec.template"]


def test_resources_and_another_field_together_are_refused_whole() -> None:
    new = _edit(_job(True), "requests")
    new.spec.template.spec.containers[0].image = "other"
    assert [e.field for e in ON.validate_update(new, _job(True))] == ["spec.template"]


def test_with_the_gates_off_only_the_older_rule_remains() -> None:
    assert _fields(OFF, _job(True), "requests") == ["spec.template"]
    assert _fields(OFF, _job(True), "node-selector") == []
    assert _fields(OFF, _job(True, started=True, marked=True), "node-selector") == ["spec.template"]


def test_the_resource_gate_alone_does_not_widen_the_scheduling_rule() -> None:
    only_resources = _strategy(**{MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS: False})
    old = _job(True, started=True, marked=True)
    assert _fields(only_resources, old, "requests") == []
    assert _fields(only_resources, old, "node-selector") == ["spec.template"]


def _expected(change: str, suspend: bool, started: bool, marked: bool, active: int, gates_on: bool) -> bool:
    """The rule, written from the KEP's text rather than from the code under test."""
    if change in ("image", "pod-claims"):
        return False
    if not suspend:
        return False
    safely = active == 0 and (not started or marked)
    if change == "node-selector":
        return safely if gates_on else not started
    return gates_on and safely


@given(change=st.sampled_from(["requests", "init-requests", "drop-resources", "node-selector", "image",
                               "pod-claims"]),
       suspend=st.booleans(), started=st.booleans(), marked=st.booleans(),
       active=st.integers(0, 2), gates_on=st.booleans())
def test_which_template_updates_are_accepted(change: str, suspend: bool, started: bool, marked: bool,
                                             active: int, gates_on: bool) -> None:
    old = _job(suspend, started=started, marked=marked, active=active)
    got = _fields(ON if gates_on else OFF, old, change)
    assert (got == []) == _expected(change, suspend, started, marked, active, gates_on), got
    assert got in ([], ["spec.template"])
