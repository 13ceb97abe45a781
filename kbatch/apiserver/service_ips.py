"""Cluster IPs for Services, and the master ``kubernetes`` Service: what kube-apiserver allocates.

Upstream (semantics only), kubernetes 1.37:

* ``--service-cluster-ip-range``: without it kube-apiserver falls back to ``10.0.0.0/24``
  (``cmd/kube-apiserver/app/options``: ``DefaultServiceIPCIDR``, with a deprecation warning);
  kbatch has no flag and uses that range (kind passes ``10.96.0.0/16``, kubeadm ``10.96.0.0/12``).
* ``pkg/registry/core/service/storage/alloc.go``: a ``ClusterIP``, ``NodePort`` or ``LoadBalancer``
  Service created without ``spec.clusterIP`` gets one from the range; ``clusterIPs`` mirrors it,
  ``ipFamilies`` is ``[IPv4]`` and ``ipFamilyPolicy`` ``SingleStack``; a requested address must be in
  the range and free (``spec.clusterIPs[0]`` Invalid, the allocator's messages); a headless
  (``None``) or ``ExternalName`` Service gets none. An address is free again once its Service is
  gone or has become ``ExternalName`` (kbatch derives the allocation from the stored Services, so no
  repair loop is needed); an ``ExternalName`` Service made ``ClusterIP`` (or ``NodePort``,
  ``LoadBalancer``) gets one on that update. ``initIPFamilyFields``: :func:`init_ip_families`.
* ``pkg/registry/core/service/ipallocator``: dynamic allocations prefer the upper band of the range,
  leaving the lowest ``min(max(16, size/16), 256)`` addresses for static ones (KEP-3070; no band
  in a range of 16 addresses or fewer); upstream
  picks at random in a band, kbatch the lowest free address (deterministic), then the lower band.
* ``pkg/controlplane/controller/kubernetesservice``: the API server keeps ``default/kubernetes``,
  type ClusterIP on the first address of the range, port ``https`` 443 → the secure port 6443,
  labels ``component: apiserver`` and ``provider: kubernetes``.

Not modelled: the ``ServiceCIDR``/``IPAddress`` objects of KEP-1880 (``networking.k8s.io/v1``),
dual-stack, node ports. The master Service's Endpoints and EndpointSlice: :mod:`.master_endpoints`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import random
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import AlreadyExists, BadRequest, FieldError, InternalError, Invalid, NotFound

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["MASTER_SERVICE", "SERVICE_CIDR", "allocate_cluster_ip", "allocates", "ensure_master_service",
           "init_ip_families", "master_ip", "update_cluster_ip"]

SERVICE_CIDR = ipaddress.IPv4Network("10.0.0.0/24")
MASTER_SERVICE = ("default", "kubernetes")
_ALLOCATED_TYPES = ("ClusterIP", "NodePort", "LoadBalancer")
_SECURE_PORT = 6443


def master_ip(cidr: ipaddress.IPv4Network = SERVICE_CIDR) -> str:
    """The first address of the range: the ``kubernetes`` Service's."""
    return str(cidr.network_address + 1)


