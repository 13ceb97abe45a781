"""rbac.authorization.k8s.io/v1 strategies: defaulting and validation of Role, ClusterRole,
RoleBinding and ClusterRoleBinding.

Upstream (semantics only), Kubernetes 1.37:

* ``pkg/apis/rbac/validation/validation.go``: names (of the object and of ``roleRef.name``) are path
  segments (``ValidateRBACName`` = apimachinery ``path.IsValidPathSegmentName``: not ``.``/``..``, no
  ``/`` or ``%``), so ``system:aggregate-to-admin`` is a valid name; each rule needs verbs, and is
  either a non-resource rule (cluster scope only, nothing else set) or names api groups and resources;
  an ``aggregationRule`` needs at least one valid selector; a binding's ``roleRef`` names a Role or
  ClusterRole (a ClusterRoleBinding: a ClusterRole only) of this group and cannot change; subjects are
  ServiceAccounts (a DNS-1123 subdomain name, no api group, a namespace in a ClusterRoleBinding),
  Users or Groups (api group ``rbac.authorization.k8s.io``).
* ``pkg/apis/rbac/v1/defaults.go``: ``roleRef.apiGroup`` and a User's or Group's ``apiGroup`` default
  to ``rbac.authorization.k8s.io``.
* ``pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/strategy.go``: no status, no
  ``metadata.generation``; an update of a ClusterRole keeps accepting selector values that are not valid
  label values when the stored object already had one (``hasInvalidLabelValueInLabelSelector``).
"""

from __future__ import annotations

from kbatch.api.errors import FieldError
from kbatch.api.meta import LabelSelector, Resource
from kbatch.api.rbac_v1 import (
    GROUP,
    GROUP_KIND,
    SERVICE_ACCOUNT_KIND,
    USER_KIND,
    ClusterRole,
    ClusterRoleBinding,
    PolicyRule,
    Role,
    RoleBinding,
    Subject,
)
from kbatch.api.selectors import label_value_errors
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import child, index, is_dns1123_subdomain, validate_label_selector

__all__ = ["ClusterRoleBindingStrategy", "ClusterRoleStrategy", "RoleBindingStrategy", "RoleStrategy",
           "path_segment_name", "validate_policy_rule"]

Binding = RoleBinding | ClusterRoleBinding


