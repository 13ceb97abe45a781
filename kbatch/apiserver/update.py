"""Update of the main resource or the status subresource, as one guarded transaction.

Upstream: ``pkg/registry/generic/registry/store.go`` Update (GuaranteedUpdate) and
``pkg/registry/rest/update.go`` BeforeUpdate:

* a stale ``resourceVersion`` is a Conflict; none at all is an unconditional (last-write-wins) update
  (a 422 for kinds whose strategy has ``allow_unconditional_update`` False, as PodDisruptionBudget),
  retried internally until it lands on the latest object;
* the update may not change identity (name, namespace, uid) and silently keeps creationTimestamp,
  a set deletionTimestamp, and a set deletionGracePeriodSeconds the update omits; setting either on
  an object that has none, or another grace, is refused as immutable; ``generation`` is the
  server's, bumped only when the spec changes (``strategy.spec_changed``);
* main-resource writes keep status, status writes keep everything else (the kind's strategy);
* an update that changes nothing writes nothing (no new resourceVersion);
* an update that removes the last finalizer of an object being deleted with grace 0 deletes it
  (``ShouldDeleteDuringUpdate``).

The write is a transaction guarded by the old ``mod_revision``, so no concurrent write is lost.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from kbatch.api.base import KubeModel, private_fields_set
from kbatch.api.errors import BadRequest, Conflict, FieldError, Invalid, NotFound
from kbatch.api.frozen import freeze
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_value, partial_instance
from kbatch.api.strategy import Strategy, keep_status_reset_fields
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.codec import checked_clone, decode, encode, splice_over
from kbatch.apiserver.create import add_warnings
from kbatch.apiserver.empty_status import fill_status
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.meta_validation import validate_meta_update
from kbatch.apiserver.namespaces import spec_finalizers
from kbatch.apiserver.requester import requester
from kbatch.apiserver.service_ips import allocates, update_cluster_ip
from kbatch.store.kv import DeleteOp, KeyValue
from kbatch.store.records import make_compare, make_put

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["MAX_RETRIES", "StaleRead", "apply_update", "read_current", "read_kv", "update_object"]

T = TypeVar("T", bound=Resource)

MAX_RETRIES = 16


class StaleRead(Exception):
    """The object changed between read and write; the caller re-reads and tries again."""


class Current(NamedTuple):
    """The stored version an update starts from. Immutable; a named tuple rather than a frozen
    dataclass, whose per-field ``object.__setattr__`` cost ~0.4 µs per write."""

    kv: KeyValue
    obj: Resource
    owned: bool = False  # obj is this write's own decode, referenced by nothing else: new may take parts


def object_namespace(kind: Kind, namespace: str | None) -> str | None:
    if not kind.info.namespaced:
        return None
    return namespace or "default"


def read_kv(server: APIServer, kind: Kind, namespace: str | None, name: str) -> KeyValue:
    """The stored key-value of one object (``NotFound`` when absent)."""
    if not name:
        raise BadRequest("resource name may not be empty")
    kvs = server.store.range(kind.keys.key(namespace, name)).kvs
    if not kvs:
        raise NotFound.of(kind.info.group_resource, name)
    return kvs[0]


def read_current(server: APIServer, kind: Kind, namespace: str | None, name: str, *,
                 private: bool = False) -> Current:
    """The stored object: the decode cache's shared instance (read only: the ``old`` of an update),
    or with ``private`` one the caller may change (a copy or a fresh decode)."""
    kv = read_kv(server, kind, namespace, name)
    cache = server.decoded
    return Current(kv, cache.private(kind.model, kv) if private else cache.shared(kind.model, kv))


def read_for_update(server: APIServer, kind: Kind, namespace: str | None, name: str) -> Current:
    """The stored object as an update's ``old``: the decode cache's shared instance when one is held,
    else a decode of this write's own. That one is not kept: a successful write drops the key's
    entry anyway, and the new object may take its fields without copying them."""
    kv = read_kv(server, kind, namespace, name)
    held = server.decoded.held(kv)
    if held is not None:
        return Current(kv, held)
    return Current(kv, decode(kind.model, kv), owned=True)


def _take_carried(new: Resource, old: Resource) -> None:
    """The default ``prepare_for_status_update`` (every field but metadata and status from old) with
    old's values taken, not copied: ``old`` is referenced by nothing else, or nothing changes those
    values in place (see :func:`prepare_update`)."""
    values, taken, fields_set = new.__dict__, old.__dict__, private_fields_set(new)
    for name in _carried(type(new)):
        values[name] = taken[name]
        fields_set.add(name)


@functools.cache
def _carried(model: type[Resource]) -> tuple[str, ...]:
    return tuple(name for name in model.__pydantic_fields__ if name not in ("metadata", "status"))


def _unshare(new: Resource, old: Resource, keep: frozenset[str] = frozenset()) -> None:
    """Copy every top-level field ``new`` holds as ``old``'s very value (but those named in ``keep``),
    so an object handed out unfrozen (a dry run's, a delete by update's) shares nothing with the cached
    ``old``. Audited: no strategy or admission plugin shares anything deeper, and none mutates ``old``."""
    values, before = new.__dict__, old.__dict__
    for name, value in values.items():
        if before.get(name) is value and name not in keep and isinstance(value, (KubeModel, list, dict)):
            values[name] = copy_value(value)


_NEVER_KEPT = frozenset({"metadata"})  # the update changes new's metadata in place (_carry_system_fields)


def _aliased(new: Resource, old: Resource) -> frozenset[str]:
    """The top-level fields ``new`` holds as ``old``'s very values (models, lists and dicts)."""
    values, before = new.__dict__, old.__dict__
    return frozenset(name for name, value in values.items()
                     if before.get(name) is value and isinstance(value, (KubeModel, list, dict)))


