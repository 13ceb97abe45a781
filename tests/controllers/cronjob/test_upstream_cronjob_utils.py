"""Upstream's CronJob utility tables, against kbatch's scheduling functions and controller.

Source: kubernetes/kubernetes ``pkg/controller/cronjob/utils_test.go`` (the stored copy read for
this audit: ``mostRecentScheduleTime`` returns none/few/many missed and takes
``includeStartingDeadlineSeconds``; ``getJobFromTemplate2`` writes the scheduled-timestamp
annotation). ``TestMostRecentScheduleTime``, ``TestNextScheduleTime`` and
``TestNextScheduleTimeDuration`` are unit tables of pure time arithmetic and run against
:mod:`kbatch.controllers.cronjob.schedule` directly; ``TestGetJobFromTemplate2`` runs on a control
plane (the Job the controller creates) and ``TestByJobStartTime`` through the history cleanup
(which finished Job the controller deletes first). upstream's missedSchedulesType maps to kbatch's
count: noneMissed 0, fewMissed 1..100, manyMissed more than 100.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.cron import parse_schedule
from kbatch.controllers.cronjob import sync_cronjob
from kbatch.controllers.cronjob.schedule import most_recent_schedule_time, next_check_delay
from kbatch.runtime.controlplane import ControlPlane

TOP = datetime(2016, 5, 19, 10, 0, tzinfo=UTC)  # topOfTheHour


def after(**delta: float) -> datetime:
    return TOP + timedelta(**delta)


NONE, FEW, MANY = "none", "few", "many"


def _missed(count: int) -> str:
    return NONE if count == 0 else FEW if count <= 100 else MANY


# name -> (schedule, created, lastScheduleTime, startingDeadlineSeconds, includeSDS, now,
#          expected earliest, expected most recent, expected missed, error expected)
RECENT: dict[str, tuple] = {
    "now before next schedule": (
        "0 * * * *",
        TOP,
        None,
        None,
        False,
        after(seconds=30),
        TOP,
        None,
        NONE,
        False,
    ),
    "now just after next schedule": (
        "0 * * * *",
        TOP,
        None,
        None,
        False,
        after(minutes=61),
        TOP,
        after(minutes=60),
        NONE,
        False,
    ),
    "missed 5 schedules": (
        "0 * * * *",
        after(seconds=10),
        None,
        None,
        False,
        after(minutes=301),
        after(seconds=10),
        after(minutes=300),
        FEW,
        False,
    ),
    "complex schedule": (
        "30 6-16/4 * * 1-5",
        TOP,
        after(minutes=30),
        None,
        False,
        after(hours=24, minutes=31),
        after(minutes=30),
        after(hours=24, minutes=30),
        FEW,
        False,
    ),
    "another complex schedule": (
        "30 10,11,12 * * 1-5",
        TOP,
        after(minutes=30),
        None,
        False,
        after(hours=30, minutes=30),
        after(minutes=30),
        None,
        FEW,
        False,
    ),
    "complex schedule with longer diff between executions": (
        "30 6-16/4 * * 1-5",
        TOP,
        after(minutes=30),
        None,
        False,
        after(hours=96, minutes=31),
        after(minutes=30),
        after(hours=96, minutes=30),
        FEW,
        False,
    ),
    "complex schedule with shorter diff between executions": (
        "30 6-16/4 * * 1-5",
        TOP,
        None,
        None,
        False,
        after(hours=24, minutes=31),
        TOP,
        after(hours=24, minutes=30),
        FEW,
        False,
    ),
    "@every schedule": (
        "@every 1h",
        after(minutes=-59),
        after(minutes=1),
        10,
        False,
        after(days=7),
        after(minutes=1),
        after(days=6, hours=23, minutes=1),
        MANY,
        False,
    ),
    "rogue cronjob": (
        "59 23 31 2 *",
        after(seconds=10),
        None,
        None,
        False,
        after(hours=1),
        None,
        None,
        NONE,
        True,
    ),
    "earliestTime being CreationTimestamp and LastScheduleTime": (
        "0 * * * *",
        TOP,
        TOP,
        None,
        False,
        after(seconds=30),
        TOP,
        None,
        NONE,
        False,
    ),
    "earliestTime being LastScheduleTime": (
        "*/5 * * * *",
        TOP,
        after(minutes=30),
        None,
        False,
        after(minutes=31),
        after(minutes=30),
        None,
        NONE,
        False,
    ),
    "earliestTime being LastScheduleTime (within StartingDeadlineSeconds)": (
        "*/5 * * * *",
        TOP,
        after(minutes=30),
        60,
        False,
        after(minutes=31),
        after(minutes=30),
        None,
        NONE,
        False,
    ),
    "earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)": (
        "*/5 * * * *",
        TOP,
        after(minutes=30),
        60,
        True,
        after(minutes=32),
        after(minutes=31),
        None,
        NONE,
        False,
    ),
}


@pytest.mark.parametrize(
    ("schedule", "created", "last", "sds", "include", "now", "earliest", "recent", "missed", "error"),
    RECENT.values(),
    ids=RECENT.keys(),
)
def test_most_recent_schedule_time(
    schedule, created, last, sds, include, now, earliest, recent, missed, error
) -> None:
    got = most_recent_schedule_time(
        parse_schedule(schedule), None, created, last, now, sds if include else None
    )
    if error:
        assert got.error is not None and got.most_recent is None
        return
    assert got.error is None
    assert (got.earliest, got.most_recent, _missed(got.missed)) == (earliest, recent, missed)


DURATION: dict[str, tuple] = {
    "complex schedule skipping weekend": (
        "30 6-16/4 * * 1-5",
        after(minutes=30),
        after(hours=24, minutes=31),
        3 * 3600 + 59 * 60,
    ),
    "another complex schedule skipping weekend": (
        "30 10,11,12 * * 1-5",
        after(minutes=30),
        after(hours=30, minutes=30),
        66 * 3600,
    ),
    "once a week cronjob, missed two runs": (
        "0 12 * * 4",
        after(hours=2),
        after(days=19, hours=1, minutes=30),
        48 * 3600 + 30 * 60,
    ),
    "no previous run of a cronjob": ("0 12 * * 5", None, after(hours=6), 20 * 3600),
}


@pytest.mark.parametrize(("schedule", "last", "now", "seconds"), DURATION.values(), ids=DURATION.keys())
def test_next_schedule_time_duration(schedule, last, now, seconds) -> None:
    assert next_check_delay(parse_schedule(schedule), None, TOP, last, now) == pytest.approx(seconds + 0.1)


T1, T2 = TOP, after(hours=1)
# TestNextScheduleTime: (created, lastScheduleTime, startingDeadlineSeconds, schedule, now, expected)
NEXT: dict[str, tuple] = {
    "Case 1: no known start times, and none needed yet": (
        T1 - timedelta(minutes=10),
        None,
        None,
        "0 * * * ?",
        T1 - timedelta(minutes=7),
        None,
    ),
    "Case 2: no known start times, and one needed": (
        T1 - timedelta(minutes=10),
        None,
        None,
        "0 * * * ?",
        T1 + timedelta(seconds=2),
        T1,
    ),
    "Case 3: known LastScheduleTime, no start needed": (
        T1 - timedelta(minutes=10),
        T1,
        None,
        "0 * * * ?",
        T1 + timedelta(minutes=2),
        None,
    ),
    "Case 4: known LastScheduleTime, a start needed": (
        T1 - timedelta(minutes=10),
        T1,
        None,
        "0 * * * ?",
        T2 + timedelta(minutes=5),
        T2,
    ),
    "Case 5: known LastScheduleTime, two starts needed": (
        T1 - timedelta(hours=2),
        T1 - timedelta(hours=1),
        None,
        "0 * * * ?",
        T2 + timedelta(minutes=5),
        T2,
    ),
    "Case 6: now is way way ahead of last start time, and there is no deadline": (
        T1 - timedelta(hours=2),
        T1 - timedelta(hours=1),
        None,
        "0 * * * ?",
        T2 + timedelta(days=10),
        "some",
    ),
    "Case 7: now is way way ahead of last start time, but there is a short deadline": (
        T1 - timedelta(hours=2),
        T1 - timedelta(hours=1),
        7200,
        "0 * * * ?",
        T2 + timedelta(days=10),
        "some",
    ),
}


@pytest.mark.parametrize(
    ("created", "last", "sds", "schedule", "now", "want"), NEXT.values(), ids=NEXT.keys()
)
def test_next_schedule_time(created, last, sds, schedule, now, want) -> None:
    """``nextScheduleTime`` is the most recent unmet time with the deadline applied."""
    got = most_recent_schedule_time(parse_schedule(schedule), None, created, last, now, sds).most_recent
    assert (got is not None) if want == "some" else got == want


def test_next_schedule_time_case_8_the_error_reaches_the_sync() -> None:
    """Case 8: "59 23 31 2 *" never fires; upstream's nextScheduleTime returns the error, which
    syncCronJob reports as the InvalidSchedule warning and does not requeue."""
    cj = CronJob.model_validate(
        {
            "metadata": {
                "name": "mycronjob",
                "namespace": "default",
                "uid": "1a2b3c",
                "creationTimestamp": "2016-05-19T10:00:10Z",
            },
            "spec": {
                "schedule": "59 23 31 2 *",
                "concurrencyPolicy": "Allow",
                "jobTemplate": {
                    "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
                },
            },
        }
    )
    plan = sync_cronjob(cj, [], after(hours=1))
    assert plan.create is None and plan.requeue_after is None
    assert [(e.type, e.reason, e.message) for e in plan.events] == [
        (
            "Warning",
            "InvalidSchedule",
            "invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second",
        )
    ]


# TestGetJobFromTemplate2, on a control plane: the Job the controller creates at 10:00
TEMPLATES: dict[str, tuple[str | None, dict[str, str], str, int]] = {
    "UTC timezone and one annotation": ("UTC", {"x": "y"}, "2016-05-19T10:00:00Z", 2),
    "nil timezone and one annotation": (None, {"x": "y"}, "2016-05-19T10:00:00Z", 2),
    "correct timezone and multiple annotation": (
        "Europe/Rome",
        {"x": "y", "z": "x"},
        "2016-05-19T12:00:00+02:00",
        3,
    ),
}


@pytest.mark.parametrize(("tz", "annotations", "stamp", "count"), TEMPLATES.values(), ids=TEMPLATES.keys())
def test_get_job_from_template2(tz: str | None, annotations: dict[str, str], stamp: str, count: int) -> None:
    cp = ControlPlane(seed=0, controllers="cronjob", start=TOP - timedelta(minutes=5), event_ttl=None)
    spec = {
        "schedule": "0 * * * *" if tz is None or tz == "UTC" else "0 12 * * *",
        "timeZone": tz,
        "jobTemplate": {
            "metadata": {"labels": {"a": "b"}, "annotations": annotations},
            "spec": {
                "activeDeadlineSeconds": 1,
                "manualSelector": False,
                "template": {
                    "metadata": {"labels": {"foo": "bar"}},
                    "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "foo/bar"}]},
                },
            },
        },
    }
    cp.apply(
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "mycronjob"}, "spec": spec},
        namespace="default",
    )
    cp.advance(5 * 60 + 1)
    (job,) = cp.client.list(Job, "default").items
    assert job.metadata.name.startswith("mycronjob-")
    assert job.metadata.labels == {"a": "b"}
    assert len(job.metadata.annotations) == count
    assert job.metadata.annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] == stamp
    assert job.spec.active_deadline_seconds == 1


# TestByJobStartTime, through cleanupFinishedJobs: with a history limit of 1 the first Job in
# byJobStartTime order is the one deleted
NOW = datetime(2018, 1, 1, 2, 3, 4, tzinfo=UTC)
LATER = datetime(2019, 1, 1, 2, 3, 4, tzinfo=UTC)
BY_START: dict[str, tuple[list[tuple[str, datetime | None]], str]] = {
    "both have nil start times": ([("b", None), ("a", None)], "a"),
    "only the first has a nil start time": ([("a", None), ("b", NOW)], "b"),
    "only the second has a nil start time": ([("a", NOW), ("b", None)], "a"),
    "both have non-nil, equal start time": ([("b", NOW), ("a", NOW)], "a"),
    "both have non-nil, different start time": ([("a", LATER), ("b", NOW)], "b"),
}


def _done(name: str, start: datetime | None) -> Job:
    status: dict = {"conditions": [{"type": "Complete", "status": "True"}]}
    if start is not None:
        status["startTime"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    return Job.model_validate(
        {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"}, "status": status}
    )


@pytest.mark.parametrize(("jobs", "first"), BY_START.values(), ids=BY_START.keys())
def test_by_job_start_time(jobs: list[tuple[str, datetime | None]], first: str) -> None:
    cj = CronJob.model_validate(
        {
            "metadata": {
                "name": "cj",
                "namespace": "default",
                "uid": "cj",
                "creationTimestamp": "2018-01-01T00:00:00Z",
            },
            "spec": {
                "schedule": "0 0 1 1 *",
                "successfulJobsHistoryLimit": 1,
                "suspend": True,
                "jobTemplate": {
                    "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
                },
            },
        }
    )
    assert sync_cronjob(cj, [_done(n, s) for n, s in jobs], LATER).delete == [first]
