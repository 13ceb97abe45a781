"""The ClusterRoles and ClusterRoleBindings of Kubernetes' ``plugin/pkg/auth/authorizer/rbac/
bootstrappolicy/policy.go`` (``ClusterRoles``, ``NodeRules``, ``ClusterRoleBindings``) at 1.37, in
upstream's order, with its feature-gated rules where the gate is on (docs/rbac.md lists the gates).

The user-facing ``admin``/``edit``/``view`` carry only an aggregationRule (the clusterrole-aggregation
controller fills them from ``system:aggregate-to-*``); ``edit`` is labelled aggregate-to-admin and
``view`` aggregate-to-edit, so admin ⊇ edit ⊇ view.
"""

from __future__ import annotations

from kbatch.families.rbac.policy_aggregate import AGGREGATE_TO_ADMIN, AGGREGATE_TO_EDIT, AGGREGATE_TO_VIEW
from kbatch.families.rbac.policy_builders import (
    AGGREGATE,
    READ,
    READ_UPDATE,
    READ_WRITE,
    Gates,
    Obj,
    cluster_binding,
    events_rule,
    group,
    role,
    rule,
    sa,
    urls,
    user,
)

__all__ = ["cluster_role_bindings", "cluster_roles", "node_rules"]

CERTS, COORDINATION, STORAGE, DRA = (
    "certificates.k8s.io",
    "coordination.k8s.io",
    "storage.k8s.io",
    "resource.k8s.io",
)
AUTHN, AUTHZ = "authentication.k8s.io", "authorization.k8s.io"


def node_rules(gates: Gates) -> list[Obj]:
    """``NodeRules``: what a kubelet needs (the Node authorizer narrows it to its own node)."""
    rules = [
        rule(["create"], [AUTHN], ["tokenreviews"]),
        rule(["create"], [AUTHZ], ["localsubjectaccessreviews", "subjectaccessreviews"]),
        rule(READ, [""], ["services"]),
        rule(["create", "get", "list", "watch"], [""], ["nodes"]),
        rule(["patch", "update"], [""], ["nodes/status"]),
        rule(["patch", "update"], [""], ["nodes"]),
        events_rule(),
        rule(READ, [""], ["pods"]),
        rule(["create", "delete"], [""], ["pods"]),
        rule(["patch", "update"], [""], ["pods/status"]),
        rule(["create"], [""], ["pods/eviction"]),
        rule(READ, [""], ["configmaps", "secrets"]),
        rule(["get"], [""], ["persistentvolumeclaims", "persistentvolumes"]),
        rule(["get"], [""], ["endpoints"]),
        rule(["create", "get", "list", "watch"], [CERTS], ["certificatesigningrequests"]),
        rule(["create", "delete", "get", "patch", "update"], [COORDINATION], ["leases"]),
        rule(["get"], [STORAGE], ["volumeattachments"]),
        rule(["get", "patch", "update"], [""], ["persistentvolumeclaims/status"]),
        rule(["create"], [""], ["serviceaccounts/token"]),
        rule(READ, [STORAGE], ["csidrivers"]),
        rule(["create", "delete", "get", "patch", "update"], [STORAGE], ["csinodes"]),
        rule(READ, ["node.k8s.io"], ["runtimeclasses"]),
    ]
    if gates.on("DynamicResourceAllocation"):
        rules += [rule(["get"], [DRA], ["resourceclaims"]), rule(READ_WRITE, [DRA], ["resourceslices"])]
    if gates.on("ClusterTrustBundleProjection"):
        rules.append(rule(READ, [CERTS], ["clustertrustbundles"]))
    if gates.on("KubeletServiceAccountTokenForCredentialProviders"):
        rules.append(rule(["get"], [""], ["serviceaccounts"]))
    if gates.on("PodCertificateRequest"):
        rules.append(rule(["create", "get", "list", "watch"], [CERTS], ["podcertificaterequests"]))
    return rules


