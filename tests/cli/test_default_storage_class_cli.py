"""The default StorageClass ``standard`` through the CLI, each command a separate process over one
state directory (tests/cli/runners.py ``CliProcesses``; docs/storage.md, "The default StorageClass").

A new state directory's cluster has kind's class; a claim that names none gets ``standard`` and binds
on the node its pod is scheduled to, where the pod runs. Deleting the class is kept by every later
command, a restart with another option included (the add-on runs when the state is created, never
again). ``--no-default-storage-class`` (or ``KBATCH_NO_DEFAULT_STORAGE_CLASS``) on the command that
creates the state gives a cluster without it, and later commands need not repeat it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.runners import CliProcesses

WORKLOAD = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: user}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox, command: [sh, -c, sleep 60]}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]
"""


def field(cli: CliProcesses, what: str, path: str) -> str:
    return cli.run("get", *what.split(), "-o", f"jsonpath={{{path}}}").out


def test_a_claim_without_a_class_gets_standard_and_its_pod_runs(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "workload.yaml").write_text(WORKLOAD)
    assert cli.run("nodes", "add", "--count", "2").code == 0
    listed = cli.run("get", "sc").out.splitlines()
    assert listed[1].split()[:5] == ["standard", "(default)", "kbatch.io/simulated", "Delete",
                                     "WaitForFirstConsumer"]
    assert cli.run("apply", "-f", str(tmp_path / "workload.yaml")).code == 0
    assert field(cli, "pvc data", ".spec.storageClassName") == "standard"
    assert cli.run("advance", "5s").code == 0  # PreBind waits for the binding, polling each second
    row = cli.run("get", "pvc", "data").out.splitlines()[1].split()
    assert row[1] == "Bound" and row[2].startswith("pvc-") and row[3:6] == ["1Gi", "RWO", "standard"]
    node = field(cli, "pod user", ".spec.nodeName")
    assert field(cli, "pod user", ".status.phase") == "Running" and node
    term = ".spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]"
    affinity = field(cli, f"pv {row[2]}", f"{term}.values[0]")
    assert affinity == node  # provisioned local to the pod's node


def test_a_deleted_class_stays_deleted(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    assert cli.run("delete", "sc", "standard").out.strip() == 'storageclass.storage.k8s.io "standard" deleted'
    assert cli.run("get", "sc").err.startswith("No resources found")
    restarted = cli.run("--feature-gates", "JobManagedBy=true", "get", "sc")  # a restart over the store
    assert "control plane restarts" in restarted.err and "No resources found" in restarted.err
    (tmp_path / "workload.yaml").write_text(WORKLOAD)
    assert cli.run("apply", "-f", str(tmp_path / "workload.yaml")).code == 0
    assert field(cli, "pvc data", ".spec.storageClassName") == ""


def test_a_state_created_without_the_default_class(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    assert cli.run("--no-default-storage-class", "nodes", "add").code == 0
    assert cli.run("get", "sc").err.startswith("No resources found")  # without the flag: as created
    (tmp_path / "workload.yaml").write_text(WORKLOAD)
    assert cli.run("apply", "-f", str(tmp_path / "workload.yaml")).code == 0
    assert cli.run("advance", "30s").code == 0
    row = cli.run("get", "pvc", "data").out.splitlines()[1].split()
    assert row[:2] == ["data", "Pending"] and field(cli, "pvc data", ".spec.storageClassName") == ""
    assert field(cli, "pod user", ".spec.nodeName") == ""  # unbound immediate claim: not scheduled


def test_the_flag_on_an_existing_state_changes_nothing(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    assert cli.run("nodes", "add").code == 0
    later = cli.run("--no-default-storage-class", "get", "sc")
    assert "standard (default)" in later.out and "restarts" not in later.err


def test_the_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = CliProcesses(tmp_path / "state")
    monkeypatch.setenv("KBATCH_NO_DEFAULT_STORAGE_CLASS", "true")
    assert cli.run("nodes", "add").code == 0
    monkeypatch.delenv("KBATCH_NO_DEFAULT_STORAGE_CLASS")
    assert cli.run("get", "sc").err.startswith("No resources found")
