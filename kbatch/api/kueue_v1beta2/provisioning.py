"""ProvisioningRequestConfig (kueue.x-k8s.io/v1beta2): how Kueue's ProvisioningRequest admission check
builds the ProvisioningRequests it asks the cluster-autoscaler with.

Upstream: kubernetes-sigs/kueue ``apis/kueue/v1beta2/provisioningrequestconfig_types.go`` at v0.19.2
(cluster-scoped, short name ``prc``, no status). v1beta1 has the same fields (only its ``omitempty``
tags differ), so it converts by its ``apiVersion`` alone (:mod:`kbatch.api.kueue_v1beta1`). The
controller reading it: :mod:`kbatch.controllers.kueue.provisioning`.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.kueue_v1beta2.common import GROUP, VERSION, Int32
from kbatch.api.meta import Resource

__all__ = [
    "IDENTICAL_POD_TEMPLATES",
    "IDENTICAL_WORKLOAD_SCHEDULING_REQUIREMENTS",
    "MERGE_POLICIES",
    "PROVISIONING_REQUEST_CONTROLLER",
    "ProvisioningRequestConfig",
    "ProvisioningRequestConfigSpec",
    "ProvisioningRequestPodSetUpdates",
    "ProvisioningRequestPodSetUpdatesNodeSelector",
    "ProvisioningRequestRetryStrategy",
]

PROVISIONING_REQUEST_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
"""``ProvisioningRequestControllerName``: an AdmissionCheck's ``spec.controllerName`` for this check."""

IDENTICAL_POD_TEMPLATES = "IdenticalPodTemplates"
IDENTICAL_WORKLOAD_SCHEDULING_REQUIREMENTS = "IdenticalWorkloadSchedulingRequirements"
MERGE_POLICIES = (IDENTICAL_POD_TEMPLATES, IDENTICAL_WORKLOAD_SCHEDULING_REQUIREMENTS)


class ProvisioningRequestRetryStrategy(KubeModel):
    backoff_limit_count: Int32 | None = None
    backoff_base_seconds: Int32 | None = None
    backoff_max_seconds: Int32 | None = None


class ProvisioningRequestPodSetUpdatesNodeSelector(KubeModel):
    key: str | None = None
    value_from_provisioning_class_detail: str | None = None


class ProvisioningRequestPodSetUpdates(KubeModel):
    node_selector: list[ProvisioningRequestPodSetUpdatesNodeSelector] | None = None


class ProvisioningRequestConfigSpec(KubeModel):
    provisioning_class_name: str | None = None
    parameters: dict[str, str] | None = None
    managed_resources: list[str] | None = None
    retry_strategy: ProvisioningRequestRetryStrategy | None = None
    pod_set_updates: ProvisioningRequestPodSetUpdates | None = None
    pod_set_merge_policy: str | None = None


class ProvisioningRequestConfig(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "ProvisioningRequestConfig",
        "provisioningrequestconfigs",
        False,
        short_names=("prc",),
        singular="provisioningrequestconfig",
        subresources=(),
    )
    spec: ProvisioningRequestConfigSpec | None = None
