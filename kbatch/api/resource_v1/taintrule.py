"""DeviceTaintRule: a taint added to every device a selector picks (driver, pool, device), without
changing the ResourceSlices; ``status.conditions`` reports eviction progress (``types.go``,
KEP-5055; resource.k8s.io/v1 since 1.37, gate DRADeviceTaintRules)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.meta import Condition, Resource
from kbatch.api.resource_v1.constants import GROUP
from kbatch.api.resource_v1.device import DeviceTaint

__all__ = ["DeviceTaintRule", "DeviceTaintRuleSpec", "DeviceTaintRuleStatus", "DeviceTaintSelector"]


class DeviceTaintSelector(KubeModel):
    driver: str | None = None
    pool: str | None = None
    device: str | None = None


class DeviceTaintRuleSpec(KubeModel):
    device_selector: DeviceTaintSelector | None = None
    taint: DeviceTaint = Field(default_factory=DeviceTaint)


class DeviceTaintRuleStatus(KubeModel):
    conditions: list[Condition] | None = None


class DeviceTaintRule(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP,
        version="v1",
        kind="DeviceTaintRule",
        plural="devicetaintrules",
        namespaced=False,
        singular="devicetaintrule",
    )

    spec: DeviceTaintRuleSpec = Field(default_factory=DeviceTaintRuleSpec)
    status: DeviceTaintRuleStatus | None = None
