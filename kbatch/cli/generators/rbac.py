"""``create role|clusterrole|rolebinding|clusterrolebinding`` (k8s.io/kubectl
``pkg/cmd/create/create_role.go``, ``create_clusterrole.go``, ``create_rolebinding.go``,
``create_clusterrolebinding.go``).

A role has one rule per API group of the resources named (groups in sorted order), each with every
verb and resource name given; resources are resolved through the server's discovery (``rs`` →
``replicasets``, ``jobs.batch``), as kubectl's RESTMapper resolves them, and ``NAME/SUB`` keeps its
subresource. A ClusterRole may instead carry an aggregation rule, or non-resource URLs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kbatch.cli.generators import GeneratorError, Obj, object_meta

__all__ = ["Resolve", "RoleSpec", "UnknownResource", "binding", "cluster_role", "role", "role_spec"]

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_VERSION = f"{RBAC_GROUP}/v1"
# create_role.go validResourceVerbs: others are only warned about
VALID_RESOURCE_VERBS = ("*", "get", "delete", "list", "create", "update", "patch", "watch", "proxy",
                        "deletecollection", "use", "bind", "escalate", "impersonate")
# create_clusterrole.go validNonResourceVerbs
VALID_NON_RESOURCE_VERBS = ("*", "get", "post", "put", "delete", "patch", "head", "options")
# create_role.go specialVerbs: these verbs apply only to these (group, resource)s
SPECIAL_VERBS: dict[str, tuple[tuple[str, str], ...]] = {
    "use": (("policy", "podsecuritypolicies"), ("extensions", "podsecuritypolicies")),
    "bind": ((RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")),
    "escalate": ((RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")),
    "impersonate": (("", "users"), ("", "serviceaccounts"), ("", "groups"),
                    ("authentication.k8s.io", "userextras")),
}

# (resource, group) as typed → (group, plural) as the server serves it, or None when it serves none
Resolve = Callable[[str, str], "tuple[str, str] | None"]


class UnknownResource(GeneratorError):
    """A resource the server does not serve. kubectl prints the RESTMapper's error as it is, without
    ``error:`` (``cmdutil.CheckErr`` on a ``NoResourceMatchError``)."""


@dataclass(frozen=True, slots=True)
class _Resource:
    resource: str
    group: str = ""
    sub: str = ""


@dataclass(frozen=True, slots=True)
class RoleSpec:
    """The flags of ``create role``/``clusterrole`` after kubectl's ``Complete``: verbs and names
    de-duplicated in order (``*`` alone when given), resources parsed."""

    verbs: tuple[str, ...]
    resources: tuple[_Resource, ...]
    resource_names: tuple[str, ...]
    non_resource_urls: tuple[str, ...] = ()


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def role_spec(verbs: list[str], resources: list[str], resource_names: list[str],
              non_resource_urls: list[str] | None = None) -> RoleSpec:
    verb_list = ("*",) if "*" in verbs else _unique(verbs)
    parsed: list[_Resource] = []
    for text in resources:
        base, _, sub = text.partition("/")
        name, _, group = base.partition(".")
        if name == "*" and not group and "/" not in text:
            parsed = [_Resource("*")]
            break
        parsed.append(_Resource(name, group, sub))
    return RoleSpec(verb_list, tuple(parsed), _unique(resource_names), _unique(non_resource_urls or []))


def _validate_resources(spec: RoleSpec, resolve: Resolve) -> None:
    """``validateResource``: each resource named, special verbs only on their resources, and the
    resource known to the server (a ``*`` ends the check)."""
    for r in spec.resources:
        if not r.resource:
            raise GeneratorError("resource must be specified if apiGroup/subresource specified")
        if r.resource == "*":
            return
        found = resolve(r.resource, r.group)
        group, plural = found or (r.group, r.resource)
        special_ok = False
        for verb in spec.verbs:
            allowed = SPECIAL_VERBS.get(verb)
            if allowed is None:
                continue
            if (group, plural) not in allowed:
                raise GeneratorError(f"can not perform '{verb}' on '{plural}' in group '{group}'")
            special_ok = True
        if found is None and not special_ok:
            raise UnknownResource(f"the server doesn't have a resource type \"{r.resource}\"")


def _warn_verbs(spec: RoleSpec, warn: Callable[[str], None]) -> None:
    for verb in spec.verbs:
        if verb not in VALID_RESOURCE_VERBS:
            warn(f"Warning: '{verb}' is not a standard resource verb")


def _rules(spec: RoleSpec, resolve: Resolve) -> list[Obj]:
    """``generateResourcePolicyRules``: one rule per group, sorted by group; then one rule for the
    non-resource URLs."""
    by_group: dict[str, list[str]] = {}
    for r in spec.resources:
        group, plural = resolve(r.resource, r.group) or (r.group, r.resource)
        name = f"{plural}/{r.sub}" if r.sub else plural
        names = by_group.setdefault(group, [])
        if name not in names:
            names.append(name)
    rules: list[Obj] = []
    for group in sorted(by_group):
        rule: Obj = {"verbs": list(spec.verbs), "apiGroups": [group], "resources": by_group[group]}
        if spec.resource_names:
            rule["resourceNames"] = list(spec.resource_names)
        rules.append(rule)
    if spec.non_resource_urls:
        rules.append({"verbs": list(spec.verbs), "nonResourceURLs": list(spec.non_resource_urls)})
    return rules


def role(name: str, ns: str | None, spec: RoleSpec, resolve: Resolve, warn: Callable[[str], None]) -> Obj:
    """``CreateRoleOptions.Validate`` and ``RunCreateRole``."""
    if not spec.verbs:
        raise GeneratorError("at least one verb must be specified")
    _warn_verbs(spec, warn)
    if not spec.resources:
        raise GeneratorError("at least one resource must be specified")
    _validate_resources(spec, resolve)
    return {"apiVersion": RBAC_VERSION, "kind": "Role", "metadata": object_meta(name, ns),
            "rules": _rules(spec, resolve)}


def _validate_urls(spec: RoleSpec) -> None:
    for verb in spec.verbs:
        if verb not in VALID_NON_RESOURCE_VERBS:
            raise GeneratorError(f"invalid verb: '{verb}' for nonResourceURL")
    for url in spec.non_resource_urls:
        if url == "*":
            continue
        if not url.startswith("/"):
            raise GeneratorError("nonResourceURL should start with /")
        if "*" in url[:-1]:
            raise GeneratorError("nonResourceURL only supports wildcard matches when '*' is at the end")


def cluster_role(name: str, spec: RoleSpec, aggregation: dict[str, str], resolve: Resolve,
                 warn: Callable[[str], None]) -> Obj:
    """``CreateClusterRoleOptions.Validate`` and ``RunCreateRole``: an aggregation rule alone, or
    rules from resources and non-resource URLs."""
    out: Obj = {"apiVersion": RBAC_VERSION, "kind": "ClusterRole", "metadata": {"name": name}}
    if aggregation:
        if spec.non_resource_urls or spec.verbs or spec.resources or spec.resource_names:
            raise GeneratorError("aggregation rule must be specified without nonResourceURLs, verbs, "
                                 "resources or resourceNames")
        # ``rules`` has no omitempty: an aggregated role's empty rules are written as null
        out["rules"] = None
        out["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": dict(aggregation)}]}
        return out
    if not spec.verbs:
        raise GeneratorError("at least one verb must be specified")
    if not spec.resources and not spec.non_resource_urls:
        raise GeneratorError("one of resource or nonResourceURL must be specified")
    if spec.resources:
        _warn_verbs(spec, warn)
        _validate_resources(spec, resolve)
    if spec.non_resource_urls:
        _validate_urls(spec)
    out["rules"] = _rules(spec, resolve)
    return out


def binding(kind: str, name: str, ns: str | None, role_kind: str, role_name: str, users: list[str],
            groups: list[str], service_accounts: list[str]) -> Obj:
    """``createRoleBinding``/``createClusterRoleBinding``: users, then groups, then service accounts
    (``NAMESPACE:NAME``, without an API group)."""
    subjects: list[Obj] = [{"kind": "User", "apiGroup": RBAC_GROUP, "name": u} for u in users]
    subjects += [{"kind": "Group", "apiGroup": RBAC_GROUP, "name": g} for g in groups]
    for sa in service_accounts:
        parts = sa.split(":")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise GeneratorError("serviceaccount must be <namespace>:<name>")
        subjects.append({"kind": "ServiceAccount", "namespace": parts[0], "name": parts[1]})
    out: Obj = {"apiVersion": RBAC_VERSION, "kind": kind, "metadata": object_meta(name, ns),
                "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": role_name}}
    if subjects:
        out["subjects"] = subjects
    return out
