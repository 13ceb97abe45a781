"""CronJob decisions (upstream cronjob_controllerv2.go, utils.go; docs "CronJob")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.cron import parse_schedule
from kbatch.controllers.cronjob import job_name, most_recent_schedule_time, sync_cronjob

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def make_cj(schedule="*/5 * * * *", **spec) -> CronJob:
    body = {"schedule": schedule, "jobTemplate": {"metadata": {"labels": {"app": "x"}}, "spec": {
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}
    body.update(spec)
    return CronJob.model_validate({"metadata": {"name": "cj", "namespace": "ns", "uid": "cj-uid",
                                                "creationTimestamp": "2025-01-01T00:00:00Z"},
                                   "spec": body})


def with_status(cj: CronJob, **status) -> CronJob:
    return cj.model_copy(update={"status": type(cj).model_fields["status"].annotation.__args__[0]
                                 .model_validate(status)})


def make_job(name: str, uid: str, cond: str | None = None, start: datetime = T0,
             done: datetime | None = None) -> Job:
    status: dict = {"startTime": start.strftime("%Y-%m-%dT%H:%M:%SZ")}
    if cond:
        status["conditions"] = [{"type": cond, "status": "True"}]
    if done:
        status["completionTime"] = done.strftime("%Y-%m-%dT%H:%M:%SZ")
    return Job.model_validate({"metadata": {"name": name, "namespace": "ns", "uid": uid}, "status": status})


def test_job_name_is_minutes_since_epoch():
    assert job_name("cj", T0 + timedelta(minutes=5)) == f"cj-{int(T0.timestamp()) // 60 + 5}"


def test_first_run_creates_job_with_annotation_owner_and_requeues_at_next_time():
    plan = sync_cronjob(make_cj(), [], T0 + timedelta(minutes=5, seconds=1))
    job = plan.create
    assert job["metadata"]["name"] == job_name("cj", T0 + timedelta(minutes=5))
    assert job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == \
        "2025-01-01T00:05:00Z"
    assert job["metadata"]["labels"] == {"app": "x"}
    assert job["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    assert plan.last_schedule_time == T0 + timedelta(minutes=5)
    assert abs(plan.requeue_after - (5 * 60 - 1 + 0.1)) < 1e-6


def test_nothing_due_requeues_at_first_fire_time():
    plan = sync_cronjob(make_cj(), [], T0 + timedelta(minutes=1))
    assert plan.create is None and abs(plan.requeue_after - 240.1) < 1e-6


def test_time_zone_is_used_for_schedule_and_annotation():
    cj = make_cj("0 1 * * *", timeZone="Europe/Paris")  # 01:00 Paris = 00:00 UTC in winter
    plan = sync_cronjob(cj, [], T0 + timedelta(days=1, seconds=5))
    assert plan.last_schedule_time == T0 + timedelta(days=1)
    assert plan.create["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == \
        "2025-01-02T01:00:00+01:00"


def test_starting_deadline_skips_fire_times_older_than_the_deadline():
    # Scheduling never looks before now - startingDeadlineSeconds (utils.go mostRecentScheduleTime).
    cj = make_cj(startingDeadlineSeconds=10)
    plan = sync_cronjob(cj, [], T0 + timedelta(minutes=5, seconds=30))
    assert plan.create is None
    assert abs(plan.requeue_after - (4 * 60 + 30 + 0.1)) < 1e-6
    assert sync_cronjob(cj, [], T0 + timedelta(minutes=5, seconds=9)).create is not None


def test_too_many_missed_start_times_warns_but_starts_latest():
    plan = sync_cronjob(make_cj("* * * * *"), [], T0 + timedelta(hours=3, seconds=10))
    assert "TooManyMissedTimes" in [e.reason for e in plan.events]
    assert plan.last_schedule_time == T0 + timedelta(hours=3)


def test_forbid_skips_while_active_and_replace_deletes_active():
    running = make_job("cj-old", "u1")
    active = [{"kind": "Job", "name": "cj-old", "namespace": "ns", "uid": "u1"}]
    now = T0 + timedelta(minutes=5, seconds=1)
    forbid = with_status(make_cj(concurrencyPolicy="Forbid"), active=active)
    plan = sync_cronjob(forbid, [running], now)
    assert plan.create is None and [e.reason for e in plan.events] == ["JobAlreadyActive"]
    replace = with_status(make_cj(concurrencyPolicy="Replace"), active=active)
    plan = sync_cronjob(replace, [running], now)
    assert plan.delete == ["cj-old"] and plan.create is not None
    assert [r["name"] for r in plan.active] == []


def test_suspend_creates_nothing():
    plan = sync_cronjob(make_cj(suspend=True), [], T0 + timedelta(hours=1))
    assert plan.create is None and plan.requeue_after is None


def test_completed_job_leaves_active_and_sets_last_successful_time():
    done = T0 + timedelta(minutes=6)
    job = make_job("cj-1", "u1", "Complete", done=done)
    cj = with_status(make_cj(), active=[{"kind": "Job", "name": "cj-1", "namespace": "ns", "uid": "u1"}],
                     lastScheduleTime="2025-01-01T00:05:00Z")
    plan = sync_cronjob(cj, [job], T0 + timedelta(minutes=7))
    assert plan.active == [] and plan.last_successful_time == done
    assert "SawCompletedJob" in [e.reason for e in plan.events]


def test_missing_active_job_is_dropped():
    cj = with_status(make_cj(), active=[{"kind": "Job", "name": "gone", "namespace": "ns", "uid": "u9"}],
                     lastScheduleTime="2025-01-01T00:05:00Z")
    plan = sync_cronjob(cj, [], T0 + timedelta(minutes=6))
    assert plan.active == [] and [e.reason for e in plan.events] == ["MissingJob"]


def test_history_limits_delete_oldest_finished_jobs():
    jobs = [make_job(f"ok{i}", f"s{i}", "Complete", start=T0 + timedelta(minutes=i)) for i in range(5)]
    jobs += [make_job(f"bad{i}", f"f{i}", "Failed", start=T0 + timedelta(minutes=i)) for i in range(3)]
    cj = make_cj(successfulJobsHistoryLimit=3, failedJobsHistoryLimit=1,
                 suspend=True)
    plan = sync_cronjob(cj, jobs, T0 + timedelta(hours=1))
    assert plan.delete == ["ok0", "ok1", "bad0", "bad1"]


def test_most_recent_schedule_time_every_and_gap():
    sched = parse_schedule("@every 90s")
    r = most_recent_schedule_time(sched, None, T0, None, T0 + timedelta(seconds=200), None)
    assert r.most_recent == T0 + timedelta(seconds=180)
