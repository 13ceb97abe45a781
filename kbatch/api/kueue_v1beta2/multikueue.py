"""MultiKueue's kinds: MultiKueueConfig and MultiKueueCluster (kueue.x-k8s.io/v1beta2), cluster scoped.

Upstream: kubernetes-sigs/kueue ``apis/kueue/v1beta2/multikueue_types.go`` at v0.19.2 (KEP 693). A
MultiKueueConfig lists the worker clusters a MultiKueue AdmissionCheck dispatches to; a
MultiKueueCluster says how to reach one worker (a kubeconfig in a Secret of Kueue's namespace under the
key ``kubeconfig``, or a file path) and reports whether it is connected (condition ``Active``).
The controllers are :mod:`kbatch.controllers.kueue.multikueue`.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.kueue_v1beta2.common import GROUP, VERSION
from kbatch.api.meta import Condition, Resource

__all__ = [
    "CONFIG_SECRET_KEY",
    "CONTROLLER_NAME",
    "ORIGIN_LABEL",
    "ORIGIN_UID_ANNOTATION",
    "WORKER_POD_LABEL",
    "ClusterProfileReference",
    "ClusterSource",
    "KubeConfig",
    "MultiKueueCluster",
    "MultiKueueClusterSpec",
    "MultiKueueClusterStatus",
    "MultiKueueConfig",
    "MultiKueueConfigSpec",
]

CONFIG_SECRET_KEY = "kubeconfig"  # MultiKueueConfigSecretKey
CLUSTER_ACTIVE = "Active"  # MultiKueueClusterActive
ORIGIN_LABEL = "kueue.x-k8s.io/multikueue-origin"  # MultiKueueOriginLabel
ORIGIN_UID_ANNOTATION = "kueue.x-k8s.io/multikueue-origin-uid"
CONTROLLER_NAME = "kueue.x-k8s.io/multikueue"  # MultiKueueControllerName
WORKER_POD_LABEL = "kueue.x-k8s.io/multikueue-worker-workload-pod"
SECRET_LOCATION = "Secret"
PATH_LOCATION = "Path"
# MultiKueueConfigSpec.quotaManagement (multikueue_types.go) and the ClusterQueue condition that reports
# it (MultiKueueManagerQuotaAutomation, clusterqueue_types.go); KEP 9988
QUOTA_MANAGEMENT_MANUAL = "Manual"
QUOTA_MANAGEMENT_AUTOMATED = "Automated"
QUOTA_AUTOMATION_CONDITION = "MultiKueueManagerQuotaAutomation"


class KubeConfig(KubeModel):
    location: str | None = None
    location_type: str | None = None  # Secret (the CRD's default) | Path


class ClusterProfileReference(KubeModel):
    name: str | None = None


class ClusterSource(KubeModel):
    kube_config: KubeConfig | None = None
    cluster_profile_ref: ClusterProfileReference | None = None


class MultiKueueClusterSpec(KubeModel):
    cluster_source: ClusterSource | None = None


class MultiKueueClusterStatus(KubeModel):
    conditions: list[Condition] | None = None


class MultiKueueCluster(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "MultiKueueCluster",
        "multikueueclusters",
        False,
        short_names=("mkc",),
        singular="multikueuecluster",
    )
    spec: MultiKueueClusterSpec | None = None
    status: MultiKueueClusterStatus | None = None


class MultiKueueConfigSpec(KubeModel):
    clusters: list[str] | None = None
    quota_management: str | None = None  # Manual | Automated


class MultiKueueConfig(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "MultiKueueConfig",
        "multikueueconfigs",
        False,
        short_names=("mkconf",),
        singular="multikueueconfig",
        subresources=(),
    )
    spec: MultiKueueConfigSpec | None = None
