"""A node failing, across separate ``kbatch`` processes: node lifecycle, taint eviction, pod GC and
ttl-after-finished with their default settings (kube-controller-manager's defaults).

A 2-node cluster (one node alone would be a fully disrupted zone: no eviction). ``web`` runs on
node-0, a Job with ``ttlSecondsAfterFinished: 30`` on node-1. node-0's kubelet stops at t=10: its
Lease was renewed at t=10 at the latest, so after the 50 s node-monitor grace period (t=60) its
``Ready`` is ``Unknown`` and it gets ``node.kubernetes.io/unreachable`` ``NoExecute``; the pod's
``DefaultTolerationSeconds`` toleration (300 s) runs out at t=360, when the taint manager marks it
``DisruptionTarget``/``DeletionByTaintManager`` and deletes it (gracefully: it stays terminating,
nothing on node-0 finishes it). An ``out-of-service`` taint on the not-ready node lets pod GC
force-delete it at its next sweep (``gcTerminating``, KEP-2268). The Job (done at t=6) is gone at
t=36.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runners import CliProcesses

POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: node-0
  restartPolicy: Never
  containers: [{name: main, image: busybox, command: [sh, -c, "sleep 100000"]}]
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: short}
spec:
  ttlSecondsAfterFinished: 30
  template:
    spec:
      nodeName: node-1
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, "sleep 5"]}]
"""


def test_node_failure_evicts_after_300s_and_ttl_deletes_the_job(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "job.yaml").write_text(JOB)
    for args in (("nodes", "add", "--count", "2"), ("apply", "-f", str(tmp_path / "pod.yaml")),
                 ("apply", "-f", str(tmp_path / "job.yaml")), ("advance", "10s"),
                 ("node", "stop-kubelet", "node-0"), ("advance", "26s")):
        assert cli.run(*args).code == 0, args
    jobs = cli.run("get", "jobs")
    assert "No resources found" in jobs.out + jobs.err  # t=36: finished at t=6, TTL 30 s
    assert cli.run("advance", "323s").code == 0  # t=359
    pod = json.loads(cli.run("get", "pod", "web", "-o", "json").out)
    assert pod["metadata"].get("deletionTimestamp") is None
    taints = json.loads(cli.run("get", "node", "node-0", "-o", "json").out)["spec"]["taints"]
    assert {(t["key"], t["effect"]) for t in taints} == {("node.kubernetes.io/unreachable", "NoSchedule"),
                                                         ("node.kubernetes.io/unreachable", "NoExecute")}
    assert cli.run("advance", "1s").code == 0  # t=360
    pod = json.loads(cli.run("get", "pod", "web", "-o", "json").out)
    assert pod["metadata"]["deletionTimestamp"] == "2025-01-01T00:06:30Z"  # + the 30 s grace period
    target = next(c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert target["reason"] == "DeletionByTaintManager"
    events = cli.run("events").out
    assert "Marking for deletion Pod default/web" in events
    out_of_service = "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"
    assert cli.run("node", "taint", "node-0", out_of_service).code == 0
    assert cli.run("advance", "20s").code == 0  # the next pod GC sweep
    gone = cli.run("get", "pod", "web")
    assert gone.code != 0 and 'pods "web" not found' in gone.err
