"""core/v1 ResourceQuota and LimitRange (k8s.io/api ``core/v1/types.go``).

A ResourceQuota caps what a namespace may hold (``spec.hard``), optionally only for the pods its
``scopes`` / ``scopeSelector`` select; the ``resourcequota`` controller keeps ``status.hard`` and
``status.used``. A LimitRange bounds and defaults the compute resources of the namespace's pods and
containers (the ``LimitRanger`` admission plugin). docs/quota.md.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1.common import ResourceList
from kbatch.api.meta import Resource

__all__ = [
    "LimitRange",
    "LimitRangeItem",
    "LimitRangeSpec",
    "ResourceQuota",
    "ResourceQuotaSpec",
    "ResourceQuotaStatus",
    "ScopeSelector",
    "ScopedResourceSelectorRequirement",
]


class ScopedResourceSelectorRequirement(KubeModel):
    scope_name: str = ""
    operator: str = ""  # In | NotIn | Exists | DoesNotExist
    values: list[str] | None = None


class ScopeSelector(KubeModel):
    match_expressions: list[ScopedResourceSelectorRequirement] | None = None


class ResourceQuotaSpec(KubeModel):
    hard: ResourceList | None = None
    scopes: list[str] | None = None
    scope_selector: ScopeSelector | None = None


class ResourceQuotaStatus(KubeModel):
    hard: ResourceList | None = None
    used: ResourceList | None = None


class ResourceQuota(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="ResourceQuota", plural="resourcequotas", namespaced=True,
        short_names=("quota",), singular="resourcequota", subresources=("status",),
    )

    spec: ResourceQuotaSpec | None = None
    status: ResourceQuotaStatus | None = None


class LimitRangeItem(KubeModel):
    type: str = ""  # Pod | Container | PersistentVolumeClaim
    max: ResourceList | None = None
    min: ResourceList | None = None
    default: ResourceList | None = None
    default_request: ResourceList | None = None
    max_limit_request_ratio: ResourceList | None = None


class LimitRangeSpec(KubeModel):
    limits: list[LimitRangeItem] = []


class LimitRange(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="LimitRange", plural="limitranges", namespaced=True,
        short_names=("limits",), singular="limitrange", subresources=(),
    )

    spec: LimitRangeSpec | None = None
