"""The ``default/kubernetes`` Service's Endpoints and EndpointSlice, which the API server writes itself
(kubernetes ``pkg/controlplane/reconcilers``: the ``lease`` endpoint reconciler, kube-apiserver's
default ``--endpoint-reconciler-type``, through ``endpointsadapter.go``).

* Endpoints ``default/kubernetes``: one subset, the advertised address of every live API server
  (kbatch: one) and port ``https`` 6443/TCP, labelled ``endpointslice.kubernetes.io/skip-mirror:
  "true"`` so the mirroring controller leaves it alone;
* EndpointSlice ``default/kubernetes`` (named, not generated): ``addressType: IPv4``, the Endpoints'
  ports, one endpoint per address with ``conditions.ready: true``, labelled
  ``kubernetes.io/service-name: kubernetes`` and managed by no controller (the endpointslice
  controller skips the selectorless Service).

The address: kube-apiserver advertises ``--advertise-address``, else its bind address, else the host's
default interface. kbatch's API server stands for one on the host of a kind network (its nodes are
``172.18.0.2`` and up, docs/simulation.md "Nodes"), so it advertises the host's address on that
network, ``172.18.0.1`` (a loopback address such as ``kbatch serve``'s ``127.0.0.1`` is not a valid
endpoint).

Both are created when missing at start (:func:`ensure_master_endpoints`); afterwards upstream's
reconciler checks them every 10 s (``lease.go`` ``doReconcile``, ``endpointsadapter.go``
``EnsureEndpointSliceFromEndpoints``), which :func:`endpoints_repair` and :func:`slice_repair` decide
and :mod:`kbatch.apiserver.master_endpoint_reconciler` runs when someone else changed them.
"""

from __future__ import annotations

import contextlib
import random
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import AlreadyExists, BadRequest, NotFound

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ADVERTISE_ADDRESS", "SKIP_MIRROR", "endpoints_repair", "ensure_master_endpoints",
           "master_endpoint_slice", "master_endpoints", "slice_repair"]

ADVERTISE_ADDRESS = "172.18.0.1"
SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror"
_SERVICE_NAME = "kubernetes.io/service-name"
_PORT = {"name": "https", "port": 6443, "protocol": "TCP"}
Body = dict[str, Any]  # an object in its wire form


def _slice_meta() -> Body:
    return {"name": "kubernetes", "namespace": "default", "labels": {_SERVICE_NAME: "kubernetes"}}


def master_endpoints(address: str = ADVERTISE_ADDRESS) -> dict[str, Any]:
    return {"metadata": {"name": "kubernetes", "namespace": "default", "labels": {SKIP_MIRROR: "true"}},
            "subsets": [{"addresses": [{"ip": address}], "ports": [dict(_PORT)]}]}


def master_endpoint_slice(address: str = ADVERTISE_ADDRESS) -> dict[str, Any]:
    """``endpointSliceFromEndpoints`` of :func:`master_endpoints`."""
    return _desired_slice(master_endpoints(address))


def endpoints_repair(current: Body | None, address: str = ADVERTISE_ADDRESS) -> Body | None:
    """``doReconcile`` on the stored Endpoints (wire form, None when missing): the body to write, or
    None when it is right. Right is: labelled skip-mirror ``"true"`` (other labels kept), exactly one
    subset whose ``addresses`` are exactly the advertised one. A wrong number of subsets is remade
    whole (the port too); wrong addresses are replaced, the subset's ports and not-ready addresses
    kept (after start the ports are not reconciled: ``UpdateKubernetesService(false)``)."""
    if current is None:
        return master_endpoints(address)
    body = dict(current)
    meta = body["metadata"] = dict(current.get("metadata") or {})
    labels = dict(meta.get("labels") or {})
    label_right = labels.get(SKIP_MIRROR) == "true"
    labels[SKIP_MIRROR] = "true"
    meta["labels"] = labels
    subsets = list(current.get("subsets") or [])
    if len(subsets) != 1:
        body["subsets"] = [{"addresses": [{"ip": address}], "ports": [dict(_PORT)]}]
        return body
    addresses = [a.get("ip") for a in subsets[0].get("addresses") or []]
    if addresses == [address] and label_right:
        return None
    body["subsets"] = [dict(subsets[0], addresses=[{"ip": address}])]
    return body


def _desired_slice(endpoints: Body) -> Body:
    """``endpointSliceFromEndpoints``: the first subset's ports and addresses (ready or not)."""
    subset = (endpoints.get("subsets") or [{}])[0]
    ports = [{k: p[k] for k in ("name", "port", "protocol", "appProtocol") if p.get(k) is not None}
             for p in subset.get("ports") or []]
    listed = [(a["ip"], True) for a in subset.get("addresses") or []]
    listed += [(a["ip"], False) for a in subset.get("notReadyAddresses") or []]
    family = "IPv6" if listed and ":" in listed[0][0] else "IPv4"
    found = [{"addresses": [ip], "conditions": {"ready": ready}} for ip, ready in listed]
    return {"metadata": _slice_meta(), "addressType": family, "ports": ports or None,
            "endpoints": found or None}


def slice_repair(current: Body | None, endpoints: Body) -> tuple[str, Body | None]:
    """``EnsureEndpointSliceFromEndpoints``: ``("create", body)`` when missing, ``("replace", body)``
    when its address type is another (immutable: deleted and created again), ``("update", body)``
    when its endpoints, ports or labels differ, ``("keep", None)`` otherwise."""
    desired = _desired_slice(endpoints)
    if current is None:
        return "create", desired
    if current.get("addressType") != desired["addressType"]:
        return "replace", desired
    if all(current.get(k) == desired[k] for k in ("endpoints", "ports")) and \
            (current.get("metadata") or {}).get("labels") == desired["metadata"]["labels"]:
        return "keep", None
    body = dict(current, endpoints=desired["endpoints"], ports=desired["ports"])
    body["metadata"] = dict(current.get("metadata") or {}, labels=desired["metadata"]["labels"])
    return "update", body


def create_with_own_uid(server: APIServer, model: Any, body: dict[str, Any], seed: str) -> Any:
    """Create ``body`` with a uid from a generator seeded with ``seed`` (the control plane's seeded
    generator stays where it was); None when another API server on one etcd was first."""
    main, server.rng = server.rng, random.Random(seed)
    try:
        with contextlib.suppress(AlreadyExists):
            return server.create(model.model_validate(body))
    finally:
        server.rng = main
    return None


def _ensure(server: APIServer, version: str, kind: str, body: dict[str, Any]) -> None:
    try:
        model = server.registry.for_gvk(version, kind).model
    except BadRequest:
        return  # not served
    with contextlib.suppress(NotFound):
        server.get(model, "kubernetes", "default")
        return
    # its uid from a generator of its own (as the Service's): the control plane's stays where it was
    create_with_own_uid(server, model, body, f"kubernetes-{kind.lower()}/bootstrap")


def ensure_master_endpoints(server: APIServer) -> None:
    """Create the master Endpoints and EndpointSlice when missing (module docstring)."""
    _ensure(server, "v1", "Endpoints", master_endpoints())
    _ensure(server, "discovery.k8s.io/v1", "EndpointSlice", master_endpoint_slice())
