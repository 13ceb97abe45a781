"""core/v1 Namespace (k8s.io/api ``core/v1/types.go``)."""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.meta import Resource

__all__ = ["Namespace", "NamespaceCondition", "NamespaceSpec", "NamespaceStatus"]


class NamespaceSpec(KubeModel):
    finalizers: list[str] | None = None


class NamespaceCondition(KubeModel):
    type: str = ""
    status: str = ""
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class NamespaceStatus(KubeModel):
    phase: str | None = None  # Active | Terminating
    conditions: list[NamespaceCondition] | None = None


class Namespace(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="Namespace", plural="namespaces", namespaced=False,
        short_names=("ns",), singular="namespace", subresources=("status", "finalize"),
    )

    spec: NamespaceSpec | None = None
    status: NamespaceStatus | None = None
