"""The real kubectl against ``kbatch serve``: StorageClass and PersistentVolume are served
(docs/storage.md), ``kubectl get pv,pvc,sc`` prints kbatch's tables (printers.go
``printPersistentVolume``, ``printStorageClass``, ``printPersistentVolumeClaim``), kubectl's own
describer reads a volume, and an invalid volume is refused with kube-apiserver's 422 text."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

# the class `standard` is the one a new cluster has (docs/storage.md, "The default StorageClass")
OBJECTS = """apiVersion: v1
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
        "persistentvolume/pv-data created\npersistentvolumeclaim/data created\n")
    lines = kubectl(served, "get", "pv,pvc,sc", "-n", "default").stdout.splitlines()
    assert lines[0].split() == ["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS",
                                "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]
    # the binder made the volume Available; the claim's class waits for a consumer, so no binding
    assert lines[1].split()[:6] == ["persistentvolume/pv-data", "10Gi", "RWO", "Retain", "Available",
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


VB_STORAGE = """apiVersion: v1
kind: PersistentVolume
metadata: {name: vb-pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  hostPath: {path: /data/vb}
  claimRef: {namespace: default, name: vb-claim}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: vb-claim
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: vb-pv
  resources: {requests: {storage: 1Gi}}
"""


def _advance(served: Any, by: str) -> None:
    from kbatch.cli import main

    try:
        main(["--server", served.url, "advance", by])
    except SystemExit as exit_:
        assert not exit_.code


def test_kubectl_sees_a_pod_wait_for_its_claim(served: Any) -> None:
    """VolumeBinding (docs/storage.md, stage 4): kubectl's describer shows the scheduler's message for
    a missing claim; once the user's pre-bound volume and claim are bound by the binder, the pod runs.
    (A claim that already carries ``pv.kubernetes.io/bind-completed`` while the volume's ``claimRef``
    has no uid is ``ClaimMisbound`` → ``Lost``, as upstream's ``syncBoundClaim``.)"""
    import json

    from tests.server.test_kubectl_secret import EXAMPLES

    kubectl(served, "apply", "-f", str(EXAMPLES[0].parent / "kwok-node.yaml"))
    kubectl(served, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "vb-pod", "namespace": "default"},
        "spec": {"restartPolicy": "Never", "tolerations": [{"operator": "Exists"}],  # the KWOK node's taint
                 "containers": [{"name": "c", "image": "busybox",
                                                           "command": ["sleep", "100"]}],
                 "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "vb-claim"}}]}}))
    _advance(served, "2s")
    described = kubectl(served, "describe", "pod", "vb-pod", "-n", "default").stdout
    assert 'persistentvolumeclaim "vb-claim" not found' in described
    assert "FailedScheduling" in described
    kubectl(served, "apply", "-f", "-", input_=VB_STORAGE)  # pre-bound both ways by the user
    _advance(served, "5s")
    assert kubectl(served, "get", "pvc", "vb-claim", "-n", "default", "-o",
                   "jsonpath={.status.phase}").stdout == "Bound"  # the binder completed it
    row = kubectl(served, "get", "pod", "vb-pod", "-n", "default").stdout.splitlines()[1].split()
    assert row[2] == "Running"