_CARRIED_META = ("creation_timestamp", "deletion_timestamp", "deletion_grace_period_seconds", "generation",
                 "self_link", "resource_version")
_CARRIED_META_AND_UID = ("uid", *_CARRIED_META)


def _carry_system_fields(new: Resource, old: Resource) -> None:
    """uid (when unset), creationTimestamp and generation from old, deletionTimestamp when old has one,
    deletionGracePeriodSeconds when old has one and new none (``BeforeUpdate``: what else an update
    sends of those two reaches validation, which refuses a change as immutable), selfLink cleared,
    and old's resourceVersion (an unconditional update is filled in; a conditional one already
    equals it): one dict update and one fields-set update, the state assigning each field gives
    (values and model_fields_set)."""
    meta, before = new.metadata, old.metadata.__dict__
    values = meta.__dict__
    names = _CARRIED_META if values["uid"] else _CARRIED_META_AND_UID
    if not values["uid"]:
        values["uid"] = before["uid"]
    values["creation_timestamp"] = before["creation_timestamp"]
    if before["deletion_timestamp"] is not None:
        values["deletion_timestamp"] = before["deletion_timestamp"]
    if values["deletion_grace_period_seconds"] is None:
        values["deletion_grace_period_seconds"] = before["deletion_grace_period_seconds"]
    values["generation"] = before["generation"]
    values["self_link"] = None
    values["resource_version"] = before["resource_version"]
    private_fields_set(meta).update(names)


def _validate(kind: Kind, new: Resource, old: Resource, status: bool) -> None:
    errors: list[FieldError] = validate_meta_update(new.metadata, old.metadata)
    if status:
        errors += kind.strategy.validate_status_update(new, old)
    else:
        if getattr(kind.strategy, "update_revalidates", True):
            errors += kind.strategy.validate(new)
        errors += kind.strategy.validate_update(new, old)
    if errors:
        unique = list({str(e): e for e in errors}.values())
        raise Invalid.of(kind.info.group_kind, new.name, unique)


