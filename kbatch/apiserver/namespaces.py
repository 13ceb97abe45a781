"""Namespace lifecycle: the NamespaceLifecycle admission check, Terminating, and finalization.

Upstream: ``plugin/pkg/admission/namespace/lifecycle`` (no new content in a missing or terminating
namespace), ``pkg/registry/core/namespace/storage`` (a delete marks the namespace Terminating) and
the namespace controller (``pkg/controller/namespace/deletion``: delete every namespaced object, then
the namespace). The handshake, as upstream: a Namespace is created with ``spec.finalizers:
[kubernetes]`` (its strategy); while that finalizer is there only the namespace controller
(``kbatch.controllers.namespace``) empties the namespace and then removes it with :meth:`finalize_spec`
(the in-process ``namespaces/finalize`` subresource), which deletes the namespace once
``metadata.finalizers`` are empty too. A namespace without spec finalizers (a Namespace kind without
a spec) is emptied and removed by the garbage collector's ``sync`` (:meth:`finalize_one`).
Everything is inert when no ``Namespace`` kind is registered.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import (
    NAMESPACE_TERMINATING_CAUSE,
    AlreadyExists,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    StatusCause,
    StatusDetails,
)
from kbatch.api.meta import Resource
from kbatch.apiserver.cluster_info import publish_cluster_info
from kbatch.apiserver.codec import decode
from kbatch.apiserver.default_accounts import seed_default_accounts
from kbatch.apiserver.deletion import DeleteDecision, gc_finalizers
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.master_endpoints import ensure_master_endpoints
from kbatch.apiserver.service_ips import ensure_master_service
from kbatch.apiserver.watched_range import WatchedRange

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["BOOTSTRAP_NAMESPACES", "KUBERNETES_FINALIZER", "NamespaceLifecycle", "install_lifecycle",
           "spec_finalizers"]

# kube-apiserver's system namespaces (pkg/controlplane/controller/systemnamespaces, the list
# kube-system, kube-public, kube-node-lease) and default (the kubernetes service's namespace)
BOOTSTRAP_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
KUBERNETES_FINALIZER = "kubernetes"  # upstream v1.FinalizerKubernetes
_MAX_SEEN = 4096


class NamespaceLifecycle:
    def __init__(self, server: APIServer) -> None:
        self._server = server
        self.admits = False  # the NamespaceLifecycle admission plugin is on (install_lifecycle)
        try:
            spec = server.registry.for_gvk("v1", "Namespace")
        except BadRequest:
            spec = None
        self.kind: Kind | None = server.kind(spec.model) if spec is not None else None
        # name -> the stored Namespace (read only) or None, as creates look them up; rebuilt after
        # any change under the namespaces' prefix (a range read per create costs ~2 µs)
        self._seen: dict[str, Resource | None] = {}
        self._range = (WatchedRange(server.store, self.kind.keys.root, self.kind.keys.range_end(None))
                       if self.kind is not None else None)

    def bootstrap(self) -> None:
        """Create the namespaces every cluster has (:meth:`ensure_system_namespaces`) and
        ``cluster-info``, their ``default`` ServiceAccounts, and the ``kubernetes`` Service."""
        if self.kind is None:
            return
        self.ensure_system_namespaces()
        publish_cluster_info(self._server)  # what kubeadm writes into kube-public
        seed_default_accounts(self._server, BOOTSTRAP_NAMESPACES)
        ensure_master_service(self._server)  # kube-apiserver's kubernetes-service controller
        ensure_master_endpoints(self._server)  # and its endpoint reconciler (master_endpoints.py)

    def ensure_system_namespaces(self) -> None:
        """Create each of :data:`BOOTSTRAP_NAMESPACES` that is missing, as kube-apiserver's
        system-namespaces controller does when the server starts (its post-start hook syncs at once,
        then every minute): a CLI command's load of its state directory is such a start."""
        if self.kind is None:
            return
        for name in BOOTSTRAP_NAMESPACES:
            key = self.kind.keys.key(None, name)
            if not self._server.store.range(key, count_only=True).count:
                with contextlib.suppress(AlreadyExists):  # another API server on one etcd was first
                    self._server.create(self.kind.model.model_validate({"metadata": {"name": name}}))

    def _get(self, name: str) -> Resource | None:
        assert self.kind is not None
        kvs = self._server.store.range(self.kind.keys.key(None, name)).kvs
        # read-only use: the decode cache's copy is never handed out
        return self._server.decoded.get(self.kind.model, kvs[0]) if kvs else None

    def _lookup(self, name: str) -> Resource | None:
        """:meth:`_get` through the memo of namespaces seen since the last change."""
        assert self._range is not None
        if self._range.changed:
            self._range.rearm()  # before reading: a change from now on is noticed
            self._seen.clear()
        seen = self._seen
        if name in seen:
            return seen[name]
        if len(seen) >= _MAX_SEEN:  # names that do not exist are remembered too: keep it bounded
            seen.clear()
        ns = seen[name] = self._get(name)
        return ns

    def admit_create(self, kind: Kind, obj: Resource) -> None:
        if not self.admits or self.kind is None or not kind.info.namespaced:
            return
        namespace = obj.metadata.namespace or ""
        ns = self._lookup(namespace)
        if ns is None:
            raise NotFound.of("namespaces", namespace)
        if ns.metadata.deletion_timestamp is not None or _phase(ns) == "Terminating":
            raise _terminating(kind, obj.name, namespace)

    def decide_delete(self, ns: Resource, policy: str | None) -> DeleteDecision:
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
        """The garbage collector's step for a terminating namespace: nothing while spec finalizers
        remain (the namespace controller's, or another owner's, to remove)."""
        ns = self._get(namespace)
        if ns is not None and spec_finalizers(ns):
            return 0
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


    def finalize_spec(self, namespace: str, finalizer: str = KUBERNETES_FINALIZER) -> bool:
        """The namespace controller's ``namespaces/finalize``: remove ``finalizer`` from
        ``spec.finalizers`` through :meth:`APIServer.finalize` (upstream's finalize strategy),
        preconditioned on the revision read; a terminating namespace left with no finalizers is deleted
        by that write. False when the namespace is gone, lacks the finalizer, or moved on."""
        assert self.kind is not None
        kvs = self._server.store.range(self.kind.keys.key(None, namespace)).kvs
        if not kvs:
            return False
        ns = decode(self.kind.model, kvs[0])
        left = [f for f in spec_finalizers(ns) if f != finalizer]
        if len(left) == len(spec_finalizers(ns)):
            return False
        ns.spec.finalizers = left or None  # type: ignore[attr-defined]
        try:
            self._server.finalize(ns)
        except (Conflict, NotFound):
            return False
        return True


