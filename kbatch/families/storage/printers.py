"""``kubectl get`` columns of the storage kinds, computed from wire dicts.

Upstream: k8s.io/kubernetes ``pkg/printers/internalversion/printers.go`` (``printPersistentVolume``,
``printStorageClass``, ``printCSIDriver`` and their column definitions, read at master, 1.34+): a
PersistentVolume's
claim as ``namespace/name``, its class from the beta annotation else ``spec.storageClassName``,
``Terminating`` while deleted; a StorageClass named ``<name> (default)`` when annotated as the
default, its reclaim policy and binding mode shown with their defaults when unset; a CSIDriver's
booleans shown with their defaults when unset, its token audiences joined by commas (``<unset>``
without ``tokenRequests``), its lifecycle modes likewise (``<none>``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, creation_age, name_of
from kbatch.api.storage_v1 import is_default_annotation

__all__ = ["CSI_DRIVER", "PERSISTENT_VOLUME", "STORAGE_CLASS", "access_modes_string"]

_ACCESS_MODE_SHORT = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                      ("ReadWriteOncePod", "RWOP"))
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def access_modes_string(modes: list[str] | None) -> str:
    """``GetAccessModesAsString``: the short names in a fixed order, each once."""
    held = modes or ()
    return ",".join(short for mode, short in _ACCESS_MODE_SHORT if mode in held)


def _volume_cells(pv: Obj, now: datetime) -> list[Any]:
    spec, status = pv.get("spec") or {}, pv.get("status") or {}
    ref = spec.get("claimRef")
    claim = f"{ref.get('namespace') or ''}/{ref.get('name') or ''}" if ref is not None else ""
    phase = "Terminating" if at(pv, "metadata", "deletionTimestamp") else status.get("phase") or ""
    annotations = at(pv, "metadata", "annotations") or {}
    storage_class = annotations.get(BETA_STORAGE_CLASS_ANNOTATION) or spec.get("storageClassName") or ""
    capacity = str((spec.get("capacity") or {}).get("storage") or "0")  # an absent quantity prints 0
    vac = spec.get("volumeAttributesClassName")
    return [name_of(pv), capacity, access_modes_string(spec.get("accessModes")),
            spec.get("persistentVolumeReclaimPolicy") or "", phase, claim, storage_class,
            "<unset>" if vac is None else vac, status.get("reason") or "", creation_age(pv, now),
            spec.get("volumeMode") or "<unset>"]


PERSISTENT_VOLUME = Printer(
    (NAME, Column("Capacity"), Column("Access Modes"), Column("Reclaim Policy"), Column("Status"),
     Column("Claim"), Column("StorageClass"), Column("VolumeAttributesClass"), Column("Reason"), AGE,
     Column("VolumeMode", priority=1)),
    _volume_cells)


def _class_cells(sc: Obj, now: datetime) -> list[Any]:
    name = name_of(sc)
    if is_default_annotation(at(sc, "metadata", "annotations")):
        name += " (default)"
    return [name, sc.get("provisioner") or "", sc.get("reclaimPolicy") or "Delete",
            sc.get("volumeBindingMode") or "Immediate", bool(sc.get("allowVolumeExpansion")),
            creation_age(sc, now)]


STORAGE_CLASS = Printer(
    (NAME, Column("Provisioner"), Column("ReclaimPolicy"), Column("VolumeBindingMode"),
     Column("AllowVolumeExpansion"), AGE),
    _class_cells)


def _driver_cells(driver: Obj, now: datetime) -> list[Any]:
    spec = driver.get("spec") or {}

    def flag(name: str, unset: bool) -> bool:
        value = spec.get(name)
        return unset if value is None else bool(value)

    requests = spec.get("tokenRequests")
    audiences = "<unset>" if requests is None else ",".join(r.get("audience") or "" for r in requests)
    return [name_of(driver), flag("attachRequired", True), flag("podInfoOnMount", False),
            flag("storageCapacity", False), audiences, flag("requiresRepublish", False),
            ",".join(spec.get("volumeLifecycleModes") or ()) or "<none>", creation_age(driver, now)]


CSI_DRIVER = Printer(
    (NAME, Column("AttachRequired"), Column("PodInfoOnMount"), Column("StorageCapacity"),
     Column("TokenRequests"), Column("RequiresRepublish"), Column("Modes"), AGE),
    _driver_cells)