def _static_size(cidr: ipaddress.IPv4Network) -> int:
    """The static band (ipallocator ``calculateRangeOffset``): none in a range of 16 addresses or fewer."""
    size = cidr.num_addresses
    return 0 if size <= 16 else min(max(16, size // 16), 256)


def _free_ip(cidr: ipaddress.IPv4Network, used: set[str]) -> str | None:
    """The lowest free address of the upper band, else of the lower one (network and broadcast out)."""
    first, last = 1, cidr.num_addresses - 2
    split = min(_static_size(cidr) + 1, last)
    for offset in (*range(split, last + 1), *range(first, split)):
        ip = str(cidr.network_address + offset)
        if ip not in used:
            return ip
    return None


def _requested_error(ip: str, cidr: ipaddress.IPv4Network, used: set[str]) -> str | None:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
    if address not in cidr or address in (cidr.network_address, cidr.broadcast_address):
        return (f"failed to allocate IP {ip}: the provided IP ({ip}) is not in the valid range. "
                f"The range of valid IPs is {cidr}")
    if ip in used:
        return f"failed to allocate IP {ip}: provided IP is already allocated"
    return None


def _used_ips(server: APIServer, model: type[Any]) -> set[str]:
    return {ip for svc in server.list(model).items for ip in (svc.spec.cluster_ips or [svc.spec.cluster_ip])
            if ip and ip != "None"}


def _own_ips(server: APIServer, obj: Any) -> set[str]:
    """The addresses the stored version of this very Service holds (an update may keep them)."""
    try:
        stored = server.get(type(obj), obj.metadata.name or "", obj.metadata.namespace)
    except NotFound:
        return set()
    if stored.metadata.uid != obj.metadata.uid or stored.spec.type == "ExternalName":
        return set()
    return {ip for ip in stored.spec.cluster_ips or [stored.spec.cluster_ip] if ip and ip != "None"}


def allocates(info: Any) -> bool:
    """Is this kind core/v1 Service (whose creates :func:`allocate_cluster_ip` completes)?"""
    return info.group == "" and info.kind == "Service"


def init_ip_families(obj: Any) -> None:
    """``initIPFamilyFields`` on kbatch's single-stack IPv4 range: a policy when none is given
    (``RequireDualStack`` for a headless Service without selector, else ``SingleStack``), ``[IPv4]``
    as families (a headless selectorless Service not ``SingleStack`` gets ``IPv6`` too, which the
    validation lets a single-stack cluster have); dual stack or IPv6 asked of anything else is
    refused. Nothing for ExternalName."""
    spec = obj.spec
    if spec.type == "ExternalName":
        return
    headless_selectorless = spec.cluster_ip == "None" and not spec.selector
    spec.ip_family_policy = spec.ip_family_policy or ("RequireDualStack" if headless_selectorless
                                                      else "SingleStack")
    if headless_selectorless:
        families = list(spec.ip_families or ["IPv4"])
        if len(families) < 2 and spec.ip_family_policy != "SingleStack":
            families.append("IPv6" if families[0] == "IPv4" else "IPv4")
        spec.ip_families = families
        return
    errs = []
    if spec.ip_family_policy == "RequireDualStack":
        errs.append(FieldError.invalid("spec.ipFamilyPolicy", spec.ip_family_policy,
                                       "this cluster is not configured for dual-stack services"))
    errs += [FieldError.invalid(f"spec.ipFamilies[{i}]", family, "not configured on this cluster")
             for i, family in enumerate(spec.ip_families or ()) if family != "IPv4"]
    if errs:
        raise Invalid.of(type(obj).api_info.group_kind, obj.metadata.name or "", errs)
    spec.ip_families = spec.ip_families or ["IPv4"]


def update_cluster_ip(server: APIServer, new: Any, old: Any) -> None:
    """The Service REST's ``beginUpdate``: a Service that now needs a cluster IP and has none
    (ExternalName → ClusterIP, NodePort or LoadBalancer) gets one, as on create; one that no longer
    needs it (→ ExternalName) has already dropped it (``ServiceStrategy.prepare_for_update``), and the
    address is free once the update is stored (kbatch derives allocations from the stored Services)."""
    if new.spec.type == "ExternalName":
        return
    if old.spec.type == "ExternalName" or not new.spec.cluster_ip:
        allocate_cluster_ip(server, new)


def allocate_cluster_ip(server: APIServer, obj: Any) -> None:
    """Give a Service being created its cluster IP (module docstring), or refuse the request."""
    spec = obj.spec
    init_ip_families(obj)
    if spec.type not in _ALLOCATED_TYPES or spec.cluster_ip == "None":
        if spec.cluster_ip == "None" and not spec.cluster_ips:
            spec.cluster_ips = ["None"]
        return
    used = _used_ips(server, type(obj)) - _own_ips(server, obj)
    if spec.cluster_ip:
        message = _requested_error(spec.cluster_ip, SERVICE_CIDR, used)
        if message is not None:
            raise Invalid.of(type(obj).api_info.group_kind, obj.metadata.name or "",
                             [FieldError.invalid("spec.clusterIPs[0]", spec.cluster_ip, message)])
        ip = spec.cluster_ip
    else:
        free = _free_ip(SERVICE_CIDR, used)
        if free is None:
            raise InternalError("Internal error occurred: failed to allocate a serviceIP: range is full")
        ip = free
    spec.cluster_ip, spec.cluster_ips = ip, [ip]
    spec.ip_families = spec.ip_families or ["IPv4"]
    spec.ip_family_policy = spec.ip_family_policy or "SingleStack"


def ensure_master_service(server: APIServer) -> None:
    """Create ``default/kubernetes`` when missing (nothing when Services are not served)."""
    try:
        model = server.registry.for_gvk("v1", "Service").model
    except BadRequest:
        return
    namespace, name = MASTER_SERVICE
    with contextlib.suppress(NotFound):
        server.get(model, name, namespace)
        return
    body = {"metadata": {"name": name, "namespace": namespace,
                         "labels": {"component": "apiserver", "provider": "kubernetes"}},
            "spec": {"type": "ClusterIP", "clusterIP": master_ip(), "sessionAffinity": "None",
                     "ports": [{"name": "https", "port": 443, "protocol": "TCP",
                                "targetPort": _SECURE_PORT}]}}
    # its uid from a generator of its own, as the other bootstrap objects' (default_accounts.py):
    # the control plane's seeded generator stays where it was
    main, server.rng = server.rng, random.Random("kubernetes-service/bootstrap")
    try:
        with contextlib.suppress(AlreadyExists):  # another API server on one etcd was first
            server.create(model.model_validate(body))
    finally:
        server.rng = main
