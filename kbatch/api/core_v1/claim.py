"""core/v1 PersistentVolumeClaim (k8s.io/api ``core/v1/types.go``), as an object only.

kbatch stores claims, validates them and prints them, but binds none yet: the storage family serves
StorageClass and PersistentVolume (docs/storage.md), with no binding controller, no provisioner and
no scheduler volume plugins so far. A claim stays ``Pending`` and pods that mount it schedule and
run as if it were bound. JobSet's ``volumeClaimPolicies`` create
claims (docs/jobset.md).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1.common import ResourceList, TypedLocalObjectReference
from kbatch.api.meta import LabelSelector, Resource

__all__ = [
    "ACCESS_MODES",
    "ModifyVolumeStatus",
    "PersistentVolumeClaim",
    "PersistentVolumeClaimCondition",
    "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimStatus",
    "TypedObjectReference",
    "VolumeResourceRequirements",
]

# PersistentVolumeAccessMode values, in the order validation lists them (pkg/apis/core/validation
# ``supportedAccessModes``, sorted).
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")


class TypedObjectReference(KubeModel):
    api_group: str | None = None
    kind: str = ""
    name: str = ""
    namespace: str | None = None


class VolumeResourceRequirements(KubeModel):
    limits: ResourceList | None = None
    requests: ResourceList | None = None


class PersistentVolumeClaimSpec(KubeModel):
    access_modes: list[str] | None = None
    selector: LabelSelector | None = None
    resources: VolumeResourceRequirements | None = None
    volume_name: str | None = None
    storage_class_name: str | None = None
    volume_mode: str | None = None  # Filesystem | Block
    data_source: TypedLocalObjectReference | None = None
    data_source_ref: TypedObjectReference | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeClaimCondition(KubeModel):
    type: str = ""
    status: str = ""
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class ModifyVolumeStatus(KubeModel):
    target_volume_attributes_class_name: str | None = None
    status: str = ""


class PersistentVolumeClaimStatus(KubeModel):
    phase: str | None = None  # Pending | Bound | Lost
    access_modes: list[str] | None = None
    capacity: ResourceList | None = None
    conditions: list[PersistentVolumeClaimCondition] | None = None
    allocated_resources: ResourceList | None = None
    allocated_resource_statuses: dict[str, str] | None = None
    current_volume_attributes_class_name: str | None = None
    modify_volume_status: ModifyVolumeStatus | None = None


class PersistentVolumeClaim(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="PersistentVolumeClaim", plural="persistentvolumeclaims",
        namespaced=True, short_names=("pvc",), singular="persistentvolumeclaim", categories=("all",),
    )

    spec: PersistentVolumeClaimSpec = Field(default_factory=PersistentVolumeClaimSpec)
    status: PersistentVolumeClaimStatus | None = None
