"""The ``default`` ServiceAccount of each bootstrap namespace, written with the fresh cluster.

On a real cluster the ``serviceaccount`` controller creates them moments after kube-controller-manager
starts, before a user's first pod; kbatch writes them at bootstrap, next to the namespaces and
``cluster-info``, so that an API server without that controller (``--controllers '*,-serviceaccount'``,
a bare in-process server) admits pods in ``default`` as a running cluster does. Namespaces created
later get theirs from the controller only (docs/serviceaccounts.md).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from kbatch.api.errors import AlreadyExists, BadRequest

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["seed_default_accounts"]


def seed_default_accounts(server: APIServer, namespaces: tuple[str, ...]) -> None:
    """Create ``default`` in each of ``namespaces`` where it is missing (nothing when ServiceAccounts
    are not served)."""
    try:
        model = server.registry.for_gvk("v1", "ServiceAccount").model
    except BadRequest:
        return
    kind = server.kind(model)
    for namespace in namespaces:
        if server.store.range(kind.keys.key(namespace, "default"), count_only=True).count:
            continue
        with contextlib.suppress(AlreadyExists):  # another API server on one etcd was first
            server.create(model.model_validate({"metadata": {"name": "default", "namespace": namespace}}))
