"""Namespace lifecycle: the NamespaceLifecycle admission check, Terminating, and finalization.

Upstream: ``plugin/pkg/admission/namespace/lifecycle`` (no new content in a missing or terminating
namespace), ``pkg/registry/core/namespace/storage`` (a delete marks the namespace Terminating) and
the namespace controller (``pkg/controller/namespace/deletion``: delete every namespaced object, then
the namespace). kbatch keeps it simple: finalization is an explicit :meth:`finalize` step the
garbage collector's ``sync`` runs; the namespace goes once no namespaced object remains in it.
Everything is inert when no ``Namespace`` kind is registered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import BadRequest, Forbidden, NotFound
from kbatch.api.meta import Resource
from kbatch.apiserver.deletion import DeleteDecision, gc_finalizers
from kbatch.apiserver.kinds import Kind

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["BOOTSTRAP_NAMESPACES", "NamespaceLifecycle"]

BOOTSTRAP_NAMESPACES = ("default", "kube-system")


class NamespaceLifecycle:
    def __init__(self, server: APIServer) -> None:
        self._server = server
        try:
            spec = server.registry.for_gvk("v1", "Namespace")
        except BadRequest:
            spec = None
        self.kind: Kind | None = server.kind(spec.model) if spec is not None else None

    def bootstrap(self) -> None:
        """Create the namespaces every cluster has (as kube-apiserver's bootstrap controller does)."""
        if self.kind is None:
            return
        for name in BOOTSTRAP_NAMESPACES:
            key = self.kind.keys.key(None, name)
            if not self._server.store.range(key, count_only=True).count:
                self._server.create(self.kind.model.model_validate({"metadata": {"name": name}}))

    def _get(self, name: str) -> Resource | None:
        assert self.kind is not None
        kvs = self._server.store.range(self.kind.keys.key(None, name)).kvs
        # read-only use: the decode cache's copy is never handed out
        return self._server.decoded.get(self.kind.model, kvs[0]) if kvs else None

    def admit_create(self, kind: Kind, obj: Resource) -> None:
        if self.kind is None or not kind.info.namespaced:
            return
        namespace = obj.metadata.namespace or ""
        ns = self._get(namespace)
        if ns is None:
            raise NotFound.of("namespaces", namespace)
        if ns.metadata.deletion_timestamp is not None or _phase(ns) == "Terminating":
            what = f'{kind.info.group_resource} "{obj.name}"' if obj.name else kind.info.group_resource
            raise Forbidden(f"{what} is forbidden: unable to create new content in namespace {namespace} "
                            "because it is being terminated")

    def decide_delete(self, ns: Resource, policy: str) -> DeleteDecision:
        """The first delete marks the namespace Terminating; finalization does the rest."""
        if ns.metadata.deletion_timestamp is not None:
            return DeleteDecision("keep")
        ns.metadata.deletion_timestamp = self._server.timestamp()
        ns.metadata.deletion_grace_period_seconds = 0
        ns.metadata.finalizers = gc_finalizers(list(ns.metadata.finalizers or []), policy) or None
        _set_phase(ns, "Terminating")
        return DeleteDecision("update")

    def terminating(self) -> list[str]:
        if self.kind is None:
            return []
        kvs = self._server.store.range(self.kind.keys.root, self.kind.keys.range_end(None)).kvs
        out = []
        for kv in kvs:
            ns = self._server.decoded.shared(self.kind.model, kv)  # read only
            if ns.metadata.deletion_timestamp is not None:
                out.append(ns.name)
        return out

    def finalize(self) -> int:
        """Delete the contents of every terminating namespace, and each namespace once it is empty.
        Returns the number of writes."""
        writes = 0
        for name in self.terminating():
            writes += self.finalize_one(name)
        return writes

    def finalize_one(self, namespace: str) -> int:
        server = self._server
        writes, remaining = 0, 0
        for spec in server.registry:
            kind = server.kind(spec.model)
            if not kind.info.namespaced:
                continue
            kvs = server.store.range(kind.keys.prefix(namespace), kind.keys.range_end(namespace)).kvs
            for kv in kvs:
                remaining += 1
                obj = server.decoded.shared(kind.model, kv)  # read only
                if obj.metadata.deletion_timestamp is None:
                    server.delete(kind.model, obj.name, namespace, propagation_policy="Background")
                    writes += 1
        if remaining == 0:
            assert self.kind is not None
            ns = self._get(namespace)
            if ns is not None and not ns.metadata.finalizers:
                key = self.kind.keys.key(None, namespace)
                server.store.delete_range(key)
                server.decoded.forget(key)
                writes += 1
        return writes


def _phase(ns: Resource) -> str | None:
    status: Any = getattr(ns, "status", None)
    return getattr(status, "phase", None)


def _set_phase(ns: Resource, phase: str) -> None:
    if "status" not in type(ns).model_fields:
        return
    data = ns.to_dict()
    data.setdefault("status", {})["phase"] = phase
    ns.status = type(ns).model_validate(data).status  # type: ignore[attr-defined]
