"""The real kubectl against ``kbatch serve``: the binder and the ``kbatch.io/simulated``
provisioner (docs/storage.md, stage 3). ``kubectl get pv,pvc`` shows a static volume bound to the
claim created after it and a provisioned ``pvc-<uid>`` volume bound to a claim on a simulated
class, as the CLI's separate processes do (tests/cli/test_storage_binding_cli.py). The new cluster's
default class ``standard``: tests/server/test_kubectl_default_storage_class.py."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

VOLUME = """apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-static}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /data/static}
"""
CLAIMS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: simulated}
provisioner: kbatch.io/simulated
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: static, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: dynamic, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: simulated
  resources: {requests: {storage: 3Gi}}
"""


def test_kubectl_sees_bound_and_provisioned_volumes(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_=VOLUME)
    kubectl(served, "apply", "-f", "-", input_=CLAIMS)
    for claim in ("static", "dynamic"):
        kubectl(served, "wait", "--for=jsonpath={.status.phase}=Bound", f"pvc/{claim}", "-n", "default",
                "--timeout=20s")
    lines = kubectl(served, "get", "pv,pvc", "-n", "default").stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in lines if line and not line.startswith("NAME")}
    assert rows["persistentvolume/pv-static"][1:6] == ["5Gi", "RWO", "Retain", "Bound", "default/static"]
    dynamic = rows["persistentvolumeclaim/dynamic"]
    assert dynamic[1] == "Bound" and dynamic[2].startswith("pvc-")
    assert dynamic[3:6] == ["3Gi", "RWO", "simulated"]
    assert rows[f"persistentvolume/{dynamic[2]}"][1:6] == ["3Gi", "RWO", "Delete", "Bound", "default/dynamic"]
    assert rows["persistentvolumeclaim/static"][1:3] == ["Bound", "pv-static"]
    described = kubectl(served, "describe", "pvc", "dynamic", "-n", "default").stdout
    assert "ProvisioningSucceeded" in described and "kbatch.io/simulated" in described
