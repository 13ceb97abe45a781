"""``StorageObjectInUseProtection`` admission (upstream
``plugin/pkg/admission/storage/storageobjectinuseprotection``, on by default in kube-apiserver):
every PersistentVolumeClaim is created with the finalizer ``kubernetes.io/pvc-protection`` and every
PersistentVolume with ``kubernetes.io/pv-protection``. The pvc-protection and pv-protection
controllers (:mod:`kbatch.controllers.storage.protection`) remove them once the object is unused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.apiserver.admission import AdmissionRequest

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["PVC_PROTECTION_FINALIZER", "PV_PROTECTION_FINALIZER", "add_finalizer", "install"]

PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection"
PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection"


def add_finalizer(request: AdmissionRequest) -> None:
    """On create only (the plugin's handler is for ``Create``), when not there yet."""
    if request.operation != "CREATE":
        return
    obj = request.obj
    finalizer = (PVC_PROTECTION_FINALIZER if isinstance(obj, PersistentVolumeClaim)
                 else PV_PROTECTION_FINALIZER if isinstance(obj, PersistentVolume) else None)
    if finalizer is None:
        return
    meta = obj.metadata
    if finalizer not in (meta.finalizers or ()):
        meta.finalizers = [*(meta.finalizers or ()), finalizer]


add_finalizer.admission_metadata_only = True  # type: ignore[attr-defined]


def install(server: APIServer) -> None:
    for model in (PersistentVolumeClaim, PersistentVolume):
        if model in server.registry:
            server.admission.add_mutating(model, add_finalizer, main_resource_only=True)
