"""The real kubectl against ``kbatch serve``: StorageClass and PersistentVolume are served
(docs/storage.md), ``kubectl get pv,pvc,sc`` prints kbatch's tables (printers.go
``printPersistentVolume``, ``printStorageClass``, ``printPersistentVolumeClaim``), kubectl's own
describer reads a volume, and an invalid volume is refused with kube-apiserver's 422 text."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

OBJECTS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kbatch.io/simulated
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-data}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  hostPath: {path: /data/pv}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  resources: {requests: {storage: 1Gi}}
"""
BAD = """apiVersion: v1
kind: PersistentVolume
metadata: {name: bad}
spec:
  capacity: {storage: "0"}
  accessModes: [ReadWriteOncePod, ReadWriteOnce]
  hostPath: {path: /x}
  local: {path: /y}
"""


def test_kubectl_get_describe_and_refuse_storage(served: Any) -> None:
    assert kubectl(served, "apply", "-f", "-", input_=OBJECTS).stdout == (
        "storageclass.storage.k8s.io/standard created\npersistentvolume/pv-data created\n"
        "persistentvolumeclaim/data created\n")
    lines = kubectl(served, "get", "pv,pvc,sc", "-n", "default").stdout.splitlines()
    assert lines[0].split() == ["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS",
                                "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]
    assert lines[1].split()[:6] == ["persistentvolume/pv-data", "10Gi", "RWO", "Retain", "Pending",
                                    "standard"]
    classes = [line.split() for line in lines if line.startswith("storageclass")]
    assert classes[0][:6] == ["storageclass.storage.k8s.io/standard", "(default)", "kbatch.io/simulated",
                              "Delete", "WaitForFirstConsumer", "false"]
    assert any(line.startswith("persistentvolumeclaim/data") and "Pending" in line for line in lines)
    described = kubectl(served, "describe", "pv", "pv-data").stdout
    assert "StorageClass:    standard" in described and "Path:          /data/pv" in described
    refused = kubectl(served, "apply", "-f", "-", input_=BAD, check=False)
    assert refused.returncode != 0
    assert 'The PersistentVolume "bad" is invalid' in refused.stderr
    assert "* spec.local: Forbidden: may not specify more than 1 volume type" in refused.stderr
