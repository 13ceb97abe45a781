"""kube-apiserver's reconciler of the ``kubernetes`` Service and its endpoints, armed only when needed.

Upstream (``pkg/controlplane/controller/kubernetesservice/controller.go`` ``Run``) calls
``UpdateKubernetesService(false)`` every ``EndpointInterval`` — 10 s
(``DefaultEndpointReconcilerInterval``) — from the API server's start, on a non-sliding schedule:
the Service ``default/kubernetes`` is created when missing (``CreateOrUpdateMasterServiceIfNeeded``,
never updated after start), then the lease reconciler puts the Endpoints and the EndpointSlice back
in shape (:func:`kbatch.apiserver.master_endpoints.endpoints_repair`,
:func:`~kbatch.apiserver.master_endpoints.slice_repair`). So a user who deletes or edits them gets
them back within 10 s.

kbatch runs that tick only when it can have something to do: a perpetual 10-second timer would make
the virtual clock's next deadline always ≤ 10 s away (``advance --until-next-deadline``, ``wait_for``
and every "what happens next" would stop there). :class:`MasterEndpointReconciler` watches the three
keys in the store; a change or deletion made by anyone else arms one timer for the next tick
(``start + k·10 s``, strictly after now), which repairs what is wrong and does not re-arm; its own
writes are recognised by their revisions and arm nothing. A tick that finds everything in shape
writes nothing. On a fresh cluster nothing arms it, so a default run is unchanged.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from kbatch.api.errors import BadRequest, NotFound, StatusError
from kbatch.apiserver.master_endpoints import create_with_own_uid, endpoints_repair, slice_repair
from kbatch.apiserver.service_ips import ensure_master_service
from kbatch.store.kv import pending_batches

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["RECONCILE_INTERVAL", "MasterEndpointReconciler", "next_tick"]

RECONCILE_INTERVAL = 10.0  # DefaultEndpointReconcilerInterval (pkg/controlplane/reconcilers)
_OBJECTS = (("v1", "Service"), ("v1", "Endpoints"), ("discovery.k8s.io/v1", "EndpointSlice"))


class Clock(Protocol):
    """The control plane's clock, as far as this needs it (``kbatch.runtime.clock``)."""

    def now(self) -> float: ...


class Timers(Protocol):
    """The control plane's timer queue, as far as this needs it (``kbatch.runtime.timers``)."""

    def schedule_call(self, deadline: float, fn: Callable[[Any], Any], arg: Any, *,
                      periodic: bool = False) -> int: ...


def next_tick(start: float, now: float, interval: float) -> float:
    """The first instant ``start + k·interval`` strictly after ``now`` (``wait.NonSlidingUntil``)."""
    k = max(0, math.floor((now - start) / interval)) + 1
    tick = start + k * interval
    return tick if tick > now else tick + interval


class MasterEndpointReconciler:
    """Repairs ``default/kubernetes``'s Service, Endpoints and EndpointSlice at the next 10-second
    tick after someone else changed one of them (module docstring); ``pump()`` is a loop source."""

    def __init__(self, server: APIServer, clock: Clock, timers: Timers,
                 interval: float = RECONCILE_INTERVAL) -> None:
        self.server, self.clock, self.timers, self.interval = server, clock, timers, interval
        self.start = clock.now()
        self.repairs = 0  # ticks that wrote something
        self._armed: float | None = None
        self._own: set[int] = set()  # revisions of this reconciler's writes, until their events are seen
        self._models: dict[str, Any] = {}
        for version, kind in _OBJECTS:
            with contextlib.suppress(BadRequest):  # not served: nothing to keep
                self._models[kind] = server.registry.for_gvk(version, kind).model
        self._keys = [server.kind(model).keys.key("default", "kubernetes") for model in self._models.values()]
        self._pending = True  # set by the watchers' notify: the loop's rounds cost nothing otherwise
        self._watchers = [self._watch(key, server.store.revision + 1) for key in self._keys]

    def _watch(self, key: bytes, start: int) -> Any:
        watcher = self.server.store.watch(key, start_revision=start)
        watcher.set_notify(self._notify)
        return watcher

    def _notify(self) -> None:
        self._pending = True

    # -- noticing changes ------------------------------------------------------------------------
    def pump(self) -> int:
        """Note the changes to the three keys since the last round; arm the tick for another's."""
        if not self._pending:
            return 0
        self._pending = False
        changed = False
        for i, watcher in enumerate(self._watchers):
            try:
                for events in pending_batches(watcher):
                    for event in events:
                        revision = event.kv.mod_revision
                        if revision in self._own:
                            self._own.discard(revision)
                        else:
                            changed = True
            except Exception as err:  # compaction overtook the watch: look at the key at the next tick
                if type(err).__name__ not in ("CompactedError", "WatchCancelledError"):
                    raise
                watcher.close()
                self._watchers[i] = self._watch(self._keys[i], self.server.store.revision + 1)
                changed = True
        if changed and self._armed is None:
            self._armed = next_tick(self.start, self.clock.now(), self.interval)
            self.timers.schedule_call(self._armed, self._tick, None)
        return 0  # noting a change is not work the loop has to settle

    def close(self) -> None:
        for watcher in self._watchers:
            watcher.close()

    # -- the tick --------------------------------------------------------------------------------
    def _tick(self, _: object) -> None:
        self._armed = None
        before = self.server.store.revision
        with contextlib.suppress(StatusError):  # e.g. the namespace is gone: tried at the next change
            self._reconcile()
        if self.server.store.revision != before:
            self.repairs += 1

    def _get(self, kind: str) -> dict[str, Any] | None:
        try:
            return dict(self.server.get(self._models[kind], "kubernetes", "default").to_dict())
        except NotFound:
            return None

    def _note(self, obj: Any) -> None:
        self._own.add(int(obj.metadata.resource_version))

    def _reconcile(self) -> None:
        """``UpdateKubernetesService(false)``: the Service when missing, then the endpoints."""
        if "Service" in self._models:
            before = self.server.store.revision
            ensure_master_service(self.server)
            if self.server.store.revision != before:
                self._own.add(self.server.store.revision)
        if "Endpoints" not in self._models:
            return
        endpoints = self._get("Endpoints")
        body = endpoints_repair(endpoints)
        if body is not None:
            endpoints = self._write("Endpoints", endpoints is None, body)
        if "EndpointSlice" in self._models and endpoints is not None:
            self._repair_slice(endpoints)

    def _write(self, kind: str, create: bool, body: dict[str, Any]) -> dict[str, Any] | None:
        model = self._models[kind]
        if create:
            seed = f"kubernetes-{kind.lower()}/{self.server.store.revision}"
            written = create_with_own_uid(self.server, model, body, seed)
        else:
            written = self.server.update(model.model_validate(body))
        if written is None:
            return None
        self._note(written)
        return dict(written.to_dict())

    def _repair_slice(self, endpoints: dict[str, Any]) -> None:
        action, body = slice_repair(self._get("EndpointSlice"), endpoints)
        if action == "replace":
            self.server.delete(self._models["EndpointSlice"], "kubernetes", "default")
            self._own.add(self.server.store.revision)
        if body is not None:
            self._write("EndpointSlice", action != "update", body)
