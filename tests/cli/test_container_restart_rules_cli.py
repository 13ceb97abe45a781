"""Container restart rules (KEP-5307) through the CLI, each command a separate process over one state
directory (tests/cli/runners.py ``CliProcesses``; docs/simulation.md, "Container restart rules").

A Job with ``restartPolicy: Never`` whose container restarts itself on exit code 42: the first run
marks an emptyDir and exits 42, the kubelet restarts the container in place, the second run
succeeds, and the Job completes with its one pod and no failure.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runners import CliProcesses

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: retry}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      volumes: [{name: scratch, emptyDir: {}}]
      containers:
      - name: main
        image: busybox
        command: [sh, -c, "if [ -f /data/ran ]; then echo second run; exit 0; fi; touch /data/ran; sleep 5;
                          exit 42"]
        volumeMounts: [{name: scratch, mountPath: /data}]
        restartPolicy: Never
        restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]
"""


def test_a_job_container_restarts_in_place_on_its_rule_and_the_job_completes(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "job.yaml").write_text(JOB)
    assert cli.run("nodes", "add").code == 0
    assert cli.run("apply", "-f", str(tmp_path / "job.yaml")).out.strip() == "job.batch/retry created"
    assert cli.run("advance", "30s").code == 0
    pods = json.loads(cli.run("get", "pods", "-o", "json").out)["items"]
    assert len(pods) == 1 and pods[0]["status"]["phase"] == "Succeeded"
    status = pods[0]["status"]["containerStatuses"][0]
    assert status["restartCount"] == 1 and status["lastState"]["terminated"]["exitCode"] == 42
    job = json.loads(cli.run("get", "job", "retry", "-o", "json").out)["status"]
    assert job.get("succeeded") == 1 and not job.get("failed")
    assert any(c["type"] == "Complete" and c["status"] == "True" for c in job["conditions"])
    assert cli.run("logs", "job/retry").out == "second run\n"


RESTART_ALL_JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: again}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      volumes: [{name: scratch, emptyDir: {}}]
      initContainers:
      - name: setup
        image: busybox
        command: [sh, -c, "echo setup >> /data/setups; cat /data/setups"]
        volumeMounts: [{name: scratch, mountPath: /data}]
      containers:
      - name: main
        image: busybox
        command: [sh, -c, "if [ -f /data/ran ]; then echo clean run; exit 0; fi; touch /data/ran; sleep 5;
                          exit 42"]
        volumeMounts: [{name: scratch, mountPath: /data}]
        restartPolicy: Never
        restartPolicyRules: [{action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}]
"""


def test_a_job_pod_restarts_all_containers_and_reruns_its_init_container(tmp_path: Path) -> None:
    """KEP-5532: exit 42 restarts the whole pod in place; the init container runs again (its second
    run finds the line its first wrote in the emptyDir, which the restart keeps), the pod is never
    Failed and the Job completes with its one pod."""
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "job.yaml").write_text(RESTART_ALL_JOB)
    assert cli.run("nodes", "add").code == 0
    assert cli.run("apply", "-f", str(tmp_path / "job.yaml")).out.strip() == "job.batch/again created"
    assert cli.run("advance", "30s").code == 0
    pods = json.loads(cli.run("get", "pods", "-o", "json").out)["items"]
    assert len(pods) == 1 and pods[0]["status"]["phase"] == "Succeeded"
    status = pods[0]["status"]
    init, main = status["initContainerStatuses"][0], status["containerStatuses"][0]
    assert init["restartCount"] == 1 and main["restartCount"] == 1
    assert main["lastState"]["terminated"]["exitCode"] == 42
    restarting = next(c for c in status["conditions"] if c["type"] == "AllContainersRestarting")
    assert (restarting["status"], restarting["reason"]) == ("False", "PodCompleted")
    job = json.loads(cli.run("get", "job", "again", "-o", "json").out)["status"]
    assert job.get("succeeded") == 1 and not job.get("failed")
    pod = pods[0]["metadata"]["name"]
    assert cli.run("logs", pod, "-c", "setup").out == "setup\nsetup\n"
    assert cli.run("logs", "job/again").out == "clean run\n"
