"""List: one kind, one namespace or all, label/field selectors, limit/continue at one revision.

Upstream semantics (``staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go`` GetList and the
"Resource versions" / "Retrieving large results sets in chunks" sections of api-concepts):

* ``resourceVersion`` unset or ``"0"``: the latest state; ``"N"``: not older than N (exact when
  paginating); a compacted N is ``Expired``; a future N is a ``Timeout`` ("Too large resource version");
* ``limit``: at most that many *matching* items, plus a continue token when more may follow (zero or
  less, or with ``resourceVersion=0`` and no token, as the watch cache serves that: no paging); the
  token pins the revision of the first page, so every page reads the same snapshot; a token whose
  revision was compacted is ``Expired`` with a new token in the Status's ``metadata.continue``
  (revision -1: the rest at the latest revision; ``storage/etcd3/errors.go``); a compacted list read
  is ``Expired`` in the etcd3 store's words (with ``ListFromCacheSnapshot``, on by default since
  1.34, the watch cache hands such reads to etcd3: ``cacher/delegator.go``);
* ``continue`` together with a ``resourceVersion`` other than ``"0"`` is a ``BadRequest``
  (``storage.ValidateListOptions``);
* a page followed by more carries ``remainingItemCount`` (the items after it) when the list has no
  selector;
* ``resourceVersionMatch`` (api-concepts "resourceVersionMatch"; validated as upstream's
  ``apimachinery/pkg/apis/meta/internalversion/validation`` ValidateListOptions, an ``Invalid``
  ListOptions): ``Exact`` reads at exactly that revision (``Expired`` when compacted), ``NotOlderThan``
  reads at least that new (kbatch's store is always consistent, so the latest); it needs a
  ``resourceVersion``, is forbidden with ``continue``, and ``Exact`` is forbidden for ``"0"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api.errors import BadRequest, Expired, FieldError, Invalid, StatusCause, StatusDetails, Timeout
from kbatch.api.go_int import parse_uint
from kbatch.api.meta import ListMeta, Resource, ResourceList
from kbatch.api.selectors import (
    FieldSelector,
    Selector,
    check_field_selector,
    field_values,
    parse_field_selector,
    parse_label_selector,
)
from kbatch.apiserver.continuation import ContinueToken, decode_continue, encode_continue, reissue_continue
from kbatch.apiserver.decoded_cache import Entry
from kbatch.apiserver.gcpause import gc_deferred
from kbatch.apiserver.keys import BUILTIN_GROUPS
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.raw import raw_dict
from kbatch.store.errors import CompactedError, FutureRevisionError
from kbatch.store.kv import KeyValue

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["Filter", "list_objects", "list_raw", "make_filter", "parse_revision",
           "too_large_resource_version", "validate_list_options"]

T = TypeVar("T", bound=Resource)
X = TypeVar("X")

# etcd3 store's words (``staging/src/k8s.io/apiserver/pkg/storage/etcd3/errors.go``): a list read at
# a compacted revision, and a continue token whose revision was compacted. The latter comes with a new
# token (revision -1: the rest of the list at the latest revision), as ``handleCompactedErrorForPaging``
_EXPIRED_LIST = "The resourceVersion for the provided list is too old."
_INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a "
    "new list without the continue parameter, or use the continue token in this response to retrieve "
    "the remainder of the results. Continuing with the provided token results in an inconsistent list "
    "- objects that were created, modified, or deleted between the time the first chunk was returned "
    "and now may show up in the list.")


@dataclass(frozen=True, slots=True)
class Filter:
    """Parsed label and field selectors for one kind."""

    labels: Selector
    fields: FieldSelector

    @property
    def empty(self) -> bool:
        return self.labels.empty and self.fields.empty

    def matches(self, obj: Resource) -> bool:
        if not self.labels.matches(obj.metadata.labels):
            return False
        return self.fields.empty or self.fields.matches(field_values(obj, self.fields.fields))

    def compile(self) -> Callable[[Resource], bool]:
        """A fast predicate with the same answers as :meth:`matches`."""
        labels = self.labels.compile()
        if self.fields.empty:
            return lambda obj: labels(obj.metadata.labels)
        fields, names = self.fields, self.fields.fields
        return lambda obj: labels(obj.metadata.labels) and fields.matches(field_values(obj, names))

    def compile_entry(self) -> Callable[[Entry], bool]:
        """The same predicate on a :class:`~kbatch.apiserver.decoded_cache.DecodedCache` entry."""
        labels = self.labels.compile()
        if self.fields.empty:
            return lambda entry: labels(entry[2])
        fields = self.fields
        return lambda entry: labels(entry[2]) and fields.matches(entry[3])


def make_filter(kind: Kind, label_selector: str | None, field_selector: str | None) -> Filter:
    fields = parse_field_selector(field_selector)
    check_field_selector(fields, kind.info, custom_resource=kind.info.group not in BUILTIN_GROUPS)
    return Filter(parse_label_selector(label_selector), fields)


def parse_revision(resource_version: str | None) -> int | None:
    """``None`` for unset/"0" (latest), else the revision (``BadRequest`` when not a number)."""
    if resource_version is None or resource_version in ("", "0"):
        return None
    magnitude = resource_version[1:]
    if resource_version.startswith("-") and magnitude.isascii() and magnitude.isdigit():
        raise BadRequest(f'Invalid value: "{resource_version}": resourceVersion must be non-negative')
    # upstream APIObjectVersioner.ParseResourceVersion: strconv.ParseUint(rv, 10, 64), so no sign,
    # blanks, underscores or other scripts' digits, and nothing past uint64
    value = parse_uint(resource_version)
    if value is None:
        raise BadRequest(f'Invalid value: "{resource_version}": resourceVersion must be an integer')
    return value


MATCHES = ("Exact", "NotOlderThan")


def validate_list_options(resource_version: str | None, resource_version_match: str | None,
                          continue_: str | None) -> None:
    """Upstream ValidateListOptions' ``resourceVersionMatch`` rules, all errors in one ``Invalid``."""
    if not resource_version_match:
        return
    path, errors = "resourceVersionMatch", []
    if resource_version in (None, ""):
        errors.append(FieldError.forbidden(path, "resourceVersionMatch is forbidden unless resourceVersion "
                                                 "is provided"))
    if continue_:
        errors.append(FieldError.forbidden(path, "resourceVersionMatch is forbidden when continue is "
                                                 "provided"))
    if resource_version_match not in MATCHES:
        errors.append(FieldError.not_supported(path, resource_version_match, [*MATCHES, ""]))
    if resource_version_match == "Exact" and resource_version == "0":
        errors.append(FieldError.forbidden(path, 'resourceVersionMatch "exact" is forbidden for '
                                                 'resourceVersion "0"'))
    if errors:
        raise Invalid.of("ListOptions.meta.k8s.io", "", errors)


