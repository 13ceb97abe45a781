"""A per-server cache of decoded objects keyed by (key, mod_revision), used only to *filter*.

Selector evaluation needs labels and fields; decoding every stored object on every selective list
would dominate the cost. Cached objects are never handed out: a list decodes a fresh copy of each
object it returns. Entries are replaced when a key's mod_revision changes and dropped when the
server deletes the key; a key deleted behind the server's back lingers until it is read again.
"""

from __future__ import annotations

from kbatch.api.meta import Resource
from kbatch.store.kv import KeyValue

__all__ = ["DecodedCache", "Entry"]


Entry = tuple[int, Resource, "dict[str, str] | None"]  # (mod_revision, object, its labels)


class DecodedCache:
    def __init__(self) -> None:
        self._entries: dict[bytes, Entry] = {}

    @property
    def entries(self) -> dict[bytes, Entry]:
        """key → (mod_revision, object, labels), for hot loops that inline the lookup (read only)."""
        return self._entries

    def load(self, model: type[Resource], kv: KeyValue) -> Entry:
        """The entry for ``kv``, decoding it on a miss."""
        hit = self._entries.get(kv.key)
        if hit is not None and hit[0] == kv.mod_revision:
            return hit
        obj = model.model_validate_json(kv.value)
        entry = (kv.mod_revision, obj, obj.metadata.labels)
        self._entries[kv.key] = entry
        return entry

    def get(self, model: type[Resource], kv: KeyValue) -> Resource:
        return self.load(model, kv)[1]

    def forget(self, key: bytes) -> None:
        self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
