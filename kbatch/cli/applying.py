"""Client-side apply, as ``kubectl apply`` does it without ``--server-side``.

The manifest is stored in the ``kubectl.kubernetes.io/last-applied-configuration`` annotation. A
missing object is created; an existing one is patched with a JSON merge patch computed three ways
(k8s.io/kubectl ``pkg/cmd/apply/patcher.go``; apimachinery ``jsonmergepatch.CreateThreeWayJSONMergePatch``):
fields removed since the last apply are set to null, fields whose value in the manifest differs from
the live object are set. Lists are replaced whole (merge-patch semantics; upstream uses strategic
merge for built-in kinds, which kbatch's server applies the same way for a full list).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["LAST_APPLIED", "three_way_patch", "with_last_applied"]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def with_last_applied(obj: dict[str, Any]) -> dict[str, Any]:
    """The manifest with the annotation holding its own compact JSON (annotation excluded)."""
    clean = json.loads(json.dumps(obj))
    annotations = (clean.get("metadata") or {}).get("annotations") or {}
    annotations.pop(LAST_APPLIED, None)
    text = json.dumps(clean, separators=(",", ":"), sort_keys=True)
    out = json.loads(text)
    out.setdefault("metadata", {}).setdefault("annotations", {})[LAST_APPLIED] = text + "\n"
    return out


def _diff(original: Any, modified: Any, current: Any) -> Any:
    if not isinstance(modified, dict):
        return modified
    patch: dict[str, Any] = {}
    original = original if isinstance(original, dict) else {}
    current = current if isinstance(current, dict) else {}
    for key in original:
        if key not in modified and key in current:
            patch[key] = None
    for key, value in modified.items():
        if key not in current:
            patch[key] = value
        elif isinstance(value, dict) and isinstance(current[key], dict):
            sub = _diff(original.get(key), value, current[key])
            if sub:
                patch[key] = sub
        elif value != current[key]:
            unchanged_list = isinstance(value, list) and original.get(key, object()) == value
            if not unchanged_list:  # a list the server filled in (defaults) is not a change
                patch[key] = value
    return patch


def three_way_patch(last_applied: dict[str, Any] | None, modified: dict[str, Any],
                    current: dict[str, Any]) -> dict[str, Any]:
    """The merge patch from ``current`` toward ``modified``; an empty dict means unchanged."""
    return _diff(last_applied or {}, modified, current)