def too_large_resource_version(requested: int, current: int) -> Timeout:
    """``storage.NewTooLargeResourceVersionError`` as the watch cache raises it (``cacher/watch_cache.go``
    waitUntilFreshAndBlock, retry after 1 s): a ``Timeout: ...`` message and the
    ``ResourceVersionTooLarge`` cause, which client-go's reflector looks for to relist from scratch."""
    cause = StatusCause(reason="ResourceVersionTooLarge", message="Too large resource version")
    return Timeout(f"Timeout: Too large resource version: {requested}, current: {current}",
                   details=StatusDetails(causes=[cause], retry_after_seconds=1))


def _expired_continue(token: ContinueToken) -> Expired:
    """410 with a token that continues at the latest revision (etcd3 ``handleCompactedErrorForPaging``)."""
    return Expired(_INCONSISTENT_CONTINUE, continue_=reissue_continue(token))


def _start(server: APIServer, kind: Kind, namespace: str | None, continue_: str | None,
           resource_version: str | None, limit: int | None, match: str | None,
           ) -> tuple[int | None, bytes, ContinueToken | None]:
    """(read revision or None for latest, first key, the decoded continue token)."""
    validate_list_options(resource_version, match, continue_)
    prefix = kind.keys.prefix(namespace)
    if continue_:
        token = decode_continue(continue_)
        # storage.ValidateListOptions: "0" may come with a token; a negative revision is the latest
        if resource_version not in (None, "", "0"):
            raise BadRequest("specifying resource version is not allowed when using continue")
        if token.revision < 0:
            return None, prefix + token.start, token
        if token.revision < server.store.compact_revision:
            raise _expired_continue(token)
        return token.revision, prefix + token.start, token
    wanted = parse_revision(resource_version)
    if wanted is None:
        return None, prefix, None
    current = server.store.revision
    if wanted > current:
        raise too_large_resource_version(wanted, current)
    if match == "Exact" or (limit and not match):  # unset match: exact when paginated
        # a read at a revision never written yet is a Timeout above, one compacted is Expired
        if wanted < server.store.compact_revision:
            raise Expired(_EXPIRED_LIST)
        return wanted, prefix, None
    return None, prefix, None  # not older than: the latest qualifies


def _read(server: APIServer, start: bytes, end: bytes, revision: int | None, limit: int | None,
          token: ContinueToken | None) -> Any:
    try:
        return server.store.range(start, end, revision=revision, limit=limit)
    except CompactedError:
        raise (Expired(_EXPIRED_LIST) if token is None else _expired_continue(token)) from None
    except FutureRevisionError as err:
        raise too_large_resource_version(err.requested, err.current) from None


