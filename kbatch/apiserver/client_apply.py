"""Client-side apply, as ``kubectl apply`` does it without ``--server-side``: the one implementation,
used by ``kbatch apply`` (local or over HTTP) and ``ControlPlane.apply``.

The manifest is recorded in the ``kubectl.kubernetes.io/last-applied-configuration`` annotation
(compact JSON with sorted keys and a final newline, as placed in its namespace, with the annotations
but this one, ``{}`` when there are none: kubectl's ``GetModifiedConfiguration``). A missing object
is created with it; an existing one is patched with a JSON merge patch computed three ways
(k8s.io/kubectl ``pkg/cmd/apply/patcher.go``; apimachinery ``jsonmergepatch.CreateThreeWayJSONMergePatch``):
a field of the last applied configuration that the manifest dropped is set to ``null``; a field
whose value in the manifest differs from the live object is set; an empty patch means
``unchanged``. Fields nobody applied (defaults, controllers' writes) are left alone.

Deliberate difference: kubectl sends a strategic merge patch for built-in kinds (lists with a merge
key merge item by item); kbatch sends the same content as a merge patch, so a list is replaced whole,
and a list whose manifest value is the last applied one is not a change even when the live list
differs (a list the server filled in, e.g. with defaults, is left as it is; a live value that is no
list is replaced).

Where the object goes (:func:`place`), as kubectl: a namespaced kind without a namespace goes to the
command's namespace (``default``); a manifest naming another namespace than ``-n`` is refused.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal, Protocol, TypeVar

from kbatch.api.base import ApiInfo
from kbatch.apiserver.manifests import ManifestError

__all__ = ["LAST_APPLIED", "ApplyVerbs", "Outcome", "client_side_apply", "last_applied", "place",
           "three_way_patch", "with_last_applied"]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
DEFAULT_NAMESPACE = "default"

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
Outcome = Literal["created", "configured", "unchanged"]


class ApplyVerbs(Protocol[R_co]):
    """The three calls client-side apply makes, on an object dict already :func:`place`-d; ``R`` is
    what the caller wants back (a wire dict, a model)."""

    def get(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The live object's wire dict, ``None`` when there is none (or ``obj`` has no name)."""
        ...

    def create(self, obj: dict[str, Any]) -> R_co: ...

    def patch(self, obj: dict[str, Any], current: dict[str, Any], patch: dict[str, Any]) -> R_co:
        """Send ``patch`` (a JSON merge patch) for the live object ``current``."""
        ...

    def unchanged(self, current: dict[str, Any]) -> R_co: ...


def place(obj: dict[str, Any], info: ApiInfo, namespace: str | None,
          default: str = DEFAULT_NAMESPACE) -> dict[str, Any]:
    """A copy of ``obj`` in the namespace it goes to: ``namespace`` is the one asked for (``-n``),
    ``default`` the one a manifest without a namespace goes to otherwise."""
    out = dict(obj)
    meta = dict(obj.get("metadata") or {})
    out["metadata"] = meta
    if not info.namespaced:
        return out
    given = meta.get("namespace")
    if namespace and given not in (None, "", namespace):
        raise ManifestError(f'the namespace from the provided object "{given}" does not match the namespace '
                         f'"{namespace}". You must pass \'--namespace={given}\' to perform this operation.')
    meta["namespace"] = given or namespace or default
    return out


def with_last_applied(obj: dict[str, Any]) -> dict[str, Any]:
    """The manifest carrying the annotation that holds its own compact JSON (annotation excluded)."""
    clean = copy.deepcopy(obj)
    meta = clean.setdefault("metadata", {})
    if isinstance(meta, dict):  # kubectl records the annotations without this one, ``{}`` if none
        annotations = meta.get("annotations")
        meta["annotations"] = annotations if isinstance(annotations, dict) else {}
        meta["annotations"].pop(LAST_APPLIED, None)
    text = json.dumps(clean, separators=(",", ":"), sort_keys=True, default=str)
    out = json.loads(text)
    meta = out.setdefault("metadata", {})
    meta["annotations"] = {**(meta.get("annotations") or {}), LAST_APPLIED: text + "\n"}
    return out


def last_applied(current: dict[str, Any]) -> dict[str, Any] | None:
    """The configuration recorded on a live object, ``None`` when there is none (or it is unreadable,
    which kubectl also treats as no previous apply)."""
    text = ((current.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


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
            unchanged_list = isinstance(value, list) and isinstance(current[key], list) \
                and original.get(key, object()) == value
            if not unchanged_list:  # a list the server filled in (defaults) is not a change
                patch[key] = value
    return patch


def three_way_patch(last: dict[str, Any] | None, modified: dict[str, Any],
                    current: dict[str, Any]) -> dict[str, Any]:
    """The merge patch from ``current`` toward ``modified`` given the ``last`` applied configuration;
    an empty dict means unchanged."""
    return _diff(last or {}, modified, current)


def client_side_apply(verbs: ApplyVerbs[R], obj: dict[str, Any]) -> tuple[Outcome, R]:
    """Apply one placed manifest: create it, patch it three ways, or leave it unchanged."""
    modified = with_last_applied(obj)
    current = verbs.get(obj)
    if current is None:
        return "created", verbs.create(modified)
    patch = three_way_patch(last_applied(current), modified, current)
    if not patch:
        return "unchanged", verbs.unchanged(current)
    return "configured", verbs.patch(obj, current, patch)
