"""The kubernetes.io Job pages' examples whose containers run ``python3 -c`` or ``rev``, followed with
kubectl against ``kbatch serve`` as a user follows them, compared with what the pages print.

Manifests (test data) from kubernetes/website ``content/en/examples``: ``application/job/indexed-job.yaml``
(task "Indexed Job for Parallel Processing with Static Work Assignment"),
``controllers/job-backoff-limit-per-index-example.yaml`` and
``controllers/job-backoff-limit-per-index-failindex.yaml`` (concept page "Jobs", "Backoff limit per
index"; task "Handling retriable and non-retriable pod failures with Pod failure policy"),
``controllers/job-success-policy.yaml`` (concept page, "Success policy"). The outcomes they print
depend on what the containers' programs do: the tiny Python scripts (:mod:`kbatch.sim.python_c`)
and ``rev`` (:mod:`kbatch.sim.shell_text`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_workflows import kb

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

MANIFESTS = Path(__file__).resolve().parents[1] / "api" / "manifests" / "batch"

INDEXED_JOB = """\
---
{
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: {
    name: "indexed-job",
  },
  spec: {
    completions: 5,
    parallelism: 3,
    completionMode: "Indexed",
    template: {
      spec: {
        restartPolicy: "Never",
        initContainers: [{
          name: "input",
          image: "docker.io/library/bash",
          command: [
            "bash",
            "-c",
            "\\
               items=(foo bar baz qux xyz)\\n\\
               echo ${items[$JOB_COMPLETION_INDEX]} > /input/data.txt\\n\\
              ",
          ],
          volumeMounts: [{
            mountPath: "/input",
            name: "input",
          }],
        }],
        containers: [{
          name: "worker",
          image: "docker.io/library/busybox",
          command: [
            "rev",
            "/input/data.txt",
          ],
          volumeMounts: [{
            mountPath: "/input",
            name: "input",
          }],
        }],
        volumes: [{
          name: "input",
          emptyDir: {},
        }],
      },
    },
  },
}
"""

FAILINDEX = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: job-backoff-limit-per-index-failindex
spec:
  completions: 4
  parallelism: 2
  completionMode: Indexed
  backoffLimitPerIndex: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/python:3
        command:
          # The script:
          # - fails the Pod with index 0 with exit code 1, which results in one retry;
          # - fails the Pod with index 1 with exit code 42 which results
          #   in failing the index without retry.
          # - succeeds Pods with any other index.
          - python3
          - -c
          - |
            import os, sys
            index = int(os.environ.get("JOB_COMPLETION_INDEX"))
            if index == 0:
              sys.exit(1)
            elif index == 1:
              sys.exit(42)
            else:
              sys.exit(0)
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
"""


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    kb(served, "nodes", "add", "--count", "3")
    return served


def job(served: Any, name: str) -> Any:
    return json.loads(kubectl(served, "get", "-o", "json", "job", name).stdout)


def conditions(obj: Any) -> list[tuple[str, str, str]]:
    return [(c["type"], c["reason"], c["message"]) for c in obj["status"]["conditions"]]


def test_indexed_job_static_work_assignment_logs_each_reversed_item(cluster: Any) -> None:
    out = kubectl(cluster, "apply", "-f", "-", input_=INDEXED_JOB)
    assert out.stderr == ""  # every container's command is one kbatch runs
    kb(cluster, "advance", "20s")
    assert "Completed Indexes:  0-4" in kubectl(cluster, "describe", "jobs/indexed-job").stdout
    logs = {}
    for index, word in enumerate(["foo", "bar", "baz", "qux", "xyz"]):
        pod = kubectl(cluster, "get", "pods", "-l", f"batch.kubernetes.io/job-completion-index={index},"
                      "job-name=indexed-job", "-o", "jsonpath={.items[0].metadata.name}").stdout
        logs[word] = kubectl(cluster, "logs", pod, "-c", "worker").stdout
    assert logs == {"foo": "oof\n", "bar": "rab\n", "baz": "zab\n", "qux": "xuq\n", "xyz": "zyx\n"}


def test_backoff_limit_per_index_example_fails_the_even_indexes(cluster: Any) -> None:
    out = kubectl(cluster, "apply", "-f", str(MANIFESTS / "backoff_limit_per_index.yaml"))
    assert out.stderr == ""
    kb(cluster, "advance", "2m")
    status = job(cluster, "job-backoff-limit-per-index-example")["status"]
    assert (status["completedIndexes"], status["failedIndexes"]) == ("1,3,5,7,9", "0,2,4,6,8")
    assert (status["succeeded"], status["failed"]) == (5, 10)
    assert conditions({"status": status}) == [
        ("FailureTarget", "FailedIndexes", "Job has failed indexes"),
        ("Failed", "FailedIndexes", "Job has failed indexes")]
    pods = kubectl(cluster, "get", "pods", "--selector=job-name=job-backoff-limit-per-index-example",
                   "--output=jsonpath={.items[0].metadata.name}").stdout
    assert kubectl(cluster, "logs", pods).stdout == "Hello world\n"


def test_failindex_example_fails_index_1_without_a_retry(cluster: Any) -> None:
    assert kubectl(cluster, "apply", "-f", "-", input_=FAILINDEX).stderr == ""
    kb(cluster, "advance", "2m")
    status = job(cluster, "job-backoff-limit-per-index-failindex")["status"]
    assert (status["completedIndexes"], status["failedIndexes"]) == ("2,3", "0,1")
    assert (status["succeeded"], status["failed"]) == (2, 3)
    assert [c[:2] for c in conditions({"status": status})] == [
        ("FailureTarget", "FailedIndexes"), ("Failed", "FailedIndexes")]


def test_success_policy_example_loses_the_race_with_the_backoff_limit(cluster: Any) -> None:
    # The page's example relies on index 2 succeeding before a 7th failure is counted: upstream's
    # syncJob (pkg/controller/job/job_controller.go) checks the backoff limit before the success
    # policy, and pod updates within a second reach it as one batched sync. Here all ten pods exit
    # in the same instant, so 9 failures > backoffLimit 6 win, as upstream when they do so too.
    assert kubectl(cluster, "apply", "-f", str(MANIFESTS / "success_policy.yaml")).stderr == ""
    kb(cluster, "advance", "30s")
    got = job(cluster, "job-success")
    status = got["status"]
    assert (status["succeeded"], status["failed"], status["completedIndexes"]) == (1, 9, "2")
    assert [c[:2] for c in conditions(got)] == [("FailureTarget", "BackoffLimitExceeded"),
                                                ("Failed", "BackoffLimitExceeded")]
