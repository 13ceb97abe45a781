"""The RBAC authorizer over a snapshot of roles and bindings (Kubernetes 1.37
``plugin/pkg/auth/authorizer/rbac/rbac.go`` ``Authorize``/``RulesFor`` and
``pkg/registry/rbac/validation/rule.go`` ``VisitRulesFor``/``appliesTo``).

The rules that apply to a user in a namespace are those of every ClusterRoleBinding with a subject
that is the user, then (for a namespace) those of every RoleBinding of that namespace. A subject is the
user when it is the ``User`` of that name, a ``Group`` among the user's groups, or the
``ServiceAccount`` whose username (``system:serviceaccount:<ns>:<name>``, the binding's namespace
when the subject names none) is the user's name. A request is allowed by the first rule that covers
it, and the reason names where the rule came from (``RBAC: allowed by ClusterRoleBinding "x" of
ClusterRole "y" to User "z"``); a binding whose role does not exist contributes no rules, and a denial
reports those lookups as its reason (``RBAC: [clusterrole.rbac.authorization.k8s.io "y" not found]``).

Upstream reads bindings from an informer cache in no set order; kbatch visits them by name (then
namespace), so the reason of an allowed request does not depend on insertion order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kbatch.authz.rules import rule_allows
from kbatch.authz.user import Attributes, UserInfo

__all__ = ["Decision", "RbacSnapshot", "applies_to", "authorize", "rules_for", "visit_rules"]

Obj = Mapping[str, Any]
SA_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True, slots=True)
class RbacSnapshot:
    """The RBAC objects an authorizer reads, as wire dicts."""

    roles: Sequence[Obj] = ()
    role_bindings: Sequence[Obj] = ()
    cluster_roles: Sequence[Obj] = ()
    cluster_role_bindings: Sequence[Obj] = ()
    _index: dict[tuple[str, str, str], Obj] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for kind, objs in (("Role", self.roles), ("ClusterRole", self.cluster_roles)):
            for obj in objs:
                meta = obj.get("metadata") or {}
                self._index[(kind, meta.get("namespace") or "", meta.get("name") or "")] = obj

    def role(self, kind: str, namespace: str, name: str) -> Obj | None:
        return self._index.get((kind, namespace if kind == "Role" else "", name))


@dataclass(frozen=True, slots=True)
class Decision:
    """``allowed`` or no opinion, with upstream's reason text."""

    allowed: bool
    reason: str = ""


def _sa_matches(namespace: str, name: str, username: str) -> bool:
    """``serviceaccount.MatchesUsername``."""
    return username == f"{SA_PREFIX}{namespace}:{name}"


def _applies_to_user(user: UserInfo, subject: Obj, namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name") or ""
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        sa_namespace = subject.get("namespace") or namespace
        return bool(sa_namespace) and _sa_matches(sa_namespace, name, user.name)
    return False


def applies_to(user: UserInfo, subjects: Sequence[Obj], namespace: str) -> int | None:
    """The index of the first of ``subjects`` that is ``user`` (``appliesTo``), or ``None``."""
    for i, subject in enumerate(subjects):
        if _applies_to_user(user, subject, namespace):
            return i
    return None


def _describe_subject(subject: Obj, binding_namespace: str) -> str:
    kind, name = subject.get("kind", ""), subject.get("name", "")
    if kind == "ServiceAccount":
        return f'{kind} "{name}/{subject.get("namespace") or binding_namespace}"'
    return f'{kind} "{name}"'


def _describe(binding: Obj, subject: Obj, namespace: str) -> str:
    meta, ref = binding.get("metadata") or {}, binding.get("roleRef") or {}
    what = "RoleBinding" if namespace else "ClusterRoleBinding"
    name = f"{meta.get('name', '')}/{namespace}" if namespace else meta.get("name", "")
    return (f'{what} "{name}" of {ref.get("kind", "")} "{ref.get("name", "")}" to '
            f"{_describe_subject(subject, namespace)}")


def _role_rules(snapshot: RbacSnapshot, ref: Obj, namespace: str) -> tuple[list[Obj], str]:
    """``GetRoleReferenceRules``: the rules of the role a binding names, or the lookup's error."""
    kind, name = ref.get("kind", ""), ref.get("name", "")
    if kind not in ("Role", "ClusterRole"):
        return [], f'unsupported role reference kind: "{kind}"'
    role = snapshot.role(kind, namespace, name)
    if role is None:
        return [], f'{kind.lower()}.rbac.authorization.k8s.io "{name}" not found'
    return list(role.get("rules") or ()), ""


def _by_name(objs: Sequence[Obj]) -> list[Obj]:
    return sorted(objs, key=lambda o: ((o.get("metadata") or {}).get("name") or ""))


def visit_rules(user: UserInfo, namespace: str,
                snapshot: RbacSnapshot) -> Iterator[tuple[str, Obj | None, str]]:
    """``VisitRulesFor``: ``(source, rule, "")`` for each rule that applies to ``user`` in
    ``namespace`` and ``("", None, error)`` for each role that could not be resolved."""
    groups: list[tuple[str, list[Obj]]] = [("", _by_name(snapshot.cluster_role_bindings))]
    if namespace:
        local = [b for b in snapshot.role_bindings
                 if (b.get("metadata") or {}).get("namespace") == namespace]
        groups.append((namespace, _by_name(local)))
    for binding_ns, bindings in groups:
        for binding in bindings:
            subjects = binding.get("subjects") or ()
            index = applies_to(user, subjects, binding_ns)
            if index is None:
                continue
            rules, error = _role_rules(snapshot, binding.get("roleRef") or {}, binding_ns)
            if error:
                yield "", None, error
                continue
            source = _describe(binding, subjects[index], binding_ns)
            for rule in rules:
                yield source, rule, ""


def authorize(attrs: Attributes, snapshot: RbacSnapshot) -> Decision:
    """``RBACAuthorizer.Authorize``: allowed by the first covering rule, else no opinion."""
    errors: list[str] = []
    for source, rule, error in visit_rules(attrs.user, attrs.namespace, snapshot):
        if rule is not None and rule_allows(attrs, rule):
            return Decision(True, f"RBAC: allowed by {source}")
        if error:
            errors.append(error)
    return Decision(False, f"RBAC: {_aggregate(errors)}" if errors else "")


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one error as itself, more in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def rules_for(user: UserInfo, namespace: str, snapshot: RbacSnapshot) -> tuple[list[Obj], str]:
    """``RulesFor``: every rule that applies, and the aggregated resolution error ("" when none)."""
    rules, errors = [], []
    for _, rule, error in visit_rules(user, namespace, snapshot):
        if rule is not None:
            rules.append(rule)
        if error:
            errors.append(error)
    return rules, _aggregate(errors) if errors else ""