def path_segment_name(name: str, prefix: bool) -> list[str]:
    """``ValidateRBACName``: apimachinery ``path.IsValidPathSegmentName`` (``prefix`` is ignored)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def validate_policy_rule(rule: PolicyRule, namespaced: bool, path: str) -> list[FieldError]:
    """``ValidatePolicyRule``."""
    errs: list[FieldError] = []
    if not rule.verbs:
        errs.append(FieldError.required(child(path, "verbs"), "verbs must contain at least one value"))
    if rule.non_resource_urls:
        urls_path, urls = child(path, "nonResourceURLs"), list(rule.non_resource_urls)
        if namespaced:
            errs.append(FieldError.invalid(urls_path, urls,
                                           "namespaced rules cannot apply to non-resource URLs"))
        if rule.api_groups or rule.resources or rule.resource_names:
            errs.append(FieldError.invalid(urls_path, urls, "rules cannot apply to both regular resources "
                                                            "and non-resource URLs"))
        return errs
    if not rule.api_groups:
        errs.append(FieldError.required(child(path, "apiGroups"),
                                        "resource rules must supply at least one api group"))
    if not rule.resources:
        errs.append(FieldError.required(child(path, "resources"),
                                        "resource rules must supply at least one resource"))
    return errs


def _rules(rules: list[PolicyRule] | None, namespaced: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, rule in enumerate(rules or ()):
        errs += validate_policy_rule(rule, namespaced, index("rules", i))
    return errs


def _aggregation(role: ClusterRole, allow_invalid_values: bool) -> list[FieldError]:
    rule = role.aggregation_rule
    if rule is None:
        return []
    path = "aggregationRule.clusterRoleSelectors"
    if not rule.cluster_role_selectors:
        return [FieldError.required(path, "at least one clusterRoleSelector required if aggregationRule "
                                          "is non-nil")]
    errs: list[FieldError] = []
    for i, selector in enumerate(rule.cluster_role_selectors):
        errs += validate_label_selector(selector, index(path, i),
                                        allow_invalid_label_values=allow_invalid_values)
    return errs


def _has_invalid_label_value(role: ClusterRole) -> bool:
    """``hasInvalidLabelValueInLabelSelector`` of the ClusterRole strategy."""
    selectors: list[LabelSelector] = list((role.aggregation_rule.cluster_role_selectors or ())
                                          if role.aggregation_rule else ())
    return any(label_value_errors(v) for s in selectors for e in s.match_expressions or ()
               for v in e.values or ())


def _subject(subject: Subject, namespaced: bool, path: str) -> list[FieldError]:
    """``ValidateRoleBindingSubject``."""
    errs: list[FieldError] = []
    if not subject.name:
        errs.append(FieldError.required(child(path, "name")))
    group = subject.api_group or ""
    if subject.kind == SERVICE_ACCOUNT_KIND:
        if subject.name:
            errs += [FieldError.invalid(child(path, "name"), subject.name, m)
                     for m in is_dns1123_subdomain(subject.name)]
        if group:
            errs.append(FieldError.not_supported(child(path, "apiGroup"), group, [""]))
        if not namespaced and not subject.namespace:
            errs.append(FieldError.required(child(path, "namespace")))
    elif subject.kind in (USER_KIND, GROUP_KIND):
        if group != GROUP:
            errs.append(FieldError.not_supported(child(path, "apiGroup"), group, [GROUP]))
    else:
        errs.append(FieldError.not_supported(child(path, "kind"), subject.kind,
                                             [SERVICE_ACCOUNT_KIND, USER_KIND, GROUP_KIND]))
    return errs


def _binding(binding: Binding, namespaced: bool) -> list[FieldError]:
    """``ValidateRoleBinding`` / ``ValidateClusterRoleBinding`` beyond ObjectMeta."""
    ref, errs = binding.role_ref, []
    if ref.api_group != GROUP:
        errs.append(FieldError.not_supported("roleRef.apiGroup", ref.api_group, [GROUP]))
    kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    if ref.kind not in kinds:
        errs.append(FieldError.not_supported("roleRef.kind", ref.kind, kinds))
    if not ref.name:
        errs.append(FieldError.required("roleRef.name"))
    else:
        errs += [FieldError.invalid("roleRef.name", ref.name, m) for m in path_segment_name(ref.name, False)]
    for i, subject in enumerate(binding.subjects or ()):
        errs += _subject(subject, namespaced, index("subjects", i))
    return errs


def _default_binding(binding: Binding) -> None:
    """``SetDefaults_RoleBinding``/``SetDefaults_ClusterRoleBinding`` and ``SetDefaults_Subject``."""
    if not binding.role_ref.api_group:
        binding.role_ref.api_group = GROUP
    for subject in binding.subjects or ():
        if not subject.api_group and subject.kind in (USER_KIND, GROUP_KIND):
            subject.api_group = GROUP


class _RbacStrategy(DefaultStrategy):
    has_status = False
    has_generation = False  # upstream's RBAC strategies set no metadata.generation
    name_validator = staticmethod(path_segment_name)  # the API server's ObjectMeta name rule


class RoleStrategy(_RbacStrategy):
    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, Role)
        return _rules(obj.rules, True)


class ClusterRoleStrategy(_RbacStrategy):
    update_revalidates = False  # the update's rules depend on the stored object (selector values)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, ClusterRole)
        return _rules(obj.rules, False) + _aggregation(obj, False)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, ClusterRole) and isinstance(old, ClusterRole)
        return _rules(new.rules, False) + _aggregation(new, _has_invalid_label_value(old))


class _BindingStrategy(_RbacStrategy):
    namespaced = True

    def default(self, obj: Resource) -> None:
        assert isinstance(obj, RoleBinding | ClusterRoleBinding)
        _default_binding(obj)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, RoleBinding | ClusterRoleBinding)
        return _binding(obj, self.namespaced)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, RoleBinding | ClusterRoleBinding)
        assert isinstance(old, RoleBinding | ClusterRoleBinding)
        if new.role_ref == old.role_ref:
            return []
        return [FieldError.invalid("roleRef", new.role_ref.to_dict(), "cannot change roleRef")]


class RoleBindingStrategy(_BindingStrategy):
    pass


class ClusterRoleBindingStrategy(_BindingStrategy):
    namespaced = False
