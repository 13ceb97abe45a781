"""CronJob example checks (upstream pkg/controller/cronjob, docs "CronJob")."""

from __future__ import annotations

import pytest

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
