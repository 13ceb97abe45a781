"""The ``default`` ServiceAccount and the ``kube-root-ca.crt`` ConfigMap of each bootstrap namespace,
written with the fresh cluster.

On a real cluster the ``serviceaccount`` and ``root-ca-cert-publisher`` controllers create them
moments after kube-controller-manager starts, before a user's first pod; kbatch writes them at
bootstrap, next to the namespaces and ``cluster-info``, so that an API server without those
controllers (``--controllers '*,-serviceaccount'``, a bare in-process server) admits pods in
``default`` as a running cluster does, and a fresh state's first command writes nothing after its
bootstrap. Namespaces created later get theirs from the controllers only (docs/serviceaccounts.md).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from kbatch.api.errors import AlreadyExists, BadRequest

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["CA_DATA", "DESCRIPTION", "DESCRIPTION_ANNOTATION", "ROOT_CA_CONFIG_MAP", "root_ca_config_map",
           "seed_default_accounts"]

ROOT_CA_CONFIG_MAP = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
DESCRIPTION = ("Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
               "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
               "guaranteed across distributions of Kubernetes clusters.")
CA_DATA = ""  # kbatch has no cluster CA (docs/serviceaccounts.md)


def root_ca_config_map(namespace: str) -> dict[str, object]:
    """The ConfigMap root-ca-cert-publisher keeps in ``namespace``, as a manifest."""
    meta = {"name": ROOT_CA_CONFIG_MAP, "namespace": namespace,
            "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}}
    return {"metadata": meta, "data": {"ca.crt": CA_DATA}}


def _seed(server: APIServer, kind_name: str, namespaces: tuple[str, ...], name: str,
          manifest: Callable[[str], dict[str, object]]) -> None:
    try:
        model = server.registry.for_gvk("v1", kind_name).model
    except BadRequest:
        return
    kind = server.kind(model)
    for namespace in namespaces:
        if server.store.range(kind.keys.key(namespace, name), count_only=True).count:
            continue
        with contextlib.suppress(AlreadyExists):  # another API server on one etcd was first
            server.create(model.model_validate(manifest(namespace)))


def seed_default_accounts(server: APIServer, namespaces: tuple[str, ...]) -> None:
    """Create ``default`` and ``kube-root-ca.crt`` in each of ``namespaces`` where missing (nothing for
    a kind that is not served).

    Their uids come from a generator of their own, seeded with this bootstrap's name, as RBAC's
    bootstrap does (``kbatch/apiserver/rbac_bootstrap.py``): the control plane's seeded generator,
    which every later uid, generated name and decision draws from, is left where it was, so a run's
    objects are named as they were before the bootstrap wrote these (upstream draws them from the
    controllers' own randomness, which no user object shares)."""
    main, server.rng = server.rng, random.Random("serviceaccount/bootstrap-accounts")
    try:
        _seed(server, "ServiceAccount", namespaces, "default",
              lambda ns: {"metadata": {"name": "default", "namespace": ns}})
        _seed(server, "ConfigMap", namespaces, ROOT_CA_CONFIG_MAP, root_ca_config_map)
    finally:
        server.rng = main
