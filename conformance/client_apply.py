"""Client-side apply, as ``kubectl apply`` does it (without server-side apply).

The manifest is stored in the ``kubectl.kubernetes.io/last-applied-configuration`` annotation on
create. Applying again computes a three-way patch: every field of the new manifest, plus ``null``
for each field that the previous applied configuration had and the new one dropped; fields that
others set (controllers, defaults) are left alone. kubectl sends a strategic merge patch for
built-in kinds; this target sends the same content as a JSON merge patch, so lists are replaced
whole rather than merged by key (the difference only shows when a list is edited by two writers).
"""

from __future__ import annotations

import copy
import json
from typing import Any

__all__ = ["LAST_APPLIED", "apply_patch", "with_last_applied"]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def with_last_applied(manifest: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``manifest`` carrying itself in the last-applied annotation (kubectl's form)."""
    out = copy.deepcopy(manifest)
    recorded = copy.deepcopy(manifest)
    annotations = (recorded.get("metadata") or {}).get("annotations") or {}
    annotations.pop(LAST_APPLIED, None)
    text = json.dumps(recorded, separators=(",", ":"), sort_keys=True)
    out.setdefault("metadata", {}).setdefault("annotations", {})[LAST_APPLIED] = text
    return out


def _deletions(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """The merge patch that turns ``previous`` into ``current`` for keys ``previous`` had."""
    patch: dict[str, Any] = {}
    for key, old in previous.items():
        if key not in current:
            patch[key] = None
        elif isinstance(old, dict) and isinstance(current[key], dict):
            nested = _deletions(old, current[key])
            if nested:
                patch[key] = nested
    return patch


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def apply_patch(live: dict[str, Any], manifest: dict[str, Any]) -> dict[str, Any]:
    """The merge patch that applies ``manifest`` (already carrying its annotation) over ``live``."""
    text = ((live.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    previous = json.loads(text) if text else {}
    return _merge(_deletions(previous, manifest), manifest)
