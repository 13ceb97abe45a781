"""core/v1 Endpoints (k8s.io/api ``core/v1/types.go``): one object per Service with a selector, named
after it, its addresses grouped in subsets by port set. Deprecated since 1.33 in favour of
discovery.k8s.io/v1 EndpointSlice (KEP-4974): every request on it answers a warning. The endpoints
controller (:mod:`kbatch.controllers.endpoint`) writes it; validation and the repacking of subsets:
:mod:`kbatch.api.strategies.core.endpoints`.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1.common import ObjectReference
from kbatch.api.meta import Resource

__all__ = ["ENDPOINTS_LAST_CHANGE_TRIGGER_TIME", "ENDPOINTS_OVER_CAPACITY", "IS_HEADLESS_SERVICE",
           "LEADER_ANNOTATION", "EndpointAddress", "EndpointSubset", "Endpoints", "EndpointsPort"]

# k8s.io/api core/v1 annotation_key_constants.go, well_known_labels.go
ENDPOINTS_LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"
ENDPOINTS_OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity"
IS_HEADLESS_SERVICE = "service.kubernetes.io/headless"
# client-go tools/leaderelection/resourcelock LeaderElectionRecordAnnotationKey: an Endpoints that is a
# leader-election lock, which the endpoints and endpointslice-mirroring controllers leave alone
LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader"


class EndpointAddress(KubeModel):
    ip: str = ""
    hostname: str | None = None
    node_name: str | None = None
    target_ref: ObjectReference | None = None


class EndpointsPort(KubeModel):
    """core/v1 ``EndpointPort`` (named apart from discovery/v1's)."""

    name: str | None = None
    port: int = 0
    protocol: str | None = None
    app_protocol: str | None = None


class EndpointSubset(KubeModel):
    addresses: list[EndpointAddress] | None = None
    not_ready_addresses: list[EndpointAddress] | None = None
    ports: list[EndpointsPort] | None = None


class Endpoints(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="Endpoints", plural="endpoints", namespaced=True,
        short_names=("ep",), singular="endpoints", subresources=(), deprecated=(1, 33),
        replacement="discovery.k8s.io/v1 EndpointSlice",
    )

    subsets: list[EndpointSubset] | None = None
