"""KEP-5440 as a user (or a queueing controller) meets it, each command a separate process over one
state directory (tests/cli/runners.py ``CliProcesses``; docs/job.md, "Suspend and resize").

A running Job's container resources are immutable; suspended, the Job controller deletes its pod and
clears ``startTime``, the resources take a patch, and on resume the new pod asks for the new ones. With
``--feature-gates MutablePodResourcesForSuspendedJobs=false`` the same patch is refused."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runners import CliProcesses

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: [sleep, "600"]
        resources: {requests: {cpu: "1"}}
"""
RESIZE = json.dumps({"spec": {"template": {"spec": {"containers": [
    {"name": "main", "resources": {"requests": {"cpu": "2"}}}]}}}})


def _requests(cli: CliProcesses) -> list[str]:
    pods = json.loads(cli.run("get", "pods", "-o", "json").out)["items"]
    return [p["spec"]["containers"][0]["resources"]["requests"]["cpu"] for p in pods
            if not p["metadata"].get("deletionTimestamp")]


def test_a_suspended_job_takes_new_resources_and_its_next_pod_uses_them(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "job.yaml").write_text(JOB)
    assert cli.run("nodes", "add").code == 0
    assert cli.run("apply", "-f", str(tmp_path / "job.yaml")).code == 0
    assert cli.run("advance", "10s").code == 0
    assert _requests(cli) == ["1"]

    running = cli.run("patch", "job", "train", "-p", RESIZE)
    assert running.code == 1 and "spec.template: Invalid value" in running.err
    assert "field is immutable" in running.err and "Traceback" not in running.err

    assert cli.run("patch", "job", "train", "-p", '{"spec":{"suspend":true}}').code == 0
    assert cli.run("advance", "40s").code == 0  # the pod's grace period
    status = json.loads(cli.run("get", "job", "train", "-o", "json").out)["status"]
    assert "startTime" not in status and not status.get("active")
    assert any(c["type"] == "Suspended" and c["status"] == "True" for c in status["conditions"])

    resized = cli.run("patch", "job", "train", "-p", RESIZE)
    assert resized.code == 0, resized.err
    assert cli.run("patch", "job", "train", "-p", '{"spec":{"suspend":false}}').code == 0
    assert cli.run("advance", "10s").code == 0
    assert _requests(cli) == ["2"]
    assert "startTime" in json.loads(cli.run("get", "job", "train", "-o", "json").out)["status"]


def test_with_the_gate_off_a_suspended_job_keeps_its_resources(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    suspended = JOB.replace("spec:\n  template:", "spec:\n  suspend: true\n  template:")
    (tmp_path / "job.yaml").write_text(suspended)
    gate = ("--feature-gates", "MutablePodResourcesForSuspendedJobs=false")
    assert cli.run(*gate, "apply", "-f", str(tmp_path / "job.yaml")).code == 0
    refused = cli.run(*gate, "patch", "job", "train", "-p", RESIZE)
    assert refused.code == 1 and "field is immutable" in refused.err
