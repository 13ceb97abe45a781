"""Aggregated discovery (``apidiscovery.k8s.io/v2``, KEP-3352, GA in 1.30): ``/api`` and ``/apis``
answer every group, version and resource in one ``APIGroupDiscoveryList`` when the client asks for it
in ``Accept``; a client that does not ask gets the legacy documents (:mod:`.discovery`).

kubectl and client-go ask for it first (``application/json;g=apidiscovery.k8s.io;v=v2;as=
APIGroupDiscoveryList`` before plain ``application/json``), so a command needs two discovery requests
instead of one per group version. Shapes: k8s.io/api ``apidiscovery/v2/types.go``; content
negotiation: k8s.io/apiserver ``pkg/endpoints/discovery/aggregated/handler.go``. The resources are the
legacy documents' own, re-shaped, so the two views cannot disagree. The older ``v2beta1`` is not
served: a client that asks only for it gets the legacy documents, which every client accepts.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.registry import Registry
from kbatch.server import discovery

__all__ = ["CONTENT_TYPE", "api_discovery", "apis_discovery", "wants_aggregated"]

CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
_PARAMS = {"g": "apidiscovery.k8s.io", "v": "v2", "as": "APIGroupDiscoveryList"}


def wants_aggregated(accept: str) -> bool:
    """Whether one of ``accept``'s media types is ``application/json`` with the v2 list's parameters
    (the order of parameters and spaces around ``;`` do not matter)."""
    for media in accept.split(","):
        kind, *params = (p.strip() for p in media.split(";"))
        pairs = dict(p.split("=", 1) for p in params if "=" in p)
        if kind == "application/json" and all(pairs.get(k) == v for k, v in _PARAMS.items()):
            return True
    return False


def _gvk(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def _resources(group: str, version: str, listing: dict[str, Any]) -> list[dict[str, Any]]:
    """A legacy ``APIResourceList``'s entries as ``APIResourceDiscovery`` (subresources folded into
    their resource, ``responseKind`` with the group and version spelled out)."""
    out: dict[str, dict[str, Any]] = {}
    for entry in listing["resources"]:
        name, _, sub = entry["name"].partition("/")
        kind = _gvk(entry.get("group", group), entry.get("version", version), entry["kind"])
        if not sub:
            resource: dict[str, Any] = {
                "resource": name, "responseKind": kind,
                "scope": "Namespaced" if entry["namespaced"] else "Cluster",
                "singularResource": entry["singularName"], "verbs": entry["verbs"]}
            resource.update({k: entry[k] for k in ("shortNames", "categories") if entry.get(k)})
            out[name] = resource
        else:
            out[name].setdefault("subresources", []).append(
                {"subresource": sub, "responseKind": kind, "verbs": entry["verbs"]})
    return list(out.values())


def _group(registry: Registry, group: str, versions: list[str]) -> dict[str, Any]:
    """One ``APIGroupDiscovery``: its versions in preference order, each with its resources; Go
    writes the empty ``creationTimestamp`` of its ``ObjectMeta`` as ``null``."""
    served = []
    for version in versions:
        listing = discovery.api_resource_list(registry, group, version)
        if listing is not None:
            served.append({"version": version, "resources": _resources(group, version, listing),
                           "freshness": "Current"})
    meta: dict[str, Any] = {"name": group} if group else {}
    meta["creationTimestamp"] = None
    return {"metadata": meta, "versions": served}


def _document(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
            "items": items}


def api_discovery(registry: Registry) -> dict[str, Any]:
    """``/api``: the core group alone (``metadata`` without a name, as upstream's)."""
    return _document([_group(registry, "", ["v1"])])


def apis_discovery(registry: Registry) -> dict[str, Any]:
    """``/apis``: every named group, in the legacy ``APIGroupList``'s order."""
    return _document([_group(registry, g["name"], [v["version"] for v in g["versions"]])
                      for g in discovery.api_group_list(registry)["groups"]])
