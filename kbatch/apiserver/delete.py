"""Delete: preconditions, propagation policy, graceful deletion, finalizers — as one guarded txn.

See :mod:`kbatch.apiserver.deletion` for the decision; this module reads, decides and writes.
Namespaces are special (``pkg/registry/core/namespace/storage``): the first delete marks the
namespace Terminating; its contents are removed by the namespace finalization in
:mod:`kbatch.apiserver.namespaces`, which deletes the namespace once it is empty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api.errors import Conflict, Forbidden
from kbatch.api.meta import Resource
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.client import Preconditions
from kbatch.apiserver.codec import encode
from kbatch.apiserver.deletion import decide, pod_grace_period
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.requester import requester
from kbatch.apiserver.update import MAX_RETRIES, Current, object_namespace, read_current
from kbatch.store.kv import Compare, DeleteOp, PutOp

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["delete_object"]

T = TypeVar("T", bound=Resource)

_PROTECTED_NAMESPACES = ("default", "kube-system", "kube-public")


def _check_preconditions(kind: Kind, current: Current, pre: Preconditions | None) -> None:
    if pre is None:
        return
    meta = current.obj.metadata
    name = current.obj.name
    if pre.uid is not None and pre.uid != meta.uid:
        raise Conflict.of(kind.info.group_resource, name, f"Precondition failed: UID in precondition: "
                          f"{pre.uid}, UID in object meta: {meta.uid}")
    if pre.resource_version is not None and pre.resource_version != meta.resource_version:
        raise Conflict.of(kind.info.group_resource, name, "Precondition failed: ResourceVersion in "
                          f"precondition: {pre.resource_version}, ResourceVersion in object meta: "
                          f"{meta.resource_version}")


def _grace_of(kind: Kind) -> Callable[[Any, int | None], int | None] | None:
    hook = getattr(kind.strategy, "check_graceful_delete", None)
    if hook is not None:
        return hook
    return pod_grace_period if kind.is_pod else None


def delete_object(server: APIServer, model: type[T], name: str, namespace: str | None = None, *,
                  propagation_policy: str | None = None, grace_period_seconds: int | None = None,
                  preconditions: Preconditions | None = None, dry_run: bool = False) -> T | None:
    kind = server.kind(model)
    namespace = object_namespace(kind, namespace)
    if kind.is_namespace and name in _PROTECTED_NAMESPACES:
        raise Forbidden(f'namespaces "{name}" is forbidden: this namespace may not be deleted')
    policy = propagation_policy or None  # unset: the object's GC finalizer, else the kind's default
    grace_of = _grace_of(kind)
    for _ in range(MAX_RETRIES):
        current = read_current(server, kind, namespace, name, private=True)  # decide() changes it
        _check_preconditions(kind, current, preconditions)
        obj = current.obj
        # deleteValidation (generic registry Store.Delete): the validating admission plugins that
        # judge deletes, on the stored object, before the delete is decided
        server.admission.validate_delete(AdmissionRequest("DELETE", obj, obj, dry_run=dry_run,
                                                          user=requester()))
        if kind.is_namespace:
            decision = server.namespaces.decide_delete(obj, policy)
        else:
            decision = decide(obj, now=server.timestamp(), policy=policy, grace=grace_period_seconds,
                              graceful=grace_of is not None, grace_of=grace_of,
                              default=kind.default_gc_policy)
        if decision.action == "keep" or dry_run:
            return None if decision.action == "delete" else obj  # type: ignore[return-value]
        key = current.kv.key
        guard = [Compare.mod_revision(key, "=", current.kv.mod_revision)]
        data = encode(obj) if decision.action != "delete" else b""
        op = DeleteOp(key) if decision.action == "delete" else PutOp(key, data)
        result = server.store.txn(guard, [op])
        if not result.succeeded:
            continue
        if decision.action == "delete":
            server.decoded.forget(key)
            return None
        return server.decoded.written(kind.model, key, result.revision, data, obj)  # type: ignore[return-value]
    raise Conflict.stale(kind.info.group_resource, name)
