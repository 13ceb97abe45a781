"""The strategic-merge-patch errors of k8s.io/apimachinery ``pkg/util/mergepatch/errors.go`` (1.37),
with Go's ``fmt`` rendering of the patch map they quote.

``interpretStrategicMergePatchError`` (k8s.io/apiserver ``pkg/endpoints/handlers/patch.go``) turns
only a few sentinel errors into a 400 or 422; these two it passes on as they are, and
``ErrorToAPIStatus`` answers an error that is no ``Status`` with a 500 carrying the error's text.
kbatch raises them as :class:`~kbatch.api.errors.InternalError` (reason ``InternalError`` where
upstream's is empty), as it does ``ErrBadArgType``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import InternalError
from kbatch.api.go_fmt import go_value

__all__ = ["bad_patch_type", "no_merge_key"]


def _go_s(value: Any) -> str:
    """Go's ``%s`` of a decoded JSON value: a string as it is, anything else ``%!s(type=value)``
    (``%!s(<nil>)`` for nil), a map or slice element by element."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    if isinstance(value, bool):
        return f"%!s(bool={go_value(value)})"
    if isinstance(value, (int, float)):
        return f"%!s(float64={go_value(float(value))})"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_s(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_s(v) for v in value) + "]"
    return str(value)


def bad_patch_type(directive: Any, patch: dict[str, Any]) -> InternalError:
    """``ErrBadPatchType``: a ``$patch`` that is neither ``replace`` nor ``delete`` (``null`` too)."""
    return InternalError(f"unknown patch type: {_go_s(directive)} in map: {go_value(patch)}")


def no_merge_key(item: dict[str, Any], key: str) -> InternalError:
    """``ErrNoMergeKey``: a list item without its list's merge key."""
    return InternalError(f"map: {go_value(item)} does not contain declared merge key: {key}")
