"""CronJob decisions (upstream cronjob_controllerv2.go, utils.go; docs "CronJob")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert [r["name"] for r in plan.replace] == ["cj-old"] and plan.create is not None
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


# --- upstream order and messages (cronjob_controllerv2.go sync / syncCronJob / formatSchedule) ---


def test_history_cleanup_runs_first_so_a_deleted_active_job_gets_no_saw_completed_event():
    # sync: cleanupFinishedJobs (deleteJob drops the Job from status.active) before syncCronJob,
    # whose loop then no longer finds it in the active list.
    old = make_job("cj-1", "u1", "Complete", start=T0, done=T0 + timedelta(minutes=1))
    new = make_job("cj-2", "u2", "Complete", start=T0 + timedelta(minutes=5), done=T0 + timedelta(minutes=6))
    active = [{"kind": "Job", "name": "cj-1", "namespace": "ns", "uid": "u1"},
              {"kind": "Job", "name": "cj-2", "namespace": "ns", "uid": "u2"}]
    cj = with_status(make_cj(successfulJobsHistoryLimit=1), active=active,
                     lastScheduleTime="2025-01-01T00:05:00Z")
    plan = sync_cronjob(cj, [old, new], T0 + timedelta(minutes=7))
    assert plan.delete == ["cj-1"]
    assert [e.message for e in plan.events if e.reason == "SawCompletedJob"] == \
        ["Saw completed job: cj-2, condition: Complete"]
    assert plan.active == [] and plan.update_status
    assert plan.last_successful_time == T0 + timedelta(minutes=6)


def test_history_cleanup_also_while_the_cronjob_is_being_deleted():
    jobs = [make_job(f"bad{i}", f"f{i}", "Failed", start=T0 + timedelta(minutes=i)) for i in range(3)]
    cj = make_cj(failedJobsHistoryLimit=1)
    cj.metadata.deletion_timestamp = T0
    plan = sync_cronjob(cj, jobs, T0 + timedelta(hours=1))
    assert plan.delete == ["bad0", "bad1"] and plan.create is None


def test_history_unstarted_jobs_are_kept_before_started_ones_are():
    # byJobStartTime: a Job without startTime sorts after every started one (deleted last).
    started = make_job("a", "u1", "Failed", start=T0 + timedelta(minutes=9))
    unstarted = make_job("b", "u2", "Failed")
    unstarted.status.start_time = None
    plan = sync_cronjob(make_cj(failedJobsHistoryLimit=1, suspend=True), [unstarted, started],
                        T0 + timedelta(hours=1))
    assert plan.delete == ["a"]


def test_tz_in_schedule_warns_unsupported_schedule_every_sync():
    cj = make_cj("TZ=Europe/Paris 0 1 * * *")
    plan = sync_cronjob(cj, [], T0 + timedelta(days=1, seconds=5))
    assert [(e.type, e.reason, e.message) for e in plan.events] == [(
        "Warning", "UnsupportedSchedule",
        'CRON_TZ or TZ used in schedule "TZ=Europe/Paris 0 1 * * *" is not officially supported, '
        "see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")]
    assert plan.last_schedule_time == T0 + timedelta(days=1)  # 01:00 Paris, the prefix's zone
    # the annotation uses spec.timeZone (unset: UTC), not the schedule's prefix (getJobFromTemplate2)
    assert plan.create["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == \
        "2025-01-02T00:00:00Z"


def test_suspended_cronjob_with_tz_schedule_does_not_warn():
    assert sync_cronjob(make_cj("TZ=UTC * * * * *", suspend=True), [], T0 + timedelta(hours=1)).events == []


def test_unknown_time_zone_event_message_is_go_formatted():
    plan = sync_cronjob(make_cj(timeZone="Mars/Olympus"), [], T0 + timedelta(hours=1))
    assert [(e.reason, e.message) for e in plan.events] == [
        ("UnknownTimeZone", 'invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus')]
    assert plan.create is None and plan.requeue_after is None


def test_impossible_date_is_an_invalid_schedule_without_requeue():
    # utils.go mostRecentScheduleTime: robfig finds no time for Feb 31 (zero time), the gap between
    # two schedules is 0 -> InvalidSchedule, and syncCronJob returns no requeue.
    plan = sync_cronjob(make_cj("0 0 31 2 *"), [], T0 + timedelta(hours=1))
    assert [(e.reason, e.message) for e in plan.events] == [
        ("InvalidSchedule", "invalid schedule: 0 0 31 2 * : time difference between two schedules is less "
                            "than 1 second")]
    assert plan.create is None and plan.requeue_after is None


def test_replace_moves_active_refs_to_the_replace_list():
    active = [{"kind": "Job", "name": "cj-a", "namespace": "ns", "uid": "ua"},
              {"kind": "Job", "name": "cj-b", "namespace": "ns", "uid": "ub"}]
    cj = with_status(make_cj(concurrencyPolicy="Replace"), active=active)
    plan = sync_cronjob(cj, [make_job("cj-a", "ua"), make_job("cj-b", "ub")],
                        T0 + timedelta(minutes=5, seconds=1))
    assert [r["uid"] for r in plan.replace] == ["ua", "ub"] and plan.delete == []
    assert plan.previous_schedule_time is None and plan.last_schedule_time == T0 + timedelta(minutes=5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Complete", "Failed", None]), st.integers(0, 50)), max_size=12),
       st.integers(0, 4), st.integers(0, 4))
def test_history_keeps_the_newest_finished_jobs_per_kind(specs, keep_ok, keep_bad):
    """Property (cleanupFinishedJobs): after a sync's deletes, each kind keeps min(count, limit)
    finished Jobs, every deleted one started no later than every kept one, running Jobs stay."""
    jobs = [make_job(f"j{i}", f"u{i}", cond, start=T0 + timedelta(minutes=m))
            for i, (cond, m) in enumerate(specs)]
    cj = make_cj(successfulJobsHistoryLimit=keep_ok, failedJobsHistoryLimit=keep_bad, suspend=True)
    plan = sync_cronjob(cj, jobs, T0 + timedelta(hours=2))
    gone = set(plan.delete)
    for kind, limit in (("Complete", keep_ok), ("Failed", keep_bad)):
        of_kind = [j for j in jobs if j.status.conditions and j.status.conditions[0].type == kind]
        kept = [j for j in of_kind if j.metadata.name not in gone]
        dropped = [j for j in of_kind if j.metadata.name in gone]
        assert len(kept) == min(len(of_kind), limit)
        if kept and dropped:
            assert max(j.status.start_time for j in dropped) <= min(j.status.start_time for j in kept)
    assert all(j.status.conditions for j in jobs if j.metadata.name in gone)


def _apply_plan(cj: CronJob, jobs: dict[str, Job], plan, now: datetime, seq: list[int]) -> CronJob:
    """Play the API server for a plan: deletes, the create (a running Job), the status write."""
    for name in plan.delete + [r["name"] for r in plan.replace]:
        jobs.pop(name, None)
    active = list(plan.active)
    if plan.create is not None:
        seq[0] += 1
        name = plan.create["metadata"]["name"]
        job = make_job(name, f"uid-{seq[0]}", start=now)
        jobs[name] = job
        active.append({"kind": "Job", "name": name, "namespace": "ns", "uid": job.metadata.uid})
    status = {"active": active or None}
    if plan.last_schedule_time is not None:
        status["lastScheduleTime"] = plan.last_schedule_time.strftime("%Y-%m-%dT%H:%M:%SZ")
    return with_status(cj, **status)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["*/5 * * * *", "* * * * *", "0 * * * *", "@every 90s", "30 6-16/4 * * 1-5"]),
       st.sampled_from(["Allow", "Forbid", "Replace"]),
       st.one_of(st.none(), st.integers(10, 600)),
       st.lists(st.tuples(st.integers(1, 4000), st.booleans()), min_size=1, max_size=15))
def test_schedule_invariants_over_sync_sequences(schedule, policy, deadline, steps):
    """Property (syncCronJob, getJobName, mostRecentScheduleTime): over any sequence of syncs, each
    created Job is named <cronjob>-<minutes of its scheduled time>, scheduled times strictly increase,
    each is a fire time not after the sync and within startingDeadlineSeconds; Forbid and Replace
    never leave more than one Job active."""
    spec = {"concurrencyPolicy": policy}
    if deadline is not None:
        spec["startingDeadlineSeconds"] = deadline
    cj, jobs, seq, now = make_cj(schedule, **spec), {}, [0], T0
    sched = parse_schedule(schedule)
    last: datetime | None = None
    for gap, finish_one in steps:
        now += timedelta(seconds=gap)
        if finish_one and jobs:  # some running Job completes
            name = sorted(jobs)[0]
            if jobs[name].status.conditions is None:
                jobs[name] = make_job(name, jobs[name].metadata.uid, "Complete", start=now, done=now)
        plan = sync_cronjob(cj, list(jobs.values()), now)
        if plan.create is not None:
            t = plan.last_schedule_time
            assert plan.create["metadata"]["name"] == job_name("cj", t)
            assert t <= now and (last is None or t > last)
            if sched.every is None:  # a fire time of the schedule (@every counts from the last one)
                assert sched.next_after(t - timedelta(seconds=1)) == t
            if deadline is not None:
                assert (now - t).total_seconds() <= deadline
            last = t
        cj = _apply_plan(cj, jobs, plan, now, seq)
        running = [r for r in (cj.status.active or ())]
        if policy in ("Forbid", "Replace"):
            assert len(running) <= 1
