"""An ephemeral container added with ``kbatch patch --subresource ephemeralcontainers`` (the write
``kubectl debug`` makes; kubectl's ``patch --subresource`` sends any subresource to the server) runs
on the simulated kubelet across separate ``kbatch`` processes over one state directory
(tests/cli/runners.py ``CliProcesses``): its status and log survive the image, it is never
restarted, and it does not move the pod's phase (upstream ``kuberuntime_manager.go``
``computePodActions``, ``EphemeralContainersToStart``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runners import CliProcesses

POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - {name: web, image: busybox, command: [sleep, "3600"]}
"""
DEBUGGER = json.dumps({"spec": {"ephemeralContainers": [
    {"name": "debugger", "image": "busybox", "targetContainerName": "web",
     "command": ["sh", "-c", "echo looking; sleep 20; exit 1"]}]}})


def test_an_ephemeral_container_runs_across_commands(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    assert cli.run("nodes", "add", "--count", "1").code == 0
    (tmp_path / "pod.yaml").write_text(POD)
    assert cli.run("apply", "-f", str(tmp_path / "pod.yaml")).code == 0
    added = cli.run("patch", "pod", "web", "--subresource", "ephemeralcontainers", "-p", DEBUGGER)
    assert added.code == 0, added.err
    pod = json.loads(cli.run("get", "pod", "web", "-o", "json").out)
    (status,) = pod["status"]["ephemeralContainerStatuses"]
    assert "running" in status["state"]
    logs = cli.run("logs", "web", "-c", "debugger")
    assert (logs.code, logs.out) == (0, "looking\n"), logs.err
    assert cli.run("advance", "30s").code == 0
    pod = json.loads(cli.run("get", "pod", "web", "-o", "json").out)
    (status,) = pod["status"]["ephemeralContainerStatuses"]
    assert (status["state"]["terminated"]["exitCode"], status["restartCount"]) == (1, 0)
    assert pod["status"]["phase"] == "Running"


def test_an_unknown_subresource_is_refused(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    out = cli.run("patch", "pod", "web", "--subresource", "scale", "-p", "{}")
    assert out.code != 0
    assert 'invalid subresource "scale": only status and ephemeralcontainers are supported' in out.err
