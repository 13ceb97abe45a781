"""One server-side apply as a pure function: live object, applied configuration and managers in,
merged object and managers out (structured-merge-diff ``merge/update.go`` ``Updater.Apply``).

1. The configuration is merged into the live object (:mod:`.merge`).
2. Every member the merge adds or changes that another manager owns is a conflict; without
   ``force`` the apply fails with a 409 (:mod:`.conflicts`), with ``force`` the other managers lose
   those fields. Fields whose value does not change are no conflict (they become co-owned).
3. Fields the applier owned before and left out of this configuration are removed from the object,
   unless another manager owns them (or something beneath them).
4. The applier's set becomes exactly its configuration's members; fields that left the object leave
   every manager's set.

Client-side apply to server-side apply: when the manager is ``kubectl`` and the only conflicts are
fields whose value in the ``kubectl.kubernetes.io/last-applied-configuration`` annotation equals the
live one, the apply forces (``fieldmanager/internal/lastappliedmanager.go``); other conflicts remain.

A live object without managedFields (created or last written untracked) has its fields owned by the
``Update`` manager ``before-first-apply`` first, as upstream's field manager does for objects whose
managed fields were never recorded (``fieldmanager/internal/skipnonapplied.go``), so the first apply
still conflicts with values it did not set. Only the members of the written part count: the main
resource leaves ``status`` alone (the strategy resets it), the status subresource ``spec``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbatch.apiserver.apply.conflicts import apply_conflict
from kbatch.apiserver.apply.fieldpath import Path
from kbatch.apiserver.apply.fieldset import members
from kbatch.apiserver.apply.managed import APPLY, UPDATE, Entry, ManagerKey, decode_entries, encode_entries
from kbatch.apiserver.apply.merge import merge_object, remove_paths
from kbatch.apiserver.client_apply import LAST_APPLIED

__all__ = ["BEFORE_FIRST_APPLY", "ApplyRequest", "plan_apply", "written_part"]

BEFORE_FIRST_APPLY = "before-first-apply"
_UPGRADING_MANAGER = "kubectl"  # the only manager whose apply may take over client-side applied fields
_MISSING = object()


@dataclass(frozen=True, slots=True)
class ApplyRequest:
    manager: str
    api_version: str
    now: str  # RFC 3339, the time of a changed entry
    force: bool = False
    subresource: str = ""  # "" or "status"
    kind: str = ""  # the group kind (``Job.batch``): some lists are typed per kind (schema.py)


def written_part(doc: dict[str, Any], subresource: str) -> dict[str, Any]:
    """The fields a write through ``subresource`` may set."""
    dropped = "status" if not subresource else "spec"
    return {k: v for k, v in doc.items() if k != dropped}


def _skip(subresource: str) -> frozenset[str]:
    return frozenset({"status"} if not subresource else {"spec"})


def plan_apply(live: dict[str, Any] | None, config: dict[str, Any], req: ApplyRequest) -> dict[str, Any]:
    """The object to write (``metadata.managedFields`` filled in); raises the 409 on conflicts.
    ``live`` is the stored document (None: the apply creates it)."""
    skip = _skip(req.subresource)
    base = _without_managed(live or {})
    config = written_part(config, req.subresource)
    managers = _managers(live, base, req, skip)
    own_key: ManagerKey = (req.manager, APPLY, req.subresource)
    merged = merge_object(base, config, kind=req.kind)
    before = members(base, kind=req.kind, skip=skip)
    after = members(merged, kind=req.kind, skip=skip)
    changed = {p for p, v in after.items() if before.get(p, _MISSING) != v}
    managers = _settle_conflicts(managers, own_key, changed, req.force,
                                 lambda: _last_applied_fields(base, req.kind, skip, before)
                                 if req.manager == _UPGRADING_MANAGER else frozenset())
    applied = frozenset(members(config, kind=req.kind, skip=skip))
    previous = managers[own_key].fields if own_key in managers else frozenset()
    merged = _prune(merged, previous - applied, applied, managers, own_key, req.kind)
    final = members(merged, kind=req.kind, skip=skip)
    gone = before.keys() - final.keys()
    managers = {k: e.with_fields(e.fields - gone) for k, e in managers.items() if k != own_key}
    mine = decode_entries(_managed_of(live)).get(own_key)
    unchanged = mine is not None and previous == applied and merged == base
    time = mine.time if unchanged and mine is not None else req.now  # a no-op keeps the entry's time
    managers[own_key] = Entry(req.manager, APPLY, req.api_version, time, req.subresource, applied)
    out = dict(merged)
    meta = dict(out.get("metadata") or {})
    meta.pop("resourceVersion", None)
    meta["managedFields"] = encode_entries(managers)
    out["metadata"] = meta
    return out


def _managed_of(live: dict[str, Any] | None) -> Any:
    return ((live or {}).get("metadata") or {}).get("managedFields")


def _without_managed(doc: dict[str, Any]) -> dict[str, Any]:
    out = dict(doc)
    meta = dict(out.get("metadata") or {})
    meta.pop("managedFields", None)
    meta.pop("resourceVersion", None)
    if doc:
        out["metadata"] = meta
    return out


def _managers(live: dict[str, Any] | None, base: dict[str, Any], req: ApplyRequest,
              skip: frozenset[str]) -> dict[ManagerKey, Entry]:
    managers = decode_entries(_managed_of(live))
    if live is not None and not managers:
        owned = frozenset(members(base, kind=req.kind, skip=skip))
        entry = Entry(BEFORE_FIRST_APPLY, UPDATE, req.api_version, req.now, "", owned)
        managers = {entry.key: entry}
    return managers


def _settle_conflicts(managers: dict[ManagerKey, Entry], own_key: ManagerKey, changed: set[Path],
                      force: bool, allowed: Callable[[], frozenset[Path]]) -> dict[ManagerKey, Entry]:
    found: list[tuple[Entry, Path]] = []
    for key in sorted(managers):
        if key == own_key:
            continue
        entry = managers[key]
        found += [(entry, path) for path in sorted(entry.fields & changed)]
    if found and not force:
        forgiven = allowed()
        remaining = [(entry, path) for entry, path in found if path not in forgiven]
        if remaining:
            raise apply_conflict(remaining)
    if not found:
        return dict(managers)
    return {k: (e if k == own_key else e.with_fields(e.fields - changed)) for k, e in managers.items()}


def _last_applied_fields(base: dict[str, Any], kind: str, skip: frozenset[str],
                         live: dict[Path, Any]) -> frozenset[Path]:
    """The members of the last-applied configuration whose value the live object still has."""
    text = ((base.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    try:
        last = json.loads(text) if text else None
    except ValueError:
        return frozenset()
    if not isinstance(last, dict):
        return frozenset()
    return frozenset(p for p, v in members(last, kind=kind, skip=skip).items() if live.get(p, _MISSING) == v)


def _prune(merged: dict[str, Any], dropped: frozenset[Path], applied: frozenset[Path],
           managers: dict[ManagerKey, Entry], own_key: ManagerKey, kind: str) -> dict[str, Any]:
    """Remove the fields the applier gave up, unless another manager owns them or a field beneath
    (upstream's prune, then ``addBackOwnedItems``), or the configuration still sets a field beneath."""
    if not dropped:
        return merged
    kept: set[Path] = set()
    owned = [e.fields for k, e in managers.items() if k != own_key]
    for fields in (*owned, applied):
        for path in fields:
            kept.update(path[:i] for i in range(1, len(path) + 1))
    removed = {p for p in dropped if p not in kept}
    return remove_paths(merged, removed, kind=kind) if removed else merged
