"""The real kubectl prints the ``Warning:`` headers ``kbatch serve`` sends for Job and CronJob
writes (pkg/registry/batch/{job,cronjob}/strategy.go ``WarningsOnCreate``/``WarningsOnUpdate``)."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: my.job}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""
CRONJOB = """apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      completionMode: Indexed
      completions: 100001
      parallelism: 10001
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
"""


def test_kubectl_prints_the_job_and_cronjob_warnings(served: Any) -> None:
    created = kubectl(served, "apply", "-f", "-", input_=JOB)
    assert created.stdout == "job.batch/my.job created\n"
    assert created.stderr == ("Warning: metadata.name: this is used in Pod names and hostnames, which can "
                              "result in surprising behavior; a DNS label is recommended: "
                              "[must not contain dots]\n")
    resumed = kubectl(served, "patch", "job", "my.job", "-p", '{"spec":{"suspend":false}}')
    assert resumed.stderr == ""  # the name is warned about on create only
    cron = kubectl(served, "create", "-f", "-", input_=CRONJOB)
    assert cron.stderr == ("Warning: spec.jobTemplate.spec: In Indexed Jobs with a number of completions "
                           "higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be "
                           "able to track completedIndexes when a big number of indexes fail\n")
