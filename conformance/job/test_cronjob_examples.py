"""CronJob example checks (upstream pkg/controller/cronjob, docs "CronJob")."""

from __future__ import annotations

import pytest

from conformance.job.driver import active_pods, succeed
from conformance.target import has_condition

CJ = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
      "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
          "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}
pytestmark = [pytest.mark.needs_virtual_clock, pytest.mark.plays_kubelet]  # its Jobs finish only when told


@pytest.mark.semantic("CronJob creates <name>-<minutes> Jobs on schedule with the scheduled-timestamp "
                      "annotation and lastScheduleTime", source="cronjob_controllerv2.go; utils.go")
def test_cronjob_schedules_jobs(target):
    target.apply(CJ)
    target.advance(5 * 60 + 1)
    jobs = target.list("Job")
    assert len(jobs) == 1
    minutes = int(target.now().timestamp()) // 60 // 5 * 5
    assert jobs[0]["metadata"]["name"] == f"tick-{minutes}"
    assert jobs[0]["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"]
    cj = target.get("CronJob", "tick")
    assert cj["status"]["lastScheduleTime"] and len(cj["status"]["active"]) == 1


@pytest.mark.semantic("concurrencyPolicy Forbid: no new Job while one is active",
                      source="cronjob_controllerv2.go syncCronJob")
def test_cronjob_forbid(target):
    manifest = {**CJ, "spec": {**CJ["spec"], "concurrencyPolicy": "Forbid"}}
    target.apply(manifest)
    target.advance(16 * 60)
    assert len(target.list("Job")) == 1
    assert not has_condition(target.list("Job")[0], "Complete")


def _cron(**spec) -> dict:
    return {**CJ, "spec": {**CJ["spec"], **spec}}


def _finish(target, job: dict) -> None:
    """Play the kubelet: every pod of the Job succeeds; wait for the Job to be Complete."""
    name = job["metadata"]["name"]
    for pod in active_pods(target, name):
        succeed(target, pod)
    assert target.wait_for(lambda: has_condition(target.get("Job", name), "Complete"), 60)


def _live_jobs(target) -> list[dict]:
    return [j for j in target.list("Job") if not j["metadata"].get("deletionTimestamp")]


@pytest.mark.semantic("concurrencyPolicy Replace: the running Job is deleted at the next fire time and "
                      "a new one created; status.active names only the new Job",
                      source="cronjob_controllerv2.go syncCronJob (ReplaceConcurrent, deleteJob)")
def test_cronjob_replace(target):
    target.apply(_cron(concurrencyPolicy="Replace"))
    target.advance(5 * 60 + 1)
    first = target.list("Job")[0]["metadata"]["name"]
    target.advance(5 * 60)
    assert target.wait_for(lambda: first not in [j["metadata"]["name"] for j in _live_jobs(target)], 60)
    live = _live_jobs(target)
    active = target.get("CronJob", "tick")["status"]["active"]
    assert len(live) == 1 and [r["name"] for r in active] == [live[0]["metadata"]["name"]]


@pytest.mark.semantic("suspend: a suspended CronJob starts no Job; after resume only the most recent "
                      "missed time is started", source="cronjob_controllerv2.go syncCronJob; utils.go "
                      "mostRecentScheduleTime; k8s.io/docs/concepts/workloads/controllers/cron-jobs")
def test_cronjob_suspend(target):
    target.apply(_cron(suspend=True))
    target.advance(16 * 60)
    assert target.list("Job") == []
    target.patch("CronJob", "tick", {"spec": {"suspend": False}})
    target.settle()
    jobs = target.list("Job")
    assert len(jobs) == 1
    minutes = int(target.now().timestamp()) // 60 // 5 * 5
    assert jobs[0]["metadata"]["name"] == f"tick-{minutes}"


@pytest.mark.semantic("startingDeadlineSeconds: a fire time missed by more than the deadline is not "
                      "started",
                      source="cronjob_controllerv2.go syncCronJob; utils.go mostRecentScheduleTime")
def test_cronjob_starting_deadline(target):
    target.apply(_cron(suspend=True, startingDeadlineSeconds=30))
    target.advance(5 * 60 + 60)  # the fire time passed a minute ago, beyond the 30 s deadline
    target.patch("CronJob", "tick", {"spec": {"suspend": False}})
    target.settle()
    assert target.list("Job") == []
    target.advance(5 * 60)
    assert len(target.list("Job")) == 1


@pytest.mark.semantic("history limits and lastSuccessfulTime: finished Jobs beyond "
                      "successfulJobsHistoryLimit are deleted oldest first; lastSuccessfulTime is the "
                      "latest completionTime",
                      source="cronjob_controllerv2.go cleanupFinishedJobs, syncCronJob")
def test_cronjob_history_and_last_successful_time(target):
    target.apply(_cron(successfulJobsHistoryLimit=1))
    target.advance(5 * 60 + 1)
    first = target.list("Job")[0]
    _finish(target, first)
    target.advance(5 * 60)
    second = next(j for j in target.list("Job") if j["metadata"]["name"] != first["metadata"]["name"])
    _finish(target, second)
    target.advance(1)
    assert target.wait_for(lambda: [j["metadata"]["name"] for j in _live_jobs(target)]
                           == [second["metadata"]["name"]], 60)
    done = target.get("Job", second["metadata"]["name"])["status"]["completionTime"]
    status = target.get("CronJob", "tick")["status"]
    assert status["lastSuccessfulTime"] == done and not status.get("active")


def _events_of(target, name: str) -> set[tuple[str, str, str]]:
    return {(e.get("type"), e.get("reason"), e.get("message")) for e in target.list("Event")
            if (e.get("involvedObject") or {}).get("name") == name}


@pytest.mark.semantic("CronJob events: SuccessfulCreate \"Created job <job>\", then SuccessfulDelete "
                      "\"Deleted job <job>\" when history limit 0 removes it once Complete",
                      source="cronjob_controllerv2.go syncCronJob, deleteJob")
def test_cronjob_events(target):
    target.apply(_cron(successfulJobsHistoryLimit=0))
    target.advance(5 * 60 + 1)
    job = target.list("Job")[0]
    name = job["metadata"]["name"]
    for pod in active_pods(target, name):
        succeed(target, pod)
    assert target.wait_for(lambda: name not in [j["metadata"]["name"] for j in _live_jobs(target)], 60)
    events = _events_of(target, "tick")
    assert ("Normal", "SuccessfulCreate", f"Created job {name}") in events
    assert ("Normal", "SuccessfulDelete", f"Deleted job {name}") in events


@pytest.mark.semantic("timeZone: the schedule is read in that zone and the scheduled-timestamp annotation is "
                      "RFC 3339 with the zone's offset; the Job name is the scheduled minute since the epoch",
                      source="cronjob_controllerv2.go formatSchedule; utils.go getJobFromTemplate2, "
                             "getTimeHashInMinutes; KEP-3140")
def test_cronjob_time_zone(target):
    from datetime import datetime

    target.apply(_cron(schedule="0 * * * *", timeZone="Asia/Kolkata"))  # minute 0 in UTC+05:30
    target.advance(60 * 60 + 1)
    job = target.list("Job")[0]
    stamp = job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"]
    scheduled = datetime.fromisoformat(stamp)
    assert stamp.endswith("+05:30") and scheduled.minute == 0
    assert scheduled.utcoffset().total_seconds() == 5.5 * 3600
    assert job["metadata"]["name"] == f"tick-{int(scheduled.timestamp()) // 60}"
    assert int(scheduled.timestamp()) // 60 % 60 == 30  # :00 in Kolkata is :30 in UTC
