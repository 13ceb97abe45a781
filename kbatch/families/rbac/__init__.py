"""The rbac family: rbac.authorization.k8s.io/v1 as Kubernetes 1.37 serves it.

* kinds Role and RoleBinding (namespaced), ClusterRole and ClusterRoleBinding (cluster-scoped), with
  upstream's validation and defaulting (:mod:`kbatch.api.strategies.rbac`), ``kubectl get`` columns
  (:mod:`kbatch.families.rbac.printers`) and ``kubectl describe`` pages
  (:mod:`kbatch.families.rbac.pages`);
* post-start hook ``rbac/bootstrap-roles`` (:mod:`kbatch.apiserver.rbac_bootstrap`): every start
  reconciles upstream's bootstrap policy into the store, ``cluster-admin``, the discovery and
  basic-user roles, the aggregated ``admin``/``edit``/``view``, the component and
  ``system:controller:*`` roles with their bindings, and the kube-system/kube-public Roles
  (:mod:`kbatch.families.rbac.bootstrap_policy`);
* controller ``clusterrole-aggregation`` (on by default, as in kube-controller-manager): the rules of
  ClusterRoles with an ``aggregationRule``.

Requests that impersonate a user are authorized with these objects (:mod:`kbatch.authz`), and
authorization.k8s.io/v1 reviews answer from them; docs/rbac.md says what is modelled and every
deliberate difference.
"""

from __future__ import annotations

from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from kbatch.api.strategies.rbac import (
    ClusterRoleBindingStrategy,
    ClusterRoleStrategy,
    RoleBindingStrategy,
    RoleStrategy,
)
from kbatch.families.family import ControllerSpec, Family, KindEntry, kcm_account
from kbatch.families.rbac import pages, printers

__all__ = ["RBAC"]

RBAC = Family(
    name="rbac",
    description="rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding and the "
                "clusterrole-aggregation controller",
    kinds=(
        KindEntry(Role, RoleStrategy(), printers.ROLE, page=pages.role_page),
        KindEntry(ClusterRole, ClusterRoleStrategy(), printers.ROLE, page=pages.role_page),
        KindEntry(RoleBinding, RoleBindingStrategy(), printers.ROLE_BINDING, page=pages.binding_page),
        KindEntry(ClusterRoleBinding, ClusterRoleBindingStrategy(), printers.CLUSTER_ROLE_BINDING,
                  page=pages.binding_page),
    ),
    post_start=("kbatch.apiserver.rbac_bootstrap:ensure_rbac_policy",),
    controllers=(
        ControllerSpec("clusterrole-aggregation",
                       "fills the rules of aggregated ClusterRoles from the ClusterRoles their "
                       "selectors match",
                       "kbatch.controllers.rbac.aggregation:setup",
                       aliases=("clusterrole-aggregation-controller",),
                       source="clusterrole-aggregation-controller",
                       user=kcm_account("clusterrole-aggregation-controller")),
    ),
)
