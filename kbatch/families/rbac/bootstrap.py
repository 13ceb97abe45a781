"""What a fresh control plane holds of RBAC, as kube-apiserver's ``rbac/bootstrap-roles`` post-start
hook creates it: the objects of :mod:`kbatch.families.rbac.bootstrap_policy` (``cluster-admin``, the
discovery and basic-user roles every authenticated user is bound to, and the user-facing aggregated
``admin``/``edit``/``view``). Upstream bootstraps about sixty more (the ``system:*`` component roles);
kbatch does not (docs/rbac.md). An existing object of one of these names is left as it is (upstream
reconciles the autoupdate ones on every start; kbatch creates only what is missing).
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

from kbatch.api.errors import AlreadyExists, BadRequest, NotFound
from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding
from kbatch.families.rbac.bootstrap_policy import BOOTSTRAP_OBJECTS

__all__ = ["BOOTSTRAP_OBJECTS", "bootstrap_roles"]


def bootstrap_roles(server: Any) -> None:
    """Create each bootstrap object that is missing (nothing when the kinds are not served). Their
    uids come from a generator of their own, seeded with the hook's name: the control plane's seeded
    generator, which later writes and decisions draw from, is left where it was."""
    main, server.rng = server.rng, random.Random("rbac/bootstrap-roles")
    try:
        _create_missing(server)
    finally:
        server.rng = main


def _create_missing(server: Any) -> None:
    for doc in BOOTSTRAP_OBJECTS:
        try:
            model = server.registry.for_gvk(doc["apiVersion"], doc["kind"]).model
        except BadRequest:
            return
        assert model in (ClusterRole, ClusterRoleBinding)
        try:
            server.get(model, doc["metadata"]["name"])
            continue
        except NotFound:
            pass
        with contextlib.suppress(AlreadyExists):  # another API server on one etcd was first
            server.create(model.model_validate(doc))
