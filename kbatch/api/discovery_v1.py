"""discovery.k8s.io/v1: EndpointSlice (k8s.io/api ``discovery/v1/types.go``, well_known_labels.go).

An EndpointSlice lists a subset of a Service's endpoints, at most 100 each by default (the
endpointslice controller's ``--max-endpoints-per-slice``), grouped by one set of ports and one
address type. The endpointslice controller (:mod:`kbatch.controllers.endpointslice`) writes those of
Services with a selector, labelled ``kubernetes.io/service-name`` and
``endpointslice.kubernetes.io/managed-by``; the API server writes ``default/kubernetes``'s
(:mod:`kbatch.apiserver.master_endpoints`). Validation: :mod:`kbatch.api.strategies.discovery`.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1.common import ObjectReference
from kbatch.api.meta import Resource

__all__ = [
    "ADDRESS_TYPES",
    "CONTROLLER_NAME",
    "LABEL_MANAGED_BY",
    "LABEL_SERVICE_NAME",
    "LABEL_SKIP_MIRROR",
    "Endpoint",
    "EndpointConditions",
    "EndpointHints",
    "EndpointPort",
    "EndpointSlice",
    "ForNode",
    "ForZone",
]

LABEL_SERVICE_NAME = "kubernetes.io/service-name"
LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
LABEL_SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror"
# pkg/controller/endpointslice: ControllerName, the managed-by value of the slices it writes
CONTROLLER_NAME = "endpointslice-controller.k8s.io"
ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")


class EndpointConditions(KubeModel):
    ready: bool | None = None
    serving: bool | None = None
    terminating: bool | None = None


class ForZone(KubeModel):
    name: str = ""


class ForNode(KubeModel):
    name: str = ""


class EndpointHints(KubeModel):
    for_zones: list[ForZone] | None = None
    for_nodes: list[ForNode] | None = None


class Endpoint(KubeModel):
    addresses: list[str] = Field(default_factory=list)
    conditions: EndpointConditions = Field(default_factory=EndpointConditions)
    hostname: str | None = None
    target_ref: ObjectReference | None = None
    deprecated_topology: dict[str, str] | None = None
    node_name: str | None = None
    zone: str | None = None
    hints: EndpointHints | None = None


class EndpointPort(KubeModel):
    name: str | None = None
    protocol: str | None = None
    port: int | None = None
    app_protocol: str | None = None


class EndpointSlice(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="discovery.k8s.io", version="v1", kind="EndpointSlice", plural="endpointslices",
        namespaced=True, singular="endpointslice", subresources=(),
    )

    address_type: str = ""
    # none is ``null`` on the wire (no omitempty; etcd's protobuf keeps no empty list), as a slice
    # without endpoints or ports reads back from kube-apiserver
    endpoints: list[Endpoint] | None = None
    ports: list[EndpointPort] | None = None
