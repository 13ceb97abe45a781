"""node.k8s.io/v1 RuntimeClass (k8s.io/api ``node/v1/types.go``), as of Kubernetes 1.37.

A cluster-scoped class of container runtime a pod names in ``spec.runtimeClassName``: the CRI
``handler`` the kubelet runs its sandbox with, the ``overhead`` the sandbox costs beyond the
containers (KEP-688 PodOverhead, GA in 1.24), and ``scheduling`` constraints (node selector,
tolerations) the RuntimeClass admission plugin merges into the pod (KEP-585). Fields sit at the top
level (no spec, no status). docs/runtimeclass.md.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1.common import ResourceList, Toleration
from kbatch.api.meta import Resource

__all__ = ["Overhead", "RuntimeClass", "Scheduling"]


class Overhead(KubeModel):
    """``podFixed``: what running a pod of this class costs, counted on top of its containers."""

    pod_fixed: ResourceList | None = None


class Scheduling(KubeModel):
    """Nodes that support the class: the selector and tolerations merged into each pod of it."""

    node_selector: dict[str, str] | None = None
    tolerations: list[Toleration] | None = None


class RuntimeClass(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="node.k8s.io", version="v1", kind="RuntimeClass", plural="runtimeclasses",
        namespaced=False, short_names=(), singular="runtimeclass", subresources=(),
    )

    handler: str = ""  # required upstream; "" is reported by validation, not by decoding
    overhead: Overhead | None = None
    scheduling: Scheduling | None = None
