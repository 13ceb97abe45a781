"""What MultiKueue needs from a worker cluster: one small protocol, two implementations.

Upstream's ``remoteClient`` (kubernetes-sigs/kueue v0.19.2
``pkg/controller/admissionchecks/multikueue/multikueuecluster.go``) holds a controller-runtime client
built from the worker's kubeconfig and a watch on the worker's Workloads and jobs labelled
``kueue.x-k8s.io/multikueue-origin=<origin>``; every event of a watch queues the manager's Workload of
the same key. :class:`RemoteCluster` is that seam: typed reads and writes of one worker, and
:meth:`RemoteCluster.watch` to be told what changed there, as a :class:`WatchEvent`: the type of the
change and the object, and for a change of a known object the object as it was, which is what
upstream's handlers receive (client-go ``tools/cache`` ``ResourceEventHandler``: ``OnAdd``,
``OnUpdate(old, new)``, ``OnDelete``; kubernetes/apimachinery ``pkg/watch`` ``Event`` types).

* :mod:`.inprocess`: a worker that is another :class:`~kbatch.runtime.controlplane.ControlPlane` on the
  manager's clock (kubeconfig server ``kbatch+inprocess://NAME``), for deterministic tests;
* :mod:`.http_remote`: a worker reached over HTTP (any API server: ``kbatch serve``, a real cluster),
  from the kubeconfig's server, bearer token and CA data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from kbatch.api.meta import Resource
from kbatch.runtime.cache.informer import EventHandler

__all__ = ["ADDED", "DELETED", "MODIFIED", "ConnectionFailed", "RemoteCluster", "WatchEvent", "deliver"]

T = TypeVar("T", bound=Resource)
EventType = Literal["ADDED", "MODIFIED", "DELETED"]
ADDED: EventType = "ADDED"
MODIFIED: EventType = "MODIFIED"
DELETED: EventType = "DELETED"


@dataclass(frozen=True)
class WatchEvent:
    """One change of a watched worker object, typed as an informer's handlers see it (client-go
    ``tools/cache/controller.go`` ``processDeltas``): ``ADDED`` for an object not known before,
    ``MODIFIED`` for a known one (``old`` is its previous state), ``DELETED`` with its last state."""

    type: EventType
    obj: Resource
    old: Resource | None = None  # MODIFIED only


def deliver(event: WatchEvent, handler: EventHandler) -> None:
    """Hand ``event`` to an informer handler, as ``processDeltas`` calls ``OnAdd``, ``OnUpdate(old,
    new)`` or ``OnDelete``: a worker's watch then feeds the runtime's handlers and predicates."""
    if event.type == MODIFIED:
        handler.on_update(event.old, event.obj)
    elif event.type == ADDED:
        handler.on_add(event.obj)
    else:
        handler.on_delete(event.obj)


class ConnectionFailed(Exception):
    """The worker cannot be reached or refused the watch (``ClientConnectionFailed``)."""


class RemoteCluster(Protocol):
    """One worker cluster, as the manager's MultiKueue controllers use it."""

    def get(self, kind: type[T], name: str, namespace: str | None) -> T | None:
        """The object, or ``None`` when the worker has none."""
        ...

    def list(self, kind: type[T], labels: dict[str, str]) -> list[T]:
        """Every object of the kind, in all namespaces, carrying these labels."""
        ...

    def create(self, obj: T) -> T: ...

    def update(self, obj: T) -> T: ...

    def update_status(self, obj: T) -> T: ...

    def delete(self, kind: type[Resource], name: str, namespace: str | None) -> None:
        """Delete with background propagation; a missing object is not an error."""
        ...

    def watch(
        self,
        kinds: tuple[type[Resource], ...],
        origin: str,
        on_event: Callable[[WatchEvent], None],
        on_lost: Callable[[], None] | None = None,
        unlabelled: tuple[type[Resource], ...] = (),
    ) -> None:
        """Start watching these kinds' objects labelled with ``origin``, and every object of the
        ``unlabelled`` kinds (the worker's queues, for quota automation): ``on_event(event)`` for each
        object added, changed or deleted, ``on_lost()`` once if the watch ends by itself. Raises
        :class:`ConnectionFailed` when the watch cannot be established."""
        ...

    def stop(self) -> None:
        """Stop the watches (the connection is being dropped or replaced)."""
        ...
