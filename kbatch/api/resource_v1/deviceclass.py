"""DeviceClass: cluster-scoped selectors and configuration a request names by ``deviceClassName``,
and the extended resource name (``extendedResourceName``, DRAExtendedResource, GA in 1.37) that lets
a plain ``resources.requests`` entry be satisfied from the class's devices (``types.go``)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.meta import Resource
from kbatch.api.resource_v1.claim import DeviceSelector, OpaqueDeviceConfiguration
from kbatch.api.resource_v1.constants import GROUP

__all__ = ["DeviceClass", "DeviceClassConfiguration", "DeviceClassSpec"]


class DeviceClassConfiguration(KubeModel):
    opaque: OpaqueDeviceConfiguration | None = None  # inlined DeviceConfiguration


class DeviceClassSpec(KubeModel):
    selectors: list[DeviceSelector] | None = None
    config: list[DeviceClassConfiguration] | None = None
    extended_resource_name: str | None = None


class DeviceClass(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP,
        version="v1",
        kind="DeviceClass",
        plural="deviceclasses",
        namespaced=False,
        singular="deviceclass",
        subresources=(),
    )

    spec: DeviceClassSpec = Field(default_factory=DeviceClassSpec)
