"""``DefaultStorageClass`` admission (upstream ``plugin/pkg/admission/storage/storageclass/setdefault``,
on by default in kube-apiserver).

On the create of a PersistentVolumeClaim (main resource only) that asks for no class — neither
``spec.storageClassName`` (an empty string counts as asking: "no class") nor the beta annotation
``volume.beta.kubernetes.io/storage-class`` (``PersistentVolumeClaimHasClass``) — the claim gets the
default StorageClass's name: the newest class annotated ``storageclass.kubernetes.io/is-default-class:
"true"``, then the first by name (``GetDefaultClass``, pkg/volume/util/storageclass.go). With no
default class the claim is left without one. Updates are not touched (the plugin's handler is for
``Create`` only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.storage_v1 import StorageClass, default_class
from kbatch.apiserver.admission import AdmissionRequest

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["BETA_STORAGE_CLASS_ANNOTATION", "claim_has_class", "install"]

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def claim_has_class(claim: PersistentVolumeClaim) -> bool:
    """``PersistentVolumeClaimHasClass`` (pkg/apis/core/helper)."""
    annotations = claim.metadata.annotations or {}
    return BETA_STORAGE_CLASS_ANNOTATION in annotations or claim.spec.storage_class_name is not None


def install(server: APIServer) -> None:
    """Add the hook when both kinds are served."""
    if PersistentVolumeClaim not in server.registry or StorageClass not in server.registry:
        return

    def admit(request: AdmissionRequest) -> None:
        claim = request.obj
        if (request.operation != "CREATE" or not isinstance(claim, PersistentVolumeClaim)
                or claim_has_class(claim)):
            return
        chosen = default_class(server.list(StorageClass).items)
        if chosen is not None:
            claim.spec.storage_class_name = chosen.metadata.name

    server.admission.add_mutating(PersistentVolumeClaim, admit, main_resource_only=True)
