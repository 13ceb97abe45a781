"""The 409 of an apply that would change fields other managers own (k8s.io/apimachinery
``pkg/util/managedfields/internal/conflict.go`` ``NewConflictError``; apimachinery
``errors.NewApplyConflict``): reason ``Conflict``, one ``FieldManagerConflict`` cause per field
(message ``conflict with "<manager>"``, plus ``using <apiVersion>`` for an Update manager, and
``with subresource "<name>"``), the message ``Apply failed with 1 conflict: conflict with "m" using
v1: .spec.x`` or, for several, one ``conflicts with "m":`` block per manager listing ``- <path>``.
"""

from __future__ import annotations

from kbatch.api.errors import Conflict, StatusCause, StatusDetails
from kbatch.apiserver.apply.fieldpath import Path, path_string
from kbatch.apiserver.apply.managed import UPDATE, Entry

__all__ = ["apply_conflict", "describe_manager"]


def describe_manager(entry: Entry) -> str:
    text = f'"{entry.manager}"'
    if entry.subresource:
        text += f' with subresource "{entry.subresource}"'
    if entry.operation == UPDATE:
        text += f" using {entry.api_version}"
    return text


def apply_conflict(conflicts: list[tuple[Entry, Path]]) -> Conflict:
    """The error for ``conflicts`` (manager entry, path), listed by manager then path."""
    ordered = sorted(conflicts, key=lambda c: (describe_manager(c[0]), path_string(c[1])))
    causes = [StatusCause(reason="FieldManagerConflict", message=f"conflict with {describe_manager(e)}",
                          field=path_string(p)) for e, p in ordered]
    if len(ordered) == 1:
        entry, path = ordered[0]
        who = describe_manager(entry)
        message = f"Apply failed with 1 conflict: conflict with {who}: {path_string(path)}"
    else:
        lines: list[str] = []
        last = None
        for entry, path in ordered:
            who = describe_manager(entry)
            if who != last:
                lines.append(f"conflicts with {who}:")
                last = who
            lines.append(f"- {path_string(path)}")
        message = f"Apply failed with {len(ordered)} conflicts: " + "\n".join(lines)
    return Conflict(message, details=StatusDetails(causes=causes))
