"""Which admission requests a ValidatingAdmissionPolicy (its ``matchConstraints``) and a binding
(its ``matchResources``) apply to.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go`` (``Matches``: the
namespace selector, the object selector, then the resource rules, then the exclude rules) with the
webhook predicates it reuses (``pkg/admission/plugin/webhook/predicates``): a rule matches the
operation (or ``*``), group, version and resource (``jobs``, ``jobs/status``, ``*/status``,
``jobs/*``, ``*``, ``*/*``), its ``scope`` and, when listed, ``resourceNames``; the namespace
selector always matches a cluster-scoped object (a Namespace is judged by its own labels); the
object selector matches when the new or the old object's labels match.

Differences (docs/admission-policy.md): ``matchPolicy: Equivalent`` matches any served version of
the request's group and resource (kbatch has no conversion between kinds of two groups); a binding
without ``matchResources`` matches whatever its policy matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kbatch.api.admissionregistration_v1 import MatchResources, NamedRuleWithOperations
from kbatch.api.meta import LabelSelector
from kbatch.api.selectors import selector_from_model

__all__ = ["Attributes", "match_resources", "rule_matches"]


@dataclass(frozen=True, slots=True)
class Attributes:
    """What matching reads of a request (upstream ``admission.Attributes``)."""

    operation: str
    group: str
    version: str
    resource: str
    subresource: str
    name: str
    namespace: str
    namespaced: bool
    is_namespace_kind: bool
    labels: Mapping[str, str] | None
    old_labels: Mapping[str, str] | None
    versions: tuple[str, ...] = ()  # the resource's served versions (matchPolicy Equivalent)


def _one_of(values: list[str] | None, value: str) -> bool:
    return any(v in ("*", value) for v in values or ())


def _resource_matches(resources: list[str] | None, resource: str, subresource: str) -> bool:
    """``ruleMatcher.resource``: ``res``, ``res/sub``, ``*/sub``, ``res/*``, ``*/*`` and ``*`` (main only)."""
    for pattern in resources or ():
        res, _, sub = pattern.partition("/")
        if not subresource and pattern in ("*", resource):
            return True
        if subresource and "/" in pattern and res in ("*", resource) and sub in ("*", subresource):
            return True
    return False


def rule_matches(rule: NamedRuleWithOperations, attrs: Attributes, equivalent: bool) -> bool:
    """``ruleMatcher.Matches`` plus ``resourceNames``."""
    versions = attrs.versions if equivalent and attrs.versions else (attrs.version,)
    scope = rule.scope or "*"
    if (scope == "Cluster" and attrs.namespaced) or (scope == "Namespaced" and not attrs.namespaced):
        return False
    if rule.resource_names and attrs.name not in rule.resource_names:
        return False
    return (
        _one_of(rule.operations, attrs.operation)
        and _one_of(rule.api_groups, attrs.group)
        and any(_one_of(rule.api_versions, v) for v in versions)
        and _resource_matches(rule.resources, attrs.resource, attrs.subresource)
    )


def _selects(selector: LabelSelector | None, labels: Mapping[str, str] | None) -> bool:
    return selector is None or selector_from_model(selector).matches(labels or {})


def match_resources(
    mr: MatchResources | None, attrs: Attributes, namespace_labels: Mapping[str, str] | None
) -> bool:
    """``Matcher.Matches`` for one ``MatchResources`` (None: matches everything, as a binding
    without ``matchResources``). ``namespace_labels``: the request's namespace's labels."""
    if mr is None:
        return True
    if attrs.namespaced or attrs.is_namespace_kind:
        labels = attrs.labels if attrs.is_namespace_kind else namespace_labels
        if not _selects(mr.namespace_selector, labels):
            return False
    if not (
        _selects(mr.object_selector, attrs.labels)
        or (attrs.old_labels is not None and _selects(mr.object_selector, attrs.old_labels))
    ):
        return False
    equivalent = mr.match_policy != "Exact"
    rules = mr.resource_rules
    if rules is not None and not any(rule_matches(r, attrs, equivalent) for r in rules):
        return False
    return not any(rule_matches(r, attrs, equivalent) for r in mr.exclude_resource_rules or ())
