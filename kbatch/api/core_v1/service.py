"""core/v1 Service (k8s.io/api ``core/v1/types.go``); JobSet uses a headless one for pod DNS."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.core_v1.common import IntOrString
from kbatch.api.meta import Condition, Resource

__all__ = [
    "ClientIPConfig",
    "LoadBalancerIngress",
    "LoadBalancerStatus",
    "PortStatus",
    "Service",
    "ServicePort",
    "ServiceSpec",
    "ServiceStatus",
    "SessionAffinityConfig",
]


class ServicePort(KubeModel):
    name: str | None = None
    protocol: str | None = None
    app_protocol: str | None = None
    port: int = 0
    target_port: IntOrString | None = None
    node_port: int | None = None


class ClientIPConfig(KubeModel):
    timeout_seconds: int | None = None


class SessionAffinityConfig(KubeModel):
    client_ip: ClientIPConfig | None = Field(default=None, alias="clientIP")


class ServiceSpec(KubeModel):
    ports: list[ServicePort] | None = None
    selector: dict[str, str] | None = None
    cluster_ip: str | None = Field(default=None, alias="clusterIP")
    cluster_ips: list[str] | None = Field(default=None, alias="clusterIPs")
    type: str | None = None  # ClusterIP | NodePort | LoadBalancer | ExternalName
    external_ips: list[str] | None = Field(default=None, alias="externalIPs")
    session_affinity: str | None = None
    load_balancer_ip: str | None = Field(default=None, alias="loadBalancerIP")
    load_balancer_source_ranges: list[str] | None = None
    external_name: str | None = None
    external_traffic_policy: str | None = None
    health_check_node_port: int | None = None
    publish_not_ready_addresses: bool | None = None
    session_affinity_config: SessionAffinityConfig | None = None
    ip_families: list[str] | None = None
    ip_family_policy: str | None = None
    allocate_load_balancer_node_ports: bool | None = None
    load_balancer_class: str | None = None
    internal_traffic_policy: str | None = None
    traffic_distribution: str | None = None


class PortStatus(KubeModel):
    port: int = 0
    protocol: str = ""
    error: str | None = None


class LoadBalancerIngress(KubeModel):
    ip: str | None = None
    hostname: str | None = None
    ip_mode: str | None = None
    ports: list[PortStatus] | None = None


class LoadBalancerStatus(KubeModel):
    ingress: list[LoadBalancerIngress] | None = None


class ServiceStatus(KubeModel):
    load_balancer: LoadBalancerStatus | None = None
    conditions: list[Condition] | None = None


class Service(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="Service", plural="services", namespaced=True,
        short_names=("svc",), singular="service", categories=("all",), subresources=("status",),
    )

    spec: ServiceSpec = Field(default_factory=ServiceSpec)
    status: ServiceStatus | None = None
