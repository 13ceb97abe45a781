"""The storage family: persistent storage as Kubernetes 1.37 serves it (docs/storage.md).

Kinds: storage.k8s.io/v1 StorageClass and core/v1 PersistentVolume, both cluster-scoped, with
upstream's defaulting, validation, update rules and ``kubectl get`` columns. core/v1
PersistentVolumeClaim stays in the core family (JobSet's volumeClaimPolicies create claims).

This is the first stage: objects only. No admission plugin (DefaultStorageClass,
StorageObjectInUseProtection), no persistentvolume-binder, no provisioner and no VolumeBinding
scheduler plugin yet: a claim stays Pending and a volume stays Pending (docs/storage.md lists what is
missing).
"""

from __future__ import annotations

from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.storage_v1 import StorageClass
from kbatch.api.strategies.storage import PersistentVolumeStrategy, StorageClassStrategy
from kbatch.families.family import Family, KindEntry
from kbatch.families.storage import printers

__all__ = ["STORAGE"]

STORAGE = Family(
    name="storage",
    description="storage.k8s.io/v1 StorageClass and core/v1 PersistentVolume (objects; no binding yet)",
    kinds=(
        KindEntry(StorageClass, StorageClassStrategy(), printers.STORAGE_CLASS),
        KindEntry(PersistentVolume, PersistentVolumeStrategy(), printers.PERSISTENT_VOLUME),
    ),
)
