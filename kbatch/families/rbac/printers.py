"""``kubectl get`` columns of the RBAC kinds (Kubernetes 1.37 ``pkg/printers/internalversion/printers.go``).

Role and ClusterRole: Name and ``Created At`` (the creation time as RFC 3339 in UTC, not an age).
RoleBinding and ClusterRoleBinding: Name, Role (``Kind/name`` of ``roleRef``), Age; ``-o wide`` adds
Users, Groups and ServiceAccounts, each a ``", "``-joined list in subject order, a service account
as ``namespace/name`` (``rbac.SubjectsStrings``; subjects of another kind are not shown).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, creation_age, name_of

__all__ = ["CLUSTER_ROLE_BINDING", "ROLE", "ROLE_BINDING", "subjects_strings"]

_CREATED_AT = Column("Created At", type="date", description="CreationTimestamp is a timestamp representing "
                                                            "the server time when this object was created.")


def _role_cells(obj: Obj, now: datetime) -> list[Any]:
    return [name_of(obj), at(obj, "metadata", "creationTimestamp") or ""]


ROLE = Printer((NAME, _CREATED_AT), _role_cells)


def subjects_strings(subjects: list[Obj] | None) -> tuple[list[str], list[str], list[str]]:
    """Users, groups and service accounts (``namespace/name``) of ``subjects``, in their order."""
    users: list[str] = []
    groups: list[str] = []
    sas: list[str] = []
    for s in subjects or ():
        kind, name = s.get("kind"), s.get("name") or ""
        if kind == "ServiceAccount":
            sas.append(f"{s.get('namespace') or ''}/{name}")
        elif kind == "User":
            users.append(name)
        elif kind == "Group":
            groups.append(name)
    return users, groups, sas


def _binding_cells(obj: Obj, now: datetime) -> list[Any]:
    ref = obj.get("roleRef") or {}
    users, groups, sas = subjects_strings(obj.get("subjects"))
    return [name_of(obj), f"{ref.get('kind') or ''}/{ref.get('name') or ''}", creation_age(obj, now),
            ", ".join(users), ", ".join(groups), ", ".join(sas)]


def _binding_printer(noun: str, role_ref_doc: str) -> Printer:
    """``roleBindingsColumnDefinitions`` / ``clusterRoleBindingsColumnDefinitions``."""
    return Printer((
        NAME,
        Column("Role", description=role_ref_doc),
        AGE,
        Column("Users", priority=1, description=f"Users in the {noun}"),
        Column("Groups", priority=1, description=f"Groups in the {noun}"),
        Column("ServiceAccounts", priority=1, description=f"ServiceAccounts in the {noun}"),
    ), _binding_cells)


_UNRESOLVED = "If the RoleRef cannot be resolved, the Authorizer must return an error."
ROLE_BINDING = _binding_printer("roleBinding", "RoleRef can reference a Role in the current namespace or a "
                                               f"ClusterRole in the global namespace. {_UNRESOLVED}")
CLUSTER_ROLE_BINDING = _binding_printer("clusterRoleBinding", "RoleRef can only reference a ClusterRole in "
                                                              f"the global namespace. {_UNRESOLVED}")
