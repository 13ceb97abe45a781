"""Each stored object version decoded at most once, and shared: the API server's watch cache.

Upstream kube-apiserver serves reads and watches from the *cacher*
(``staging/src/k8s.io/apiserver/pkg/storage/cacher/``): one decoded object per key, kept current by a
single watch on etcd, fanned out to every watcher without decoding again. kbatch keeps the store as
the only source of truth and makes the cache a pure accelerator:

* **objects** — key → (mod_revision, stored bytes, decoded object). An entry is used only for
  exactly the key-value it was made from (same ``mod_revision`` *and* same bytes), so a store written
  behind the server's back or restored from a snapshot never serves stale data. Filled *lazily*, on
  the first read-only use of a stored version (the shared informer's watch, the old object of a
  patch, namespace lookups; an update on a miss decodes its old for itself, ``update.read_for_update``,
  as the write drops the entry anyway): a deep copy of a validated Pod costs most of a decode (measured
  ~10 µs vs ~13 µs with status), so copying the object a write path just encoded would not pay for
  itself (re-measured with a cheaper create clone: holding a copy of each created Pod until its first
  read made ``apiserver_bench`` gets 2.3x faster but creates ~40% slower, the held objects growing the
  heap each full GC collection rescans), and a decode is exact by construction (``metav1.Time`` is
  lossy: sub-second parts are dropped on encode, so an in-memory object can differ from its stored
  form). Holding a GC-untracked *snapshot* of the written object instead (per-class generated code
  turning it into dicts of atomic values and tuples, thawed into a fresh model without validation)
  was measured too: thaw ~6.5 µs, but the freeze a write pays is ~16 µs, twice a ``copy_model``
  (each model's fields are read one by one into a dict the GC does not track, plus the pattern of
  absent fields that gives the decode's fields set); with a snapshot held after each create, best-of
  gets went 18.8 -> 12.3 µs but creates 44 -> 69 µs, so it does not pay either.
* **selector entries** — key → (mod_revision, stored bytes, labels, field-selector values): plain
  ``str`` dicts the cyclic GC does not track, so selective lists over every stored object keep no
  decoded objects alive (a cache of decoded objects costs ~30 tracked objects per entry, rescanned
  by every full collection). Made from the held object when there is one.

Shared objects are **read only** (:mod:`kbatch.api.frozen`): the object a write validated is the
writer's answer, the watch events' object and what gets, lists and informers hand out; code that wants
to change one copies it first (``edit``). A write hands its object to :meth:`DecodedCache.written`,
which keeps it as the key's held object while a shared watch (an informer) watches its kind, so the
watch event and the informer take it without decoding (for a kind nobody watches, nothing is kept and
the next read decodes). A held object's nested parts are interned when it is written or decoded
(:func:`kbatch.api.model_intern.share_structure`, which the informer would apply to it anyway): objects
written faster than the informers read them (100,000 Pods created before the first ``advance``) wait
in their shared form, ~2.7 KB a pending Pod instead of ~11 KB (peak RSS of that phase, measured at
20,000 Pods), and a Pod decoded by a get and held costs the cyclic GC ~5 tracked objects instead of
~28 (``apiserver_bench``, 10,000 Pods nobody watches: first gets 84 -> 48 µs, mostly the full
collections the held objects grew; peak RSS 204 -> 125 MiB). :meth:`DecodedCache.private` (a
``copy_model`` copy or a fresh decode) is for the server's own read-modify-write paths. A key deleted
behind the server's back lingers until it is read again.
"""

from __future__ import annotations

from array import array
from typing import Any

from kbatch.api.frozen import freeze, strict
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_model, shallow_copy
from kbatch.api.model_intern import share_structure
from kbatch.api.selectors import field_values, supported_field_labels
from kbatch.apiserver.codec import Carried, decode, set_resource_version
from kbatch.store.kv import KeyValue

__all__ = ["DecodedCache", "Entry", "valid"]

# (mod_revision, stored bytes, labels, field label -> value)
Entry = tuple[int, bytes, "dict[str, str] | None", "dict[str, str]"]
# (mod_revision, stored bytes, the decoded object with resourceVersion = mod_revision, where the fields
# a status write carries lie in the bytes when the write that stored them said so)
Held = tuple[int, "bytes | None", Resource, "Carried | None"]  # bytes None: loaded from an image, relinked


def valid(entry: tuple[int, bytes | None, object, object] | None, kv: KeyValue) -> bool:
    """Whether ``entry`` was made from exactly ``kv``'s stored version."""
    return (entry is not None and entry[0] == kv.mod_revision
            and (entry[1] is kv.value or entry[1] == kv.value))


