"""The storage family: persistent storage as Kubernetes 1.37 serves it (docs/storage.md).

Kinds: storage.k8s.io/v1 StorageClass and core/v1 PersistentVolume, both cluster-scoped, with
upstream's defaulting, validation, update rules and ``kubectl get`` columns. core/v1
PersistentVolumeClaim stays in the core family (JobSet's volumeClaimPolicies create claims).

Admission: ``DefaultStorageClass`` (a claim that names no class gets the default one) and
``StorageObjectInUseProtection`` (the pvc-/pv-protection finalizers), with the ``pvc-protection`` and
``pv-protection`` controllers. Not yet: the persistentvolume-binder, a provisioner, the VolumeBinding
scheduler plugin: a claim stays Pending and a volume stays Pending (docs/storage.md).
"""

from __future__ import annotations

from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.storage_v1 import StorageClass
from kbatch.api.strategies.storage import PersistentVolumeStrategy, StorageClassStrategy
from kbatch.families.family import AdmissionPlugin, ControllerSpec, Family, KindEntry
from kbatch.families.storage import printers

__all__ = ["STORAGE"]

STORAGE = Family(
    name="storage",
    description="storage.k8s.io/v1 StorageClass and core/v1 PersistentVolume (no binding yet); "
                "DefaultStorageClass and StorageObjectInUseProtection admission; pvc/pv protection",
    kinds=(
        KindEntry(StorageClass, StorageClassStrategy(), printers.STORAGE_CLASS),
        KindEntry(PersistentVolume, PersistentVolumeStrategy(), printers.PERSISTENT_VOLUME),
    ),
    admission=(
        AdmissionPlugin("DefaultStorageClass",
                        "kbatch.apiserver.admission_plugins.default_storage_class:install",
                        description="a claim without a class gets the default StorageClass"),
        AdmissionPlugin("StorageObjectInUseProtection",
                        "kbatch.apiserver.admission_plugins.storage_protection:install",
                        description="claims and volumes get the pvc-/pv-protection finalizers"),
    ),
    controllers=(
        ControllerSpec("pvc-protection", "removes kubernetes.io/pvc-protection from deleted claims no "
                       "scheduled pod uses", "kbatch.controllers.storage.protection:setup_pvc",
                       aliases=("persistentvolumeclaim-protection-controller",),
                       source="persistentvolumeclaim-protection-controller"),
        ControllerSpec("pv-protection", "removes kubernetes.io/pv-protection from deleted volumes that "
                       "are not Bound", "kbatch.controllers.storage.protection:setup_pv",
                       aliases=("persistentvolume-protection-controller",),
                       source="persistentvolume-protection-controller"),
    ),
)