def install_lifecycle(server: APIServer) -> None:
    """The ``NamespaceLifecycle`` admission plugin: creates in a missing or terminating namespace are
    refused. It runs first among the admission plugins (create path), as upstream orders it."""
    server.namespaces.admits = True


def spec_finalizers(ns: Resource) -> list[str]:
    spec: Any = getattr(ns, "spec", None)
    return list(getattr(spec, "finalizers", None) or ())


def _phase(ns: Resource) -> str | None:
    status: Any = getattr(ns, "status", None)
    return getattr(status, "phase", None)


def _set_phase(ns: Resource, phase: str) -> None:
    if "status" not in type(ns).model_fields:
        return
    data = ns.to_dict()
    data.setdefault("status", {})["phase"] = phase
    ns.status = type(ns).model_validate(data).status  # type: ignore[attr-defined]


def _terminating(kind: Kind, name: str, namespace: str) -> Forbidden:
    """NamespaceLifecycle's refusal (``plugin/pkg/admission/namespace/lifecycle/admission.go``): a
    Forbidden with the ``NamespaceTerminating`` cause on ``metadata.namespace``, which controllers
    (the Job and CronJob controllers, client-go's pod control) test to stay quiet about such creates."""
    what = f'{kind.info.group_resource} "{name}"' if name else kind.info.group_resource
    resource, _, group = kind.info.group_resource.partition(".")
    cause = StatusCause(reason=NAMESPACE_TERMINATING_CAUSE, field="metadata.namespace",
                        message=f"namespace {namespace} is being terminated")
    details = StatusDetails(name=name or None, group=group or None, kind=resource, causes=[cause])
    return Forbidden(f"{what} is forbidden: unable to create new content in namespace {namespace} "
                     "because it is being terminated", details=details)
