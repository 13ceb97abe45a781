"""ResourceSlice: one driver's devices in one pool, published for a node, a set of nodes or the
whole cluster (``types.go`` ``ResourceSlice``). Cluster-scoped.

A pool may span several slices (``pool.resourceSliceCount``); consumers use only the slices of the
pool's highest ``generation``. A slice holds either ``devices`` or ``sharedCounters`` (the counter
sets that partitionable devices consume).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1 import NodeSelector
from kbatch.api.meta import Resource
from kbatch.api.resource_v1.constants import GROUP
from kbatch.api.resource_v1.device import CounterSet, Device

__all__ = ["ResourcePool", "ResourceSlice", "ResourceSliceSpec"]


class ResourcePool(KubeModel):
    name: str = ""
    generation: int = 0
    resource_slice_count: int = 0


class ResourceSliceSpec(KubeModel):
    driver: str = ""
    pool: ResourcePool = Field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    devices: list[Device] | None = None
    per_device_node_selection: bool | None = None
    shared_counters: list[CounterSet] | None = None
    partition_type_attribute: str | None = None  # alpha (DRADeviceCompatibilityGroups)
    skip_node_operations: list[str] | None = None  # alpha (DRAOptionalNodeOperations)


class ResourceSlice(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP,
        version="v1",
        kind="ResourceSlice",
        plural="resourceslices",
        namespaced=False,
        singular="resourceslice",
        subresources=(),
    )

    spec: ResourceSliceSpec = Field(default_factory=ResourceSliceSpec)
