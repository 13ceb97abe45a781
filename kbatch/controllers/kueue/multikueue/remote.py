"""What MultiKueue needs from a worker cluster: one small protocol, two implementations.

Upstream's ``remoteClient`` (kubernetes-sigs/kueue v0.19.2
``pkg/controller/admissionchecks/multikueue/multikueuecluster.go``) holds a controller-runtime client
built from the worker's kubeconfig and a watch on the worker's Workloads and jobs labelled
``kueue.x-k8s.io/multikueue-origin=<origin>``; every event of a watch queues the manager's Workload of
the same key. :class:`RemoteCluster` is that seam: typed reads and writes of one worker, and
:meth:`RemoteCluster.watch` to be told which Workload keys changed there.

* :mod:`.inprocess`: a worker that is another :class:`~kbatch.runtime.controlplane.ControlPlane` on the
  manager's clock (kubeconfig server ``kbatch+inprocess://NAME``), for deterministic tests;
* :mod:`.http_remote`: a worker reached over HTTP (any API server: ``kbatch serve``, a real cluster),
  from the kubeconfig's server, bearer token and CA data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from kbatch.api.meta import Resource

__all__ = ["ConnectionFailed", "RemoteCluster"]

T = TypeVar("T", bound=Resource)


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
        on_change: Callable[[Resource], None],
        on_lost: Callable[[], None] | None = None,
        unlabelled: tuple[type[Resource], ...] = (),
    ) -> None:
        """Start watching these kinds' objects labelled with ``origin``, and every object of the
        ``unlabelled`` kinds (the worker's queues, for quota automation): ``on_change(obj)`` for each
        added, changed or deleted one, ``on_lost()`` once if the watch ends by itself. Raises
        :class:`ConnectionFailed` when the watch cannot be established."""
        ...

    def stop(self) -> None:
        """Stop the watches (the connection is being dropped or replaced)."""
        ...
