"""Storage key layout, as kube-apiserver lays out etcd: ``/registry/<prefix>/<ns>/<name>``.

kube-apiserver's storage factory gives each resource compiled into it the prefix of its resource name
alone, whatever its group (``/registry/jobs/…``, ``/registry/leases/…``, ``/registry/resourceclaims/…``),
with a few historical exceptions (``nodes`` under ``minions``, ``services`` under ``services/specs``;
``pkg/kubeapiserver/default_storage_factory_builder.go``, ``specialDefaultResourcePrefixes``), and
Events of both groups share ``/registry/events``. Custom resources (the apiextensions-apiserver) live
under ``/registry/<group>/<plural>`` (``/registry/jobset.x-k8s.io/jobsets/…``). Cluster-scoped kinds
have no namespace segment (``/registry/namespaces/default``). Every prefix ends with ``/`` so that one
namespace's range never includes another whose name merely starts the same way. Values are JSON where
kube-apiserver writes protobuf for built-in kinds (docs/etcd.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.store.kv import DeleteOp, PutOp, prefix_end

__all__ = ["BUILTIN_GROUPS", "REGISTRY_ROOT", "KindKeys", "migrate_legacy_layout", "storage_prefix"]

REGISTRY_ROOT = b"/registry/"

# Groups compiled into kube-apiserver (the rest are custom resources): the groups of
# kubernetes/kubernetes ``pkg/controlplane/instance.go`` (its REST storage providers) and
# ``apiextensions.k8s.io`` / ``apiregistration.k8s.io`` of the servers aggregated with it
BUILTIN_GROUPS = frozenset({
    "", "apps", "batch", "policy", "scheduling.k8s.io", "coordination.k8s.io", "events.k8s.io",
    "resource.k8s.io", "node.k8s.io", "storage.k8s.io", "networking.k8s.io", "rbac.authorization.k8s.io",
    "discovery.k8s.io", "admissionregistration.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
    "autoscaling", "certificates.k8s.io", "flowcontrol.apiserver.k8s.io", "internal.apiserver.k8s.io",
    "storagemigration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io",
})

# (group, resource) -> prefix where upstream's is not the resource name
_SPECIAL_PREFIXES = {
    ("", "nodes"): "minions",
    ("", "services"): "services/specs",
    ("", "endpoints"): "services/endpoints",
    ("", "replicationcontrollers"): "controllers",
    ("networking.k8s.io", "ingresses"): "ingress",
}


def storage_prefix(group: str, plural: str) -> str:
    """The key segment after ``/registry/`` under which a resource's objects are stored."""
    if group in BUILTIN_GROUPS:
        return _SPECIAL_PREFIXES.get((group, plural), plural)
    return f"{group}/{plural}"


@dataclass(frozen=True, slots=True)
class KindKeys:
    """Precomputed key prefixes for one kind."""

    root: bytes  # b"/registry/jobs/"
    namespaced: bool

    @classmethod
    def of(cls, info: ApiInfo) -> KindKeys:
        return cls(REGISTRY_ROOT + f"{storage_prefix(info.group, info.plural)}/".encode(), info.namespaced)

    def key(self, namespace: str | None, name: str) -> bytes:
        if self.namespaced:
            return self.root + f"{namespace}/{name}".encode()
        return self.root + name.encode()

    def prefix(self, namespace: str | None) -> bytes:
        """All objects of the kind (``namespace`` None) or of one namespace."""
        if self.namespaced and namespace:
            return self.root + f"{namespace}/".encode()
        return self.root

    def range_end(self, namespace: str | None) -> bytes:
        return prefix_end(self.prefix(namespace))

    def split(self, key: bytes) -> tuple[str | None, str]:
        """(namespace, name) of a key under this kind's root."""
        rest = key[len(self.root):].decode()
        if self.namespaced:
            namespace, _, name = rest.partition("/")
            return namespace, name
        return None, rest


def migrate_legacy_layout(store: Any, infos: Iterable[ApiInfo]) -> int:
    """Move the objects of built-in kinds that an older kbatch stored under ``/registry/<group>/
    <plural>/`` (objects-only snapshots are portable across versions) to today's prefixes; returns
    how many moved. Each move is one transaction (put at the new key, delete the old)."""
    moved = 0
    for info in infos:
        if not info.group or info.group not in BUILTIN_GROUPS:
            continue
        old = REGISTRY_ROOT + f"{info.group}/{info.plural}/".encode()
        new = KindKeys.of(info).root
        for kv in store.range(old, prefix_end(old)).kvs:
            store.txn((), [PutOp(new + kv.key[len(old):], kv.value), DeleteOp(kv.key)])
            moved += 1
    return moved