def prepare_update(server: APIServer, kind: Kind, new: Resource, current: Current, *, status: bool,
                   dry_run: bool, warnings: list[str] | None = None) -> None:
    """Everything but the write: strategy, system fields, admission, validation (in place on new).

    A status write with the default strategy takes every field but metadata and status from old as
    they are, without copying (``_take_carried``), when old is this write's own decode or when no
    mutating hook may change more than metadata: those values are read only from then on (the written
    object is the shared answer, frozen in strict mode; old is the decode cache's read-only object),
    so sharing them is sound, saves a deep copy of the spec per status write, and lets the informer
    recognise the spec as the canonical instance it already holds (``model_intern``). Otherwise (a hook
    that may change them in place, another strategy) they are copies, as upstream's strategy copies.

    A main-resource update keeps what the strategy carried over from old (``new.status =
    old.status``, as upstream's ``PrepareForUpdate``, ``pkg/registry/core/pod/strategy.go``) shared
    too: nothing after the strategy changes it in place (``fill_status`` replaces a status it would
    fill; metadata is never kept shared), the written object is the shared, frozen answer, and old is
    the decode cache's read-only object. Copying it (a Job pod's status on the Job controller's
    finalizer removal, on every label patch) cost a copy and an interning lookup of the copy per
    write, which then found the instance old held anyway (docs/performance.md, session 42).
    What ``new`` shared before the strategy ran (a caller's or a patch's aliasing) is still copied.
    The paths that hand ``new`` out unfrozen (dry run, a delete by update) copy what it shares."""
    old = current.obj
    shared = False
    if status:
        if kind.default_status_prepare and (
                current.owned or server.admission.mutates_only_metadata(type(new), True)):
            _take_carried(new, old)
            shared = not current.owned
        else:
            kind.strategy.prepare_for_status_update(new, old)
    else:
        kind.strategy.default(new)
    request = AdmissionRequest("UPDATE", new, old, "status" if status else "", dry_run, warnings,
                               user=requester())
    server.admission.mutate(request)
    carried: frozenset[str] = frozenset()
    if not status:
        aliased = _aliased(new, old) if not current.owned else carried
        kind.strategy.prepare_for_update(new, old)
        if not current.owned:  # what the strategy carried over (the status) stays shared: see below
            carried = _aliased(new, old) - aliased - _NEVER_KEPT
    if not current.owned and not shared:
        _unshare(new, old, carried)
    fill_status(kind, new)  # Go never omits a struct-typed status (empty_status.py)
    if status:
        keep_status_reset_fields(kind.strategy, new, old)
    _carry_system_fields(new, old)
    if not status and getattr(kind.strategy, "has_generation", True) and kind.strategy.spec_changed(new, old):
        new.metadata.generation = (old.metadata.generation or 0) + 1
    _validate(kind, new, old, status)
    if not status and allocates(kind.info):  # the Service REST's beginUpdate (service_ips.py)
        update_cluster_ip(server, new, old)
    if warnings is not None and not status:  # rest.BeforeUpdate: after validation
        add_warnings(warnings, kind.strategy.warnings_on_update(new, old))
    server.admission.validate(request)


