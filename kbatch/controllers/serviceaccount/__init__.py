"""The ``serviceaccount`` controller (kube-controller-manager's ``serviceaccount-controller``,
``pkg/controller/serviceaccount/serviceaccounts_controller.go``): a ``default`` ServiceAccount in
every active namespace.

Requests are namespaces. A namespace's creation or update enqueues it, and so does the deletion of a
``default`` account (it comes back). ``syncNamespace``: nothing for a namespace that is gone or not
``Active``; otherwise the missing account is created (an ``AlreadyExists`` or a namespace that went away
meanwhile is not an error). The controller also registers on the in-process API server so that the
``ServiceAccount`` admission plugin can have a namespace synced at once when it misses the account
(docs/serviceaccounts.md: how kbatch models upstream's lookup retries).
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.errors import AlreadyExists, Forbidden, NotFound
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.predicate import Funcs

__all__ = ["ACCOUNTS", "ServiceAccountsController", "setup"]

ACCOUNTS = ("default",)  # the controller's ServiceAccountsToEnsure


class _Deleted:
    """Deletes of the accounts the controller ensures (module level: the state image pickles it)."""

    def create(self, obj: Any) -> bool:
        return False

    def update(self, old: Any, new: Any) -> bool:
        return False

    def delete(self, obj: Any) -> bool:
        return obj.metadata.name in ACCOUNTS


DELETED = _Deleted()
# serviceaccounts_controller.go registers AddFunc and UpdateFunc on namespaces, no DeleteFunc: a
# deleted namespace has no account to ensure (kubernetes/kubernetes pkg/controller/serviceaccount)
NAMESPACE_EVENTS = Funcs(delete=False)


class ServiceAccountsController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.client = ctx.client

    @staticmethod
    def for_account(obj: Any) -> list[Any]:
        from kbatch.runtime.reconcile import Request

        return [Request("", obj.metadata.namespace or "")]

    def sync(self, namespace: str) -> None:
        """``syncNamespace``: create what is missing in an active namespace."""
        from kbatch.api.core_v1 import Namespace, ServiceAccount

        try:
            ns = self.client.get(Namespace, namespace)
        except NotFound:
            return
        if ns.metadata.deletion_timestamp is not None or (ns.status and ns.status.phase != "Active"):
            return
        for name in ACCOUNTS:
            try:
                self.client.get(ServiceAccount, name, namespace)
                continue
            except NotFound:
                pass
            meta = {"name": name, "namespace": namespace}
            with contextlib.suppress(AlreadyExists, NotFound, Forbidden):  # raced, or the namespace went
                self.client.create(ServiceAccount.model_validate({"metadata": meta}))

    def reconcile(self, request: Any) -> Any:
        self.sync(request.name)
        return None


def setup(ctx: ControllerContext) -> ServiceAccountsController:
    """Catalog factory for ``serviceaccount``."""
    from kbatch.api.core_v1 import Namespace, ServiceAccount

    controller = ServiceAccountsController(ctx)
    (ctx.build()
        .describe("keeps a `default` ServiceAccount in every active namespace")
        .for_(Namespace, NAMESPACE_EVENTS)
        .watches(ServiceAccount, controller.for_account, DELETED)
        .complete(controller))
    if ctx.server is not None:
        ctx.server.account_syncers.append(controller.sync)
    return controller
