"""Everything the server needs about one kind, resolved once: spec, keys, policies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.api.meta import Resource
from kbatch.api.registry import KindSpec
from kbatch.apiserver.keys import KindKeys

__all__ = ["BUILTIN_GROUPS", "Kind"]

# Groups compiled into kube-apiserver: strategic merge patch is accepted only for these
# (CRDs answer 415, ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go``).
BUILTIN_GROUPS = frozenset({
    "", "apps", "batch", "policy", "scheduling.k8s.io", "coordination.k8s.io", "events.k8s.io",
    "resource.k8s.io", "node.k8s.io", "storage.k8s.io", "networking.k8s.io", "rbac.authorization.k8s.io",
    "discovery.k8s.io",
})

# Upstream DefaultGarbageCollectionPolicy overrides: batch/v1 Job orphans its pods unless told
# otherwise (``pkg/registry/batch/job/strategy.go``, kept "for backwards compatibility").
_DEFAULT_GC_POLICY: dict[str, str] = {"Job.batch": "Orphan"}


@dataclass(frozen=True, slots=True)
class Kind:
    spec: KindSpec
    keys: KindKeys

    @classmethod
    def of(cls, spec: KindSpec) -> Kind:
        return cls(spec, KindKeys.of(spec.info))

    @property
    def info(self) -> ApiInfo:
        return self.spec.info

    @property
    def model(self) -> type[Resource]:
        return self.spec.model

    @property
    def strategy(self) -> Any:
        return self.spec.strategy

    @property
    def is_pod(self) -> bool:
        return self.info.group == "" and self.info.kind == "Pod"

    @property
    def is_namespace(self) -> bool:
        return self.info.group == "" and self.info.kind == "Namespace"

    @property
    def default_gc_policy(self) -> str:
        """A strategy may declare ``default_garbage_collection_policy``; else the upstream table."""
        declared = getattr(self.strategy, "default_garbage_collection_policy", None)
        if declared:
            return str(declared)
        return _DEFAULT_GC_POLICY.get(self.info.group_kind, "Background")

    @property
    def strategic_merge(self) -> bool:
        return self.info.group in BUILTIN_GROUPS
