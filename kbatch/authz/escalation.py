"""RBAC's escalation check: a user may write a Role or ClusterRole only with rules they already hold,
and bind a role only when they hold its rules, unless the server's authorizer grants them ``escalate``
(roles) or ``bind`` (the bound role). Kubernetes 1.37:

* ``pkg/registry/rbac/escalation_check.go``: ``EscalationAllowed`` (``system:masters`` skips every
  check), ``RoleEscalationAuthorized`` (``escalate`` on the request's ``roles``/``clusterroles``, its
  namespace and name), ``BindingAuthorized`` (``bind`` on the ``roleRef``'s role, in the binding's
  namespace). Both ask the authorizer the storage was built with, kube-apiserver's whole chain
  (``pkg/registry/rbac/rest/storage_rbac.go`` gets ``Authorization.Authorizer``): here the
  :class:`~kbatch.authz.chain.AuthorizerChain` the caller passes, the Node authorizer included when it
  is a mode. ``ConfirmNoEscalation`` asks RBAC's rule resolver alone (the rules the user holds);
* ``pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go``: the
  checks on create and update, an update that only changes what the garbage collector changes
  (``IsOnlyMutatingGCFields``) passing, an ``aggregationRule`` (set, or on the stored role) needing
  ``*`` on everything;
* ``pkg/registry/rbac/validation/rule.go`` ``ConfirmNoEscalation``, with
  k8s.io/component-helpers ``auth/rbac/validation/policy_comparator.go`` ``Covers`` and
  ``pkg/registry/rbac/validation/policy_compact.go`` ``CompactRules`` for the 403's rule list.

Everything here is pure: :func:`check` answers the error a write gets, or ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kbatch.api.errors import Forbidden, NotFound, StatusDetails, StatusError
from kbatch.api.go_quote import go_quote_list
from kbatch.authz import chain, rbac
from kbatch.authz.chain import AuthorizerChain
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.user import Attributes, UserInfo

__all__ = ["FULL_AUTHORITY", "check", "compact_rules", "compact_string", "confirm_no_escalation", "covers"]

Rule = Mapping[str, Any]
GROUP = "rbac.authorization.k8s.io"
FULL_AUTHORITY: tuple[Rule, ...] = ({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                                    {"verbs": ["*"], "nonResourceURLs": ["*"]})
_RESOURCES = {"Role": "roles", "ClusterRole": "clusterroles", "RoleBinding": "rolebindings",
              "ClusterRoleBinding": "clusterrolebindings"}
_GC_FIELDS = ("ownerReferences", "finalizers", "selfLink", "managedFields", "resourceVersion")


def breakdown(rule: Rule) -> list[Rule]:
    """``BreakdownRule``: one rule per group, resource, verb (and name), and per URL and verb."""
    names = list(rule.get("resourceNames") or ())
    out: list[Rule] = []
    for group in rule.get("apiGroups") or ():
        for resource in rule.get("resources") or ():
            for verb in rule.get("verbs") or ():
                base = {"verbs": [verb], "apiGroups": [group], "resources": [resource]}
                out += [{**base, "resourceNames": [n]} for n in names] if names else [base]
    for url in rule.get("nonResourceURLs") or ():
        out += [{"verbs": [verb], "nonResourceURLs": [url]} for verb in rule.get("verbs") or ()]
    return out


def _has_all(owned: Iterable[str], wanted: Iterable[str]) -> bool:
    return set(wanted) <= set(owned)


def _resources_cover(owned: Sequence[str], wanted: Sequence[str]) -> bool:
    """``resourceCoversAll``: ``*``, the resource itself, or ``*/<sub>`` for a subresource."""
    if "*" in owned:
        return True
    return all(r in owned or ("/" in r and "*/" + r.split("/", 1)[1] in owned) for r in wanted)


def _url_covers(owner: str, path: str) -> bool:
    return owner == path or (owner.endswith("*") and path.startswith(owner.rstrip("*")))


def _rule_covers(owner: Rule, sub: Rule) -> bool:
    """``ruleCovers``: whether one owner rule covers one broken-down rule."""
    verbs, groups = list(owner.get("verbs") or ()), list(owner.get("apiGroups") or ())
    owner_names, sub_names = list(owner.get("resourceNames") or ()), list(sub.get("resourceNames") or ())
    owner_urls = list(owner.get("nonResourceURLs") or ())
    return (("*" in verbs or _has_all(verbs, sub.get("verbs") or ()))
            and ("*" in groups or _has_all(groups, sub.get("apiGroups") or ()))
            and _resources_cover(list(owner.get("resources") or ()), list(sub.get("resources") or ()))
            and (not owner_names if not sub_names else not owner_names or _has_all(owner_names, sub_names))
            and all(any(_url_covers(o, p) for o in owner_urls) for p in sub.get("nonResourceURLs") or ()))


def covers(owner_rules: Sequence[Rule], servant_rules: Iterable[Rule]) -> list[Rule]:
    """``Covers``: the broken-down servant rules no owner rule covers (empty: covered)."""
    return [sub for rule in servant_rules for sub in breakdown(rule)
            if not any(_rule_covers(owner, sub) for owner in owner_rules)]


def compact_rules(rules: Iterable[Rule]) -> list[Rule]:
    """``CompactRules``: rules of one group and one resource, nothing else, merged (their verbs
    appended); every other rule as it is."""
    out: list[Rule] = []
    simple: dict[tuple[str, str], dict[str, Any]] = {}
    for rule in rules:
        groups, resources = list(rule.get("apiGroups") or ()), list(rule.get("resources") or ())
        if (rule.get("resourceNames") or rule.get("nonResourceURLs") or len(groups) != 1
                or len(resources) != 1):
            out.append(rule)
            continue
        key = (groups[0], resources[0])
        if key in simple:
            simple[key]["verbs"] += list(rule.get("verbs") or ())
        else:
            simple[key] = {"verbs": list(rule.get("verbs") or ()), "apiGroups": groups,
                           "resources": resources}
    return out + list(simple.values())


def compact_string(rule: Rule) -> str:
    """``rbacv1helpers.CompactString``: ``{APIGroups:[""], Resources:["pods"], Verbs:["get"]}``."""
    parts = [f"{label}:{go_quote_list(rule[key])}"
             for label, key in (("APIGroups", "apiGroups"), ("Resources", "resources"),
                                ("NonResourceURLs", "nonResourceURLs"), ("ResourceNames", "resourceNames"),
                                ("Verbs", "verbs")) if rule.get(key)]
    return "{" + ", ".join(parts) + "}"


def confirm_no_escalation(user: UserInfo, namespace: str, rules: Iterable[Rule],
                          snapshot: RbacSnapshot) -> str:
    """``ConfirmNoEscalation``: "" when the rules ``user`` holds in ``namespace`` cover ``rules``,
    else upstream's message listing what is missing."""
    owner_rules, error = rbac.rules_for(user, namespace, snapshot)
    missing = covers(owner_rules, rules)
    if not missing:
        return ""
    described = sorted({compact_string(r) for r in compact_rules(missing)})
    message = (f'user "{user.name}" (groups={go_quote_list(user.groups)}) is attempting to grant RBAC '
               "permissions not currently held:\n" + "\n".join(described))
    return f"{message}; resolution errors: [{error}]" if error else message


