"""core/v1 PersistentVolume (k8s.io/api ``core/v1/types.go``), as of Kubernetes 1.37.

A cluster-scoped piece of storage a claim binds to. kbatch models the volume sources a simulated
cluster needs (``hostPath``, ``local``, ``csi``, ``nfs``); a PersistentVolume with any other source
is refused when decoded (docs/storage.md). Status phases: Pending, Available, Bound, Released,
Failed; ``lastPhaseTransitionTime`` is set when the phase changes.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1.affinity import NodeSelector
from kbatch.api.core_v1.common import ObjectReference, ResourceList
from kbatch.api.core_v1.volume import HostPathVolumeSource, NFSVolumeSource
from kbatch.api.meta import Resource

__all__ = [
    "PV_RECLAIM_POLICIES",
    "VOLUME_PHASES",
    "CSIPersistentVolumeSource",
    "LocalVolumeSource",
    "PersistentVolume",
    "PersistentVolumeSpec",
    "PersistentVolumeStatus",
    "SecretReference",
    "VolumeNodeAffinity",
]

# PersistentVolumeReclaimPolicy values, sorted as validation lists them.
PV_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
VOLUME_PHASES = ("Pending", "Available", "Bound", "Released", "Failed")


class SecretReference(KubeModel):
    name: str | None = None
    namespace: str | None = None


class LocalVolumeSource(KubeModel):
    path: str = ""
    fs_type: str | None = None


class CSIPersistentVolumeSource(KubeModel):
    driver: str = ""
    volume_handle: str = ""
    read_only: bool | None = None
    fs_type: str | None = None
    volume_attributes: dict[str, str] | None = None
    controller_publish_secret_ref: SecretReference | None = None
    node_stage_secret_ref: SecretReference | None = None
    node_publish_secret_ref: SecretReference | None = None
    controller_expand_secret_ref: SecretReference | None = None
    node_expand_secret_ref: SecretReference | None = None


class VolumeNodeAffinity(KubeModel):
    required: NodeSelector | None = None


class PersistentVolumeSpec(KubeModel):
    capacity: ResourceList | None = None
    # PersistentVolumeSource: the modelled members (one of)
    host_path: HostPathVolumeSource | None = None
    local: LocalVolumeSource | None = None
    csi: CSIPersistentVolumeSource | None = None
    nfs: NFSVolumeSource | None = None
    access_modes: list[str] | None = None
    claim_ref: ObjectReference | None = None
    persistent_volume_reclaim_policy: str | None = None  # Retain (default) | Delete | Recycle
    storage_class_name: str | None = None
    mount_options: list[str] | None = None
    volume_mode: str | None = None  # Filesystem (default) | Block
    node_affinity: VolumeNodeAffinity | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeStatus(KubeModel):
    phase: str | None = None
    message: str | None = None
    reason: str | None = None
    last_phase_transition_time: Time | None = None


class PersistentVolume(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="PersistentVolume", plural="persistentvolumes",
        namespaced=False, short_names=("pv",), singular="persistentvolume",
    )

    spec: PersistentVolumeSpec = Field(default_factory=PersistentVolumeSpec)
    status: PersistentVolumeStatus | None = None
