"""The bootstrap roles and bindings kbatch creates, as Kubernetes' ``plugin/pkg/auth/authorizer/rbac/
bootstrappolicy/policy.go`` ``ClusterRoles``/``ClusterRoleBindings`` declare them (rules as its
rendered ``testdata/cluster-roles.yaml`` lists them: each rule's lists sorted, as the rule builder's
sets leave them). Every object is labelled ``kubernetes.io/bootstrapping=rbac-defaults`` and annotated
``rbac.authorization.kubernetes.io/autoupdate: "true"``.

* ``cluster-admin`` (everything) bound to the group ``system:masters``;
* ``system:discovery`` (GET of discovery, health, version and OpenAPI paths) and ``system:basic-user``
  (creating self access and rules reviews) bound to ``system:authenticated``;
  ``system:public-info-viewer`` (health and version) to ``system:authenticated`` and
  ``system:unauthenticated``;
* the user-facing ``admin``, ``edit`` and ``view``: rule-less, aggregated (the clusterrole-aggregation
  controller fills them) from the ClusterRoles labelled ``rbac.authorization.k8s.io/aggregate-to-
  admin|edit|view``; ``edit`` carries the aggregate-to-admin label and ``view`` the aggregate-to-edit
  one, so admin ⊇ edit ⊇ view; ``system:aggregate-to-admin|edit|view`` hold the rules.

The other roles of policy.go (``system:monitoring``, the component roles ``system:node``,
``system:kube-scheduler``, ``system:kube-controller-manager``, ``system:controller:*`` …) are not
created; docs/rbac.md lists them.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.rbac_v1 import GROUP

__all__ = ["BOOTSTRAP_OBJECTS"]

_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
_ANNOTATIONS = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
READ = ["get", "list", "watch"]
WRITE = ["create", "delete", "deletecollection", "patch", "update"]
READ_WRITE = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-"


def _rule(verbs: list[str], groups: list[str], resources: list[str]) -> dict[str, Any]:
    return {"verbs": verbs, "apiGroups": groups, "resources": resources}


def _urls(verbs: list[str], urls: list[str]) -> dict[str, Any]:
    return {"verbs": verbs, "nonResourceURLs": urls}


def _role(name: str, rules: list[dict[str, Any]] | None = None, *, labels: dict[str, str] | None = None,
          aggregate_from: str = "") -> dict[str, Any]:
    role: dict[str, Any] = {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRole",
                            "metadata": {"name": name, "labels": {**_LABELS, **(labels or {})},
                                         "annotations": dict(_ANNOTATIONS)}}
    if aggregate_from:
        selector = {"matchLabels": {AGGREGATE + aggregate_from: "true"}}
        role["aggregationRule"] = {"clusterRoleSelectors": [selector]}
    if rules is not None:
        role["rules"] = rules
    return role


def _binding(name: str, *groups: str) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name, "labels": dict(_LABELS), "annotations": dict(_ANNOTATIONS)},
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": name},
            "subjects": [{"apiGroup": GROUP, "kind": "Group", "name": g} for g in groups]}


_AGGREGATE_TO_ADMIN = [
    _rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
    _rule(READ_WRITE, [GROUP], ["rolebindings", "roles"]),
]
_AGGREGATE_TO_EDIT = [
    _rule(READ, [""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
                       "services/proxy"]),
    _rule(["impersonate"], [""], ["serviceaccounts"]),
    _rule(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
    _rule(["create"], [""], ["pods/eviction"]),
    _rule(WRITE, [""], ["configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                        "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
                        "services/proxy"]),
    _rule(["create"], [""], ["serviceaccounts/token"]),
    _rule(WRITE, ["apps"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale",
                            "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"]),
    _rule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
    _rule(WRITE, ["batch"], ["cronjobs", "jobs"]),
    _rule(WRITE, ["extensions"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale",
                                  "ingresses", "networkpolicies", "replicasets", "replicasets/scale",
                                  "replicationcontrollers/scale"]),
    _rule(WRITE, ["policy"], ["poddisruptionbudgets"]),
    _rule(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
    _rule(READ_WRITE, ["coordination.k8s.io"], ["leases"]),
]
_AGGREGATE_TO_VIEW = [
    _rule(READ, [""], ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
                       "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                       "services", "services/status"]),
    _rule(READ, [""], ["bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
                       "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"]),
    _rule(READ, [""], ["namespaces"]),
    _rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
    _rule(READ, ["apps"], ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
                           "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
                           "replicasets/status", "statefulsets", "statefulsets/scale",
                           "statefulsets/status"]),
    _rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
    _rule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
    _rule(READ, ["extensions"], ["daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                                 "deployments/status", "ingresses", "ingresses/status", "networkpolicies",
                                 "replicasets", "replicasets/scale", "replicasets/status",
                                 "replicationcontrollers/scale"]),
    _rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
    _rule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
]

# cluster-admin's role and binding first: their uids, drawn first from the hook's own generator, are
# those kbatch gave them before the other roles were bootstrapped
BOOTSTRAP_OBJECTS: tuple[dict[str, Any], ...] = (
    _role("cluster-admin", [_rule(["*"], ["*"], ["*"]), _urls(["*"], ["*"])]),
    _binding("cluster-admin", "system:masters"),
    _role("system:discovery", [_urls(["get"], ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                               "/openapi", "/openapi/*", "/readyz", "/version",
                                               "/version/"])]),
    _role("system:basic-user", [
        _rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
        _rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"])]),
    _role("system:public-info-viewer",
          [_urls(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])]),
    _role("admin", aggregate_from="admin"),
    _role("edit", labels={AGGREGATE + "admin": "true"}, aggregate_from="edit"),
    _role("view", labels={AGGREGATE + "edit": "true"}, aggregate_from="view"),
    _role("system:aggregate-to-admin", _AGGREGATE_TO_ADMIN, labels={AGGREGATE + "admin": "true"}),
    _role("system:aggregate-to-edit", _AGGREGATE_TO_EDIT, labels={AGGREGATE + "edit": "true"}),
    _role("system:aggregate-to-view", _AGGREGATE_TO_VIEW, labels={AGGREGATE + "view": "true"}),
    _binding("system:discovery", "system:authenticated"),
    _binding("system:basic-user", "system:authenticated"),
    _binding("system:public-info-viewer", "system:authenticated", "system:unauthenticated"),
)
