"""rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding (k8s.io/api
``rbac/v1/types.go``).

A Role (namespaced) or ClusterRole holds :class:`PolicyRule` s; a RoleBinding or ClusterRoleBinding
grants the role its ``roleRef`` names to its ``subjects`` (users, groups, service accounts). A
ClusterRole with an ``aggregationRule`` has its rules filled in by the clusterrole-aggregation
controller from the ClusterRoles its selectors match. None of these kinds has a status.
Validation and defaulting: :mod:`kbatch.api.strategies.rbac`; docs/rbac.md.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.meta import LabelSelector, Resource

__all__ = ["GROUP", "AggregationRule", "ClusterRole", "ClusterRoleBinding", "PolicyRule", "Role",
           "RoleBinding", "RoleRef", "Subject"]

GROUP = "rbac.authorization.k8s.io"  # rbacv1.GroupName
SERVICE_ACCOUNT_KIND, USER_KIND, GROUP_KIND = "ServiceAccount", "User", "Group"


class PolicyRule(KubeModel):
    verbs: list[str] | None = None
    api_groups: list[str] | None = None
    resources: list[str] | None = None
    resource_names: list[str] | None = None
    non_resource_urls: list[str] | None = Field(default=None, alias="nonResourceURLs")


class AggregationRule(KubeModel):
    cluster_role_selectors: list[LabelSelector] | None = None


class Subject(KubeModel):
    kind: str = ""
    api_group: str | None = None
    name: str = ""
    namespace: str | None = None


class RoleRef(KubeModel):
    api_group: str = ""
    kind: str = ""
    name: str = ""


def _info(kind: str, plural: str, namespaced: bool) -> ApiInfo:
    return ApiInfo(group=GROUP, version="v1", kind=kind, plural=plural, namespaced=namespaced,
                   singular=kind.lower(), subresources=())


class Role(Resource):
    api_info: ClassVar[ApiInfo] = _info("Role", "roles", True)

    rules: list[PolicyRule] | None = None


class ClusterRole(Resource):
    api_info: ClassVar[ApiInfo] = _info("ClusterRole", "clusterroles", False)

    rules: list[PolicyRule] | None = None
    aggregation_rule: AggregationRule | None = None


class RoleBinding(Resource):
    api_info: ClassVar[ApiInfo] = _info("RoleBinding", "rolebindings", True)

    subjects: list[Subject] | None = None
    role_ref: RoleRef = Field(default_factory=RoleRef)


class ClusterRoleBinding(Resource):
    api_info: ClassVar[ApiInfo] = _info("ClusterRoleBinding", "clusterrolebindings", False)

    subjects: list[Subject] | None = None
    role_ref: RoleRef = Field(default_factory=RoleRef)
