"""The ``managedFields`` a write carries: where a tracked write's record starts.

Upstream: k8s.io/apimachinery ``pkg/util/managedfields/internal/fieldmanager.go``
(``FieldManager.Update`` → ``decodeLiveOrNew``, ``isResetManagedFields``) and ``managedfields.go``
(``DecodeManagedFields``, ``decodeVersionedSet``), reached from the apiserver's create, update and
patch handlers through ``UpdateNoErrors``:

* a write through a subresource (``status``) never sets managedFields: it starts from the stored ones;
* a reset — a non-nil empty list, or a single entry with every field unset (``[{}]``) — starts from
  nothing;
* otherwise the request's entries, if every one of them decodes; a list that is empty or has any
  entry that does not decode is ignored as a whole (no error: upstream keeps going, so a client that
  does not understand managedFields cannot delete them) and the stored ones are used (none on create).

An entry decodes when its ``operation`` is ``Apply`` or ``Update``, its ``apiVersion`` is not empty,
its ``fieldsType`` is ``FieldsV1`` and its ``fieldsV1`` is a field set (structured-merge-diff
``fieldpath.Set.FromJSON``: every key ``.`` or a path element ``f:``/``k:``/``v:``/``i:``, every value
an object).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["decodes", "is_reset", "starting_entries"]

_OPERATIONS = ("Apply", "Update")


def is_reset(entries: Sequence[dict[str, Any]] | None) -> bool:
    """``[]`` or ``[{}]`` (``isResetManagedFields``; a field set to its zero value is unset)."""
    if entries is None:
        return False
    if not entries:
        return True
    return len(entries) == 1 and all(v in (None, "") for v in entries[0].values())


def starting_entries(carried: Sequence[dict[str, Any]] | None, stored: Sequence[dict[str, Any]] | None,
                     subresource: str) -> list[dict[str, Any]]:
    """The wire entries a tracked write starts from (``decodeLiveOrNew``; see the module docstring).

    The stored entries came out of this server, so they decode; upstream's fallback to empty when
    they do not is not needed here."""
    if subresource:
        return list(stored or ())
    if is_reset(carried):
        return []
    if carried and all(decodes(e) for e in carried):
        return list(carried)
    return list(stored or ())


def decodes(entry: dict[str, Any]) -> bool:
    """Whether ``DecodeManagedFields`` accepts ``entry``."""
    return (entry.get("operation") in _OPERATIONS and bool(entry.get("apiVersion"))
            and entry.get("fieldsType") == "FieldsV1" and _is_field_set(entry.get("fieldsV1")))


def _is_field_set(node: Any) -> bool:
    if node is None:
        return True  # a missing fieldsV1 is the empty set (decodeVersionedSet)
    if not isinstance(node, dict):
        return False
    return all((key == "." or _is_path_element(key)) and _is_field_set(child) for key, child in node.items())


def _is_path_element(key: str) -> bool:
    """structured-merge-diff ``fieldpath.DeserializePathElement``: a known prefix and a valid body."""
    kind, body = key[:2], key[2:]
    if kind == "f:":
        return True
    if kind == "i:":
        return body.lstrip("-").isdigit()
    if kind not in ("k:", "v:"):
        return False
    try:
        value = json.loads(body)
    except ValueError:
        return False
    return isinstance(value, dict) if kind == "k:" else True
