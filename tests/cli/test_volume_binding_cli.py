"""VolumeBinding and the kubelet's claim check through the CLI, each command a separate process over
one state directory (tests/cli/runners.py ``CliProcesses``; docs/storage.md, stage 4): a Job whose pod
mounts a missing claim stays Pending with the scheduler's message in ``kbatch describe pod``; once the
claim and a volume pre-bound to it (``claimRef`` and ``volumeName``, by the user) exist, the
persistentvolume-binder binds them and the Job runs."""

from __future__ import annotations

from pathlib import Path

from tests.cli.runners import CliProcesses

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: writer}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, "sleep 5"]}
      volumes:
      - {name: data, persistentVolumeClaim: {claimName: data}}
"""
STORAGE = """apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  hostPath: {path: /data/pv-1}
  claimRef: {namespace: default, name: data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: pv-1
  resources: {requests: {storage: 1Gi}}
"""


def test_a_job_waits_for_its_claim_across_commands(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "storage.yaml").write_text(STORAGE)
    assert cli.run("nodes", "add", "--count", "1").code == 0
    assert cli.run("apply", "-f", str(tmp_path / "job.yaml")).code == 0
    assert cli.run("advance", "5s").code == 0
    pod = cli.run("get", "pods", "-o", "name").out.split()[0].split("/")[-1]
    described = cli.run("describe", "pod", pod)
    assert described.code == 0, described.err
    assert "Pending" in described.out
    assert ('0/1 nodes are available: persistentvolumeclaim "data" not found. preemption: 0/1 nodes are '
            'available: 1 Preemption is not helpful for scheduling.') in described.out
    assert cli.run("apply", "-f", str(tmp_path / "storage.yaml")).code == 0
    assert cli.run("advance", "30s").code == 0
    assert "Bound" in cli.run("get", "pvc", "data").out
    jobs = cli.run("get", "job", "writer").out.splitlines()
    assert "Complete" in jobs[1], jobs
