"""Binding and provisioning through the CLI, each command a separate process over one state
directory (tests/cli/runners.py ``CliProcesses``; docs/storage.md, stage 3): a PersistentVolume
applied by one command is bound by the claim applied by the next (``kbatch get pvc`` Bound), a claim
on a ``kbatch.io/simulated`` class is provisioned a ``pvc-<uid>`` volume and bound, deleting it
deletes that volume. The claim for the static volume asks for no class (``storageClassName: ""``),
as a kind user's does: a claim that names none gets the new cluster's default class ``standard``
(tests/cli/test_default_storage_class_cli.py). ``kbatch serve`` and kubectl:
tests/server/test_kubectl_storage_binding.py."""

from __future__ import annotations

from pathlib import Path

from tests.cli.runners import CliProcesses

VOLUME = """apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-static}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /data/static}
"""
CLAIM = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: static}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  resources: {requests: {storage: 1Gi}}
"""
DYNAMIC = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: simulated}
provisioner: kbatch.io/simulated
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: dynamic}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: simulated
  resources: {requests: {storage: 3Gi}}
"""


def test_binding_and_provisioning_across_separate_commands(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    for name, text in (("volume.yaml", VOLUME), ("claim.yaml", CLAIM), ("dynamic.yaml", DYNAMIC)):
        (tmp_path / name).write_text(text)
    assert cli.run("apply", "-f", str(tmp_path / "volume.yaml")).code == 0
    assert cli.run("apply", "-f", str(tmp_path / "claim.yaml")).code == 0
    static = cli.run("get", "pvc", "static").out.splitlines()[1].split()
    assert static[:5] == ["static", "Bound", "pv-static", "5Gi", "RWO"]
    assert cli.run("apply", "-f", str(tmp_path / "dynamic.yaml")).code == 0
    dynamic = cli.run("get", "pvc", "dynamic").out.splitlines()[1].split()
    assert dynamic[1] == "Bound" and dynamic[2].startswith("pvc-")
    assert dynamic[3:6] == ["3Gi", "RWO", "simulated"]
    volumes = {line.split()[0]: line.split() for line in cli.run("get", "pv").out.splitlines()[1:]}
    assert volumes[dynamic[2]][1:6] == ["3Gi", "RWO", "Delete", "Bound", "default/dynamic"]
    assert volumes["pv-static"][4:6] == ["Bound", "default/static"]
    events = cli.run("get", "events").out
    assert "ProvisioningSucceeded" in events and f"Successfully provisioned volume {dynamic[2]}" in events
    assert cli.run("delete", "pvc", "dynamic").code == 0
    assert cli.run("get", "pv", dynamic[2]).code != 0  # reclaimPolicy Delete: the provisioner deleted it
    assert cli.run("delete", "pvc", "static").code == 0
    assert cli.run("get", "pv", "pv-static").out.splitlines()[1].split()[4] == "Released"  # Retain


def test_the_controllers_are_listed_and_can_be_turned_off(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    rows = [line.split() for line in cli.run("controllers").out.splitlines()[1:] if line]
    listed = {row[0]: row[1] for row in rows}
    assert listed["persistentvolume-binder"] == "on" and listed["simulated-provisioner"] == "on"
    (tmp_path / "volume.yaml").write_text(VOLUME)
    (tmp_path / "claim.yaml").write_text(CLAIM)
    off = ("--controllers", "*,-persistentvolume-binder")
    assert cli.run(*off, "apply", "-f", str(tmp_path / "volume.yaml")).code == 0
    assert cli.run(*off, "apply", "-f", str(tmp_path / "claim.yaml")).code == 0
    assert cli.run(*off, "get", "pvc", "static").out.splitlines()[1].split()[1] == "Pending"