def _forbidden(resource: str, name: str, message: str) -> Forbidden:
    """``apierrors.NewForbidden(rbac.Resource(resource), name, err)``."""
    head = f'{resource}.{GROUP} "{name}"' if name else f"{resource}.{GROUP}"
    return Forbidden(f"{head} is forbidden: {message}",
                     details=StatusDetails(name=name or None, group=GROUP, kind=resource))


def _allowed(authorizer: AuthorizerChain, user: UserInfo, verb: str, resource: str, namespace: str,
             name: str, snapshot: RbacSnapshot, group: str = GROUP, version: str = "") -> bool:
    attrs = Attributes(user, verb, namespace=namespace, api_group=group, api_version=version,
                       resource=resource, name=name)
    return authorizer.authorize(attrs, snapshot).allowed


def _only_gc_fields(obj: Rule, old: Rule) -> bool:
    """``IsOnlyMutatingGCFields``: the write changes nothing but owner references and finalizers
    (kbatch also sets aside the server-kept ``managedFields`` and ``resourceVersion``)."""
    def strip(o: Rule) -> dict[str, Any]:
        meta = {k: v for k, v in (o.get("metadata") or {}).items() if k not in _GC_FIELDS}
        return {**o, "metadata": meta}
    return strip(obj) == strip(old)


