"""Upstream's CronJob validation tables, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/batch/validation/validation_test.go`` (same stored copy
as ``test_upstream_job_validation.py``): ``TestValidateCronJob`` (each success case is also a
no-op update; each error case also fails as an update, except the name length),
``TestValidateCronJobScheduleTZ`` and ``TestValidateCronJobSpec``. Objects that upstream's tables
start from but no 1.37 API server accepts (a ``TZ=`` schedule, an unknown time zone, both written
before those checks existed) are put in the store behind the server's back, as an older server
left them.

Not translated: the "spec.concurrencyPolicy: Required value" case, since ``SetDefaults_CronJob``
fills Allow before validation (checked below instead), and the update half of the name-length
case (no stored CronJob can have a longer name).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kbatch.api.batch_v1 import CronJob
from kbatch.apiserver import APIServer
from tests.api.upstream_batch import cronjob, first_error, rejected, server, template

HOSTNET = template(
    hostNetwork=True,
    containers=[{"name": "abc", "image": "image", "ports": [{"containerPort": 12345, "protocol": "TCP"}]}],
)

SUCCESS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "basic scheduled job": ({}, {}),
    "hostnet job": ({}, {"template": HOSTNET}),
    "non-standard scheduled": ({"schedule": "@hourly"}, {}),
    "correct timeZone value": ({"schedule": "0 * * * *", "timeZone": "Europe/Rome"}, {}),
}


@pytest.mark.parametrize(("spec", "job_spec"), SUCCESS.values(), ids=SUCCESS.keys())
def test_success_cases_are_created_and_updated(spec: dict[str, Any], job_spec: dict[str, Any]) -> None:
    srv = server()
    created = srv.create(cronjob(spec, job_spec))
    srv.update(created)  # a no-op update passes the same validation


JT = "spec.jobTemplate.spec"
ERRORS: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "spec.schedule: Invalid value": (
        {"schedule": "error"},
        {},
        'spec.schedule: Invalid value: "error": expected exactly 5 fields, found 1: [error]',
    ),
    "spec.schedule: Required value": ({"schedule": ""}, {}, "spec.schedule: Required value"),
    "spec.timeZone: timeZone must be nil or non-empty string": (
        {"schedule": "0 * * * *", "timeZone": ""},
        {},
        'spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string',
    ),
    "spec.timeZone: timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones": (
        {"schedule": "0 * * * *", "timeZone": "LOCAL"},
        {},
        'spec.timeZone: Invalid value: "LOCAL": timeZone must be an explicit time zone as defined in '
        "https://www.iana.org/time-zones",
    ),
    "spec.timeZone: unknown time zone (bad prefix)": (
        {"schedule": "0 * * * *", "timeZone": " Europe/Rome"},
        {},
        'spec.timeZone: Invalid value: " Europe/Rome": unknown time zone  Europe/Rome',
    ),
    "spec.timeZone: unknown time zone (bad name)": (
        {"schedule": "0 * * * *", "timeZone": "Europe/InvalidRome"},
        {},
        'spec.timeZone: Invalid value: "Europe/InvalidRome": unknown time zone Europe/InvalidRome',
    ),
    "spec.timeZone: unknown time zone (empty space)": (
        {"schedule": "0 * * * *", "timeZone": " "},
        {},
        'spec.timeZone: Invalid value: " ": unknown time zone  ',
    ),
    "spec.timeZone: unknown time zone (bad suffix)": (
        {"schedule": "0 * * * *", "timeZone": "Europe/Rome "},
        {},
        'spec.timeZone: Invalid value: "Europe/Rome ": unknown time zone Europe/Rome ',
    ),
    "spec.startingDeadlineSeconds:must be greater than or equal to 0": (
        {"startingDeadlineSeconds": -1},
        {},
        "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
    ),
    "spec.successfulJobsHistoryLimit: must be greater than or equal to 0": (
        {"successfulJobsHistoryLimit": -1},
        {},
        "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
    ),
    "spec.failedJobsHistoryLimit: must be greater than or equal to 0": (
        {"failedJobsHistoryLimit": -1},
        {},
        "spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
    ),
    "spec.jobTemplate.spec.parallelism:must be greater than or equal to 0": (
        {},
        {"parallelism": -1},
        f"{JT}.parallelism: Invalid value: -1: must be greater than or equal to 0",
    ),
    "spec.jobTemplate.spec.completions:must be greater than or equal to 0": (
        {},
        {"completions": -1},
        f"{JT}.completions: Invalid value: -1: must be greater than or equal to 0",
    ),
    "spec.jobTemplate.spec.activeDeadlineSeconds:must be greater than or equal to 0": (
        {},
        {"activeDeadlineSeconds": -1},
        f"{JT}.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
    ),
    "spec.jobTemplate.spec.selector: `selector` will be auto-generated": (
        {},
        {"selector": {"matchLabels": {"a": "b"}}},
        f'{JT}.selector: Invalid value: {{"matchLabels":{{"a":"b"}}}}: `selector` will be auto-generated',
    ),
    "spec.jobTemplate.spec.manualSelector: Unsupported value": (
        {},
        {"manualSelector": True},
        f"{JT}.manualSelector: Unsupported value: true",
    ),
    "spec.jobTemplate.spec.template.spec.restartPolicy: Required value": (
        {},
        {"template": template("Always")},
        f"{JT}.template.spec.restartPolicy: Required value",
    ),
    "spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value": (
        {},
        {"template": template("Invalid")},
        f"{JT}.template.spec.restartPolicy: Unsupported value",
    ),
    "spec.jobTemplate.spec.ttlSecondsAfterFinished:must be greater than or equal to 0": (
        {},
        {"ttlSecondsAfterFinished": -1},
        f"{JT}.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0",
    ),
}


def _assert_first(causes: list[tuple[str, str, str]], want: str) -> None:
    field = want.split(": ", 1)[0]
    got = first_error(causes)
    assert got.startswith(field + ":") and want in got, causes


@pytest.mark.parametrize(("spec", "job_spec", "want"), ERRORS.values(), ids=ERRORS.keys())
def test_error_cases_fail_on_create_and_on_update(
    spec: dict[str, Any], job_spec: dict[str, Any], want: str
) -> None:
    srv = server()
    _assert_first(rejected(srv.create, cronjob(spec, job_spec)), want)
    # upstream's update half starts from the same object with timeZone nil; a user can only have
    # stored a valid one, so the update turns a valid CronJob into the bad one
    stored = srv.create(cronjob())
    wire = cronjob(spec, job_spec).to_dict()
    wire["metadata"] = copy.deepcopy(stored.to_dict()["metadata"])
    _assert_first(rejected(srv.update, CronJob.model_validate(wire)), want)


def test_name_longer_than_52_characters_is_refused_on_create() -> None:
    """ "metadata.name: must be no more than 52 characters" """
    causes = rejected(server().create, cronjob(name="10000000002000000000300000000040000000005000000000123"))
    assert first_error(causes) == (
        'metadata.name: Invalid value: "10000000002000000000300000000040000000005000000000123"'
        ": must be no more than 52 characters"
    )


def test_an_empty_concurrency_policy_is_defaulted_to_allow() -> None:
    """ "spec.concurrencyPolicy: Required value" cannot reach validation: SetDefaults_CronJob."""
    assert server().create(cronjob({"concurrencyPolicy": ""})).spec.concurrency_policy == "Allow"


def _legacy(srv: APIServer, spec: dict[str, Any]) -> CronJob:
    """A CronJob an older API server stored: the valid one created, then rewritten in the store."""
    stored = srv.create(cronjob({"schedule": "0 * * * *"}))
    wire = copy.deepcopy(stored.to_dict())
    wire["spec"].update(spec)
    del wire["metadata"]["resourceVersion"]  # the store's bytes do not carry it
    srv.store.put(srv.kind(CronJob).keys.key("default", "mycronjob"), CronJob.model_validate(wire).to_json())
    return srv.get(CronJob, "mycronjob", "default")


def _update(srv: APIServer, stored: CronJob, spec: dict[str, Any]) -> CronJob:
    wire = copy.deepcopy(stored.to_dict())
    wire["spec"].update(spec)
    return srv.update(CronJob.model_validate(wire))


TZ = "TZ=UTC 0 * * * *"


def test_schedule_tz_update_removing_tz_should_work() -> None:
    srv = server()
    assert "cannot use TZ or CRON_TZ in schedule" in first_error(
        rejected(srv.create, cronjob({"schedule": TZ}))
    )
    _update(srv, _legacy(srv, {"schedule": TZ}), {"schedule": "0 * * * *"})


def test_schedule_tz_update_not_modifying_tz_should_work() -> None:
    srv = server()
    _update(srv, _legacy(srv, {"schedule": TZ}), {"schedule": TZ})


def test_schedule_tz_update_not_modifying_tz_but_adding_time_zone_should_fail() -> None:
    srv = server()
    stored = _legacy(srv, {"schedule": TZ})
    causes = rejected(_update, srv, stored, {"timeZone": "UTC"})
    assert first_error(causes) == (
        'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone '
        "field and TZ or CRON_TZ in schedule"
    )


def test_schedule_tz_update_adding_tz_should_fail() -> None:
    srv = server()
    stored = srv.create(cronjob({"schedule": "0 * * * *"}))
    causes = rejected(_update, srv, stored, {"schedule": TZ})
    assert "cannot use TZ or CRON_TZ in schedule" in first_error(causes)


# TestValidateCronJobSpec: (old timeZone, new timeZone, error expected)
SPEC_CASES: dict[str, tuple[str | None, str | None, bool]] = {
    "no validation because timeZone is nil for old and new": (None, None, False),
    "check validation because timeZone is different for new": (None, "America/New_York", False),
    "check validation because timeZone is different for new and invalid": (None, "broken", True),
    "old timeZone and new timeZone are valid": ("America/New_York", "America/Chicago", False),
    "old timeZone is valid, but new timeZone is invalid": ("America/New_York", "broken", True),
    "old timeZone and new timeZone are invalid, but unchanged": ("broken", "broken", False),
    "old timeZone and new timeZone are invalid, but different": ("broken", "still broken", True),
    "old timeZone is invalid, but new timeZone is valid": ("broken", "America/New_York", False),
}


@pytest.mark.parametrize(("old", "new", "fails"), SPEC_CASES.values(), ids=SPEC_CASES.keys())
def test_validate_cronjob_spec_time_zone_on_update(old: str | None, new: str | None, fails: bool) -> None:
    srv = server()
    stored = _legacy(srv, {"timeZone": old})
    if fails:
        assert rejected(_update, srv, stored, {"timeZone": new})[0][0] == "spec.timeZone"
    else:
        assert _update(srv, stored, {"timeZone": new}).spec.time_zone == new


def test_cronjob_strategy_generation_and_status() -> None:
    """pkg/registry/batch/cronjob/strategy_test.go ``TestCronJobStrategy``: create clears status
    and sets generation 1, a label change keeps it, a spec change bumps it to 2 and keeps the
    stored status, and an update to an invalid spec is refused; ``TestCronJobStatusStrategy``: a
    status write changes the status but not the spec."""
    srv = server()
    wire = cronjob().to_dict()
    wire["metadata"]["generation"] = 999
    wire["status"] = {"lastScheduleTime": "2026-01-01T00:00:00Z"}
    created = srv.create(CronJob.model_validate(wire))
    assert created.metadata.generation == 1 and (
        created.status is None or created.status.last_schedule_time is None
    )
    labelled = copy.deepcopy(created.to_dict())
    labelled["metadata"]["labels"] = {"a": "true"}
    assert srv.update(CronJob.model_validate(labelled)).metadata.generation == 1
    with_status = copy.deepcopy(srv.get(CronJob, "mycronjob", "default").to_dict())
    with_status["status"] = {"lastScheduleTime": "2026-01-01T00:00:00Z"}
    with_status["spec"]["schedule"] = "5 5 5 * ?"
    updated = srv.update(CronJob.model_validate(with_status))
    assert updated.metadata.generation == 2 and (
        updated.status is None or updated.status.last_schedule_time is None
    )
    bad = copy.deepcopy(updated.to_dict())
    bad["spec"]["schedule"] = "error"
    rejected(srv.update, CronJob.model_validate(bad))
    status_write = copy.deepcopy(updated.to_dict())
    status_write["status"] = {"lastScheduleTime": "2026-01-01T00:00:00Z"}
    status_write["spec"]["schedule"] = "5 5 * * ?"
    written = srv.update_status(CronJob.model_validate(status_write))
    assert written.status.last_schedule_time is not None and written.spec.schedule == "5 5 5 * ?"
