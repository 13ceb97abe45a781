"""A LimitRange default changes what a pending Kueue Workload needs, through separate ``kbatch``
commands (kueue v0.19.2 ``workload.AdjustResources`` in the queue manager and
``resourceUpdatesHandler`` in ``pkg/controller/core/workload_controller.go``).

A Job asking for memory only, in a namespace whose LimitRange gives every container 2 cpu, needs
3 pods of 2 cpu of a 4 cpu ClusterQueue: it waits, with upstream's message, and ``status.resourceRequests``
counts the default. Lowering the default to 1 cpu (``kbatch apply``) requeues it; it is admitted
and its pods (defaulted by the API server's LimitRanger to the same 1 cpu) run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES, Kbatch

QUEUES = str(EXAMPLES / "kueue" / "queues.yaml")

LIMITS = """apiVersion: v1
kind: LimitRange
metadata: {{name: cpu-defaults, namespace: default}}
spec:
  limits:
  - type: Container
    default: {{cpu: "{cpu}"}}
    defaultRequest: {{cpu: "{cpu}"}}
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: no-cpu
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 3
  completions: 3
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: ["sleep", "5"]
        resources: {requests: {memory: 100Mi}}
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _workload(kb: Kbatch) -> dict:
    [item] = json.loads(kb.ok("get", "workloads", "-o", "json"))["items"]
    return item


def _cond(wl: dict, kind: str) -> dict:
    return next(c for c in wl["status"]["conditions"] if c["type"] == kind)


def test_a_limit_range_default_decides_whether_a_pending_workload_fits(kb: Kbatch, tmp_path: Path) -> None:
    kb.ok("nodes", "add", "--count", "2")
    kb.ok("apply", "-f", QUEUES)
    kb.ok("apply", "-f", _write(tmp_path, "lr2.yaml", LIMITS.format(cpu="2")))
    kb.ok("apply", "-f", _write(tmp_path, "job.yaml", JOB))
    kb.ok("advance", "2s")
    wl = _workload(kb)
    reserved = _cond(wl, "QuotaReserved")
    assert reserved["status"] == "False"
    assert "insufficient quota for cpu in flavor default-flavor" in reserved["message"]
    assert "(6) > maximum capacity (4)" in reserved["message"]
    want = [{"name": "main", "resources": {"cpu": "6", "memory": "300Mi"}}]
    assert wl["status"]["resourceRequests"] == want

    kb.ok("apply", "-f", _write(tmp_path, "lr1.yaml", LIMITS.format(cpu="1")))
    kb.ok("advance", "2s")
    wl = _workload(kb)
    assert _cond(wl, "Admitted")["status"] == "True"
    [assignment] = wl["status"]["admission"]["podSetAssignments"]
    assert assignment["resourceUsage"] == {"cpu": "3", "memory": "300Mi"}
    kb.ok("advance", "10s")
    assert json.loads(kb.ok("get", "job", "no-cpu", "-o", "json"))["status"]["succeeded"] == 3
