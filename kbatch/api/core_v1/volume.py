"""core/v1 Volume: the common sources typed, every other upstream source accepted as a mapping.

Upstream: k8s.io/api ``core/v1/types.go`` (Volume, VolumeSource). The sources batch manifests use
(emptyDir, configMap, secret, persistentVolumeClaim, hostPath, projected, downwardAPI, csi,
ephemeral, nfs, image) are typed; the remaining in-tree sources are kept as plain mappings so that a
valid manifest is never rejected, while a misspelt source name still is (``extra=forbid``).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from kbatch.api.base import KubeModel
from kbatch.api.core_v1.common import LocalObjectReference
from kbatch.api.core_v1.container import ObjectFieldSelector, ResourceFieldSelector
from kbatch.api.meta import LabelSelector
from kbatch.api.quantity import Quantity

__all__ = [
    "CSIVolumeSource",
    "ClusterTrustBundleProjection",
    "ConfigMapProjection",
    "ConfigMapVolumeSource",
    "DownwardAPIProjection",
    "DownwardAPIVolumeFile",
    "DownwardAPIVolumeSource",
    "EmptyDirVolumeSource",
    "EphemeralVolumeSource",
    "HostPathVolumeSource",
    "ImageVolumeSource",
    "KeyToPath",
    "NFSVolumeSource",
    "PersistentVolumeClaimVolumeSource",
    "PodCertificateProjection",
    "ProjectedVolumeSource",
    "SecretProjection",
    "SecretVolumeSource",
    "ServiceAccountTokenProjection",
    "Volume",
    "VolumeProjection",
]


class KeyToPath(KubeModel):
    key: str = ""
    path: str = ""
    mode: int | None = None


class EmptyDirVolumeSource(KubeModel):
    medium: str | None = None
    size_limit: Quantity | None = None


class ConfigMapVolumeSource(KubeModel):
    name: str | None = None
    items: list[KeyToPath] | None = None
    default_mode: int | None = None
    optional: bool | None = None


class SecretVolumeSource(KubeModel):
    secret_name: str | None = None
    items: list[KeyToPath] | None = None
    default_mode: int | None = None
    optional: bool | None = None


class PersistentVolumeClaimVolumeSource(KubeModel):
    claim_name: str = ""
    read_only: bool | None = None


class HostPathVolumeSource(KubeModel):
    path: str = ""
    type: str | None = None


class DownwardAPIVolumeFile(KubeModel):
    path: str = ""
    field_ref: ObjectFieldSelector | None = None
    resource_field_ref: ResourceFieldSelector | None = None
    mode: int | None = None


class DownwardAPIVolumeSource(KubeModel):
    items: list[DownwardAPIVolumeFile] | None = None
    default_mode: int | None = None


class SecretProjection(KubeModel):
    name: str | None = None
    items: list[KeyToPath] | None = None
    optional: bool | None = None


class ConfigMapProjection(KubeModel):
    name: str | None = None
    items: list[KeyToPath] | None = None
    optional: bool | None = None


class DownwardAPIProjection(KubeModel):
    items: list[DownwardAPIVolumeFile] | None = None


class ServiceAccountTokenProjection(KubeModel):
    audience: str | None = None
    expiration_seconds: int | None = None
    path: str = ""


class ClusterTrustBundleProjection(KubeModel):
    name: str | None = None
    signer_name: str | None = None
    label_selector: LabelSelector | None = None
    optional: bool | None = None
    path: str = ""


class PodCertificateProjection(KubeModel):
    signer_name: str = ""
    key_type: str = ""
    max_expiration_seconds: int | None = None
    credential_bundle_path: str | None = None
    key_path: str | None = None
    certificate_chain_path: str | None = None


class VolumeProjection(KubeModel):
    secret: SecretProjection | None = None
    downward_api: DownwardAPIProjection | None = Field(default=None, alias="downwardAPI")
    config_map: ConfigMapProjection | None = None
    service_account_token: ServiceAccountTokenProjection | None = None
    cluster_trust_bundle: ClusterTrustBundleProjection | None = None
    pod_certificate: PodCertificateProjection | None = None


class ProjectedVolumeSource(KubeModel):
    sources: list[VolumeProjection] | None = None
    default_mode: int | None = None


class CSIVolumeSource(KubeModel):
    driver: str = ""
    read_only: bool | None = None
    fs_type: str | None = None
    volume_attributes: dict[str, str] | None = None
    node_publish_secret_ref: LocalObjectReference | None = None


class EphemeralVolumeSource(KubeModel):
    # A PersistentVolumeClaimTemplate (metadata + PVC spec); kept as a mapping for now.
    volume_claim_template: dict[str, Any] | None = None


class NFSVolumeSource(KubeModel):
    server: str = ""
    path: str = ""
    read_only: bool | None = None


class ImageVolumeSource(KubeModel):
    reference: str | None = None
    pull_policy: str | None = None


class Volume(KubeModel):
    name: str = ""
    empty_dir: EmptyDirVolumeSource | None = None
    config_map: ConfigMapVolumeSource | None = None
    secret: SecretVolumeSource | None = None
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None
    host_path: HostPathVolumeSource | None = None
    projected: ProjectedVolumeSource | None = None
    downward_api: DownwardAPIVolumeSource | None = Field(default=None, alias="downwardAPI")
    csi: CSIVolumeSource | None = None
    ephemeral: EphemeralVolumeSource | None = None
    nfs: NFSVolumeSource | None = None
    image: ImageVolumeSource | None = None
    # Other in-tree sources, accepted verbatim.
    aws_elastic_block_store: dict[str, Any] | None = None
    azure_disk: dict[str, Any] | None = None
    azure_file: dict[str, Any] | None = None
    cephfs: dict[str, Any] | None = None
    cinder: dict[str, Any] | None = None
    fc: dict[str, Any] | None = None
    flex_volume: dict[str, Any] | None = None
    flocker: dict[str, Any] | None = None
    gce_persistent_disk: dict[str, Any] | None = None
    git_repo: dict[str, Any] | None = None
    glusterfs: dict[str, Any] | None = None
    iscsi: dict[str, Any] | None = None
    photon_persistent_disk: dict[str, Any] | None = None
    portworx_volume: dict[str, Any] | None = None
    quobyte: dict[str, Any] | None = None
    rbd: dict[str, Any] | None = None
    scale_io: dict[str, Any] | None = Field(default=None, alias="scaleIO")
    storageos: dict[str, Any] | None = None
    vsphere_volume: dict[str, Any] | None = None

    def source_names(self) -> list[str]:
        """The wire names of the sources set on this volume (validation wants exactly one)."""
        fields = type(self).model_fields
        return [fields[n].alias or n for n in fields if n != "name" and getattr(self, n) is not None]
