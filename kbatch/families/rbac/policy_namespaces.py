"""The Roles and RoleBindings of Kubernetes' ``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/
namespace_policy.go`` (``NamespaceRoles``/``NamespaceRoleBindings``) at 1.37, by namespace and name:
in ``kube-system`` the reader of the ``extension-apiserver-authentication`` ConfigMap, the legacy
ConfigMap leader locks of kube-controller-manager and kube-scheduler, and the roles of the
bootstrap-signer, cloud-provider and token-cleaner controllers; in ``kube-public`` the
bootstrap-signer's (it signs ``cluster-info``).
"""

from __future__ import annotations

from kbatch.families.rbac.policy_builders import (
    READ,
    Obj,
    binding,
    events_rule,
    namespaced_role,
    rule,
    sa,
    user,
)

__all__ = ["namespace_role_bindings", "namespace_roles"]

SYSTEM, PUBLIC = "kube-system", "kube-public"
CONTROLLER = "system:controller:"


def _leader_locking(component: str) -> list[Obj]:
    return [rule(["watch"], [""], ["configmaps"]), rule(["get", "update"], [""], ["configmaps"], [component])]


def namespace_roles() -> list[Obj]:
    """``NamespaceRoles()``: kube-public's, then kube-system's, each by name."""
    return [
        namespaced_role(
            PUBLIC,
            CONTROLLER + "bootstrap-signer",
            [
                rule(READ, [""], ["configmaps"]),
                rule(["patch", "update"], [""], ["configmaps"], ["cluster-info"]),
                events_rule(),
            ],
        ),
        namespaced_role(
            SYSTEM,
            "extension-apiserver-authentication-reader",
            [rule(READ, [""], ["configmaps"], ["extension-apiserver-authentication"])],
        ),
        namespaced_role(
            SYSTEM,
            "system::leader-locking-kube-controller-manager",
            _leader_locking("kube-controller-manager"),
        ),
        namespaced_role(SYSTEM, "system::leader-locking-kube-scheduler", _leader_locking("kube-scheduler")),
        namespaced_role(SYSTEM, CONTROLLER + "bootstrap-signer", [rule(READ, [""], ["secrets"])]),
        namespaced_role(
            SYSTEM,
            CONTROLLER + "cloud-provider",
            [rule(["create", "get", "list", "watch"], [""], ["configmaps"])],
        ),
        namespaced_role(
            SYSTEM,
            CONTROLLER + "token-cleaner",
            [rule(["delete", "get", "list", "watch"], [""], ["secrets"]), events_rule()],
        ),
    ]


def namespace_role_bindings() -> list[Obj]:
    """``NamespaceRoleBindings()``: kube-public's, then kube-system's, each by name."""
    kcm, scheduler = "system:kube-controller-manager", "system:kube-scheduler"
    return [
        binding(PUBLIC, CONTROLLER + "bootstrap-signer", sa(SYSTEM, "bootstrap-signer")),
        binding(
            SYSTEM,
            "extension-apiserver-authentication-reader",
            user(kcm),
            user(scheduler),
            name="system::extension-apiserver-authentication-reader",
        ),
        binding(
            SYSTEM,
            "system::leader-locking-kube-controller-manager",
            user(kcm),
            sa(SYSTEM, "kube-controller-manager"),
        ),
        binding(
            SYSTEM, "system::leader-locking-kube-scheduler", user(scheduler), sa(SYSTEM, "kube-scheduler")
        ),
        binding(SYSTEM, CONTROLLER + "bootstrap-signer", sa(SYSTEM, "bootstrap-signer")),
        binding(SYSTEM, CONTROLLER + "cloud-provider", sa(SYSTEM, "cloud-provider")),
        binding(SYSTEM, CONTROLLER + "token-cleaner", sa(SYSTEM, "token-cleaner")),
    ]
