"""The cluster-scoped Kueue kinds without queueing state: ResourceFlavor, WorkloadPriorityClass,
AdmissionCheck and Topology (kueue.x-k8s.io/v1beta2).

Upstream: kubernetes-sigs/kueue ``apis/kueue/v1beta2/{resourceflavor,workloadpriorityclass,
admissioncheck,topology}_types.go`` at v0.19.2. AdmissionCheck's controllers and topology-aware
scheduling are not implemented (the objects are served and validated; docs/kueue.md).
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1 import Taint, Toleration
from kbatch.api.kueue_v1beta2.common import GROUP, VERSION, Int32
from kbatch.api.meta import Condition, Resource

__all__ = [
    "AdmissionCheck",
    "AdmissionCheckParametersReference",
    "AdmissionCheckSpec",
    "AdmissionCheckStatus",
    "ResourceFlavor",
    "ResourceFlavorSpec",
    "Topology",
    "TopologyLevel",
    "TopologySpec",
    "WorkloadPriorityClass",
]


class ResourceFlavorSpec(KubeModel):
    node_labels: dict[str, str] | None = None
    node_taints: list[Taint] | None = None
    tolerations: list[Toleration] | None = None
    topology_name: str | None = None


class ResourceFlavor(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "ResourceFlavor",
        "resourceflavors",
        False,
        short_names=("flavor", "flavors", "rf"),
        singular="resourceflavor",
        subresources=(),
    )
    spec: ResourceFlavorSpec | None = None


class WorkloadPriorityClass(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "WorkloadPriorityClass",
        "workloadpriorityclasses",
        False,
        short_names=("wpc",),
        singular="workloadpriorityclass",
        subresources=(),
    )
    value: Int32 | None = None
    description: str | None = None


class AdmissionCheckParametersReference(KubeModel):
    api_group: str | None = None
    kind: str | None = None
    name: str | None = None


class AdmissionCheckSpec(KubeModel):
    controller_name: str | None = None
    parameters: AdmissionCheckParametersReference | None = None


class AdmissionCheckStatus(KubeModel):
    conditions: list[Condition] | None = None


class AdmissionCheck(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "AdmissionCheck",
        "admissionchecks",
        False,
        short_names=("ac",),
        singular="admissioncheck",
    )
    spec: AdmissionCheckSpec | None = None
    status: AdmissionCheckStatus | None = None


class TopologyLevel(KubeModel):
    node_label: str | None = None


class TopologySpec(KubeModel):
    levels: list[TopologyLevel] | None = None


class Topology(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        GROUP,
        VERSION,
        "Topology",
        "topologies",
        False,
        short_names=("topo",),
        singular="topology",
        subresources=(),
    )
    spec: TopologySpec | None = None
