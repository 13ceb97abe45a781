"""The controllers' ServiceAccounts in ``kube-system``, created the first time a controller needs one.

kube-controller-manager with ``--use-service-account-credentials`` builds each controller's client
from a ServiceAccount (k8s.io/controller-manager ``pkg/clientbuilder/client_builder_dynamic.go``,
``client_builder.go`` ``getOrCreateServiceAccount``): it reads ``kube-system/<account>`` and, when
missing, creates it with nothing but its name, using the manager's own credentials
(``system:kube-controller-manager``); the client then authenticates with a TokenRequest for that
account, which is never stored. That is why ``kubectl get sa -n kube-system`` on a kind cluster lists
``job-controller``, ``generic-garbage-collector``, ``node-controller``, … next to ``default``.

kbatch does the same when a controller is set up (:func:`ensure_controller_account`), in the
controllers' set-up order. A created account's uid comes from a generator of its own, seeded with its
name, so the control plane's seeded generator — which the scheduler and controllers draw from — is
where it would be without the accounts (as :mod:`kbatch.apiserver.rbac_bootstrap` does).
"""

from __future__ import annotations

import contextlib
import random
from typing import TYPE_CHECKING

from kbatch.api.errors import AlreadyExists, BadRequest, Forbidden, NotFound
from kbatch.apiserver.identities import CONTROLLER_NAMESPACE, KUBE_CONTROLLER_MANAGER
from kbatch.apiserver.requester import acting_as

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ensure_controller_account"]


def ensure_controller_account(server: APIServer, account: str) -> bool:
    """Create ``kube-system/<account>`` unless it exists; whether this call created it."""
    try:
        model = server.registry.for_gvk("v1", "ServiceAccount").model
    except BadRequest:
        return False  # ServiceAccounts not served
    with contextlib.suppress(NotFound):
        server.get(model, account, CONTROLLER_NAMESPACE)
        return False
    main, server.rng = server.rng, random.Random(f"serviceaccount/{CONTROLLER_NAMESPACE}/{account}")
    try:
        with acting_as(KUBE_CONTROLLER_MANAGER):
            server.create(model.model_validate({"metadata": {"name": account,
                                                             "namespace": CONTROLLER_NAMESPACE}}))
    except (AlreadyExists, NotFound, Forbidden):  # raced, or kube-system missing or terminating
        return False
    finally:
        server.rng = main
    return True