class DecodedCache:
    def __init__(self) -> None:
        self._entries: dict[bytes, Entry] = {}
        self._objects: dict[bytes, Held] = {}
        self._watched: dict[type[Resource], int] = {}  # model -> open shared watches of it

    def watching(self, model: type[Resource], delta: int) -> None:
        """A shared watch of ``model`` opened (+1) or closed (-1): writes of a watched kind are held."""
        count = self._watched.get(model, 0) + delta
        if count > 0:
            self._watched[model] = count
        else:
            self._watched.pop(model, None)

    def written(self, model: type[Resource], key: bytes, revision: int, data: bytes,
                obj: Resource, carried: Carried | None = None) -> Resource:
        """A write stored ``data`` (the encoding of ``obj``) under ``key`` at ``revision``: ``obj`` gets that
        resourceVersion and becomes the shared, read-only version (held while ``model`` is watched, so
        the watch event and the informer take it as it is). ``carried``: where the fields a status write
        carries lie in ``data`` (``codec.splice_over``), kept for the next status write. Returns ``obj``."""
        set_resource_version(obj, revision)
        self._entries.pop(key, None)
        if model in self._watched:
            share_structure(obj)
            self._objects[key] = (revision, data, obj, carried)
        else:
            self._objects.pop(key, None)
        if strict():
            _check_written(model, data, obj, revision)
        return freeze(obj, data)

    @property
    def entries(self) -> dict[bytes, Entry]:
        """key → selector entry, for hot loops that inline the lookup (read only; see :func:`valid`)."""
        return self._entries

    def held(self, kv: KeyValue) -> Resource | None:
        """The shared object decoded from exactly ``kv``, if one is held (read only)."""
        hit = self._objects.get(kv.key)
        if valid(hit, kv):
            return hit[2]  # type: ignore[index]
        if hit is not None and hit[1] is None and hit[0] == kv.mod_revision:
            self._objects[kv.key] = (hit[0], kv.value, hit[2], None)  # loaded with its store (__setstate__)
            return hit[2]
        return None

    def carried(self, kv: KeyValue) -> Carried | None:
        """Where the fields a status write carries lie in exactly ``kv``'s value, if the write that
        stored it said so and its object is held."""
        hit = self._objects.get(kv.key)
        return hit[3] if hit is not None and valid(hit, kv) else None

    # --- pickling (a saved control plane, docs/cli.md) -----------------------------------------------
    def __getstate__(self) -> tuple[object, ...]:
        """The held objects without their stored bytes (the store saves those: a held object loaded
        without them is taken for the key-value of its revision, and relinked to its bytes), as
        columns (keys, revisions, objects: no tuple per key in a saved control plane), and no
        selector entries (made again on the next selective list)."""
        held = self._objects
        return (list(held), array("q", [h[0] for h in held.values()]), [h[2] for h in held.values()],
                self._watched)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        keys, revisions, objects, self._watched = state
        self._entries = {}
        self._objects = {key: (rev, None, obj, None)
                         for key, rev, obj in zip(keys, revisions, objects, strict=True)}

    def shared(self, model: type[Resource], kv: KeyValue, *, latest: bool = True) -> Resource:
        """The shared object for ``kv`` (read only, never to be mutated), decoding it on a miss.

        ``latest``: ``kv`` is the key's current version (just read from the store), so it replaces
        any held entry; otherwise (a watch replaying history) it replaces only an older one.
        """
        obj = self.held(kv)
        if obj is not None:
            return obj
        obj = _decoded_shared(model, kv)
        held = self._objects.get(kv.key)
        if latest or held is None or held[0] < kv.mod_revision:
            self._objects[kv.key] = (kv.mod_revision, kv.value, obj, None)
        return obj

    get = shared  # read-only lookups (NamespaceLifecycle, Priority admission)

    def private(self, model: type[Resource], kv: KeyValue, revision: int | None = None) -> Resource:
        """An object for ``kv`` the caller may mutate: a copy of the held object, else a fresh decode
        (not retained: callers that only read ask for :meth:`shared`). ``resourceVersion`` =
        ``revision`` or the key's mod_revision."""
        obj = self.held(kv)
        if obj is None:
            return decode(model, kv, revision)
        out = copy_model(obj)
        if revision is not None:
            set_resource_version(out, revision)
        return out

    def read_only_at(self, model: type[Resource], kv: KeyValue, revision: int) -> Resource:
        """A read-only object for ``kv`` with ``resourceVersion`` = ``revision`` (a watch event's previous
        state: a DELETED event carries the last state at the deletion's revision), not retained. Its
        parts are shared: with the held object when there is one (a new top level and metadata over
        its fields), else with equal parts of held objects (a decode through ``share_structure``). A
        burst of deletions (PodGC removing 87,500 finished Pods in one pass at 100,000) is handed to an
        informer in one poll, so each event's object costs what is its own, not a whole decode."""
        obj = self.held(kv)
        if obj is None:
            return _decoded_shared(model, kv, revision)
        out = shallow_copy(obj)
        meta = shallow_copy(obj.metadata)
        out.__dict__["metadata"] = meta
        set_resource_version(out, revision)
        return freeze(out, kv.value)

    def load(self, model: type[Resource], kv: KeyValue) -> Entry:
        """The selector entry for ``kv``, from the held object or a decode (not retained)."""
        hit = self._entries.get(kv.key)
        if valid(hit, kv):
            return hit  # type: ignore[return-value]
        obj = self.held(kv)
        if obj is None:
            obj = model.model_validate_json(kv.value)
        fields = field_values(obj, supported_field_labels(model.api_info))
        entry = (kv.mod_revision, kv.value, obj.metadata.labels, fields)
        self._entries[kv.key] = entry
        return entry

    def forget(self, key: bytes) -> None:
        """Drop ``key``'s entries (the server wrote or deleted it)."""
        self._entries.pop(key, None)
        self._objects.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def objects(self) -> int:
        """How many decoded objects are held."""
        return len(self._objects)


def _decoded_shared(model: type[Resource], kv: KeyValue, revision: int | None = None) -> Resource:
    """A fresh decode of ``kv`` whose nested parts are interned, read only from now on."""
    obj = decode(model, kv, revision)
    share_structure(obj)
    return freeze(obj, kv.value)


def _check_written(model: type[Resource], data: bytes, obj: Resource, revision: int) -> None:
    """Strict mode: the object a write hands out must equal what reading it back gives, or a reader
    after a restart would see another object. (Its fields set may lack fields whose value is their
    default: only ``model_dump(exclude_unset=True)`` tells, and it is meaningless on a stored object.)"""
    back = model.__pydantic_validator__.validate_json(data)
    set_resource_version(back, revision)
    if back != obj:
        raise AssertionError(f"the {model.__name__} a write returns differs from its stored form: "
                             f"{obj!r} != {back!r}")
