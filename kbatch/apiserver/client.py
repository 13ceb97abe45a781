"""The client protocol every consumer of the API uses (controllers, CLI, tests, the HTTP front end).

Roles as in controller-runtime ``pkg/client/interfaces.go``: a ``Reader`` (get, list), a ``Writer``
(create, update, patch, delete), a ``StatusWriter`` (the ``status`` subresource) and ``Watcher``
(watch). ``Client`` is all of them. Calls are synchronous: the in-process implementation answers
immediately, and the event loop in ``kbatch.runtime`` is single-threaded.

Objects passed in are never kept (the server works on a clone). Objects handed out are shared and
read only (:mod:`kbatch.api.frozen`): the stored version every reader sees; copy one with
``kbatch.api.edit`` before changing it. Every failure raises a ``kbatch.api.errors.StatusError`` subclass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from kbatch.api.errors import Status
from kbatch.api.meta import Resource, ResourceList

if TYPE_CHECKING:
    from kbatch.api.core_v1 import Pod

__all__ = [
    "Applier",
    "Binder",
    "Client",
    "Evictor",
    "PatchType",
    "Preconditions",
    "PropagationPolicy",
    "Reader",
    "StatusWriter",
    "TokenRequester",
    "WatchEvent",
    "WatchEventType",
    "WatchStream",
    "Watcher",
    "Writer",
]

T = TypeVar("T", bound=Resource)

PatchType = Literal["merge", "json", "strategic"]
"""RFC 7386 merge patch, RFC 6902 JSON patch, Kubernetes strategic merge patch."""

PropagationPolicy = Literal["Background", "Foreground", "Orphan"]
WatchEventType = Literal["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]


@dataclass(frozen=True, slots=True)
class Preconditions:
    """DeleteOptions.preconditions: the delete fails with Conflict unless these match."""

    uid: str | None = None
    resource_version: str | None = None


@dataclass(frozen=True, slots=True)
class WatchEvent(Generic[T]):
    """One watch event. ``object`` is a ``Status`` for ``ERROR`` (e.g. 410 Expired), and for
    ``BOOKMARK`` an object of the watched kind carrying only ``metadata.resourceVersion``."""

    type: WatchEventType
    object: T | Status


@runtime_checkable
class WatchStream(Protocol[T]):
    """A pull-based stream of typed watch events (mirrors ``kbatch.store.Watcher``)."""

    def poll(self) -> list[WatchEvent[T]]: ...

    def set_notify(self, fn: Callable[[], None] | None) -> None: ...

    def close(self) -> None: ...


class Reader(Protocol):
    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T: ...

    def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int | None = None,
        continue_: str | None = None,
        resource_version: str | None = None,
        resource_version_match: str | None = None,
    ) -> ResourceList[T]: ...


class Writer(Protocol):
    def create(self, obj: T, *, dry_run: bool = False) -> T: ...

    def update(self, obj: T, *, dry_run: bool = False) -> T: ...

    def patch(
        self,
        kind: type[T],
        name: str,
        patch: Any,
        namespace: str | None = None,
        *,
        patch_type: PatchType = "merge",
        dry_run: bool = False,
    ) -> T: ...

    def delete(
        self,
        kind: type[T],
        name: str,
        namespace: str | None = None,
        *,
        propagation_policy: PropagationPolicy | None = None,
        grace_period_seconds: int | None = None,
        preconditions: Preconditions | None = None,
        dry_run: bool = False,
    ) -> T | None:
        """Returns the object when it still exists (terminating: finalizers or a grace period),
        ``None`` when it is gone."""
        ...


class StatusWriter(Protocol):
    def update_status(self, obj: T, *, dry_run: bool = False) -> T: ...

    def patch_status(
        self,
        kind: type[T],
        name: str,
        patch: Any,
        namespace: str | None = None,
        *,
        patch_type: PatchType = "merge",
        dry_run: bool = False,
    ) -> T: ...


class Watcher(Protocol):
    def watch(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        resource_version: str | None = None,
        allow_bookmarks: bool = False,
        send_initial_events: bool = False,
    ) -> WatchStream[T]:
        """``resource_version`` None or "0": synthetic ADDED events for the current state, then
        changes; any other value: every change after that revision (``Expired`` if compacted).
        ``send_initial_events`` with ``allow_bookmarks``: the bookmark after the initial events is
        annotated ``k8s.io/initial-events-end`` (WatchList)."""
        ...


class Client(Reader, Writer, StatusWriter, Watcher, Protocol):
    """Everything a controller or tool needs."""



@runtime_checkable
class Binder(Protocol):
    """Optional role: the ``pods/binding`` subresource (what a scheduler calls). Check with
    ``isinstance(client, Binder)``; ``LocalClient`` implements it."""

    def bind(self, pod_name: str, namespace: str | None, node_name: str, *, uid: str | None = None,
             annotations: dict[str, str] | None = None, dry_run: bool = False) -> Pod:
        """Set ``spec.nodeName`` and ``PodScheduled=True`` (and copy ``annotations``) in one write;
        ``uid`` is a precondition. ``Conflict`` when the pod is bound, being deleted or gated."""
        ...


@runtime_checkable
class Evictor(Protocol):
    """Optional role: the ``pods/eviction`` subresource (what ``kubectl drain`` calls). Check with
    ``isinstance(client, Evictor)``; ``LocalClient`` implements it."""

    def evict(self, pod_name: str, namespace: str | None, *, delete_options: dict[str, Any] | None = None,
              dry_run: bool = False) -> Status:
        """Delete the pod (``Status`` Success) unless that violates its PodDisruptionBudget:
        ``TooManyRequests`` (429) with a ``DisruptionBudget`` cause; ``delete_options`` is the
        Eviction's metav1.DeleteOptions as a wire dict."""
        ...


@runtime_checkable
class TokenRequester(Protocol):
    """Optional role: the ``serviceaccounts/token`` subresource (``kubectl create token``, the
    kubelet's token manager). Check with ``isinstance(client, TokenRequester)``; ``LocalClient``
    implements it."""

    def create_token(self, account: str, namespace: str | None, request: dict[str, Any]) -> dict[str, Any]:
        """The authentication.k8s.io/v1 TokenRequest ``request`` (a wire dict) answered: with its
        ``status.token`` and ``status.expirationTimestamp``; nothing is stored."""
        ...


@runtime_checkable
class Applier(Protocol):
    """Optional role: server-side apply (KEP-555; :mod:`kbatch.apiserver.apply`). Check with
    ``isinstance(client, Applier)``; ``LocalClient`` implements it."""

    def apply(self, obj: T, *, field_manager: str, force: bool = False, dry_run: bool = False) -> T:
        """Own exactly the fields ``obj`` sets, as ``field_manager``; create ``obj`` when missing.
        ``Conflict`` (409, ``FieldManagerConflict`` causes) when another manager owns a field it
        changes, unless ``force``."""
        ...

    def apply_status(self, obj: T, *, field_manager: str, force: bool = False, dry_run: bool = False) -> T:
        """The same on the status subresource."""
        ...
