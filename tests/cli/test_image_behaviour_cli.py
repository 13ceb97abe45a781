"""scheduler-plugins' Coscheduling example (kubernetes-sigs/scheduler-plugins doc/install.md, "Test
Coscheduling": PodGroup ``pg1`` with ``minMember: 3`` and ``registry.k8s.io/pause`` pods labelled into
it) through the CLI, every command a separate process: the pause pods run until deleted, as upstream
shows them Running, with no restarts, and the PodGroup stays Running (kbatch has no Deployment, so
the three pods its ReplicaSet would create are given as bare pods, restartPolicy Always by default).
Before the image table the pods "exited" after a second and went to CrashLoopBackOff."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runners import CliProcesses

PG = """\
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: pg1, namespace: default}
spec:
  scheduleTimeoutSeconds: 10
  minMember: 3
"""


def _pause(name: str) -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels: {{app: pause, scheduling.x-k8s.io/pod-group: pg1}}
spec:
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.6
"""


def test_coscheduling_pause_pods_run_until_deleted(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    manifest = tmp_path / "pg1.yaml"
    manifest.write_text(PG + "".join(_pause(f"pause-{i}") for i in range(3)))
    for args in (("nodes", "add", "--count", "2"), ("apply", "-f", str(manifest))):
        done = cli.run(*args)
        assert done.code == 0, done.err
        assert "kbatch does not" not in done.err  # nothing guessed: the table knows pause
    for _ in range(2):  # two commands, an hour of virtual time each
        assert cli.run("advance", "1h").code == 0
    pods = json.loads(cli.run("get", "pods", "-o", "json").out)["items"]
    assert sorted(p["metadata"]["name"] for p in pods) == ["pause-0", "pause-1", "pause-2"]
    for pod in pods:
        status = pod["status"]["containerStatuses"][0]
        assert pod["status"]["phase"] == "Running" and "running" in status["state"], pod["metadata"]["name"]
        assert status["restartCount"] == 0
    table = cli.run("get", "pods").out
    assert "CrashLoopBackOff" not in table and table.count("Running") == 3
    group = json.loads(cli.run("get", "podgroups.scheduling.x-k8s.io", "pg1", "-o", "json").out)
    assert group["status"]["phase"] == "Running" and group["status"].get("running") == 3
