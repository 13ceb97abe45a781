"""multicluster.x-k8s.io/v1alpha1 ClusterProfile: one cluster of a cluster inventory (KEP-4322).

Upstream: kubernetes-sigs/cluster-inventory-api ``apis/v1alpha1/clusterprofile_types.go`` and its CRD
``config/crd/bases/multicluster.x-k8s.io_clusterprofiles.yaml`` (namespaced, a status subresource,
no short names, no printer columns). A cluster manager writes a profile's ``status.accessProviders``
(the deprecated ``status.credentialProviders`` is read too): each names an access provider and carries
a kubeconfig ``Cluster`` (``server``, ``certificate-authority-data``, ``extensions``...). Kueue's
MultiKueue reaches a worker through one (``MultiKueueCluster.spec.clusterSource.clusterProfileRef``,
:mod:`kbatch.controllers.kueue.multikueue.profile_access`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.meta import Condition, Resource

__all__ = [
    "CLUSTER_MANAGER_LABEL",
    "CLUSTER_SET_LABEL",
    "CONTROL_PLANE_HEALTHY",
    "GROUP",
    "VERSION",
    "AccessProvider",
    "ClusterManager",
    "ClusterProfile",
    "ClusterProfileSpec",
    "ClusterProfileStatus",
    "ClusterVersion",
    "KubeconfigCluster",
    "NamedExtension",
    "Property",
]

GROUP = "multicluster.x-k8s.io"
VERSION = "v1alpha1"

CONTROL_PLANE_HEALTHY = "ControlPlaneHealthy"  # ClusterConditionControlPlaneHealthy
CLUSTER_MANAGER_LABEL = "x-k8s.io/cluster-manager"  # LabelClusterManagerKey
CLUSTER_SET_LABEL = "multicluster.x-k8s.io/clusterset"  # LabelClusterSetKey


class NamedExtension(KubeModel):
    """clientcmd/api/v1 ``NamedExtension``: an opaque object under a name."""

    name: str | None = None
    extension: dict[str, Any] | None = None


class KubeconfigCluster(KubeModel):
    """clientcmd/api/v1 ``Cluster``: a kubeconfig's cluster entry, with its hyphenated wire names."""

    server: str | None = None
    tls_server_name: str | None = Field(default=None, alias="tls-server-name")
    insecure_skip_tls_verify: bool | None = Field(default=None, alias="insecure-skip-tls-verify")
    certificate_authority: str | None = Field(default=None, alias="certificate-authority")
    certificate_authority_data: str | None = Field(default=None, alias="certificate-authority-data")
    proxy_url: str | None = Field(default=None, alias="proxy-url")
    disable_compression: bool | None = Field(default=None, alias="disable-compression")
    extensions: list[NamedExtension] | None = None


class AccessProvider(KubeModel):
    """``AccessProvider`` (``CredentialProvider`` is its deprecated alias)."""

    name: str | None = None
    cluster: KubeconfigCluster | None = None


class ClusterManager(KubeModel):
    name: str | None = None


class ClusterProfileSpec(KubeModel):
    display_name: str | None = None
    cluster_manager: ClusterManager | None = None


class ClusterVersion(KubeModel):
    kubernetes: str | None = None


class Property(KubeModel):
    name: str | None = None
    value: str | None = None
    last_observed_time: Time | None = None


class ClusterProfileStatus(KubeModel):
    conditions: list[Condition] | None = None
    version: ClusterVersion | None = None
    properties: list[Property] | None = None
    credential_providers: list[AccessProvider] | None = None
    access_providers: list[AccessProvider] | None = None


class ClusterProfile(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP, VERSION, "ClusterProfile", "clusterprofiles", True, singular="clusterprofile"
    )
    spec: ClusterProfileSpec | None = None
    status: ClusterProfileStatus | None = None
