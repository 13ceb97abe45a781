"""``metadata.managedFields`` ↔ managers and their field sets (KEP-555; k8s.io/apimachinery
``pkg/util/managedfields/internal/managedfields.go``).

A manager is identified by its name, its operation (``Apply`` or ``Update``) and the subresource it
wrote through; each owns a set of paths (:mod:`.fieldpath`). Entries are written sorted as upstream
sorts them (operation, then time, then manager, apiVersion, subresource); a manager left owning
nothing is dropped. At most ten ``Update`` managers are kept: the oldest are merged into an
``ancient-changes`` entry (``capmanagers.go``, ``DefaultMaxUpdateManagers``; upstream keeps one
bucket per apiVersion, kbatch serves one version per kind).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kbatch.apiserver.apply.fieldpath import Path, from_fields_v1, to_fields_v1

__all__ = ["APPLY", "MAX_UPDATE_MANAGERS", "UPDATE", "Entry", "ManagerKey", "cap_update_managers",
           "decode_entries", "encode_entries"]

APPLY, UPDATE = "Apply", "Update"
ManagerKey = tuple[str, str, str]  # (manager, operation, subresource)
MAX_UPDATE_MANAGERS = 10
ANCIENT_CHANGES = "ancient-changes"


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


def cap_update_managers(entries: dict[ManagerKey, Entry],
                        limit: int = MAX_UPDATE_MANAGERS) -> dict[ManagerKey, Entry]:
    """Merge the oldest Update managers (by time, then name) into the ``ancient-changes`` bucket until
    at most ``limit`` Update managers are left; the bucket takes the time of the newest entry merged
    into it."""
    updaters = sorted((e for e in entries.values() if e.operation == UPDATE),
                      key=lambda e: (e.time or "", e.manager))
    if len(updaters) <= limit:
        return entries
    out = dict(entries)
    first: dict[str, ManagerKey] = {}
    length = len(updaters)
    for entry in updaters:
        if length <= limit:
            break
        bucket_key = (ANCIENT_CHANGES, UPDATE, "")
        if entry.api_version not in first:
            first[entry.api_version] = entry.key
            continue
        bucket = out.get(bucket_key)
        if bucket is None:
            oldest = out.pop(first[entry.api_version])
            bucket = Entry(ANCIENT_CHANGES, UPDATE, entry.api_version, oldest.time, "", oldest.fields)
        out.pop(entry.key, None)
        out[bucket_key] = Entry(ANCIENT_CHANGES, UPDATE, entry.api_version, entry.time, "",
                                bucket.fields | entry.fields)
        length -= 1
    return out
