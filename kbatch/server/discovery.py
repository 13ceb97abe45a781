"""Legacy discovery documents: ``/api``, ``/apis``, ``/api/v1``, ``/apis/G``, ``/apis/G/V``.

Shapes from k8s.io/apimachinery ``pkg/apis/meta/v1/types.go`` (``APIVersions``, ``APIGroupList``,
``APIGroup``, ``APIResourceList``, ``APIResource``), for clients that do not ask for aggregated
discovery (:mod:`.aggregated_discovery`, built from these). The first registered version of a group is
its preferred version. A family's virtual resources (:mod:`kbatch.api.virtual`) are listed from their
declarations: a group only they serve comes after the stored ones, an APIService-aggregated one
(metrics.k8s.io) after kbatch's own ``kbatch.dev``, last, as kube-aggregator lists the groups it
proxies after kube-apiserver's. A kind's subresources beyond ``status`` are its family's declarations
too (``KindEntry.subresources``: ``pods/log``, ``pods/eviction``, ``serviceaccounts/token``, ...).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.registry import KindSpec, Registry
from kbatch.api.virtual import VirtualResource

__all__ = ["VERBS", "api_group", "api_group_list", "api_resource_list", "api_versions", "group_versions",
           "served_group_versions", "subresource_verbs"]

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


def _virtual_group_versions(registry: Registry, aggregated: bool) -> dict[str, list[str]]:
    """group → versions of the virtual resources in groups no stored kind serves, local or
    APIService-aggregated ones, in declaration order."""
    stored = group_versions(registry)
    out: dict[str, list[str]] = {}
    for resource in registry.virtual():
        if bool(resource.aggregated) != aggregated or resource.group in stored:
            continue
        versions = out.setdefault(resource.group, [])
        if resource.version not in versions:
            versions.append(resource.version)
    return out


def served_group_versions(registry: Registry) -> dict[str, list[str]]:
    """Every named and core group discovery lists, in its order (module docstring), with ``kbatch.dev``."""
    out = {g: list(vs) for g, vs in group_versions(registry).items()}
    for resource in registry.virtual():  # a virtual resource in a stored group's further version
        versions = out.get(resource.group)
        if versions is not None and resource.version not in versions:
            versions.append(resource.version)
    out.update(_virtual_group_versions(registry, aggregated=False))
    out[KBATCH_GROUP] = [KBATCH_VERSION]
    out.update(_virtual_group_versions(registry, aggregated=True))
    return out


def api_versions() -> dict[str, Any]:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}]}


def api_group(group: str, versions: list[str]) -> dict[str, Any]:
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": gvs,
            "preferredVersion": gvs[0]}


def api_group_list(registry: Registry) -> dict[str, Any]:
    groups = [api_group(g, vs) for g, vs in served_group_versions(registry).items() if g]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


# What a stored kind's own subresource implements: ``status`` is a ``StatusREST`` (Getter, Updater,
# Patcher); ``namespaces/finalize`` is ``FinalizeREST``, an Updater only
# (kubernetes ``pkg/registry/core/namespace/storage/storage.go``), so a 1.37 apiserver lists it with
# the verb ``update`` alone and routes only its ``PUT``.
_SUBRESOURCE_VERBS: dict[str, tuple[str, ...]] = {"finalize": ("update",)}


def subresource_verbs(sub: str) -> tuple[str, ...]:
    """The discovery verbs of a stored kind's subresource ``sub`` (``status``, ``finalize``)."""
    return _SUBRESOURCE_VERBS.get(sub, ("get", "patch", "update"))


def _resource(spec: KindSpec) -> list[dict[str, Any]]:
    info = spec.info
    main: dict[str, Any] = {
        "name": info.plural, "singularName": info.singular or info.kind.lower(),
        "namespaced": info.namespaced, "kind": info.kind, "verbs": VERBS,
    }
    if info.short_names:
        main["shortNames"] = list(info.short_names)
    if info.categories:
        main["categories"] = list(info.categories)
    out = [main]
    for sub in info.subresources:
        out.append({"name": f"{info.plural}/{sub}", "singularName": "", "namespaced": info.namespaced,
                    "kind": info.kind, "verbs": list(subresource_verbs(sub))})
    out += [sub.discovery_entry(info.plural, info.kind, info.namespaced) for sub in spec.extra]
    if spec.extra:
        out.sort(key=lambda entry: entry["name"])  # kube-apiserver lists a resource's paths sorted
    return out


def _virtual_entries(resource: VirtualResource) -> list[dict[str, Any]]:
    """A virtual resource's entry, then its subresources' (``clusterqueues/pendingworkloads``)."""
    r = resource
    return [r.discovery_entry(), *(s.discovery_entry(r.plural, r.kind, r.namespaced) for s in r.subresources)]


def api_resource_list(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    """The resources of one group version, or ``None`` when it is not served."""
    specs = [s for s in registry.served() if s.info.group == group and s.info.version == version]
    virtual = [r for r in registry.virtual() if (r.group, r.version) == (group, version)]
    if not specs and not virtual and (group, version) != (KBATCH_GROUP, KBATCH_VERSION):
        return None
    resources = [r for spec in specs for r in _resource(spec)]
    resources += [e for r in virtual for e in _virtual_entries(r)]
    if (group, version) == (KBATCH_GROUP, KBATCH_VERSION):
        resources = [{"name": "clock", "singularName": "clock", "namespaced": False, "kind": "Clock",
                      "verbs": ["get", "create"]}]
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
