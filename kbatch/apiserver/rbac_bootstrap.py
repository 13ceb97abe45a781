"""kube-apiserver's ``rbac/bootstrap-roles`` post-start hook (Kubernetes 1.37
``pkg/registry/rbac/rest/storage_rbac.go`` ``EnsureRBACPolicy``): at every start the bootstrap policy
(:mod:`kbatch.families.rbac.bootstrap_policy`) is reconciled into the store. A missing object is
created; a stored one gets what it lacks added (labels, annotations, rules, aggregation selectors,
subjects: never removed, :mod:`kbatch.apiserver.rbac_reconciliation`), unless it is annotated
``rbac.authorization.kubernetes.io/autoupdate: "false"``; a binding whose ``roleRef`` differs is
deleted and created again.

One read per kind (a list), then only the writes something needs: a start whose store already holds
the policy writes nothing. Created objects' uids come from a generator of the hook's own, seeded with
its name, so the control plane's seeded generator (which later writes and decisions draw from) is where
it would be without RBAC.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from kbatch.api.errors import AlreadyExists, BadRequest, Conflict, NotFound
from kbatch.api.meta import Resource
from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from kbatch.apiserver.rbac_reconciliation import Reconciled, reconcile_binding, reconcile_role
from kbatch.families.rbac.bootstrap_policy import bootstrap_objects

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ensure_rbac_policy"]

_BINDINGS = (ClusterRoleBinding, RoleBinding)
_ROLES = (ClusterRole, Role)
_MODELS: dict[int, tuple[tuple[dict, ...], tuple[Resource, ...]]] = {}
_ATTEMPTS = 3  # upstream retries a reconcile that raced another writer a few times


def ensure_rbac_policy(server: APIServer) -> None:
    """Reconcile every bootstrap object (nothing when the RBAC kinds are not served)."""
    try:
        models = {
            kind: server.registry.for_gvk("rbac.authorization.k8s.io/v1", kind).model
            for kind in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
        }
    except BadRequest:
        return
    main, server.rng = server.rng, random.Random("rbac/bootstrap-roles")
    try:
        stored = {kind: _by_key(server, model) for kind, model in models.items()}
        for doc, want in zip(bootstrap_objects(server.features), _expected(server), strict=True):
            have = stored[doc["kind"]].get(_key(doc))
            if have is None or not _in_sync(have, want):
                _ensure(server, models[doc["kind"]], doc, have)
    finally:
        server.rng = main


def _key(doc: dict) -> tuple[str, str]:
    meta = doc["metadata"]
    return meta.get("namespace") or "", meta["name"]


def _by_key(server: APIServer, model: type[Resource]) -> dict[tuple[str, str], Resource]:
    return {(o.metadata.namespace or "", o.metadata.name or ""): o for o in server.list(model).items}


def _expected(server: APIServer) -> tuple[Resource, ...]:
    """The bootstrap objects as models, for :func:`_in_sync` (built once per set of gates)."""
    docs = bootstrap_objects(server.features)
    cached = _MODELS.get(id(docs))
    if cached is None or cached[0] is not docs:
        models = tuple(
            server.registry.for_gvk(d["apiVersion"], d["kind"]).model.model_validate(d) for d in docs
        )
        cached = _MODELS[id(docs)] = (docs, models)
    return cached[1]


def _has_keys(stored: dict[str, str] | None, wanted: dict[str, str] | None) -> bool:
    return all(k in (stored or {}) for k in wanted or {})


def _in_sync(have: Resource, want: Resource) -> bool:
    """The common case of a start, decided without the reconciliation: the stored object already
    holds exactly what the expected one does (any stored label or annotation value stands)."""
    meta, wanted = have.metadata, want.metadata
    if not (_has_keys(meta.labels, wanted.labels) and _has_keys(meta.annotations, wanted.annotations)):
        return False
    if isinstance(have, _BINDINGS) and isinstance(want, _BINDINGS):
        return have.role_ref == want.role_ref and have.subjects == want.subjects
    if isinstance(have, ClusterRole) and isinstance(want, ClusterRole) and want.aggregation_rule is not None:
        return have.aggregation_rule == want.aggregation_rule  # the rules are the aggregation controller's
    if isinstance(have, _ROLES) and isinstance(want, _ROLES):
        return have.rules == want.rules and getattr(have, "aggregation_rule", None) is None
    return False


def _decide(existing: dict, expected: dict) -> Reconciled:
    if "roleRef" in expected:
        return reconcile_binding(existing, expected)
    return reconcile_role(existing, expected)


def _ensure(server: APIServer, model: type[Resource], expected: dict, stored: Resource | None) -> None:
    namespace, name = _key(expected)
    for _ in range(_ATTEMPTS):
        try:
            if stored is None:
                server.create(model.model_validate(expected))
                return
            result = _decide(stored.to_dict(), expected)
            if result.protected or result.operation == "none":
                return
            if result.operation == "update":
                server.update(model.model_validate(result.obj))
                return
            server.delete(model, name, namespace or None)
            stored = None
        except (AlreadyExists, Conflict, NotFound) as err:  # raced another API server on one etcd
            if isinstance(err, NotFound) and namespace and stored is None:
                return  # its namespace is gone: upstream would create it; kbatch's hook leaves it
            stored = _get(server, model, name, namespace)


def _get(server: APIServer, model: type[Resource], name: str, namespace: str) -> Resource | None:
    try:
        return server.get(model, name, namespace or None)
    except NotFound:
        return None
