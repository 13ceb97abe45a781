"""``Update`` ownership for ordinary writes (create, update, patch), and which writes are tracked.

Upstream records the manager of every write (KEP-555; ``fieldmanager.UpdateNoErrors``): the fields a
write adds or changes become its manager's (taken from whoever owned them), fields it removes leave
every manager. kbatch records it only where apply conflicts can need it — a deliberate difference,
documented in ``docs/server-side-apply.md``, so that the controllers' hot paths
(100k pods) pay nothing for field tracking:

* a write to an object that already carries ``managedFields`` (it was applied, or created or written
  by a named manager) is tracked, whoever makes it;
* a write made under a named field manager (:func:`field_manager`: the HTTP front end for requests
  carrying ``fieldManager``) is tracked, creates included;
* any other write (the in-process controllers creating and updating their pods) records nothing.

An object whose fields were never recorded gets them attributed to ``before-first-apply`` by its
first apply (:mod:`.plan`). The hook runs before every other admission plugin, on the defaulted
object: as upstream's handlers record the request's manager before mutating admission
(``handlers/create.go``, ``update.go``), the writer owns the defaults but not what admission plugins
add (DefaultTolerationSeconds' tolerations). A tracked write starts from the ``managedFields`` it
carries (:mod:`.carried`, upstream's ``decodeLiveOrNew``): ``[]`` or ``[{}]`` start from nothing, a
list with an entry that does not decode is ignored, a write that leaves them out (or writes a
subresource) starts from the stored ones; then the writer's own entry is added. A write that carries
``managedFields`` is tracked whoever makes it, creates included: the in-process writer without a named
manager is recorded as its component (``user_agent``) or ``kbatch``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from kbatch.api.base import format_time
from kbatch.api.meta import ManagedFieldsEntry, Resource
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.apply.carried import starting_entries
from kbatch.apiserver.apply.fieldset import members
from kbatch.apiserver.apply.managed import UPDATE, Entry, cap_update_managers, decode_entries, encode_entries
from kbatch.apiserver.identities import user_agent

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["UNNAMED_MANAGER", "FieldTracker", "applying", "field_manager", "install"]

UNNAMED_MANAGER = "kbatch"  # the manager of a tracked write that names none, unless a component makes it
_APPLYING = "\0applying"  # not a valid manager name (managers are printable)
# the named manager of the writes in progress, or _APPLYING; one variable, so the untracked hot path
# reads a single context variable
_STATE: ContextVar[str | None] = ContextVar("kbatch_field_manager", default=None)
_MISSING = object()


@contextmanager
def field_manager(name: str | None) -> Iterator[None]:
    """Writes inside are made by the named manager (``None``: no change)."""
    if not name:
        yield
        return
    token = _STATE.set(name)
    try:
        yield
    finally:
        _STATE.reset(token)


@contextmanager
def applying() -> Iterator[None]:
    """The write inside is an apply, which has set its managed fields itself."""
    token = _STATE.set(_APPLYING)
    try:
        yield
    finally:
        _STATE.reset(token)


def install(server: APIServer) -> None:
    """Add the tracker to ``server``'s mutating admission, for every kind."""
    server.admission.add_mutating(None, FieldTracker(server))


class FieldTracker:
    """The mutating admission hook that records ``Update`` managers (see the module docstring)."""

    admission_metadata_only = True  # changes metadata.managedFields only (update.apply_update relies on it)

    def __init__(self, server: APIServer) -> None:
        self._server = server

    def __call__(self, request: AdmissionRequest) -> None:
        if request.reinvocation is not None:
            return  # the chain's second pass re-runs admission plugins; upstream's handler records once
        named = _STATE.get()
        if named is None:
            if not request.obj.metadata.managed_fields:
                old = request.old
                if old is None or not old.metadata.managed_fields:
                    return  # untracked: the hot path
        elif named is _APPLYING:
            return
        manager = named or user_agent(request.user) or UNNAMED_MANAGER  # upstream: the user agent's product
        track(request.obj, request.old, manager, request.subresource,
              format_time(self._server.timestamp()))


def track(obj: Resource, old: Resource | None, manager: str, subresource: str, now: str) -> None:
    """Record ``manager``'s write of ``obj`` over ``old`` in ``obj.metadata.managedFields``."""
    meta = obj.metadata
    carried = None if meta.managed_fields is None else [e.to_dict() for e in meta.managed_fields]
    stored = [e.to_dict() for e in old.metadata.managed_fields or ()] if old is not None else None
    entries = decode_entries(starting_entries(carried, stored, subresource))
    info = type(obj).api_info
    skip = frozenset({"status"} if not subresource else {"spec"})
    before = members(_doc(old), kind=info.group_kind, skip=skip) if old is not None else {}
    after = members(_doc(obj), kind=info.group_kind, skip=skip)
    changed = frozenset(p for p, v in after.items() if before.get(p, _MISSING) != v)
    gone = frozenset(before.keys() - after.keys())
    key = (manager, UPDATE, subresource)
    entries = {k: e.with_fields(e.fields - changed - gone) for k, e in entries.items()}
    mine = entries.get(key)
    if changed or mine is not None:
        fields = (mine.fields if mine is not None else frozenset()) | changed
        time = now if changed or mine is None else mine.time
        entries[key] = Entry(manager, UPDATE, info.api_version, time, subresource, fields)
    wire = encode_entries(cap_update_managers(entries))
    meta.managed_fields = [ManagedFieldsEntry.model_validate(e) for e in wire] or None


def _doc(obj: Resource) -> dict[str, Any]:
    return obj.to_dict()
