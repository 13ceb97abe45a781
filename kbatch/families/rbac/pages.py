"""``kubectl describe`` pages of the RBAC kinds (k8s.io/kubectl 1.37 ``pkg/describe/describe.go``
``RoleDescriber``, ``ClusterRoleDescriber``, ``RoleBindingDescriber``, ``ClusterRoleBindingDescriber``).

A role's page: Name, Labels, Annotations, then ``PolicyRule:`` and the rule table
(:mod:`kbatch.families.rbac.rule_table`). A binding's: Name, Labels, Annotations, ``Role:`` with its
Kind and Name, ``Subjects:`` with Kind, Name and Namespace per subject. No Namespace line and no events,
as kubectl's describers print none.
"""

from __future__ import annotations

from kbatch.api.printing import DescribeReader, Obj
from kbatch.api.tabwriter import tabwrite
from kbatch.families.core.describe_text import annotation_lines, map_lines
from kbatch.families.rbac.rule_table import rule_rows

__all__ = ["binding_page", "role_page"]


def _head(obj: Obj) -> list[str]:
    meta = obj.get("metadata") or {}
    return [f"Name:\t{meta.get('name') or ''}", *map_lines("Labels", meta.get("labels") or {}),
            *annotation_lines(meta.get("annotations") or {})]


def role_page(reader: DescribeReader, obj: Obj) -> str:
    lines = [*_head(obj), "PolicyRule:", "  Resources\tNon-Resource URLs\tResource Names\tVerbs",
             "  ---------\t-----------------\t--------------\t-----"]
    lines += [f"  {row}" for row in rule_rows(obj.get("rules"))]
    return tabwrite("\n".join(lines))


def binding_page(reader: DescribeReader, obj: Obj) -> str:
    ref = obj.get("roleRef") or {}
    lines = [*_head(obj), "Role:", f"  Kind:\t{ref.get('kind') or ''}", f"  Name:\t{ref.get('name') or ''}",
             "Subjects:", "  Kind\tName\tNamespace", "  ----\t----\t---------"]
    lines += [f"  {s.get('kind') or ''}\t{s.get('name') or ''}\t{s.get('namespace') or ''}"
              for s in obj.get("subjects") or ()]
    return tabwrite("\n".join(lines))
