"""``kubectl get pv`` and ``kubectl get sc`` cells, after upstream's printers.

Source: k8s.io/kubernetes ``pkg/printers/internalversion/printers.go`` (copy with the PV
VolumeAttributesClass column, 1.34+): ``printPersistentVolume``, ``printStorageClass`` and their
column definitions; ``printers_test.go`` ``TestPrintStorageClass`` (rows "sc1", "sc2", read in the
copy that predates the ReclaimPolicy/VolumeBindingMode/AllowVolumeExpansion columns: the
expectations below add those columns as printers.go fills them).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch.api.base import format_time
from kbatch.families import builtin_registry

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
_REGISTRY = builtin_registry()


def cells(api_version: str, kind: str, obj: dict[str, Any]) -> list[Any]:
    return _REGISTRY.for_gvk(api_version, kind).table_printer.cells(obj, NOW)


def columns(api_version: str, kind: str) -> list[tuple[str, str, int]]:
    return [(c.name, c.type, c.priority) for c in _REGISTRY.for_gvk(api_version, kind).table_printer.columns]


def ago(**delta: float) -> str:
    return format_time(NOW - timedelta(**delta))


def test_column_definitions() -> None:
    """AddHandlers: persistentVolumeColumnDefinitions and storageClassColumnDefinitions."""
    s = "string"
    assert columns("v1", "PersistentVolume") == [
        ("Name", s, 0), ("Capacity", s, 0), ("Access Modes", s, 0), ("Reclaim Policy", s, 0),
        ("Status", s, 0), ("Claim", s, 0), ("StorageClass", s, 0), ("VolumeAttributesClass", s, 0),
        ("Reason", s, 0), ("Age", s, 0), ("VolumeMode", s, 1)]
    assert columns("storage.k8s.io/v1", "StorageClass") == [
        ("Name", s, 0), ("Provisioner", s, 0), ("ReclaimPolicy", s, 0), ("VolumeBindingMode", s, 0),
        ("AllowVolumeExpansion", s, 0), ("Age", s, 0)]


@pytest.mark.parametrize(("sc", "want"), [
    ({"metadata": {"name": "sc1", "creationTimestamp": ago(seconds=0)},
      "provisioner": "kubernetes.io/glusterfs"},
     ["sc1", "kubernetes.io/glusterfs", "Delete", "Immediate", False, "0s"]),
    ({"metadata": {"name": "sc2", "creationTimestamp": ago(minutes=5)}, "provisioner": "kubernetes.io/nfs"},
     ["sc2", "kubernetes.io/nfs", "Delete", "Immediate", False, "5m"]),
], ids=["sc1", "sc2"])
def test_print_storage_class(sc: dict[str, Any], want: list[Any]) -> None:
    """TestPrintStorageClass; unset reclaimPolicy and volumeBindingMode print their defaults."""
    assert cells("storage.k8s.io/v1", "StorageClass", sc) == want


@pytest.mark.parametrize("annotation", ["storageclass.kubernetes.io/is-default-class",
                                        "storageclass.beta.kubernetes.io/is-default-class"])
def test_default_class_is_named_default(annotation: str) -> None:
    """printStorageClass: IsDefaultAnnotation (GA or beta annotation, exactly "true")."""
    sc = {"metadata": {"name": "standard", "annotations": {annotation: "true"}},
          "provisioner": "kbatch.io/simulated", "reclaimPolicy": "Retain",
          "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True}
    assert cells("storage.k8s.io/v1", "StorageClass", sc)[:5] == [
        "standard (default)", "kbatch.io/simulated", "Retain", "WaitForFirstConsumer", True]
    sc["metadata"]["annotations"] = {annotation: "True"}
    assert cells("storage.k8s.io/v1", "StorageClass", sc)[0] == "standard"


def test_print_persistent_volume_bound_and_wide() -> None:
    """printPersistentVolume: claim as namespace/name, class from spec, every cell."""
    pv = {"metadata": {"name": "pv1", "creationTimestamp": ago(hours=2)},
          "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
                   "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "fast",
                   "claimRef": {"namespace": "team", "name": "data"}, "volumeMode": "Block"},
          "status": {"phase": "Bound"}}
    assert cells("v1", "PersistentVolume", pv) == [
        "pv1", "10Gi", "RWO,RWX", "Delete", "Bound", "team/data", "fast", "<unset>", "", "120m", "Block"]


def test_print_persistent_volume_edge_cells() -> None:
    """Terminating while deleted; the beta class annotation wins; an absent capacity prints 0; the
    status reason; no claim is an empty cell; a VolumeAttributesClass is shown."""
    pv = {"metadata": {"name": "pv2", "creationTimestamp": ago(seconds=30),
                       "deletionTimestamp": ago(seconds=1),
                       "annotations": {"volume.beta.kubernetes.io/storage-class": "beta"}},
          "spec": {"accessModes": ["ReadWriteOncePod"], "persistentVolumeReclaimPolicy": "Retain",
                   "storageClassName": "ga", "volumeAttributesClassName": "gold"},
          "status": {"phase": "Failed", "reason": "Recycling failed"}}
    assert cells("v1", "PersistentVolume", pv) == [
        "pv2", "0", "RWOP", "Retain", "Terminating", "", "beta", "gold", "Recycling failed", "30s", "<unset>"]
