"""The ``root-ca-cert-publisher`` controller (kube-controller-manager's
``root-ca-certificate-publisher-controller``, ``pkg/controller/certificates/rootcacertpublisher/
publisher.go``): a ``kube-root-ca.crt`` ConfigMap in every namespace, which the projected
``kube-api-access-*`` volume of every pod reads ``ca.crt`` from.

Requests are namespaces: a namespace's creation or update enqueues it, and so does the deletion or
update of a ``kube-root-ca.crt`` ConfigMap. ``syncNamespace``: a missing ConfigMap is created (a
namespace that is gone or terminating is not retried); an existing one is put back to ``data: {ca.crt:
...}`` with the ``kubernetes.io/description`` annotation when either differs.

kbatch difference: there is no cluster CA (``kbatch serve`` speaks plain HTTP, and the
``cluster-info`` kubeconfig carries no ``certificate-authority-data`` either), so ``ca.crt`` is empty.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.errors import AlreadyExists, Conflict, Forbidden, NotFound
from kbatch.api.frozen import edit
from kbatch.apiserver.default_accounts import (
    CA_DATA,
    DESCRIPTION,
    DESCRIPTION_ANNOTATION,
    ROOT_CA_CONFIG_MAP,
    root_ca_config_map,
)
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.predicate import Funcs

__all__ = ["CA_DATA", "CONFIG_MAP", "DESCRIPTION", "DESCRIPTION_ANNOTATION", "RootCACertPublisher", "setup"]

CONFIG_MAP = ROOT_CA_CONFIG_MAP


class _Watched:
    """Deletes and updates of ``kube-root-ca.crt`` (module level: the state image pickles it)."""

    def create(self, obj: Any) -> bool:
        return False

    def update(self, old: Any, new: Any) -> bool:
        return bool(new.metadata.name == CONFIG_MAP)

    def delete(self, obj: Any) -> bool:
        return bool(obj.metadata.name == CONFIG_MAP)


WATCHED = _Watched()


def _active(ns: Any) -> bool:
    return ns.status is not None and ns.status.phase == "Active"


# publisher.go: ``namespaceAdded`` queues every namespace, ``namespaceUpdated`` only an Active one, and
# no DeleteFunc is registered (kubernetes/kubernetes pkg/controller/certificates/rootcacertpublisher)
NAMESPACE_EVENTS = Funcs(update=_active, delete=False)


class RootCACertPublisher:
    def __init__(self, ctx: ControllerContext) -> None:
        self.client = ctx.client

    @staticmethod
    def for_config_map(obj: Any) -> list[Any]:
        from kbatch.runtime.reconcile import Request

        return [Request("", obj.metadata.namespace or "")]

    def sync(self, namespace: str) -> None:
        from kbatch.api.core_v1 import ConfigMap

        data = {"ca.crt": CA_DATA}
        try:
            cm = self.client.get(ConfigMap, CONFIG_MAP, namespace)
        except NotFound:
            # raced, or the namespace is gone or terminating: not retried
            with contextlib.suppress(AlreadyExists, NotFound, Forbidden):
                self.client.create(ConfigMap.model_validate(root_ca_config_map(namespace)))
            return
        if cm.data == data and (cm.metadata.annotations or {}).get(DESCRIPTION_ANNOTATION):
            return
        changed = edit(cm)
        changed.data = data
        annotations = {**(cm.metadata.annotations or {}), DESCRIPTION_ANNOTATION: DESCRIPTION}
        changed.metadata.annotations = annotations
        with contextlib.suppress(Conflict, NotFound):
            self.client.update(changed)

    def reconcile(self, request: Any) -> Any:
        from kbatch.api.core_v1 import Namespace

        try:
            self.client.get(Namespace, request.name)
        except NotFound:
            return None
        self.sync(request.name)
        return None


def setup(ctx: ControllerContext) -> RootCACertPublisher:
    """Catalog factory for ``root-ca-cert-publisher``."""
    from kbatch.api.core_v1 import ConfigMap, Namespace

    controller = RootCACertPublisher(ctx)
    (ctx.build()
        .describe("keeps the kube-root-ca.crt ConfigMap in every namespace")
        .for_(Namespace, NAMESPACE_EVENTS)
        .watches(ConfigMap, controller.for_config_map, WATCHED)
        .complete(controller))
    return controller