def _scheduler_rules(gates: Gates) -> list[Obj]:
    rules = [
        events_rule(),
        rule(["create"], [COORDINATION], ["leases"]),
        rule(["get", "list", "update", "watch"], [COORDINATION], ["leases"], ["kube-scheduler"]),
        rule(READ_WRITE, [COORDINATION], ["leasecandidates"]),
        rule(READ, [""], ["nodes"]),
        rule(["delete", "get", "list", "watch"], [""], ["pods"]),
        rule(["create"], [""], ["bindings", "pods/binding"]),
        rule(["patch", "update"], [""], ["pods/status"]),
        rule(READ, [""], ["replicationcontrollers", "services"]),
        rule(READ, ["apps", "extensions"], ["replicasets"]),
        rule(READ, ["apps"], ["statefulsets"]),
        rule(READ, ["policy"], ["poddisruptionbudgets"]),
        rule(READ, [""], ["persistentvolumeclaims", "persistentvolumes"]),
        rule(["create"], [AUTHN], ["tokenreviews"]),
        rule(["create"], [AUTHZ], ["subjectaccessreviews"]),
        rule(READ, [STORAGE], ["csinodes"]),
        rule(READ, [""], ["namespaces"]),
        rule(READ, [STORAGE], ["csidrivers"]),
        rule(READ, [STORAGE], ["csistoragecapacities"]),
        rule(READ, [STORAGE], ["volumeattachments"]),
    ]
    if gates.on("DynamicResourceAllocation"):
        rules += [
            rule(READ, [DRA], ["resourceclaims"]),
            rule(["patch", "update"], [DRA], ["resourceclaims/status"]),
            rule(READ, [DRA], ["deviceclasses", "resourceslices"]),
        ]
        if gates.on("DRAExtendedResource"):
            rules.append(rule(["create", "delete"], [DRA], ["resourceclaims"]))
        if gates.on("DRADeviceTaintRules"):
            rules.append(rule(READ, [DRA], ["devicetaintrules"]))
    if gates.on("GenericWorkload"):
        rules += [
            rule(READ, ["scheduling.k8s.io"], ["podgroups", "workloads"]),
            rule(["patch", "update"], ["scheduling.k8s.io"], ["podgroups/status"]),
        ]
        if gates.on("CompositePodGroup"):  # kbatch's: the scheduler reads trees, writes their condition
            rules += [rule(READ, ["scheduling.k8s.io"], ["compositepodgroups"]),
                      rule(["patch", "update"], ["scheduling.k8s.io"], ["compositepodgroups/status"])]
    return rules


def _user_facing() -> list[Obj]:
    return [
        role("admin", aggregate_from="admin"),
        role("edit", labels={AGGREGATE + "admin": "true"}, aggregate_from="edit"),
        role("view", labels={AGGREGATE + "edit": "true"}, aggregate_from="view"),
        role("system:aggregate-to-admin", AGGREGATE_TO_ADMIN, labels={AGGREGATE + "admin": "true"}),
        role("system:aggregate-to-edit", AGGREGATE_TO_EDIT, labels={AGGREGATE + "edit": "true"}),
        role("system:aggregate-to-view", AGGREGATE_TO_VIEW, labels={AGGREGATE + "view": "true"}),
    ]


