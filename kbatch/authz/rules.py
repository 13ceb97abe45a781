"""Whether one RBAC PolicyRule covers a request: ``RuleAllows`` of
``plugin/pkg/auth/authorizer/rbac/rbac.go`` with the matchers of
``pkg/apis/rbac/v1/evaluation_helpers.go`` (Kubernetes 1.37).

A rule is the wire dict (``verbs``, ``apiGroups``, ``resources``, ``resourceNames``,
``nonResourceURLs``). ``*`` matches every verb, group, resource and URL; ``*/sub`` every resource's
subresource ``sub``; a URL ending in ``*`` every path it prefixes; an empty ``resourceNames`` every
name. Matching is exact and case-sensitive (``GET`` is not ``get``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kbatch.authz.user import Attributes

__all__ = ["rule_allows", "rules_allow"]

Rule = Mapping[str, Any]


def _has(values: Any, wanted: str) -> bool:
    return any(v == "*" or v == wanted for v in values or ())


def _resource_matches(rule: Rule, combined: str, subresource: str) -> bool:
    for resource in rule.get("resources") or ():
        if resource == "*" or resource == combined:
            return True
        if subresource and resource == "*/" + subresource:
            return True
    return False


def _name_matches(rule: Rule, name: str) -> bool:
    names = rule.get("resourceNames") or ()
    return not names or name in names


def _url_matches(rule: Rule, path: str) -> bool:
    for url in rule.get("nonResourceURLs") or ():
        if url == "*" or url == path:
            return True
        if url.endswith("*") and path.startswith(url.rstrip("*")):
            return True
    return False


def rule_allows(attrs: Attributes, rule: Rule) -> bool:
    """Whether ``rule`` covers the request ``attrs``."""
    if not _has(rule.get("verbs"), attrs.verb):
        return False
    if not attrs.resource_request:
        return _url_matches(rule, attrs.path)
    combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    return (_has(rule.get("apiGroups"), attrs.api_group)
            and _resource_matches(rule, combined, attrs.subresource)
            and _name_matches(rule, attrs.name))


def rules_allow(attrs: Attributes, rules: Iterable[Rule]) -> bool:
    """Whether any of ``rules`` covers ``attrs`` (``RulesAllow``)."""
    return any(rule_allows(attrs, rule) for rule in rules)
