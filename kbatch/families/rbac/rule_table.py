"""The PolicyRule table of ``kubectl describe role`` / ``clusterrole``, as kubectl 1.37 builds it
(k8s.io/kubectl ``pkg/util/rbac/rbac.go`` and ``pkg/describe/describe.go`` ``CombineResourceGroup``).

Each rule is broken down into rules of one api group, one resource, one verb (and one resource name, or
one non-resource URL and one verb: ``BreakdownRule``); the "simple" ones (one group, one resource, at
most one name, nothing else) that differ only by verb are merged back, verbs in first-seen order
(``CompactRules``); the rest stay apart. Rows are sorted by the rule's Go ``String()``
(``&PolicyRule{Verbs:[..],APIGroups:[..],Resources:[..],ResourceNames:[..],NonResourceURLs:[..],}``,
``SortableRuleSlice``), which also fixes the order kubectl leaves to its map. A row shows the resource
as ``resource.group[/subresource]`` and the other lists in Go's ``%v`` (``[a b]``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["breakdown", "combine_resource_group", "compact", "go_list", "rule_rows", "rule_string"]

Rule = dict[str, list[str]]
_FIELDS = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")
_GO_NAMES = ("Verbs", "APIGroups", "Resources", "ResourceNames", "NonResourceURLs")


def breakdown(rule: dict[str, Any]) -> list[Rule]:
    """``BreakdownRule``."""
    verbs, names = rule.get("verbs") or [], rule.get("resourceNames") or []
    out: list[Rule] = []
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            for verb in verbs:
                base = {"apiGroups": [group], "resources": [resource], "verbs": [verb]}
                out += [{**base, "resourceNames": [n]} for n in names] if names else [base]
    out += [{"nonResourceURLs": [url], "verbs": [verb]} for url in rule.get("nonResourceURLs") or []
            for verb in verbs]
    return out


def _simple_key(rule: Rule) -> tuple[str, str, str | None] | None:
    if len(rule.get("resourceNames") or ()) > 1 or rule.get("nonResourceURLs"):
        return None
    if len(rule.get("apiGroups") or ()) != 1 or len(rule.get("resources") or ()) != 1:
        return None
    names = rule.get("resourceNames") or []
    return rule["apiGroups"][0], rule["resources"][0], names[0] if names else None


def compact(rules: list[Rule]) -> list[Rule]:
    """``CompactRules``: the non-simple rules in order, then the merged simple ones."""
    kept: list[Rule] = []
    simple: dict[tuple[str, str, str | None], Rule] = {}
    for rule in rules:
        key = _simple_key(rule)
        if key is None:
            kept.append(rule)
        elif key in simple:
            verbs = simple[key]["verbs"]
            verbs += [v for v in rule.get("verbs") or [] if v not in verbs]
        else:
            simple[key] = {k: list(v) for k, v in rule.items()}
    return kept + list(simple.values())


def go_list(values: list[str] | None) -> str:
    """Go's ``%v`` of a ``[]string``."""
    return "[" + " ".join(values or []) + "]"


def rule_string(rule: Rule) -> str:
    """The generated ``PolicyRule.String()``."""
    parts = "".join(f"{go}:{go_list(rule.get(f))}," for f, go in zip(_FIELDS, _GO_NAMES, strict=True))
    return "&PolicyRule{" + parts + "}"


def combine_resource_group(resources: list[str] | None, groups: list[str] | None) -> str:
    """``CombineResourceGroup``: ``pods``, ``jobs.batch``, ``pods/log``, ``deployments.apps/scale``."""
    if not resources:
        return ""
    resource, _, sub = resources[0].partition("/")
    combined = resource + (f".{groups[0]}" if groups and groups[0] else "")
    return combined + (f"/{sub}" if "/" in resources[0] else "")


def rule_rows(rules: list[dict[str, Any]] | None) -> list[str]:
    """The table's rows (tab-separated cells) for a role's ``rules``."""
    merged = compact([r for rule in rules or () for r in breakdown(rule)])
    merged.sort(key=rule_string)  # a stable sort, as sort.Stable
    return ["\t".join((combine_resource_group(r.get("resources"), r.get("apiGroups")),
                       go_list(r.get("nonResourceURLs")), go_list(r.get("resourceNames")),
                       go_list(r.get("verbs"))))
            for r in merged]
