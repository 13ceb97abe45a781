"""Job status validation (validation.go validateJobStatus / ValidateJobStatusUpdate, with the
JobManagedBy-era options of pkg/registry/batch/job/strategy.go)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import Job, JobStatus
from kbatch.api.strategies.batch import JobStrategy

STRATEGY = JobStrategy()
T0, T1 = "2024-05-01T10:00:00Z", "2024-05-01T11:00:00Z"


def job(status: dict[str, Any] | None = None, **spec: Any) -> Job:
    body = {
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}},
        **spec,
    }
    j = Job.from_dict({"metadata": {"name": "j", "uid": "u"}, "spec": body})
    STRATEGY.default(j)
    STRATEGY.prepare_for_create(j)
    j.status = JobStatus.model_validate(status) if status is not None else None
    return j


def cond(type_: str, status: str = "True") -> dict[str, str]:
    return {"type": type_, "status": status}


def status_errors(old: Job, new_status: dict[str, Any]) -> list[str]:
    new = old.clone()
    new.status = JobStatus.model_validate(new_status)
    return [str(e) for e in STRATEGY.validate_status_update(new, old)]


INDEXED = {"completionMode": "Indexed", "completions": 4, "parallelism": 2}


def test_controller_progression_is_accepted() -> None:
    old = job()
    steps = [
        {"startTime": T0, "active": 1, "ready": 0, "terminating": 0, "uncountedTerminatedPods": {}},
        {"startTime": T0, "active": 0, "ready": 0, "uncountedTerminatedPods": {"succeeded": ["p1"]}},
        {
            "startTime": T0,
            "succeeded": 1,
            "ready": 0,
            "uncountedTerminatedPods": {},
            "conditions": [cond("SuccessCriteriaMet")],
        },
        {
            "startTime": T0,
            "completionTime": T1,
            "succeeded": 1,
            "ready": 0,
            "uncountedTerminatedPods": {},
            "conditions": [cond("SuccessCriteriaMet"), cond("Complete")],
        },
    ]
    for step in steps:
        assert status_errors(old, step) == [], step
        old = old.clone()
        old.status = JobStatus.model_validate(step)


def test_failure_progression_is_accepted() -> None:
    old = job({"startTime": T0, "failed": 7, "conditions": [cond("FailureTarget")]})
    done = {"startTime": T0, "failed": 7, "conditions": [cond("FailureTarget"), cond("Failed")]}
    assert status_errors(old, done) == []


@pytest.mark.parametrize(
    ("old_status", "new_status", "spec", "want"),
    [
        ({}, {"active": -1}, {}, "status.active: Invalid value: -1: must be greater than or equal to 0"),
        ({}, {"ready": -1}, {}, "status.ready: Invalid value: -1: must be greater than or equal to 0"),
        (
            {},
            {"terminating": -1},
            {},
            "status.terminating: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            {"failed": 2},
            {"failed": 1},
            {},
            "status.failed: Invalid value: 1: cannot decrease the failed counter",
        ),
        (
            {"succeeded": 2},
            {"succeeded": 1},
            {},
            "status.succeeded: Invalid value: 1: cannot decrease the succeeded counter",
        ),
        (
            {"startTime": T0, "conditions": [cond("FailureTarget"), cond("Failed")]},
            {"startTime": T0, "conditions": [cond("FailureTarget")]},
            {},
            "status.conditions: Invalid value: cannot disable the terminal Failed=True condition",
        ),
        (
            {},
            {"startTime": T0, "conditions": [cond("Failed")]},
            {},
            "status.conditions: Invalid value: cannot set Failed=True condition without the "
            "FailureTarget=true condition",
        ),
        (
            {},
            {"startTime": T0, "conditions": [cond("Complete")]},
            {},
            "status.completionTime: Required value: completionTime is required for Complete jobs",
        ),
        (
            {},
            {"startTime": T0, "completionTime": T1, "conditions": [cond("Complete")]},
            {},
            "status.conditions: Invalid value: cannot set Complete=True condition without the "
            "SuccessCriteriaMet=true "
            "condition",
        ),
        (
            {},
            {
                "startTime": T0,
                "completionTime": T1,
                "conditions": [
                    cond("SuccessCriteriaMet"),
                    cond("Complete"),
                    cond("FailureTarget"),
                    cond("Failed"),
                ],
            },
            {},
            "status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions",
        ),
        (
            {},
            {"completionTime": T1},
            {},
            'status.completionTime: Invalid value: "2024-05-01T11:00:00Z": cannot set completionTime '
            'when there is no '
            "Complete=True condition",
        ),
        (
            {},
            {
                "startTime": T1,
                "completionTime": T0,
                "conditions": [cond("SuccessCriteriaMet"), cond("Complete")],
            },
            {},
            'status.completionTime: Invalid value: "2024-05-01T10:00:00Z": completionTime cannot be set '
            'before startTime',
        ),
        (
            {},
            {"active": 1, "conditions": [cond("FailureTarget"), cond("Failed")]},
            {},
            "status.active: Invalid value: 1: active>0 is invalid for finished job",
        ),
        (
            {},
            {"conditions": [cond("FailureTarget"), cond("Failed")]},
            {},
            "status.startTime: Required value: startTime is required for finished job",
        ),
        (
            {},
            {"active": 1, "ready": 2},
            {},
            "status.ready: Invalid value: 2: cannot set more ready pods than active",
        ),
        (
            {"startTime": T0},
            {},
            {},
            "status.startTime: Required value: startTime cannot be removed for unsuspended job",
        ),
        (
            {},
            {"uncountedTerminatedPods": {"succeeded": ["a", ""], "failed": ["a"]}},
            {},
            'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty',
        ),
        (
            {},
            {"uncountedTerminatedPods": {"succeeded": ["a"], "failed": ["a"]}},
            {},
            'status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"',
        ),
        (
            {},
            {"completedIndexes": "0-4"},
            INDEXED,
            'status.completedIndexes: Invalid value: "0-4": error parsing completedIndexes: too large '
            'index: "4"',
        ),
        (
            {},
            {"completedIndexes": "0"},
            {},
            'status.completedIndexes: Invalid value: "0": cannot set non-empty completedIndexes when '
            'non-indexed '
            "completion mode",
        ),
        (
            {},
            {"failedIndexes": "1"},
            INDEXED,
            'status.failedIndexes: Invalid value: "1": cannot set non-null failedIndexes when '
            'backoffLimitPerIndex is null',
        ),
        (
            {},
            {"completedIndexes": "0-2", "failedIndexes": "2,3"},
            {**INDEXED, "backoffLimitPerIndex": 1},
            'status.failedIndexes: Invalid value: "2,3": failedIndexes and completedIndexes overlap at '
            'index: 2',
        ),
        (
            {"conditions": [cond("SuccessCriteriaMet")]},
            {},
            INDEXED,
            "status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition",
        ),
    ],
)
def test_invalid_status_updates(old_status: dict, new_status: dict, spec: dict, want: str) -> None:
    assert want in status_errors(job(old_status, **spec), new_status)


def test_indexed_elastic_jobs_may_decrease_succeeded() -> None:
    old = job({"succeeded": 3, "completedIndexes": "0-2"}, **{**INDEXED, "parallelism": 4})
    shrunk = old.clone()
    shrunk.spec.completions = shrunk.spec.parallelism = 2
    shrunk.status = JobStatus(succeeded=2, completed_indexes="0,1")
    assert STRATEGY.validate_status_update(shrunk, old) == []


def test_unchanged_inconsistent_fields_are_tolerated() -> None:
    """Rules bound to a field apply only when it changes (the controller may repair later)."""
    old = job({"completedIndexes": "0-3"}, **INDEXED)
    old.spec.completions = old.spec.parallelism = 2  # scaled down: completedIndexes now too large
    assert status_errors(old, {"completedIndexes": "0-3", "active": 1}) == []


def test_start_time_may_move_when_resuming() -> None:
    """kubernetes#134769: Suspended True -> False lets the controller reset startTime."""
    old = job({"startTime": "2025-01-01T00:00:00Z", "conditions": [cond("Suspended")]})
    new_status = {"startTime": "2025-01-01T00:05:00Z", "conditions": [cond("Suspended", "False")]}
    assert status_errors(old, new_status) == []


def test_start_time_may_not_move_on_a_running_job() -> None:
    old = job({"startTime": "2025-01-01T00:00:00Z"})
    errors = status_errors(old, {"startTime": "2025-01-01T00:05:00Z"})
    assert errors == ["status.startTime: Required value: startTime cannot be removed for unsuspended job"]


def test_start_time_may_not_move_when_the_suspended_condition_is_dropped() -> None:
    """Resuming is ``Suspended`` True -> an explicit False (strategy.go ``isJobResuming`` uses
    ``IsConditionFalse``, kubernetes#134769): a write that drops the condition is no resume."""
    old = job({"startTime": "2025-01-01T00:00:00Z", "conditions": [cond("Suspended")]})
    errors = status_errors(old, {"startTime": "2025-01-01T00:05:00Z"})
    assert errors == ["status.startTime: Required value: startTime cannot be removed for unsuspended job"]
