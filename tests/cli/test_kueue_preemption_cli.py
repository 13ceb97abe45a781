"""Kueue preemption through separate CLI processes: one preemption is one eviction.

A Job of a higher priority arrives in a ClusterQueue a lower-priority Job fills
(``withinClusterQueue: LowerPriority``). Kueue's scheduler evicts the low Job's Workload once:
upstream's ``IssuePreemptions`` (kubernetes-sigs/kueue v0.19.2
``pkg/scheduler/preemption/preemption.go``) skips a target that is already evicted and, until the
eviction is observed, one whose eviction it already issued (``preemptionExpectations``), so the
target's ``status.schedulingStats.evictions`` counts one ``Preempted`` eviction and its
``Preempted`` / ``EvictedDueToPreempted`` events are recorded once.

Each command runs in its own process, as a user's shell runs them. The regression this guards:
the Kueue quota model's ``workloads_revision`` came from a process-wide counter, which started
again at 1 in every process while the saved ClusterQueue nodes and the scheduler's
``CandidateIndex`` kept the revisions of earlier processes; a reused number made the index serve
the slots of an older content (the target's Workload before its eviction), and the scheduler
evicted it a second time. In one process (``tests/cli/conftest.py``'s in-process runner) the
counter never restarted, so only separate processes show it. The counter is now the quota tree's,
saved with it (``kbatch/controllers/kueue/model/quota.py`` ``Tree.next_revision``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def _cluster_queue(name: str, cpu: int, preemption: str) -> str:
    return f"""\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  cohortName: team
  namespaceSelector: {{}}
  preemption: {preemption}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {{name: cpu, nominalQuota: {cpu}}}
      - {{name: memory, nominalQuota: {2 * cpu}Gi}}
"""


# two ClusterQueues in one cohort (cq-b only makes the cohort), a LocalQueue, two priorities
QUEUES = "---\n".join([
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default-flavor}\n",
    _cluster_queue("cq-a", 4, "{withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}"),
    _cluster_queue("cq-b", 2, "{}"),
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq-a, namespace: default}\n"
    "spec: {clusterQueue: cq-a}\n",
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n",
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 10\n",
])


def _job(name: str, pods: int, priority: str) -> str:
    return f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels: {{kueue.x-k8s.io/queue-name: lq-a}}
spec:
  parallelism: {pods}
  completions: {pods}
  template:
    spec:
      priorityClassName: {priority}
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: [sleep, "300"]
        resources: {{requests: {{cpu: 1, memory: 200Mi}}}}
"""


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_one_preemption_is_one_eviction_across_processes(tmp_path: Path) -> None:
    state = tmp_path / "state"

    def run(*args: str) -> str:
        out = subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), *args],
                             capture_output=True, text=True, timeout=120, env=dict(os.environ))
        assert out.returncode == 0, out.stderr
        return out.stdout

    run("nodes", "add", "--count", "4")
    run("apply", "-f", _file(tmp_path, "q.yaml", QUEUES))
    run("apply", "-f", _file(tmp_path, "low.yaml", _job("low-a", 4, "low")))
    run("advance", "2s")
    run("apply", "-f", _file(tmp_path, "high.yaml", _job("high-a", 3, "high")))
    workloads = json.loads(run("get", "workloads", "-o", "json"))["items"]
    low = next(w for w in workloads if w["metadata"]["name"].startswith("job-low-a-"))
    evictions = low["status"]["schedulingStats"]["evictions"]
    events = json.loads(run("get", "events", "-o", "json"))["items"]
    # Kueue records through events.k8s.io/v1: each occurrence once, a repeat would be a series
    counts = sorted((e["reason"], (e.get("series") or {}).get("count", 1)) for e in events
                    if e["involvedObject"]["name"] == low["metadata"]["name"]
                    and e["reason"] in ("Preempted", "EvictedDueToPreempted"))
    assert (evictions, counts) == (
        [{"count": 1, "reason": "Preempted", "underlyingCause": ""}],
        [("EvictedDueToPreempted", 1), ("Preempted", 1)],
    )