def apply_update(server: APIServer, kind: Kind, new: Resource, current: Current, *, status: bool,
                 dry_run: bool, warnings: list[str] | None = None) -> Resource:
    """Prepare and write ``new`` over ``current``; raises ``StaleRead`` when the store moved on.
    ``warnings`` receives the strategy's ``WarningsOnUpdate``."""
    prepare_update(server, kind, new, current, status=status, dry_run=dry_run, warnings=warnings)
    key = current.kv.key
    meta_values = new.metadata.__dict__  # "resource_version" is in the fields set (prepare_update)
    meta_values["resource_version"] = None
    # A status write with the default strategy took old's other fields (_take_carried) or copies of them
    # (prepare_for_status_update): their stored bytes are reused, unless a mutating hook that may change
    # more than metadata ran after (it may have changed a copied field). Where they lie in the stored
    # bytes is known when the held old was written by such a write too (never for an owned old: the
    # cache held nothing for its bytes).
    spliced = (splice_over(new, current.obj, current.kv.value, old_private=current.owned,
                           carried=server.decoded.carried(current.kv))
               if status and kind.default_status_prepare
               and server.admission.mutates_only_metadata(type(new), True) else None)
    data, carried = spliced if spliced is not None else (encode(new), None)
    if data == current.kv.value:  # no-op: upstream skips the write, resourceVersion unchanged
        meta_values["resource_version"] = str(current.kv.mod_revision)
        return freeze(new)
    guard = [make_compare(key, "mod", "=", current.kv.mod_revision)]
    old_meta = current.obj.metadata
    deleting = (old_meta.deletion_timestamp is not None and not new.metadata.finalizers
                and old_meta.deletion_grace_period_seconds == 0
                and not spec_finalizers(new))  # namespace storage's ShouldDeleteNamespaceDuringUpdate
    if dry_run:
        _unshare(new, current.obj)  # handed out unfrozen: nothing of the stored object's in it
        new.metadata.resource_version = str(current.kv.mod_revision)
        return new
    result = server.store.txn(guard, [DeleteOp(key) if deleting else make_put(key, data)])
    if not result.succeeded:
        raise StaleRead()
    if deleting:
        _unshare(new, current.obj)
        server.decoded.forget(key)
        meta_values["resource_version"] = str(result.revision)
        return new
    return server.decoded.written(kind.model, key, result.revision, data, new, carried)


def _status_input(kind: Kind, obj: T) -> T:
    """The caller's object as a status write uses it: validated copies of metadata and status only.

    With the default ``prepare_for_status_update`` every other field comes from the stored object,
    so decoding the caller's spec would be wasted (it is most of a Pod); the fields are left unset for
    the strategy to fill. Other strategies get a full clone, as for a main-resource update.
    """
    status = getattr(obj, "status", None)
    if not kind.default_status_prepare or not (status is None or isinstance(status, KubeModel)):
        return checked_clone(obj)
    fields: dict[str, Any] = {"metadata": checked_clone(obj.metadata, obj)}
    if "status" in type(obj).__pydantic_fields__:
        fields["status"] = checked_clone(status, obj) if status is not None else None
    return partial_instance(type(obj), fields)


def update_object(server: APIServer, obj: T, *, status: bool = False, dry_run: bool = False,
                  strategy: Strategy[Any] | None = None, warnings: list[str] | None = None) -> T:
    """``strategy``: a subresource's own strategy in place of the kind's (``namespaces/finalize``)."""
    kind = server.kind(type(obj))
    if strategy is not None:
        kind = Kind(dataclasses.replace(kind.spec, strategy=strategy), kind.keys)
    namespace = object_namespace(kind, obj.metadata.namespace)
    wanted_rv = obj.metadata.resource_version
    if not wanted_rv and not getattr(kind.strategy, "allow_unconditional_update", True):
        raise Invalid.of(kind.info.group_resource, obj.name, [FieldError.invalid(
            "metadata.resourceVersion", 0, "must be specified for an update")])
    for _ in range(MAX_RETRIES):
        current = read_for_update(server, kind, namespace, obj.name)
        if wanted_rv and wanted_rv != str(current.kv.mod_revision):
            raise Conflict.stale(kind.info.group_resource, obj.name)
        new = _status_input(kind, obj) if status else checked_clone(obj)
        new.metadata.namespace = namespace
        try:
            return apply_update(server, kind, new, current, status=status, dry_run=dry_run,  # type: ignore[return-value]
                                warnings=warnings)
        except StaleRead:
            if wanted_rv:
                raise Conflict.stale(kind.info.group_resource, obj.name) from None
    raise Conflict.stale(kind.info.group_resource, obj.name)
