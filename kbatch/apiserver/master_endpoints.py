"""The ``default/kubernetes`` Service's Endpoints and EndpointSlice, which the API server writes itself
(kubernetes ``pkg/controlplane/reconcilers``: the ``lease`` endpoint reconciler, kube-apiserver's
default ``--endpoint-reconciler-type``, through ``endpointsadapter.go``).

* Endpoints ``default/kubernetes``: one subset, the advertised address of every live API server
  (kbatch: one) and port ``https`` 6443/TCP, labelled ``endpointslice.kubernetes.io/skip-mirror:
  "true"`` so the mirroring controller leaves it alone;
* EndpointSlice ``default/kubernetes`` (named, not generated): ``addressType: IPv4``, the same port,
  one endpoint per address with ``conditions.ready: true``, labelled ``kubernetes.io/service-name:
  kubernetes`` and managed by no controller (the endpointslice controller skips the selectorless
  Service).

The address: kube-apiserver advertises ``--advertise-address``, else its bind address, else the host's
default interface. kbatch's API server stands for one on the host of a kind network (its nodes are
``172.18.0.2`` and up, docs/simulation.md "Nodes"), so it advertises the host's address on that
network, ``172.18.0.1`` (a loopback address such as ``kbatch serve``'s ``127.0.0.1`` is not a valid
endpoint). Like the Service, both are created when missing at every start and not kept in shape
afterwards (upstream's reconciler rewrites them every 10 s; there is no second API server to add).
"""

from __future__ import annotations

import contextlib
import random
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import AlreadyExists, BadRequest, NotFound

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ADVERTISE_ADDRESS", "ensure_master_endpoints", "master_endpoint_slice", "master_endpoints"]

ADVERTISE_ADDRESS = "172.18.0.1"
_PORT = {"name": "https", "port": 6443, "protocol": "TCP"}


def master_endpoints(address: str = ADVERTISE_ADDRESS) -> dict[str, Any]:
    return {"metadata": {"name": "kubernetes", "namespace": "default",
                         "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
            "subsets": [{"addresses": [{"ip": address}], "ports": [dict(_PORT)]}]}


def master_endpoint_slice(address: str = ADVERTISE_ADDRESS) -> dict[str, Any]:
    """``endpointSliceFromEndpoints`` of :func:`master_endpoints`."""
    return {"metadata": {"name": "kubernetes", "namespace": "default",
                         "labels": {"kubernetes.io/service-name": "kubernetes"}},
            "addressType": "IPv4", "ports": [dict(_PORT)],
            "endpoints": [{"addresses": [address], "conditions": {"ready": True}}]}


def _ensure(server: APIServer, version: str, kind: str, body: dict[str, Any]) -> None:
    try:
        model = server.registry.for_gvk(version, kind).model
    except BadRequest:
        return  # not served
    with contextlib.suppress(NotFound):
        server.get(model, "kubernetes", "default")
        return
    # its uid from a generator of its own (as the Service's): the control plane's stays where it was
    main, server.rng = server.rng, random.Random(f"kubernetes-{kind.lower()}/bootstrap")
    try:
        with contextlib.suppress(AlreadyExists):  # another API server on one etcd was first
            server.create(model.model_validate(body))
    finally:
        server.rng = main


def ensure_master_endpoints(server: APIServer) -> None:
    """Create the master Endpoints and EndpointSlice when missing (module docstring)."""
    _ensure(server, "v1", "Endpoints", master_endpoints())
    _ensure(server, "discovery.k8s.io/v1", "EndpointSlice", master_endpoint_slice())
