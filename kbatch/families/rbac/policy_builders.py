"""Builders for the bootstrap policy's objects, in the wire form the API server stores (dicts of the
``rbac.authorization.k8s.io/v1`` JSON), as Kubernetes' ``pkg/apis/rbac/v1/helpers.go``
``PolicyRuleBuilder``/``ClusterRoleBindingBuilder``/``RoleBindingBuilder`` build them: a rule's
verbs, groups, resources, names and URLs sorted and without duplicates (``Rule()`` keeps them in a
set), every object labelled ``kubernetes.io/bootstrapping=rbac-defaults`` and annotated
``rbac.authorization.kubernetes.io/autoupdate: "true"`` (bootstrappolicy ``addDefaultMetadata``).

A :class:`Gates` answers a feature gate by the control plane's gates when a family declares it, by the
Kubernetes 1.37 default otherwise (the policy's other gates are not modelled by any kbatch family).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from kbatch.api.rbac_v1 import GROUP

__all__ = [
    "AGGREGATE",
    "READ",
    "READ_UPDATE",
    "READ_WRITE",
    "WRITE",
    "Gates",
    "Obj",
    "binding",
    "cluster_binding",
    "events_rule",
    "group",
    "namespaced_role",
    "role",
    "rule",
    "sa",
    "urls",
    "user",
]

Obj = dict[str, Any]
LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
ANNOTATIONS = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
READ = ("get", "list", "watch")
WRITE = ("create", "delete", "deletecollection", "patch", "update")
READ_WRITE = READ + WRITE
READ_UPDATE = (*READ, "patch", "update")
AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-"


class _Declared(Protocol):
    def enabled(self, name: str) -> bool: ...

    def __contains__(self, name: object) -> bool: ...


class Gates:
    """The gates the policy branches on: declared ones as the control plane has them, the others at
    their Kubernetes 1.37 default (``defaults``)."""

    def __init__(self, declared: _Declared | None, defaults: Mapping[str, bool]) -> None:
        self._declared, self._defaults = declared, defaults

    def on(self, name: str) -> bool:
        if self._declared is not None and name in self._declared:
            return self._declared.enabled(name)
        return self._defaults[name]

    def key(self) -> tuple[bool, ...]:
        """The value of every gate the policy reads, in name order (a cache key)."""
        return tuple(self.on(n) for n in sorted(self._defaults))


def _sorted(values: Iterable[str]) -> list[str]:
    return sorted(set(values))


def rule(
    verbs: Iterable[str], groups: Iterable[str], resources: Iterable[str], names: Iterable[str] = ()
) -> Obj:
    """``NewRule(verbs...).Groups(...).Resources(...).Names(...).RuleOrDie()``."""
    out: Obj = {"verbs": _sorted(verbs), "apiGroups": _sorted(groups), "resources": _sorted(resources)}
    if names:
        out["resourceNames"] = _sorted(names)
    return out


def urls(verbs: Iterable[str], paths: Iterable[str]) -> Obj:
    """``NewRule(verbs...).URLs(...).RuleOrDie()``."""
    return {"verbs": _sorted(verbs), "nonResourceURLs": _sorted(paths)}


def events_rule() -> Obj:
    """``eventsRule()``: create, update and patch events of the core and events.k8s.io groups."""
    return rule(("create", "patch", "update"), ("", "events.k8s.io"), ("events",))


def _meta(name: str, labels: Mapping[str, str] | None = None, namespace: str = "") -> Obj:
    meta: Obj = {"name": name, "labels": {**LABELS, **(labels or {})}, "annotations": dict(ANNOTATIONS)}
    if namespace:
        meta["namespace"] = namespace
    return meta


def role(
    name: str,
    rules: list[Obj] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    aggregate_from: str = "",
) -> Obj:
    """A ClusterRole; ``aggregate_from`` gives it an aggregationRule selecting the ClusterRoles
    labelled ``rbac.authorization.k8s.io/aggregate-to-<aggregate_from>: "true"`` (and no rules)."""
    out: Obj = {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRole", "metadata": _meta(name, labels)}
    if aggregate_from:
        selector = {"matchLabels": {AGGREGATE + aggregate_from: "true"}}
        out["aggregationRule"] = {"clusterRoleSelectors": [selector]}
    if rules is not None:
        out["rules"] = rules
    return out


def namespaced_role(namespace: str, name: str, rules: list[Obj]) -> Obj:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Role",
        "metadata": _meta(name, namespace=namespace),
        "rules": rules,
    }


def user(name: str) -> Obj:
    return {"apiGroup": GROUP, "kind": "User", "name": name}


def group(name: str) -> Obj:
    return {"apiGroup": GROUP, "kind": "Group", "name": name}


def sa(namespace: str, name: str) -> Obj:
    return {"kind": "ServiceAccount", "name": name, "namespace": namespace}


def cluster_binding(role_name: str, *subjects: Obj, name: str = "") -> Obj:
    """``NewClusterBinding(role)``: named as its role unless ``name`` says otherwise; a binding with
    no subjects (``system:node``'s) has none."""
    out: Obj = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ClusterRoleBinding",
        "metadata": _meta(name or role_name),
        "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role_name},
    }
    if subjects:
        out["subjects"] = list(subjects)
    return out


def binding(namespace: str, role_name: str, *subjects: Obj, name: str = "") -> Obj:
    """``NewRoleBinding(role, namespace)`` of a Role of that namespace."""
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "RoleBinding",
        "metadata": _meta(name or role_name, namespace=namespace),
        "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": role_name},
        "subjects": list(subjects),
    }
