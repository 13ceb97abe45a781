"""The service variables a container sees (``enableServiceLinks``): pure functions over Services.

Upstream (semantics only), kubernetes 1.37:

* ``pkg/kubelet/kubelet_pods.go`` ``getServiceEnvVarMap``: the Services of the kubelet's informer
  that have a cluster IP (``v1helper.IsServiceIPSet``: not empty, not ``None``, so headless and
  ExternalName Services give nothing); the master Service ``kubernetes`` of ``default`` always, even
  under ``enableServiceLinks: false``; with links on, every Service of the pod's namespace (one named
  ``kubernetes`` there replaces the master one).
* ``pkg/kubelet/envvars/envvars.go`` ``FromServices``: per Service ``{SVC}_SERVICE_HOST`` (the
  cluster IP), ``{SVC}_SERVICE_PORT`` (the first port), ``{SVC}_SERVICE_PORT_{NAME}`` per named port,
  and the Docker-link variables ``{SVC}_PORT`` (``tcp://ip:port`` of the first port) and per port
  ``{SVC}_PORT_{port}_{PROTO}`` with ``_PROTO``, ``_PORT``, ``_ADDR``; ``{SVC}`` is the name
  upper-cased with ``-`` as ``_`` (``makeEnvVariableName``), the host joined as Go's
  ``net.JoinHostPort`` does (an IPv6 address in brackets).
* ``makeEnvironmentVariables``: the container's own ``env``/``envFrom`` win over these, and a
  ``$(VAR)`` in an ``env`` value sees them (``expansion.MappingFuncFor(tmpEnv, serviceEnv)``).

Upstream builds the map from Go map iteration (two Services whose variables collide, e.g. ``a-b``
and a port named so that ``A_SERVICE_PORT_B…`` meets another's name, end in either order); kbatch
takes the Services in name order, the later one winning, so the result is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

__all__ = ["MASTER_NAMESPACE", "MASTER_SERVICES", "ServiceSource", "from_services", "pod_service_env",
           "service_ip_set"]

MASTER_NAMESPACE = "default"  # metav1.NamespaceDefault
MASTER_SERVICES = frozenset({"kubernetes"})  # kubelet_pods.go masterServices


class ServiceSource(Protocol):
    """The Services of a namespace as the kubelet's informer holds them (read only)."""

    def __call__(self, namespace: str) -> Sequence[Any]: ...


def service_ip_set(service: Any) -> bool:
    """``v1helper.IsServiceIPSet``: the Service has a cluster IP (not empty, not ``None``)."""
    ip = service.spec.cluster_ip
    return bool(ip) and ip != "None"


def _var_name(name: str) -> str:
    return name.replace("-", "_").upper()


def _host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _link_vars(prefix: str, ip: str, ports: Sequence[Any]) -> Iterable[tuple[str, str]]:
    """The Docker-link variables of one Service (``makeLinkVariables``)."""
    for i, port in enumerate(ports):
        proto = (port.protocol or "TCP")
        url = f"{proto.lower()}://{_host_port(ip, port.port)}"
        if i == 0:
            yield f"{prefix}_PORT", url
        at = f"{prefix}_PORT_{port.port}_{proto.upper()}"
        yield at, url
        yield f"{at}_PROTO", proto.lower()
        yield f"{at}_PORT", str(port.port)
        yield f"{at}_ADDR", ip


def from_services(services: Iterable[Any]) -> dict[str, str]:
    """``envvars.FromServices`` over ``services`` (in the order given; a later variable wins)."""
    env: dict[str, str] = {}
    for service in services:
        ports = service.spec.ports or ()
        if not service_ip_set(service) or not ports:
            continue
        prefix, ip = _var_name(service.metadata.name or ""), service.spec.cluster_ip
        env[f"{prefix}_SERVICE_HOST"] = ip
        env[f"{prefix}_SERVICE_PORT"] = str(ports[0].port)
        for port in ports:
            if port.name:
                env[f"{prefix}_SERVICE_PORT_{_var_name(port.name)}"] = str(port.port)
        env.update(_link_vars(prefix, ip, ports))
    return env


def pod_service_env(namespace: str, enable_links: bool | None, services: ServiceSource) -> Mapping[str, str]:
    """The service variables of a pod of ``namespace`` (``getServiceEnvVarMap``; ``enableServiceLinks``
    unset is its default, true)."""
    chosen: dict[str, Any] = {}
    if enable_links is not False:
        chosen = {s.metadata.name: s for s in services(namespace) if service_ip_set(s)}
    if namespace != MASTER_NAMESPACE or enable_links is False:
        for service in services(MASTER_NAMESPACE):
            name = service.metadata.name
            if name in MASTER_SERVICES and name not in chosen and service_ip_set(service):
                chosen[name] = service
    return from_services(chosen[name] for name in sorted(chosen))