def _components(gates: Gates) -> list[Obj]:
    kubelet_api = [
        rule(READ, [""], ["nodes"]),
        rule(["proxy"], [""], ["nodes"]),
        rule(["*"], [""], ["nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats"]),
    ]
    if gates.on("KubeletFineGrainedAuthz"):
        kubelet_api.append(rule(["*"], [""], ["nodes/configz", "nodes/healthz", "nodes/pods"]))
    return [
        role(
            "system:heapster",
            [
                rule(READ, [""], ["events", "namespaces", "nodes", "pods"]),
                rule(READ, ["extensions"], ["deployments"]),
            ],
        ),
        role("system:node", node_rules(gates)),
        role(
            "system:node-problem-detector",
            [rule(["get"], [""], ["nodes"]), rule(["patch"], [""], ["nodes/status"]), events_rule()],
        ),
        role("system:kubelet-api-admin", kubelet_api),
        role(
            "system:node-bootstrapper",
            [rule(["create", "get", "list", "watch"], [CERTS], ["certificatesigningrequests"])],
        ),
        role(
            "system:auth-delegator",
            [
                rule(["create"], [AUTHN], ["tokenreviews"]),
                rule(["create"], [AUTHZ], ["subjectaccessreviews"]),
            ],
        ),
        role("system:kube-aggregator", [rule(READ, [""], ["endpoints", "services"])]),
        role(
            "system:kube-controller-manager",
            [
                events_rule(),
                rule(["create"], [COORDINATION], ["leases"]),
                rule(["get", "update"], [COORDINATION], ["leases"], ["kube-controller-manager"]),
                rule(READ_WRITE, [COORDINATION], ["leasecandidates"]),
                rule(["create"], [""], ["secrets", "serviceaccounts"]),
                rule(["delete"], [""], ["secrets"]),
                rule(["get"], [""], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
                rule(["update"], [""], ["secrets", "serviceaccounts"]),
                rule(["create"], [AUTHN], ["tokenreviews"]),
                rule(["create"], [AUTHZ], ["subjectaccessreviews"]),
                rule(["list", "watch"], ["*"], ["*"]),
                rule(["create"], [""], ["serviceaccounts/token"]),
            ],
        ),
        role("system:kube-dns", [rule(["list", "watch"], [""], ["endpoints", "services"])]),
        role(
            "system:persistent-volume-provisioner",
            [
                rule(["create", "delete", "get", "list", "watch"], [""], ["persistentvolumes"]),
                rule(["get", "list", "update", "watch"], [""], ["persistentvolumeclaims"]),
                rule(READ, [STORAGE], ["storageclasses"]),
                rule(["watch"], [""], ["events"]),
                events_rule(),
            ],
        ),
    ]


def _certificates() -> list[Obj]:
    prefix = "system:certificates.k8s.io:"
    approvers = (
        ("legacy-unknown-approver", "kubernetes.io/legacy-unknown"),
        ("kubelet-serving-approver", "kubernetes.io/kubelet-serving"),
        ("kube-apiserver-client-approver", "kubernetes.io/kube-apiserver-client"),
        ("kube-apiserver-client-kubelet-approver", "kubernetes.io/kube-apiserver-client-kubelet"),
    )
    return [
        role(
            prefix + "certificatesigningrequests:nodeclient",
            [rule(["create"], [CERTS], ["certificatesigningrequests/nodeclient"])],
        ),
        role(
            prefix + "certificatesigningrequests:selfnodeclient",
            [rule(["create"], [CERTS], ["certificatesigningrequests/selfnodeclient"])],
        ),
        role(
            "system:volume-scheduler",
            [
                rule(READ_UPDATE, [""], ["persistentvolumes"]),
                rule(READ, [STORAGE], ["storageclasses"]),
                rule(READ_UPDATE, [""], ["persistentvolumeclaims"]),
            ],
        ),
        *(
            role(prefix + name, [rule(["approve"], [CERTS], ["signers"], [signer])])
            for name, signer in approvers
        ),
    ]


def cluster_roles(gates: Gates) -> list[Obj]:
    """``ClusterRoles()``, in its order."""
    roles = [
        role("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
        role(
            "system:discovery",
            [
                urls(
                    ["get"],
                    [
                        "/api",
                        "/api/*",
                        "/apis",
                        "/apis/*",
                        "/healthz",
                        "/livez",
                        "/openapi",
                        "/openapi/*",
                        "/readyz",
                        "/version",
                        "/version/",
                    ],
                )
            ],
        ),
        role(
            "system:monitoring",
            [
                urls(
                    ["get"],
                    [
                        "/healthz",
                        "/healthz/*",
                        "/livez",
                        "/livez/*",
                        "/metrics",
                        "/metrics/slis",
                        "/readyz",
                        "/readyz/*",
                    ],
                )
            ],
        ),
        role(
            "system:basic-user",
            [
                rule(["create"], [AUTHZ], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
                rule(["create"], [AUTHN], ["selfsubjectreviews"]),
            ],
        ),
        role(
            "system:public-info-viewer",
            [urls(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])],
        ),
        *_user_facing(),
        *_components(gates),
        *_certificates(),
        role(
            "system:service-account-issuer-discovery",
            [
                urls(
                    ["get"],
                    [
                        "/.well-known/openid-configuration",
                        "/.well-known/openid-configuration/",
                        "/openid/v1/jwks",
                        "/openid/v1/jwks/",
                    ],
                )
            ],
        ),
        role(
            "system:node-proxier",
            [
                rule(["list", "watch"], [""], ["endpoints", "services"]),
                rule(READ, [""], ["nodes"]),
                events_rule(),
                rule(["list", "watch"], ["discovery.k8s.io"], ["endpointslices"]),
            ],
        ),
        role("system:kube-scheduler", _scheduler_rules(gates)),
    ]
    if gates.on("ClusterTrustBundle"):
        roles.append(
            role("system:cluster-trust-bundle-discovery", [rule(READ, [CERTS], ["clustertrustbundles"])])
        )
    return roles


def cluster_role_bindings(gates: Gates) -> list[Obj]:
    """``ClusterRoleBindings()``, in its order; ``system:node``'s has no subject (the Node authorizer
    grants nodes their access since 1.8)."""
    bindings = [
        cluster_binding("cluster-admin", group("system:masters")),
        cluster_binding("system:monitoring", group("system:monitoring")),
        cluster_binding("system:discovery", group("system:authenticated")),
        cluster_binding("system:basic-user", group("system:authenticated")),
        cluster_binding(
            "system:public-info-viewer", group("system:authenticated"), group("system:unauthenticated")
        ),
        cluster_binding("system:node-proxier", user("system:kube-proxy")),
        cluster_binding("system:kube-controller-manager", user("system:kube-controller-manager")),
        cluster_binding("system:kube-dns", sa("kube-system", "kube-dns")),
        cluster_binding("system:kube-scheduler", user("system:kube-scheduler")),
        cluster_binding("system:volume-scheduler", user("system:kube-scheduler")),
        cluster_binding("system:node"),
        cluster_binding("system:service-account-issuer-discovery", group("system:serviceaccounts")),
    ]
    if gates.on("ClusterTrustBundle"):
        bindings.append(
            cluster_binding("system:cluster-trust-bundle-discovery", group("system:serviceaccounts"))
        )
    return bindings
