"""What selectors need of each stored object, decoded once per stored version.

Selector evaluation needs an object's labels and its field-selector values; decoding every stored
object on every selective list would dominate the cost. An entry keeps only those: the labels dict
and a dict of every field label the kind supports, both plain ``str`` → ``str`` (so CPython's cyclic
GC does not track them: a cache of decoded *objects* costs ~30 tracked objects per entry, which every
full collection then rescans — measured as +60 µs per write on the 10,000-pod benchmark).

An entry is used only when both the key's ``mod_revision`` and its stored bytes are those it was made
from, so a store restored from a snapshot or written behind the server's back never matches a stale
entry. Entries for keys the server deletes are dropped; a key deleted behind the server's back
lingers until it is read again.

:meth:`DecodedCache.get` (whole objects, read only) serves NamespaceLifecycle, which looks up the
same few namespaces on every create.
"""

from __future__ import annotations

from kbatch.api.meta import Resource
from kbatch.api.selectors import field_values, supported_field_labels
from kbatch.store.kv import KeyValue

__all__ = ["DecodedCache", "Entry", "valid"]

# (mod_revision, stored bytes, labels, field label -> value)
Entry = tuple[int, bytes, "dict[str, str] | None", "dict[str, str]"]


def valid(entry: tuple[int, bytes, object, object] | None, kv: KeyValue) -> bool:
    """Whether ``entry`` was made from exactly ``kv``'s stored version."""
    return (entry is not None and entry[0] == kv.mod_revision
            and (entry[1] is kv.value or entry[1] == kv.value))


class DecodedCache:
    def __init__(self) -> None:
        self._entries: dict[bytes, Entry] = {}
        self._objects: dict[bytes, tuple[int, bytes, Resource]] = {}

    @property
    def entries(self) -> dict[bytes, Entry]:
        """key → entry, for hot loops that inline the lookup (read only; check with :func:`valid`)."""
        return self._entries

    def load(self, model: type[Resource], kv: KeyValue) -> Entry:
        """The selector entry for ``kv``, decoding it on a miss."""
        hit = self._entries.get(kv.key)
        if valid(hit, kv):
            return hit  # type: ignore[return-value]
        obj = model.model_validate_json(kv.value)
        fields = field_values(obj, supported_field_labels(model.api_info))
        entry = (kv.mod_revision, kv.value, obj.metadata.labels, fields)
        self._entries[kv.key] = entry
        return entry

    def get(self, model: type[Resource], kv: KeyValue) -> Resource:
        """The decoded object itself: read only, never to be handed out (a few namespaces)."""
        hit = self._objects.get(kv.key)
        if valid(hit, kv):
            return hit[2]  # type: ignore[index]
        obj = model.model_validate_json(kv.value)
        self._objects[kv.key] = (kv.mod_revision, kv.value, obj)
        return obj

    def forget(self, key: bytes) -> None:
        self._entries.pop(key, None)
        self._objects.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
