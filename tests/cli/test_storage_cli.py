"""Storage through the CLI, each command a separate process over one state directory
(tests/cli/runners.py ``CliProcesses``; docs/storage.md): a default StorageClass applied by one
command gives the claim applied by the next its class (DefaultStorageClass admission), ``get``
prints kubectl's columns for sc, pv and pvc, a PVC is pre-bound with a later ``patch`` (``volumeName``
may be set once), and a bad PersistentVolume is refused with kube-apiserver's 422 text and no
traceback. Binding is not modelled yet: the claim stays Pending."""

from __future__ import annotations

from pathlib import Path

from tests.cli.runners import CliProcesses

CLASS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kbatch.io/simulated
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  hostPath: {path: /data/pv-1}
"""
CLAIM = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"""
BAD = """apiVersion: v1
kind: PersistentVolume
metadata: {name: bad}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
"""


def test_storage_across_separate_commands(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    for name, text in (("class.yaml", CLASS), ("claim.yaml", CLAIM), ("bad.yaml", BAD)):
        (tmp_path / name).write_text(text)
    assert cli.run("apply", "-f", str(tmp_path / "class.yaml")).code == 0
    assert cli.run("apply", "-f", str(tmp_path / "claim.yaml")).code == 0
    classes = cli.run("get", "sc").out.splitlines()
    assert classes[1].split()[:5] == ["standard", "(default)", "kbatch.io/simulated", "Delete",
                                      "WaitForFirstConsumer"]
    claims = cli.run("get", "pvc").out.splitlines()
    assert claims[1].split()[:3] == ["data", "Pending", "standard"]  # the default class, by admission
    patched = cli.run("patch", "pvc", "data", "-p", '{"spec":{"volumeName":"pv-1"}}')
    assert patched.code == 0, patched.err
    volumes = cli.run("get", "pv", "-o", "wide").out.splitlines()
    assert volumes[1].split() == ["pv-1", "5Gi", "RWO", "Retain", "Pending", "standard", "<unset>", "0s",
                                  "Filesystem"]
    bad = cli.run("apply", "-f", str(tmp_path / "bad.yaml"))
    assert bad.code != 0 and "Traceback" not in bad.err
    assert ('The PersistentVolume "bad" is invalid: spec: Required value: must specify a volume type'
            in bad.err)
    assert cli.run("get", "pv", "bad").code != 0  # nothing written