def _collect(server: APIServer, kind: Kind, namespace: str | None, convert: Callable[[KeyValue], X], *,
             label_selector: str | None, field_selector: str | None, limit: int | None,
             continue_: str | None, resource_version: str | None,
             resource_version_match: str | None = None) -> tuple[list[X], ListMeta]:
    """The matching items (each built by ``convert``) and the list's metadata."""
    if not kind.info.namespaced:
        namespace = None
    model = kind.model
    flt = make_filter(kind, label_selector, field_selector)
    if limit is not None and limit <= 0:
        limit = None  # etcd3 store GetList pages only when limit > 0: zero or less lists everything
    if resource_version == "0" and not continue_:
        limit = None  # served by the watch cache, which ignores limit then (cacher.go computeListLimit)
    revision, start, token = _start(server, kind, namespace, continue_, resource_version, limit,
                                    resource_version_match)
    end = kind.keys.range_end(namespace)
    with gc_deferred():
        if limit:
            matches = None if flt.empty else flt.compile_entry()
            items, revision, last_key, unread = _paginate(server, model, start, end, revision, limit,
                                                          matches, token, convert)
        else:
            result = _read(server, start, end, revision, None, token)
            revision = result.revision if revision is None else revision
            items, last_key, unread = _select(server, model, result.kvs, flt, convert), None, 0
    meta = ListMeta(resource_version=str(revision))
    if last_key is not None:
        meta.continue_ = encode_continue(revision, last_key, kind.keys.prefix(namespace))
        if flt.empty:
            # upstream (storage/etcd3/store.go GetList; api-concepts "Retrieving large results sets
            # in chunks") counts the items after the page only without selectors: with one, how many
            # of the remaining items match is unknown without reading them
            meta.remaining_item_count = unread
    return items, meta


def list_objects(server: APIServer, model: type[T], namespace: str | None = None, *,
                 label_selector: str | None = None, field_selector: str | None = None,
                 limit: int | None = None, continue_: str | None = None,
                 resource_version: str | None = None, resource_version_match: str | None = None,
                 ) -> ResourceList[T]:
    """Typed items: the decode cache's shared, read-only instances (decoded on a miss and kept)."""
    kind = server.kind(model)
    cache = server.decoded

    def convert(kv: KeyValue) -> T:
        return cache.shared(model, kv, latest=False)  # type: ignore[return-value]

    items, meta = _collect(server, kind, namespace, convert,
                           label_selector=label_selector, field_selector=field_selector, limit=limit,
                           continue_=continue_, resource_version=resource_version,
                           resource_version_match=resource_version_match)
    list_type = ResourceList[model]  # type: ignore[valid-type]
    return list_type.model_construct(api_version=kind.info.api_version, kind=kind.spec.list_kind,
                                     metadata=meta, items=items)


def list_raw(server: APIServer, kind: Kind, namespace: str | None = None, *,
             label_selector: str | None = None, field_selector: str | None = None,
             limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None,
             resource_version_match: str | None = None) -> dict[str, Any]:
    """The same list as :func:`list_objects`, as a wire dict built from the stored JSON without
    decoding items into models (:mod:`kbatch.apiserver.raw`)."""
    items, meta = _collect(server, kind, namespace, raw_dict, label_selector=label_selector,
                           field_selector=field_selector, limit=limit, continue_=continue_,
                           resource_version=resource_version, resource_version_match=resource_version_match)
    return {"apiVersion": kind.info.api_version, "kind": kind.spec.list_kind, "metadata": meta.to_dict(),
            "items": items}


def _select(server: APIServer, model: type[Resource], kvs: tuple[KeyValue, ...], flt: Filter,
            convert: Callable[[KeyValue], X]) -> list[X]:
    """The matching objects, each built by ``convert``; selectors are evaluated on cached entries."""
    if flt.empty:
        return [convert(kv) for kv in kvs]
    entries, load = server.decoded.entries, server.decoded.load
    matches = flt.compile_entry()
    out: list[X] = []
    for kv in kvs:
        hit = entries.get(kv.key)
        if hit is None or hit[0] != kv.mod_revision or not (hit[1] is kv.value or hit[1] == kv.value):
            hit = load(model, kv)
        if matches(hit):
            out.append(convert(kv))
    return out


def _paginate(server: APIServer, model: type[Resource], start: bytes, end: bytes, revision: int | None,
              limit: int, matches: Callable[[Entry], bool] | None, token: ContinueToken | None,
              convert: Callable[[KeyValue], X]) -> tuple[list[X], int, bytes | None, int]:
    """(items, revision, last key read when more may follow, keys left unread in the range): reads
    chunks until ``limit`` matching items are found or the range is exhausted."""
    items: list[X] = []
    last_key: bytes | None = None
    load = server.decoded.load
    while True:
        chunk = max(limit - len(items), 1) if matches is None else max(limit, 64)
        result = _read(server, start, end, revision, chunk, token)
        revision = result.revision if revision is None else revision
        for read, kv in enumerate(result.kvs):
            if len(items) >= limit:
                return items, revision, last_key, result.count - read  # an unread key remains
            last_key = kv.key
            if matches is None or matches(load(model, kv)):
                items.append(convert(kv))
        if not (result.more and result.kvs):
            return items, revision, None, 0
        if len(items) >= limit:
            return items, revision, last_key, result.count - len(result.kvs)
        start = result.kvs[-1].key + b"\0"

