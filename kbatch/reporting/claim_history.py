"""Earlier versions of ResourceClaims: the devices of pods whose claims were deleted or deallocated.

A claim made from a ResourceClaimTemplate is deleted once its pod is done (the resourceclaim
controller, kubernetes ``pkg/controller/resourceclaim/controller.go``), and a claim no pod reserves
any more is deallocated, so the final objects no longer say which devices a finished pod held. The
store's history does: every committed version of a claim. Two ways to read it:

* :func:`claims_from_trace`: replay the trace (``trace.jsonl`` of a state directory, a control plane's
  ``cp.trace.lines()``; ``kbatch/runtime/trace.py``): its claim records are RFC 7386 merge patches
  from each version to the next, applied here in order (the API server's ``apply_merge_patch``).
* :class:`ClaimRecorder`: follow a control plane without a trace (``kbatch experiment``): one watch on
  the claims' keys (``/registry/resourceclaims/``), read at every loop round.

Either keeps the versions that hold an allocation (trimmed to name, uid, ``status.allocation`` and
``status.reservedFor``), oldest first; :func:`kbatch.reporting.devices.device_use` reads them under the
final objects. A ``gap`` in the trace (compaction overtook it) forgets the claims it was following:
later patches to them have no base and are skipped, so their devices may be missing (a lower bound).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kbatch.apiserver.jsonpatch import apply_merge_patch
from kbatch.store.errors import CompactedError, WatchCancelledError

__all__ = ["TRACE_KIND", "ClaimRecorder", "claims_from_trace"]

TRACE_KIND = "ResourceClaim.resource.k8s.io"
_MARK = f'"kind":"{TRACE_KIND}"'
_MARK_BYTES = _MARK.encode()
Obj = dict[str, Any]


def _trimmed(claim: Obj) -> Obj | None:
    """What the report reads of an allocated version; ``None`` when it holds no allocation."""
    status = claim.get("status") or {}
    if not (((status.get("allocation") or {}).get("devices") or {}).get("results")):
        return None
    m = claim.get("metadata") or {}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {k: m[k] for k in ("namespace", "name", "uid") if k in m},
            "status": {"allocation": status["allocation"], "reservedFor": status.get("reservedFor") or []}}


class _Versions:
    """The allocated versions seen, oldest first, each once in a row."""

    def __init__(self) -> None:
        self.kept: list[Obj] = []
        self._last: dict[tuple[str, str], Obj] = {}

    def add(self, claim: Obj) -> None:
        trimmed = _trimmed(claim)
        if trimmed is None:
            return
        m = trimmed["metadata"]
        key = (str(m.get("namespace")), str(m.get("name")))
        if self._last.get(key) != trimmed:
            self._last[key] = trimmed
            self.kept.append(trimmed)


def claims_from_trace(lines: Iterable[str | bytes]) -> list[Obj]:
    """The allocated versions of every claim the trace ``lines`` record, oldest first."""
    versions = _Versions()
    current: dict[tuple[str, str], Obj] = {}
    for raw in lines:
        line = raw if isinstance(raw, str) else raw.decode() if _MARK_BYTES in raw or b'"gap"' in raw else ""
        if _MARK not in line:
            if '"verb":"gap"' in line:
                current.clear()
            continue
        record = json.loads(line)
        key = (str(record.get("ns") or ""), str(record.get("name") or ""))
        verb = record.get("verb")
        if verb == "delete":
            current.pop(key, None)
        elif verb == "create":
            current[key] = record.get("diff") or {}
        elif verb == "update" and key in current:
            current[key] = apply_merge_patch(current[key], record.get("diff"))
        else:
            continue
        if key in current:
            versions.add(current[key])
    return versions.kept


class ClaimRecorder:
    """Follows a control plane's claims (a loop source) and keeps their allocated versions."""

    def __init__(self, cp: Any) -> None:
        from kbatch.api.resource_v1.claim import ResourceClaim
        from kbatch.apiserver.keys import KindKeys
        from kbatch.store.kv import prefix_end

        self._kv = cp.store
        root = KindKeys.of(ResourceClaim.api_info).root
        self._range = (root, prefix_end(root))
        self._versions = _Versions()
        self._watcher = self._watch()
        cp.loop.add_source(self.pump)

    def _watch(self) -> Any:
        return self._kv.watch(*self._range, start_revision=self._kv.revision + 1)

    def pump(self) -> int:
        from kbatch.store.kv import pending_batches

        handled = 0
        try:
            for events in pending_batches(self._watcher):
                for event in events:
                    if event.type.value != "DELETE":
                        self._versions.add(json.loads(event.kv.value))
                handled += len(events)
        except (CompactedError, WatchCancelledError):  # compaction overtook the watch: follow from now on
            self._watcher.close()
            self._watcher = self._watch()
        return handled

    def claims(self) -> list[Obj]:
        """The allocated versions recorded so far, oldest first."""
        self.pump()
        return list(self._versions.kept)
