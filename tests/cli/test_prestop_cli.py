"""A preStop hook through the CLI, every command a separate process (docs/simulation.md "Stopping a
pod"): while the hook runs the pod is ``Terminating`` with its containers running; the stop signal
follows the hook, the sidecar's after the main container has exited, and the pod is gone then."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runners import CliProcesses

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  terminationGracePeriodSeconds: 30
  initContainers:
  - name: proxy
    image: busybox
    restartPolicy: Always
    command: [sh, -c, "trap 'exit 0' TERM; sleep 3600 & wait"]
  containers:
  - name: main
    image: busybox
    command: [sh, -c, "trap 'echo bye; exit 0' TERM; sleep 3600 & wait"]
    lifecycle: {preStop: {sleep: {seconds: 10}}}
"""


def test_pod_is_terminating_while_its_prestop_hook_sleeps(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    manifest = tmp_path / "web.yaml"
    manifest.write_text(POD)
    for args in (("nodes", "add", "--count", "1"), ("apply", "-f", str(manifest)), ("advance", "5s"),
                 ("delete", "pod", "web"), ("advance", "9s")):
        done = cli.run(*args)
        assert done.code == 0, done.err
    table = cli.run("get", "pods").out.splitlines()
    assert table[1].split()[:3] == ["web", "2/2", "Terminating"]  # 9 s into its 10 s hook
    pod = json.loads(cli.run("get", "pod", "web", "-o", "json").out)
    statuses = [*pod["status"]["initContainerStatuses"], *pod["status"]["containerStatuses"]]
    assert all("running" in s["state"] for s in statuses)
    logs = cli.run("logs", "web", "-c", "main")
    assert (logs.code, logs.out) == (0, "")  # the trap's "bye" comes with the signal, after the hook
    assert cli.run("advance", "2s").code == 0  # the hook ended at 10 s: signal, trap, exit; sidecar next
    assert "No resources found" in cli.run("get", "pods").out + cli.run("get", "pods").err
