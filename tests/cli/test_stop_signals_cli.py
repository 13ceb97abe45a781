"""Deleting running pods through the CLI, each command a separate ``python -m kbatch`` process:
the container ends as its stop signal makes it (docs/simulation.md "Stop signals"), and ``kbatch get
pod -o yaml`` shows the exit code upstream's runtime reports: 0 for pause (exits on SIGTERM), 137
for a shell that drops SIGTERM as PID 1 and is SIGKILLed at the end of the grace period, 143 for a
trap that exits with the interrupted ``wait``'s status. A finalizer keeps each pod to be read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import yaml

from tests.cli.runners import ROOT

POD = """
apiVersion: v1
kind: Pod
metadata: {{name: {name}, finalizers: [example.com/keep]}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 20
  containers:
  - name: main
    image: {image}{command}
"""
PODS = {
    "pause": ("registry.k8s.io/pause:3.10", None),
    "sleeper": ("busybox", "sleep 3600"),
    "trapper": ("busybox", "echo up; trap 'echo stopping; exit' TERM; sleep 3600 & wait; echo never"),
}


def _kbatch(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES", "KBATCH_SCHEDULER_CONFIG"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(tmp / "state"), *args],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=120)
    assert done.returncode == 0, f"kbatch {' '.join(args)}: {done.stderr}{done.stdout}"
    return done


def _seconds(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def test_deleted_pods_end_with_the_exit_code_their_stop_signal_gives(tmp_path: Path) -> None:
    manifests = []
    for name, (image, script) in PODS.items():
        command = f"\n    command: {json.dumps(['sh', '-c', script])}" if script else ""
        manifests.append(POD.format(name=name, image=image, command=command))
    (tmp_path / "pods.yaml").write_text("---".join(manifests))
    _kbatch(tmp_path, "nodes", "add", "--count", "1")
    _kbatch(tmp_path, "apply", "-f", "pods.yaml")
    _kbatch(tmp_path, "advance", "5s")
    _kbatch(tmp_path, "delete", "pod", *PODS)
    _kbatch(tmp_path, "advance", "1s")
    early = {name: yaml.safe_load(_kbatch(tmp_path, "get", "pod", name, "-o", "yaml").stdout)
             for name in PODS}
    assert early["sleeper"]["status"]["phase"] == "Running"  # until SIGKILL, 20 s after the delete
    assert early["pause"]["status"]["phase"] == "Succeeded"
    assert _kbatch(tmp_path, "logs", "trapper").stdout == "up\nstopping\n"
    _kbatch(tmp_path, "advance", "20s")
    seen = {}
    for name in PODS:
        pod = yaml.safe_load(_kbatch(tmp_path, "get", "pod", name, "-o", "yaml").stdout)
        term = pod["status"]["containerStatuses"][0]["state"]["terminated"]
        seen[name] = (pod["status"]["phase"], term["exitCode"], term["reason"],
                      _seconds(term["startedAt"], term["finishedAt"]))
    assert seen == {"pause": ("Succeeded", 0, "Completed", 5),
                    "sleeper": ("Failed", 137, "Error", 25),
                    "trapper": ("Failed", 143, "Error", 5)}
