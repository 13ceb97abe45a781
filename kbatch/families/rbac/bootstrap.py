"""What a fresh control plane holds of RBAC: the ``cluster-admin`` ClusterRole and its
ClusterRoleBinding to the ``system:masters`` group, as kube-apiserver's ``rbac/bootstrap-roles``
post-start hook creates them (``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go``
``ClusterRoles``/``ClusterRoleBindings``, Kubernetes 1.37: every verb on every resource of every group,
and every verb on every non-resource URL; each bootstrap object labelled
``kubernetes.io/bootstrapping=rbac-defaults`` and annotated ``rbac.authorization.kubernetes.io/autoupdate:
"true"``).

Upstream bootstraps about seventy more roles and bindings (the ``system:*`` component roles, the
user-facing ``admin``/``edit``/``view`` aggregated from ``system:aggregate-to-*``); kbatch does not yet
(docs/rbac.md). An existing object of one of these names is left as it is (upstream reconciles the
autoupdate ones on every start; kbatch creates only what is missing).
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

from kbatch.api.errors import AlreadyExists, BadRequest, NotFound
from kbatch.api.rbac_v1 import GROUP, ClusterRole, ClusterRoleBinding

__all__ = ["BOOTSTRAP_OBJECTS", "bootstrap_roles"]

_META = {"labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
         "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}}

BOOTSTRAP_OBJECTS: tuple[dict[str, Any], ...] = (
    {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRole", "metadata": {"name": "cluster-admin", **_META},
     "rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
               {"verbs": ["*"], "nonResourceURLs": ["*"]}]},
    {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRoleBinding",
     "metadata": {"name": "cluster-admin", **_META},
     "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "cluster-admin"},
     "subjects": [{"apiGroup": GROUP, "kind": "Group", "name": "system:masters"}]},
)


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
