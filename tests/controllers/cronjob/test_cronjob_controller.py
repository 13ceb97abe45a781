"""The CronJob controller's effects on a control plane (upstream cronjob_controllerv2.go ``sync``,
``syncCronJob``: the AlreadyExists path, Replace's background deletes, events)."""

from __future__ import annotations

from datetime import timedelta

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.runtime.controlplane import ControlPlane

TEMPLATE = {"spec": {"template": {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox"}]}}}}


def _plane(**spec) -> tuple[ControlPlane, CronJob]:
    cp = ControlPlane(seed=0, controllers="cronjob")
    cp.apply({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj"},
              "spec": {"schedule": "*/5 * * * *", "jobTemplate": TEMPLATE, **spec}}, namespace="default")
    return cp, cp.client.get(CronJob, "cj", "default")


def _next_fire_name(cp: ControlPlane) -> str:
    now = cp.now()
    minutes = int(now.timestamp()) // 60
    return f"cj-{minutes - minutes % 5 + 5}"


def _events(cp: ControlPlane, reason: str) -> list[str]:
    from kbatch.api.core_v1 import Event

    return [e.message for e in cp.client.list(Event, "default").items if e.reason == reason]


def test_already_existing_foreign_job_leaves_status_untouched():
    # syncCronJob: AlreadyExists and the Job is not controlled by the CronJob -> assume another
    # actor handles it: no active entry, lastScheduleTime not set, no SuccessfulCreate event.
    cp, _ = _plane()
    cp.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": _next_fire_name(cp)}, **TEMPLATE},
             namespace="default")
    cp.advance(5 * 60 + 1)
    status = cp.client.get(CronJob, "cj", "default").status
    assert status is None or (not status.active and status.last_schedule_time is None)
    assert _events(cp, "SuccessfulCreate") == []


def test_already_existing_own_job_missing_from_active_is_added():
    # syncCronJob: AlreadyExists, controlled by this CronJob and not in status.active (a status
    # write lost after the create) -> added to active with lastScheduleTime.
    cp, cj = _plane()
    name = _next_fire_name(cp)
    owner = {"apiVersion": "batch/v1", "kind": "CronJob", "name": "cj", "uid": cj.metadata.uid,
             "controller": True, "blockOwnerDeletion": True}
    cp.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "ownerReferences": [owner]},
              **TEMPLATE}, namespace="default")
    cp.advance(5 * 60 + 1)
    status = cp.client.get(CronJob, "cj", "default").status
    assert [r.name for r in status.active] == [name]
    assert status.last_schedule_time is not None
    assert _events(cp, "SuccessfulCreate") == []


def test_replace_deletes_the_running_job_in_background_then_creates():
    # syncCronJob ReplaceConcurrent: deleteJob (background propagation), "Deleted job <name>",
    # then the new Job; status.active names only the new one.
    cp, _ = _plane(concurrencyPolicy="Replace")
    cp.advance(5 * 60 + 1)
    first = cp.client.get(CronJob, "cj", "default").status.active[0].name
    cp.advance(5 * 60)
    names = [j.metadata.name for j in cp.client.list(Job, "default").items
             if j.metadata.deletion_timestamp is None]
    active = [r.name for r in cp.client.get(CronJob, "cj", "default").status.active]
    assert first not in names and len(active) == 1 and active[0] != first
    assert _events(cp, "SuccessfulDelete") == [f"Deleted job {first}"]
    assert cp.now() - cp.client.get(CronJob, "cj", "default").status.last_schedule_time < timedelta(minutes=1)


def test_schedule_change_waits_for_the_new_schedules_next_fire_time():
    # updateCronJob: a new schedule only requeues at its next fire time (+100 ms); the fire times
    # the new schedule "missed" since the CronJob's creation are not started.
    cp, _ = _plane()
    start = cp.now()
    cp.advance(150)
    cp.client.patch(CronJob, "cj", {"spec": {"schedule": "* * * * *"}}, "default")
    cp.run_until_idle()
    assert cp.client.list(Job, "default").items == []
    cp.advance(31)  # past the next whole minute
    names = [j.metadata.name for j in cp.client.list(Job, "default").items]
    assert names == [f"cj-{int(start.timestamp()) // 60 + 3}"]



def test_job_creation_skew_metric():
    # metrics.go CronJobCreationSkew: creation time minus scheduled time, per created Job.
    cp, _ = _plane()
    cp.advance(5 * 60 + 1)  # fires at 5:00, the sync runs 100 ms later (creation times are whole seconds)
    text = cp.metrics.render()
    assert "cronjob_controller_job_creation_skew_duration_seconds_count 1" in text
    assert 'cronjob_controller_job_creation_skew_duration_seconds_bucket{le="1"} 1' in text


def test_jobs_are_matched_to_the_cronjob_by_controller_name_not_uid():
    # getJobsToBeReconciled (cronjob_controllerv2.go) keeps every Job whose controllerRef *name* is
    # the CronJob's: a Job left by an earlier CronJob of the same name (another uid) is treated as
    # this one's — an unfinished one not in status.active draws UnexpectedJob.
    cp, cj = _plane()
    stale = {"apiVersion": "batch/v1", "kind": "CronJob", "name": "cj", "uid": "0000-old-uid",
             "controller": True, "blockOwnerDeletion": True}
    cp.apply({"apiVersion": "batch/v1", "kind": "Job",
              "metadata": {"name": "cj-old", "ownerReferences": [stale]}, **TEMPLATE}, namespace="default")
    other = dict(stale, name="someone-else", uid=cj.metadata.uid)
    cp.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x", "ownerReferences": [other]},
              **TEMPLATE}, namespace="default")
    cp.advance(1)  # the stale Job's own event queues nothing (resolveControllerRef compares the uid)
    assert _events(cp, "UnexpectedJob") == []
    cp.advance(5 * 60)  # the next scheduled sync lists it
    assert _events(cp, "UnexpectedJob") == ["Saw a job that the controller did not create or forgot: cj-old"]


def test_a_job_event_queues_the_cronjob_only_when_its_controller_ref_uid_matches():
    # cronjob_controllerv2.go addJob/updateJob/deleteJob -> resolveControllerRef: look the CronJob up
    # by the reference's name, then drop the event unless the uid matches too.
    cp, cj = _plane()
    cp.run_until_idle()
    controller = cp.manager.get("cronjob")
    owner = {"apiVersion": "batch/v1", "kind": "CronJob", "name": "cj", "controller": True}
    before = controller.reconciles
    cp.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": "stale", "ownerReferences": [{**owner, "uid": "uid-of-an-earlier-cj"}]}, **TEMPLATE},
        namespace="default")
    cp.run_until_idle()
    assert controller.reconciles == before, "a Job of another CronJob named cj queues no sync"
    cp.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": "ours", "ownerReferences": [{**owner, "uid": cj.metadata.uid}]}, **TEMPLATE},
        namespace="default")
    cp.run_until_idle()
    assert controller.reconciles == before + 1
