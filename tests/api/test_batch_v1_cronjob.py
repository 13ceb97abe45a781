"""CronJob validation (validation.go ValidateCronJobCreate / ValidateCronJobUpdate)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import CronJob
from kbatch.api.strategies.batch import CronJobStrategy

STRATEGY = CronJobStrategy()
POD = {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}


def cronjob(name: str = "hello", job_spec: dict[str, Any] | None = None, **spec: Any) -> CronJob:
    body = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": POD, **(job_spec or {})}}, **spec}
    cj = CronJob.from_dict({"metadata": {"name": name}, "spec": body})
    STRATEGY.default(cj)
    return cj


def errors(cj: CronJob) -> list[str]:
    return [str(e) for e in STRATEGY.validate(cj)]


@pytest.mark.parametrize(
    "schedule", ["* * * * *", "0 0 1 1 *", "@hourly", "@every 90m", "15 3 * JAN-MAR mon-fri", "0 */2 ? * ?"]
)
def test_valid_schedules(schedule: str) -> None:
    assert errors(cronjob(schedule=schedule)) == []


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ({"schedule": ""}, "spec.schedule: Required value"),
        (
            {"schedule": "* * *"},
            'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]',
        ),
        (
            {"schedule": "61 * * * *"},
            'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
        ),
        (
            {"schedule": "TZ=UTC 0 * * * *"},
            'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use '
            'timeZone field '
            "instead",
        ),
        ({"timeZone": ""}, 'spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string'),
        (
            {"timeZone": "Mars/Olympus"},
            'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
        ),
        (
            {"timeZone": "../etc/passwd"},
            'spec.timeZone: Invalid value: "../etc/passwd": unknown time zone ../etc/passwd',
        ),
        (
            {"timeZone": "Local"},
            'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in '
            "https://www.iana.org/time-zones",
        ),
        (
            {"startingDeadlineSeconds": -1},
            "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            {"concurrencyPolicy": "Sometimes"},
            'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", '
            '"Forbid", "Replace"',
        ),
        (
            {"successfulJobsHistoryLimit": -1},
            "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            {"failedJobsHistoryLimit": -1},
            "spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
        ),
    ],
)
def test_invalid_cronjob_spec(spec: dict[str, Any], want: str) -> None:
    assert want in errors(cronjob(**spec))


def test_concurrency_policy_required_without_defaulting() -> None:
    cj = CronJob.from_dict(
        {
            "metadata": {"name": "x"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": POD}}},
        }
    )
    assert "spec.concurrencyPolicy: Required value" in errors(cj)


@pytest.mark.parametrize(
    ("job_spec", "want"),
    [
        (
            {"selector": {"matchLabels": {"a": "b"}}},
            'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will '
            'be auto-generated',
        ),
        (
            {"manualSelector": True},
            'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
        ),
        (
            {"parallelism": -1},
            "spec.jobTemplate.spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            {"template": {"spec": {"restartPolicy": "Always", "containers": [{"name": "c", "image": "i"}]}}},
            'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: '
            '"OnFailure", "Never"',
        ),
        (
            {"backoffLimitPerIndex": 1},
            "spec.jobTemplate.spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
        ),
    ],
)
def test_job_template_is_validated_like_a_job(job_spec: dict[str, Any], want: str) -> None:
    assert want in errors(cronjob(job_spec=job_spec))


def test_name_length_only_on_create() -> None:
    long = "c" * 53
    assert f'metadata.name: Invalid value: "{long}": must be no more than 52 characters' in errors(
        cronjob(long)
    )
    assert errors(cronjob("c" * 52)) == []
    old = cronjob(long)
    assert STRATEGY.validate_update(old.clone(), old) == []


def test_tz_in_schedule_is_tolerated_on_old_objects_only_without_time_zone() -> None:
    old = cronjob(schedule="CRON_TZ=UTC 0 * * * *")
    assert STRATEGY.validate_update(old.clone(), old) == []
    both = old.clone()
    both.spec.time_zone = "Europe/Berlin"
    got = [str(e) for e in STRATEGY.validate_update(both, old)]
    assert got == [
        'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or '
        'CRON_TZ '
        "in schedule"
    ]


def test_time_zone_is_checked_only_when_it_changes() -> None:
    old = cronjob(timeZone="Europe/Berlin")
    assert errors(old) == []
    renamed = old.clone()
    renamed.spec.time_zone = "Nowhere/Land"
    assert [e.field for e in STRATEGY.validate_update(renamed, old)] == ["spec.timeZone"]
