"""Legacy discovery documents: ``/api``, ``/apis``, ``/api/v1``, ``/apis/G``, ``/apis/G/V``.

Shapes from k8s.io/apimachinery ``pkg/apis/meta/v1/types.go`` (``APIVersions``, ``APIGroupList``,
``APIGroup``, ``APIResourceList``, ``APIResource``), for clients that do not ask for aggregated
discovery (:mod:`.aggregated_discovery`, built from these). The first registered version of a group is
its preferred version.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.api.registry import Registry
from kbatch.authz.reviews import GROUP as AUTHORIZATION_GROUP
from kbatch.authz.reviews import VERSION as AUTHORIZATION_VERSION
from kbatch.server.streaming import CONNECT_RESOURCES
from kbatch.sim.metrics import GROUP as METRICS_GROUP
from kbatch.sim.metrics import VERSION as METRICS_VERSION

__all__ = ["VERBS", "api_group", "api_group_list", "api_resource_list", "api_versions", "group_versions"]

VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
KBATCH_GROUP = "kbatch.dev"
KBATCH_VERSION = "v1alpha1"


def group_versions(registry: Registry) -> dict[str, list[str]]:
    """group → versions in registration order (the core group is ``""``); a kind's further served
    versions (:meth:`Registry.served`) come after every stored version, so each group's first
    version is its storage version, the preferred one."""
    out: dict[str, list[str]] = {}
    for spec in registry.served():
        versions = out.setdefault(spec.info.group, [])
        if spec.info.version not in versions:
            versions.append(spec.info.version)
    return out


def api_versions() -> dict[str, Any]:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}]}


def api_group(group: str, versions: list[str]) -> dict[str, Any]:
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": gvs,
            "preferredVersion": gvs[0]}


def api_group_list(registry: Registry) -> dict[str, Any]:
    groups = [api_group(g, vs) for g, vs in group_versions(registry).items() if g]
    groups.append(api_group("authentication.k8s.io", ["v1"]))  # kbatch/server/authentication_api.py
    groups.append(api_group(AUTHORIZATION_GROUP, [AUTHORIZATION_VERSION]))  # kbatch/authz/reviews.py
    groups.append(api_group(KBATCH_GROUP, [KBATCH_VERSION]))
    groups.append(api_group(METRICS_GROUP, [METRICS_VERSION]))  # kbatch/server/metrics_api.py
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def _resource(info: ApiInfo) -> list[dict[str, Any]]:
    main: dict[str, Any] = {
        "name": info.plural, "singularName": info.singular or info.kind.lower(),
        "namespaced": info.namespaced, "kind": info.kind, "verbs": VERBS,
    }
    if info.short_names:
        main["shortNames"] = list(info.short_names)
    if info.categories:
        main["categories"] = list(info.categories)
    out = [main]
    subresources = list(info.subresources)
    if (info.group, info.kind) == ("", "Pod") and "log" not in subresources:
        subresources.append("log")
    for sub in subresources:
        verbs = ["get"] if sub == "log" else ["get", "patch", "update"]
        out.append({"name": f"{info.plural}/{sub}", "singularName": "", "namespaced": info.namespaced,
                    "kind": "Pod" if sub == "log" else info.kind, "verbs": verbs})
    if (info.group, info.kind) == ("", "ServiceAccount"):  # the TokenRequest subresource (token.go)
        out.append({"name": "serviceaccounts/token", "singularName": "", "namespaced": True,
                    "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest",
                    "verbs": ["create"]})
    if (info.group, info.kind) == ("", "Pod"):  # kubectl drain looks for this entry (CheckEvictionSupport)
        out.append({"name": "pods/eviction", "singularName": "", "namespaced": True, "group": "policy",
                    "version": "v1", "kind": "Eviction", "verbs": ["create"]})
        out.append({"name": "pods/ephemeralcontainers", "singularName": "", "namespaced": True,
                    "kind": "Pod", "verbs": ["get", "patch", "update"]})  # EphemeralContainersREST
        out += [{"name": f"pods/{sub}", "singularName": "", "namespaced": True, "kind": kind, "verbs": verbs}
                for sub, (kind, verbs) in CONNECT_RESOURCES.items()]  # refused when asked (streaming.py)
        out.sort(key=lambda entry: entry["name"])  # kube-apiserver lists a resource's paths sorted
    return out


def api_resource_list(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    """The resources of one group version, or ``None`` when it is not served."""
    infos = [s.info for s in registry.served() if s.info.group == group and s.info.version == version]
    if not infos and (group, version) != (KBATCH_GROUP, KBATCH_VERSION):
        return None
    resources = [r for info in infos for r in _resource(info)]
    if (group, version) == (KBATCH_GROUP, KBATCH_VERSION):
        resources = [{"name": "clock", "singularName": "clock", "namespaced": False, "kind": "Clock",
                      "verbs": ["get", "create"]}]
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
