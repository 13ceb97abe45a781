"""``metadata.managedFields`` ↔ managers and their field sets (KEP-555; k8s.io/apimachinery
``pkg/util/managedfields/internal/managedfields.go``).

A manager is identified by its name, its operation (``Apply`` or ``Update``) and the subresource it
wrote through; each owns a set of paths (:mod:`.fieldpath`). Entries are written sorted as upstream
sorts them (operation, then time, then manager, apiVersion, subresource); a manager left owning
nothing is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kbatch.apiserver.apply.fieldpath import Path, from_fields_v1, to_fields_v1

__all__ = ["APPLY", "UPDATE", "Entry", "ManagerKey", "decode_entries", "encode_entries"]

APPLY, UPDATE = "Apply", "Update"
ManagerKey = tuple[str, str, str]  # (manager, operation, subresource)


@dataclass(frozen=True, slots=True)
class Entry:
    manager: str
    operation: str
    api_version: str
    time: str | None
    subresource: str
    fields: frozenset[Path]

    @property
    def key(self) -> ManagerKey:
        return (self.manager, self.operation, self.subresource)

    def with_fields(self, fields: frozenset[Path]) -> Entry:
        return replace(self, fields=fields)

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"manager": self.manager, "operation": self.operation,
                               "apiVersion": self.api_version}
        if self.time is not None:
            out["time"] = self.time
        out["fieldsType"] = "FieldsV1"
        out["fieldsV1"] = to_fields_v1(self.fields)
        if self.subresource:
            out["subresource"] = self.subresource
        return out


def decode_entries(raw: Any) -> dict[ManagerKey, Entry]:
    """The managers of a wire ``managedFields`` list (entries of the same manager are united)."""
    out: dict[ManagerKey, Entry] = {}
    for item in raw or ():
        if not isinstance(item, dict) or (not item.get("manager") and not item.get("fieldsV1")):
            continue
        entry = Entry(str(item.get("manager") or ""), str(item.get("operation") or UPDATE),
                      str(item.get("apiVersion") or ""), item.get("time"), str(item.get("subresource") or ""),
                      frozenset(from_fields_v1(item.get("fieldsV1"))))
        known = out.get(entry.key)
        out[entry.key] = entry if known is None else known.with_fields(known.fields | entry.fields)
    return out


def encode_entries(entries: dict[ManagerKey, Entry]) -> list[dict[str, Any]]:
    """The wire list, in upstream's order, without managers that own nothing."""
    kept = [e for e in entries.values() if e.fields]
    kept.sort(key=lambda e: (e.operation, e.time or "", e.manager, e.api_version, e.subresource))
    return [e.to_wire() for e in kept]