def _aggregates(role: Rule | None) -> bool:
    """``hasAggregationRule``: at least one cluster role selector."""
    return bool(role and (role.get("aggregationRule") or {}).get("clusterRoleSelectors"))


def _role_check(kind: str, obj: Rule, old: Rule | None, user: UserInfo, namespace: str, request_name: str,
                snapshot: RbacSnapshot, authorizer: AuthorizerChain) -> StatusError | None:
    resource, name = _RESOURCES[kind], (obj.get("metadata") or {}).get("name") or ""
    if _allowed(authorizer, user, "escalate", resource, namespace, request_name, snapshot, version="*"):
        return None
    message = confirm_no_escalation(user, namespace, obj.get("rules") or (), snapshot)
    if message:
        return _forbidden(resource, name, message)
    if kind == "ClusterRole" and (_aggregates(obj) or _aggregates(old)) and \
            confirm_no_escalation(user, namespace, FULL_AUTHORITY, snapshot):
        return _forbidden(resource, name, "must have cluster-admin privileges to use the aggregationRule")
    return None


def _binding_check(kind: str, obj: Rule, user: UserInfo, namespace: str, snapshot: RbacSnapshot,
                   authorizer: AuthorizerChain) -> StatusError | None:
    ref = obj.get("roleRef") or {}
    ref_kind, ref_name = ref.get("kind") or "", ref.get("name") or ""
    ref_resource = _RESOURCES.get(ref_kind) if ref_kind in ("Role", "ClusterRole") else None
    if ref_resource is None:
        return Forbidden(f'unsupported role reference kind: "{ref_kind}"')
    if _allowed(authorizer, user, "bind", ref_resource, namespace, ref_name, snapshot,
                group=ref.get("apiGroup") or ""):
        return None
    role = snapshot.role(ref_kind, namespace, ref_name)
    if role is None:  # the registry's lookup (GetRoleReferenceRules through the role storage)
        return NotFound.of(f"{ref_resource}.{GROUP}", ref_name)
    message = confirm_no_escalation(user, namespace, role.get("rules") or (), snapshot)
    name = (obj.get("metadata") or {}).get("name") or ""
    return _forbidden(_RESOURCES[kind], name, message) if message else None


def check(kind: str, obj: Rule, old: Rule | None, user: UserInfo, namespace: str, request_name: str,
          snapshot: RbacSnapshot, authorizer: AuthorizerChain) -> StatusError | None:
    """The error the write of ``obj`` (a Role, ClusterRole, RoleBinding or ClusterRoleBinding, as wire
    dicts; ``old`` the stored object of an update) by ``user`` gets, or ``None`` when it may be made.
    ``namespace`` and ``request_name`` are the request's (``""`` at the cluster scope, on a create);
    ``authorizer`` answers whether ``user`` may ``escalate`` or ``bind``."""
    if chain.is_privileged(user):
        return None
    if old is not None and _only_gc_fields(obj, old):
        return None
    if kind in ("Role", "ClusterRole"):
        return _role_check(kind, obj, old, user, namespace, request_name, snapshot, authorizer)
    return _binding_check(kind, obj, user, namespace, snapshot, authorizer)
