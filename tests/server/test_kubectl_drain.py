"""``kbatch cordon|uncordon|drain --server`` print what the real kubectl (v1.32 on this machine)
prints against ``kbatch serve``, line for line and with its exit code: the cordon words and dry-run
suffixes, kubectl's errors, the drain filters' refusals and warnings, and a PodDisruptionBudget's
retry until ``--timeout`` (k8s.io/kubectl ``pkg/cmd/drain``, ``pkg/drain``).

Each case starts from the same node state (a reset through kbatch before each tool). kubectl 1.32
says ``cannot delete cannot delete Pods that declare no controller``; 1.37's ``filters.go`` dropped
the repeated words, as kbatch prints it; the comparison folds that one difference."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
TIMEOUT = 60

OBJECTS = """apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata: {labels: {app: work}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["sleep", "3600"]}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: work}
spec: {minAvailable: 2, selector: {matchLabels: {app: work}}}
---
apiVersion: v1
kind: Pod
metadata: {name: bare, labels: {k: bare}}
spec:
  nodeName: node-0
  containers: [{name: c, image: busybox, command: ["sleep", "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: scratch, labels: {k: scratch}}
spec:
  nodeName: node-0
  volumes: [{name: s, emptyDir: {}}]
  containers: [{name: c, image: busybox, command: ["sleep", "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: mirror, labels: {k: mirror}, annotations: {kubernetes.io/config.mirror: "x"}}
spec:
  nodeName: node-0
  containers: [{name: c, image: busybox, command: ["sleep", "3600"]}]
---
apiVersion: v1
kind: Pod
metadata:
  name: ds
  labels: {k: ds}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: "1234", controller: true}]
spec:
  nodeName: node-0
  containers: [{name: c, image: busybox, command: ["sleep", "3600"]}]
"""

# (reset before each tool, command)
CASES = [
    (["uncordon", "node-0"], ["cordon", "node-0"]),
    (["cordon", "node-0"], ["cordon", "node-0"]),
    (["uncordon", "node-0"], ["cordon", "node-0", "--dry-run=client"]),
    (["cordon", "node-0"], ["uncordon", "node-0", "--dry-run=server"]),
    (["cordon", "node-0"], ["uncordon", "node-0"]),
    (None, ["cordon", "nope"]),
    (None, ["cordon"]),
    (None, ["uncordon", "node-0", "-l", "a=b"]),
    (None, ["cordon", "-l", "nothing=here"]),
    (None, ["drain", "node-0", "--dry-run=bogus"]),
    (None, ["drain", "node-0", "--pod-selector", "==x"]),
    (["uncordon", "node-0"], ["drain", "node-0", "--pod-selector", "k=bare"]),
    (["uncordon", "node-0"], ["drain", "node-0", "--pod-selector", "k=scratch", "--force"]),
    (["uncordon", "node-0"], ["drain", "node-0", "--pod-selector", "k=ds", "--force", "--dry-run=client"]),
    (["uncordon", "node-0"], ["drain", "node-0", "--pod-selector", "k=ds"]),
    (["uncordon", "node-0"], ["drain", "node-0", "--pod-selector", "k", "--force", "--ignore-daemonsets",
                              "--delete-emptydir-data", "--dry-run=client"]),
    (["uncordon", "node-0"], ["drain", "node-0", "--pod-selector", "k in (bare,mirror)", "--force",
                              "--dry-run=server"]),
    (["uncordon", "node-1"], ["drain", "node-1", "--pod-selector", "app=work", "--timeout", "1s"]),
    (["uncordon", "node-0", "node-1"], ["drain", "node-0", "node-1", "--pod-selector", "app=work",
                                        "--timeout", "1s"]),
]


def _run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    return done.returncode, done.stdout, done.stderr


def _kubectls(answer: tuple[int, str, str]) -> tuple[int, str, str]:
    code, out, err = answer
    err = err.replace("cannot delete cannot delete", "cannot delete").replace("See 'kubectl ", "See 'kbatch ")
    return code, out, err


def test_cordon_and_drain_print_what_kubectl_prints(tmp_path: Path) -> None:
    (tmp_path / "objects.yaml").write_text(OBJECTS)
    with ServeProcess(tmp_path / "state") as server:
        kbatch = [sys.executable, "-m", "kbatch", "--server", server.url]
        for setup in (["nodes", "add", "--count", "2"], ["apply", "-f", str(tmp_path / "objects.yaml")],
                      ["advance", "5s"]):
            assert _run([*kbatch, *setup])[0] == 0, setup
        nodes = _run([KUBECTL, "get", "pods", "-l", "app=work", "-o", "jsonpath={.items[*].spec.nodeName}"],
                     server.env())[1]  # type: ignore[list-item]
        assert sorted(nodes.split()) == ["node-0", "node-1"]
        for reset, args in CASES:
            if reset:
                assert _run([*kbatch, *reset])[0] == 0
            expected = _kubectls(_run([KUBECTL, *args], server.env()))  # type: ignore[list-item]
            if reset:
                assert _run([*kbatch, *reset])[0] == 0
            assert _run([*kbatch, *args]) == expected, args
