"""Workers in the manager's process: other control planes on the manager's clock.

``attach_worker(manager, "worker1", worker)`` makes ``worker`` (a
:class:`~kbatch.runtime.controlplane.ControlPlane` built with ``clock=manager.clock``) reachable from
the manager's MultiKueue controllers as the kubeconfig server ``kbatch+inprocess://worker1``; the
MultiKueueCluster still names a Secret (or path) holding that kubeconfig, as it would for a real
cluster. The manager's loop drives the worker's: every round of the manager runs the worker until it
is idle, and each of the worker's timer deadlines is mirrored in the manager's timers, so
``manager.advance(...)`` and ``manager.wait_for(...)`` move both, deterministically.

``set_reachable(manager, "worker1", False)`` cuts the connection (calls raise
:class:`~.remote.ConnectionFailed`, watches end), as a network partition would; the worker keeps running.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL
from kbatch.api.meta import Resource
from kbatch.controllers.kueue.multikueue.remote import ADDED, DELETED, MODIFIED, ConnectionFailed, WatchEvent
from kbatch.runtime.published import Published, PublishedKey

if TYPE_CHECKING:
    from kbatch.runtime.controlplane import ControlPlane

__all__ = ["IN_PROCESS_WORKERS", "InProcessRemote", "InProcessWorkers", "attach_worker", "set_reachable",
           "workers_of"]

T = TypeVar("T", bound=Resource)


class InProcessWorkers:
    """The workers attached to one manager, by name, and whether each is reachable."""

    def __init__(self) -> None:
        self.planes: dict[str, ControlPlane] = {}
        self.reachable: dict[str, bool] = {}
        self.remotes: dict[str, list[InProcessRemote]] = {}

    def connect(self, name: str) -> InProcessRemote:
        if name not in self.planes or not self.reachable.get(name, False):
            raise ConnectionFailed(f"dial kbatch+inprocess://{name}: no such worker attached")
        remote = InProcessRemote(self, name)
        self.remotes.setdefault(name, []).append(remote)
        return remote


IN_PROCESS_WORKERS = PublishedKey("multikueue.inprocess-workers", InProcessWorkers)


def workers_of(published: Published) -> InProcessWorkers:
    """The workers attached to the manager whose control plane publishes ``published``."""
    return published.get_or_put(IN_PROCESS_WORKERS, InProcessWorkers)


class _Driver:
    """A loop source of the manager: runs the worker until idle and mirrors its next deadline."""

    def __init__(self, manager: ControlPlane, worker: ControlPlane) -> None:
        self.manager, self.worker = manager, worker
        self.mirrored: float | None = None  # the worker deadline last put in the manager's timers

    def __call__(self) -> int:
        moved = self.worker.loop.run_until_idle()
        deadline = self.worker.timers.next_deadline()
        if deadline is not None and deadline != self.mirrored:
            self.mirrored = deadline
            self.manager.timers.schedule(deadline, _noop)
        return moved


def _noop() -> None:
    """A mirrored deadline only makes the manager run a round at that instant."""


def attach_worker(manager: ControlPlane, name: str, worker: ControlPlane) -> None:
    """Make ``worker`` reachable as ``kbatch+inprocess://<name>`` from ``manager``."""
    if worker.clock is not manager.clock:
        raise ValueError(
            "an in-process worker must run on the manager's clock (ControlPlane(clock=manager.clock))"
        )
    workers = workers_of(manager.published)
    if name in workers.planes:
        raise ValueError(f"worker {name!r} is already attached")
    workers.planes[name] = worker
    workers.reachable[name] = True
    manager.loop.add_source(_Driver(manager, worker))


def set_reachable(manager: ControlPlane, name: str, reachable: bool) -> None:
    """Cut (``False``) or restore (``True``) the manager's connection to worker ``name``."""
    workers = workers_of(manager.published)
    workers.reachable[name] = reachable
    if not reachable:
        for remote in workers.remotes.pop(name, []):
            remote.lose()


class _Handler:
    """An informer handler on the worker that reports the objects with the origin label (every object
    when ``origin`` is ``None``) as :class:`~.remote.WatchEvent`\\ s. An update that brings the label
    is reported as ``ADDED``, as an API server's watch with that label selector reports an object
    entering it (kubernetes ``staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go``
    ``convertToWatchEvent``); one that drops the label is not reported (the origin label is never
    removed from a copy)."""

    def __init__(self, origin: str | None, on_event: Callable[[WatchEvent], None]) -> None:
        self.origin, self.on_event, self.active = origin, on_event, True

    def _selected(self, obj: Resource) -> bool:
        return self.origin is None or (obj.metadata.labels or {}).get(ORIGIN_LABEL) == self.origin

    def _report(self, event: WatchEvent) -> None:
        if self.active and self._selected(event.obj):
            self.on_event(event)

    def on_add(self, obj: Resource) -> None:
        self._report(WatchEvent(ADDED, obj))

    def on_update(self, old: Resource, new: Resource) -> None:
        self._report(WatchEvent(MODIFIED, new, old) if self._selected(old) else WatchEvent(ADDED, new))

    def on_delete(self, obj: Resource) -> None:
        self._report(WatchEvent(DELETED, obj))


class InProcessRemote:
    """:class:`~.remote.RemoteCluster` over an attached worker's in-process client."""

    def __init__(self, workers: InProcessWorkers, name: str) -> None:
        self.workers, self.name = workers, name
        self.handlers: list[_Handler] = []
        self.on_lost: Callable[[], None] | None = None

    def _plane(self) -> Any:
        if not self.workers.reachable.get(self.name, False):
            raise ConnectionFailed(f"connection to kbatch+inprocess://{self.name} lost")
        return self.workers.planes[self.name]

    def get(self, kind: type[T], name: str, namespace: str | None) -> T | None:
        try:
            return self._plane().client.get(kind, name, namespace)  # type: ignore[no-any-return]
        except NotFound:
            return None

    def list(self, kind: type[T], labels: dict[str, str]) -> list[T]:
        selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
        return list(self._plane().client.list(kind, None, label_selector=selector).items)

    def create(self, obj: T) -> T:
        return self._plane().client.create(obj)  # type: ignore[no-any-return]

    def update(self, obj: T) -> T:
        return self._plane().client.update(obj)  # type: ignore[no-any-return]

    def update_status(self, obj: T) -> T:
        return self._plane().client.update_status(obj)  # type: ignore[no-any-return]

    def delete(self, kind: type[Resource], name: str, namespace: str | None) -> None:
        with contextlib.suppress(NotFound):
            self._plane().client.delete(kind, name, namespace, propagation_policy="Background")

    def watch(
        self,
        kinds: tuple[type[Resource], ...],
        origin: str,
        on_event: Callable[[WatchEvent], None],
        on_lost: Callable[[], None] | None = None,
        unlabelled: tuple[type[Resource], ...] = (),
    ) -> None:
        plane = self._plane()
        self.on_lost = on_lost
        selected: list[tuple[type[Resource], str | None]] = [(k, origin) for k in kinds]
        for kind, label in [*selected, *((k, None) for k in unlabelled)]:
            handler = _Handler(label, on_event)
            self.handlers.append(handler)
            plane.cache.informer_for(kind).add_event_handler(handler)

    def stop(self) -> None:
        for handler in self.handlers:
            handler.active = False
        self.handlers.clear()
        self.on_lost = None

    def lose(self) -> None:
        """The connection dropped: the watches end and the owner is told."""
        on_lost = self.on_lost
        self.stop()
        if on_lost is not None:
            on_lost()
