"""Wire dicts straight from stored bytes, for the dict-level reads (``server.unstructured.get/list``).

Every write path stores ``encode(obj)``: the compact JSON dump of a validated object, without
``metadata.resourceVersion`` (:mod:`kbatch.apiserver.codec`). Decoding those bytes into a model and
dumping it again gives the same document, so a dict-level read can ``json.loads`` the stored value and
add the resourceVersion (the key's ``mod_revision``) instead of validating into pydantic models and
serializing back — about the whole cost of ``kubectl get`` over many objects. The parser is
pydantic-core's ``from_json`` (~2x the stdlib's speed on a Pod). The resourceVersion is
inserted where :class:`~kbatch.api.meta.ObjectMeta` declares it, so the result equals the typed
object's ``to_dict()`` key for key and in the same order (``tests/apiserver/test_raw.py`` checks it on
every write path).

Bytes written behind the server's back (another tool, a snapshot from another version) are handed out
as they are; the typed verbs would re-validate them.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json

from kbatch.api.meta import ObjectMeta
from kbatch.store.kv import KeyValue

__all__ = ["raw_dict", "with_resource_version"]


def _aliases_after_resource_version() -> frozenset[str]:
    names = list(ObjectMeta.model_fields)
    after = names[names.index("resource_version") + 1:]
    return frozenset(ObjectMeta.model_fields[n].alias or n for n in after)


_AFTER_RV = _aliases_after_resource_version()


def with_resource_version(meta: dict[str, Any], rv: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    placed = False
    for key, value in meta.items():
        if not placed and key in _AFTER_RV:
            out["resourceVersion"] = rv
            placed = True
        out[key] = value
    if not placed:
        out["resourceVersion"] = rv
    return out


def raw_dict(kv: KeyValue, revision: int | None = None) -> dict[str, Any]:
    """The stored object as a wire dict, ``metadata.resourceVersion`` = ``revision`` or the key's
    ``mod_revision`` (a fresh dict: the caller may mutate it)."""
    data = from_json(kv.value, cache_strings=False)
    rv = str(revision if revision is not None else kv.mod_revision)
    data["metadata"] = with_resource_version(data.get("metadata") or {}, rv)
    return data
