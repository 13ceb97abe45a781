"""VolumeBinding's queueing hints, after upstream ``volume_binding_test.go``
``TestIsSchedulableAfterPersistentVolumeClaimChange`` and ``TestIsSchedulableAfterStorageClassChange``
(kubernetes/kubernetes master). The rows' pods and objects are built through kbatch's models; the
"type conversion error" rows do not translate (kbatch's hints are called with typed objects only)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.storage_v1 import StorageClass
from kbatch.controllers.scheduler.convert import pod_info
from kbatch.controllers.scheduler.events import QueueingHint
from kbatch.controllers.scheduler.plugins.volume_binding.plugin import claim_hint, class_hint

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def pod(volumes: list[dict[str, Any]]) -> Any:
    return pod_info(Pod.model_validate({
        "metadata": {"name": "pod-a", "namespace": "ns1"},
        "spec": {"containers": [{"name": "c", "image": "i"}], "volumes": volumes}}))


def pvc(name: str, namespace: str = "ns1") -> PersistentVolumeClaim:
    return PersistentVolumeClaim.model_validate({"metadata": {"name": name, "namespace": namespace}})


PVC_VOLUME = [{"name": "v", "persistentVolumeClaim": {"claimName": "pvc1"}}]
EPHEMERAL = [{"name": "ephemeral", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]


@pytest.mark.parametrize(("name", "volumes", "new", "want"), [
    ("pod has no pvc or ephemeral volumes", [], pvc("pvc1"), SKIP),
    ("pvc with the same name as the one used by the pod in a different namespace is modified",
     PVC_VOLUME, pvc("pvc1", "ns2"), SKIP),
    ("pod has no pvc that is being modified", PVC_VOLUME, pvc("pvc3"), SKIP),
    ("pod has no generic ephemeral volume that is being modified", EPHEMERAL, pvc("pod-a-ephemeral-2"), SKIP),
    ("pod has the pvc that is being modified", PVC_VOLUME, pvc("pvc1"), QUEUE),
    ("pod has the generic ephemeral volume that is being modified", EPHEMERAL, pvc("pod-a-ephemeral"), QUEUE),
])
def test_claim_change(name: str, volumes: list[dict[str, Any]], new: Any, want: QueueingHint) -> None:
    assert claim_hint(pod(volumes), None, new) == want, name


def sc(topology: list[str] | None = None) -> StorageClass:
    body: dict[str, Any] = {"metadata": {"name": "sc-a"}, "provisioner": "p"}
    if topology is not None:
        body["allowedTopologies"] = [{"matchLabelExpressions": [{"key": "zone", "values": topology}]}]
    return StorageClass.model_validate(body)


@pytest.mark.parametrize(("name", "old", "new", "want"), [
    ("When a new StorageClass is created, it returns Queue", None, sc(), QUEUE),
    ("When the AllowedTopologies are changed, it returns Queue", sc(["a"]), sc(["b"]), QUEUE),
    ("When there are no changes to the StorageClass, it returns QueueSkip", sc(["a"]), sc(["a"]), SKIP),
])
def test_storage_class_change(name: str, old: Any, new: Any, want: QueueingHint) -> None:
    assert class_hint(pod(PVC_VOLUME), old, new) == want, name
