"""``kubectl get`` columns and ``kubectl describe`` pages of the RBAC kinds: upstream
``pkg/printers/internalversion/printers.go`` (printRole/printClusterRole: Name, Created At;
printRoleBinding/printClusterRoleBinding: Name, Role, Age, wide Users, Groups, ServiceAccounts via
``rbac.SubjectsStrings``) and k8s.io/kubectl ``pkg/describe/describe.go`` (RoleDescriber with
``BreakdownRule``/``CompactRules``/``SortableRuleSlice``/``CombineResourceGroup``; RoleBindingDescriber)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.families.rbac.pages import binding_page, role_page
from kbatch.families.rbac.printers import CLUSTER_ROLE_BINDING, ROLE, ROLE_BINDING
from kbatch.families.rbac.rule_table import breakdown, compact
from kbatch.server.table import build_table

NOW = datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC)
CREATED = "2025-01-01T00:00:00Z"


def test_role_columns_are_name_and_created_at() -> None:
    table = build_table([{"metadata": {"name": "r", "creationTimestamp": CREATED}, "rules": []}], ROLE, NOW)
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [("Name", "string"),
                                                                          ("Created At", "date")]
    assert table["rows"][0]["cells"] == ["r", CREATED]


def test_binding_cells_and_wide_subjects() -> None:
    binding = {"metadata": {"name": "b", "namespace": "ns", "creationTimestamp": CREATED},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
               "subjects": [{"kind": "User", "name": "jane"}, {"kind": "ServiceAccount", "name": "sa",
                                                                "namespace": "ns"},
                            {"kind": "Group", "name": "ops"}, {"kind": "User", "name": "joe"}]}
    for printer in (ROLE_BINDING, CLUSTER_ROLE_BINDING):
        table = build_table([binding], printer, NOW)
        assert [(c["name"], c["priority"]) for c in table["columnDefinitions"]] == [
            ("Name", 0), ("Role", 0), ("Age", 0), ("Users", 1), ("Groups", 1), ("ServiceAccounts", 1)]
        assert table["rows"][0]["cells"] == ["b", "ClusterRole/view", "60m", "jane, joe", "ops", "ns/sa"]


def test_role_page_breaks_down_compacts_and_sorts_rules() -> None:
    role = {"metadata": {"name": "pod-reader", "namespace": "default", "labels": {"a": "b"}},
            "rules": [{"apiGroups": ["", "batch"], "resources": ["pods", "jobs/status"],
                       "verbs": ["get", "list"]},
                      {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["web"],
                       "verbs": ["patch"]},
                      {"apiGroups": [""], "resources": ["pods"], "verbs": ["watch", "get"]}]}
    assert role_page(None, role).splitlines() == [  # type: ignore[arg-type]
        "Name:         pod-reader",
        "Labels:       a=b",
        "Annotations:  <none>",
        "PolicyRule:",
        "  Resources          Non-Resource URLs  Resource Names  Verbs",
        "  ---------          -----------------  --------------  -----",
        # sorted by the rule's Go String(): "Verbs:[get list watch]" < "Verbs:[get list]," (' ' < ']'),
        # then APIGroups:[] before [batch], resources by name, [patch] last
        "  pods               []                 []              [get list watch]",
        "  jobs/status        []                 []              [get list]",
        "  jobs.batch/status  []                 []              [get list]",
        "  pods.batch         []                 []              [get list]",
        "  deployments.apps   []                 [web]           [patch]",
    ]


def test_cluster_role_page_lists_non_resource_urls() -> None:
    role = {"metadata": {"name": "health"}, "rules": [{"nonResourceURLs": ["/healthz", "/livez"],
                                                       "verbs": ["get"]}]}
    assert role_page(None, role).splitlines()[-2:] == [  # type: ignore[arg-type]
        "             [/healthz]         []              [get]",  # CombineResourceGroup of none: ""
        "             [/livez]           []              [get]",
    ]


def test_binding_page() -> None:
    binding = {"metadata": {"name": "read-pods", "namespace": "default"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
               "subjects": [{"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"},
                            {"kind": "ServiceAccount", "name": "robot", "namespace": "default"}]}
    assert binding_page(None, binding).splitlines() == [  # type: ignore[arg-type]
        "Name:         read-pods",
        "Labels:       <none>",
        "Annotations:  <none>",
        "Role:",
        "  Kind:  Role",
        "  Name:  pod-reader",
        "Subjects:",
        "  Kind            Name   Namespace",
        "  ----            ----   ---------",
        "  User            jane   ",
        "  ServiceAccount  robot  default",
    ]


_WORDS = st.sampled_from(["", "a", "b"])


@given(st.lists(st.fixed_dictionaries({"apiGroups": st.lists(_WORDS, max_size=2),
                                       "resources": st.lists(_WORDS.filter(bool), max_size=2),
                                       "verbs": st.lists(st.sampled_from(["get", "list"]), min_size=1,
                                                         max_size=2)}), max_size=3))
def test_compacting_keeps_every_granted_triple(rules: list[dict[str, Any]]) -> None:
    """Breakdown then compaction grants exactly the (group, resource, verb) triples the rules grant."""
    def triples(rs: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
        return {(g, r, v) for x in rs for g in x.get("apiGroups") or [] for r in x.get("resources") or []
                for v in x.get("verbs") or []}
    assert triples(compact([r for rule in rules for r in breakdown(rule)])) == triples(rules)
