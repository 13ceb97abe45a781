"""``ControlPlane``: a whole batch control plane in one object, for tests, the CLI and ``kbatch serve``.

A façade that wires the parts and does none of their work::

    families ── composition: kinds (registry), admission plugins, controllers, scheduler plugins, gates
    clock (virtual | real) ─┐          ┌─ trace (one watch over the whole store)
    rng (seeded) ───────────┼─ APIServer(store, registry) ── client ── cache (shared informers)
    store (MemoryStore) ────┘                                  │
                                     manager (controllers from the catalog, by name) ── loop

``families`` (default: :data:`kbatch.families.BUILTIN_FAMILIES`) says what the control plane serves
and runs; ``feature_gates`` (``"Name=true,..."`` as ``--feature-gates``),
``enable_admission_plugins``/``disable_admission_plugins`` (kube-apiserver's flags) and
``scheduler_config`` (a ``KubeSchedulerConfiguration`` dict, kube-scheduler's ``--config``) and
``kueue_config`` (Kueue's ``Configuration``: a dict, YAML text or a file path, Kueue's ``--config``;
``configurations`` holds any component's by name) configure them as upstream's components are
configured. ``addons`` selects the cluster add-ons a *new* store gets, once (``--controllers``' syntax;
default ``*``: the StorageClass ``standard``, as kind's; ``"*,-default-storage-class"`` or ``""`` for a
cluster without one, as kubeadm's; kbatch/runtime/addons.py).

>>> cp = ControlPlane(seed=1, controllers="")          # doctest: +SKIP
>>> cp.apply(open("job.yaml").read()); cp.advance("5m")  # doctest: +SKIP

``controllers`` uses kube-controller-manager's syntax (``"*"``, ``"*,-podgc"``,
``"job,garbage-collector"``). Everything runs in virtual time unless ``clock="real"``:
``run_until_idle()`` settles the current instant, ``advance(d)`` fires timers in order up to
``now + d``, ``wait_for(pred)`` jumps from deadline to deadline until ``pred()`` holds.
Async twins (``arun_until_idle``, ``aadvance``) and ``await run()`` (real clock) drive the same loop.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from kbatch.api.registry import Registry
from kbatch.apiserver.acting_client import ActingClient
from kbatch.apiserver.client import Client
from kbatch.apiserver.controller_accounts import ensure_controller_account
from kbatch.apiserver.identities import component_user, controller_account_name
from kbatch.apiserver.master_endpoint_reconciler import MasterEndpointReconciler
from kbatch.apiserver.requester import LOCAL_ADMIN
from kbatch.families import BUILTIN_FAMILIES, ControllerSpec, Family, compose
from kbatch.runtime.addons import install_addons, is_new_store
from kbatch.runtime.apply import Manifests, apply_objects
from kbatch.runtime.builder import Builder
from kbatch.runtime.cache import Cache
from kbatch.runtime.catalog import Catalog
from kbatch.runtime.clock import DEFAULT_START, Clock, RealClock, VirtualClock
from kbatch.runtime.compaction import COMPACTION_INTERVAL, Compactor
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.duration import parse_duration
from kbatch.runtime.event_ttl import EVENT_TTL, EventExpiry
from kbatch.runtime.events import EventRecorder, EventSink
from kbatch.runtime.events_v1 import Broadcasters
from kbatch.runtime.loop import Loop
from kbatch.runtime.manager import Manager
from kbatch.runtime.metrics import MetricsRegistry
from kbatch.runtime.published import Published
from kbatch.runtime.recorder import Recorder
from kbatch.runtime.revision_times import RevisionTimes
from kbatch.runtime.rng import derive, new_rng
from kbatch.runtime.timers import TimerQueue
from kbatch.runtime.trace import NullTrace, Trace
from kbatch.store.kv import KV

__all__ = ["ControlPlane"]


def _make_clock(clock: str | Clock, start: datetime) -> Clock:
    if clock == "virtual":
        return VirtualClock(start)
    if clock == "real":
        return RealClock()
    if isinstance(clock, str):
        raise ValueError(f'clock must be "virtual", "real" or a Clock, not {clock!r}')
    return clock


class ControlPlane:
    def __init__(
        self,
        seed: int = 0,
        start: datetime = DEFAULT_START,
        controllers: str | Sequence[str] | None = "*",
        clock: str | Clock = "virtual",
        *,
        families: Sequence[Family] | None = None,
        feature_gates: str | Mapping[str, bool] | None = None,
        enable_admission_plugins: str | Sequence[str] | None = None,
        disable_admission_plugins: str | Sequence[str] | None = None,
        scheduler_config: Mapping[str, Any] | None = None,
        kueue_config: Mapping[str, Any] | str | None = None,
        configurations: Mapping[str, Any] | None = None,
        catalog: Catalog | None = None,
        extra_controllers: Sequence[ControllerSpec] = (),
        options: dict[str, dict[str, Any]] | None = None,
        trace: bool = True,
        compaction_interval: float | None = COMPACTION_INTERVAL,
        event_ttl: float | None = EVENT_TTL,
        store: KV | None = None,
        registry: Registry | None = None,
        addons: str | Sequence[str] | None = None,
    ) -> None:
        from kbatch.apiserver import APIServer
        from kbatch.store import MemoryStore

        self.seed = seed
        self.clock = _make_clock(clock, start)
        self.rng = new_rng(seed)
        self.composition = compose(families if families is not None else BUILTIN_FAMILIES)
        self.features = self.composition.feature_gates(feature_gates)
        self.store: KV = store if store is not None else MemoryStore()
        chosen_addons = self.composition.cluster_addons(addons)  # checked even when the store is not new
        new_store = is_new_store(self.store)
        self.registry = registry if registry is not None else self.composition.registry(self.features)
        admission = self.composition.admission_plugins(enable_admission_plugins, disable_admission_plugins)
        self.configurations = dict(configurations or {})
        if kueue_config is not None:  # Kueue's --config (a Configuration: mapping, YAML text or file path)
            self.configurations["kueue"] = kueue_config
        self.server = APIServer(self.store, self.registry, now=self.clock.now_datetime, rng=self.rng,
                                admission_plugins=admission, features=self.features,
                                composition=self.composition, configurations=self.configurations)
        self.server.tokens.use_secret(seed, None)  # the service-account key: from the seed, never drawn
        if new_store:  # once, after the system namespaces and the post-start hooks
            install_addons(self.server, chosen_addons)
        self.client = self.server.client()
        self.timers = TimerQueue()
        self.cache = Cache(self.client)
        self.manager = Manager(self.cache, self.clock, self.timers)
        self.loop = Loop(self.clock, self.timers, self.manager)
        self.revision_times = RevisionTimes(self.store, self.clock)  # commit instants, for watch tables
        self.loop.before_jump.append(self.revision_times.mark)
        self.events = EventSink(self.client, self.clock)
        self.broadcasters = Broadcasters(self.client, self.clock, self.timers)  # events.k8s.io/v1
        self.metrics = MetricsRegistry()  # controllers' metrics (``/metrics`` of ``kbatch serve``)
        self.published = Published()  # controllers' state that read-only APIs serve (ctx.published)
        # trace=False on a virtual clock: no trace at all (no store watch, no decoding, no hashing;
        # digest() raises). A real clock keeps the watch: any write must wake its loop.
        real = not isinstance(self.clock, VirtualClock)
        self.trace: Trace | NullTrace = (Trace(self.store, self.clock, keep_records=trace) if trace or real
                                         else NullTrace())
        if isinstance(self.trace, Trace):
            self.loop.add_source(self.trace.pump)  # first: records carry the instant they were committed at
        self.loop.add_source(self.cache.pump)
        # kube-apiserver compacts etcd every 5 minutes; None keeps every revision forever
        self.compactor = (Compactor(self.store, self.clock, compaction_interval)
                          if compaction_interval is not None else None)
        if self.compactor is not None:
            self.loop.hooks.append(self.compactor)
        # kube-apiserver --event-ttl: an Event is deleted an hour after its last write; None keeps them
        self.event_expiry = (EventExpiry(self.store, self.clock, self.timers, event_ttl)
                             if event_ttl is not None else None)
        if self.event_expiry is not None:
            self.loop.add_source(self.event_expiry.pump)
        # kube-apiserver's kubernetes-service controller: default/kubernetes's Service, Endpoints and
        # EndpointSlice put back at the next 10 s tick after someone else changed them
        self.master_endpoints = MasterEndpointReconciler(self.server, self.clock, self.timers)
        self.loop.add_source(self.master_endpoints.pump)
        self.cache.set_notify(self.loop.wake)
        self.trace.set_notify(self.loop.wake)  # any write wakes the real-clock loop (GC, trace)
        self.manager.observers.append(self.trace.note_reconcile)
        self.catalog = catalog if catalog is not None else Catalog(self.composition.controllers)
        for spec in extra_controllers:
            self.catalog.register(spec)
        self._options = {name: dict(values) for name, values in (options or {}).items()}
        if scheduler_config is not None:  # kube-scheduler's --config (KubeSchedulerConfiguration)
            self._options.setdefault("scheduler", {})["config"] = scheduler_config
        self.enabled: list[str] = []
        self._component_clients: dict[str, Client] = {}
        for name in self.catalog.resolve(controllers if controllers is not None else "*"):
            self.add_controller(name)
        self.cache.start()

    # -- wiring ------------------------------------------------------------------------------------
    def context(self, name: str) -> ControllerContext:
        username = self.catalog[name].user if name in self.catalog else ""
        user = component_user(username) if username else LOCAL_ADMIN
        client = self._client_of(username)
        return ControllerContext(
            name=name, client=client, user=user,
            cache=self.cache, clock=self.clock, rng=derive(self.rng, name),
            recorder=self._recorder(name, client),
            manager=self.manager, timers=self.timers,
            server=self.server, options=dict(self._options.get(name, {})), metrics=self.metrics,
            composition=self.composition, features=self.features, registry=self.registry,
            published=self.published, wake_threadsafe=self.loop.wake_threadsafe,
        )

    def controller_client(self, name: str) -> Client:
        """The client catalog controller ``name`` writes through: its component's
        :class:`~kbatch.apiserver.acting_client.ActingClient` (shared by the controllers of one
        account), or :attr:`client` for a controller that acts as the local administrator. Tests
        that fake a failing write wrap this object's methods."""
        return self._client_of(self.catalog[name].user if name in self.catalog else "")

    def _client_of(self, username: str) -> Client:
        """The client a component acting as ``username`` writes through (the shared admin client for
        ""); a kube-controller-manager account is created in kube-system first, as its client builder
        does (:mod:`kbatch.apiserver.controller_accounts`)."""
        if not username:
            return self.client
        client = self._component_clients.get(username)
        if client is None:
            account = controller_account_name(username)
            if account is not None:
                ensure_controller_account(self.server, account)
            client = self._component_clients[username] = ActingClient(self.server, component_user(username))
        return client

    def _recorder(self, name: str, client: Client) -> Recorder:
        """Controller ``name``'s recorder: events.k8s.io/v1 when its spec declares it
        (``ControllerSpec.events``), else core/v1's."""
        api = self.catalog[name].events if name in self.catalog else None
        if api is None:
            return self.events.recorder(self._event_source(name), client=client)
        source = self._event_source(name)
        return self.broadcasters.recorder(api.process, source, api.host, api.action_of, client)

    def recorder(self, component: str) -> EventRecorder:
        return self.events.recorder(component)

    def _event_source(self, name: str) -> str:
        """The component a controller's Events name as their source (``kubectl describe``'s From)."""
        return self.catalog[name].event_source if name in self.catalog else name

    def add_controller(self, controller: str | ControllerSpec | Callable[[ControllerContext], Any]) -> Any:
        """Enable a catalog controller by name, register-and-enable a spec, or run a setup function."""
        if isinstance(controller, ControllerSpec):
            self.catalog.register(controller)
            controller = controller.name
        if isinstance(controller, str):
            factory = self.catalog.factory(controller)
            if factory is None:
                self.catalog.resolve(controller)  # raises the "not available" error
            self.enabled.append(controller)
            return factory(self.context(controller))  # type: ignore[misc]
        name = getattr(controller, "__name__", "custom")
        return controller(self.context(name))

    def build(self, name: str) -> Builder:
        """Declare an ad-hoc controller: ``cp.build("mine").for_(Job).complete(fn)``."""
        return self.manager.build(name)

    # -- objects -----------------------------------------------------------------------------------
    def apply(self, manifests: Manifests, namespace: str = "default") -> list[Any]:
        """Create or update objects (YAML text, dicts, models, or lists of them); then settle."""
        applied = apply_objects(self.client, self.registry, manifests, namespace)
        self.run_until_idle()
        return applied

    # -- time --------------------------------------------------------------------------------------
    def now(self) -> datetime:
        return self.clock.now_datetime()

    def committed_at(self, revision: int) -> datetime:
        """When ``revision`` was committed: its virtual instant (kbatch/runtime/revision_times.py); on
        a real clock, now (what a watcher is sent at once)."""
        if not isinstance(self.clock, VirtualClock):
            return self.clock.now_datetime()
        return self.clock.to_datetime(self.revision_times.instant_of(revision))

    def run_until_idle(self) -> int:
        return self.loop.run_until_idle()

    def advance(self, duration: float | str) -> None:
        self.loop.advance(parse_duration(duration))

    def wait_for(self, predicate: Callable[..., bool] | tuple[Any, ...],
                 timeout: float | str = "1h") -> float:
        """Advance virtual time until the condition holds; never sleeps. Returns virtual seconds waited.

        ``predicate`` is ``fn()``, ``fn(cp)``, or a condition ``(Kind, name, type)`` /
        ``(Kind, name, type, namespace)`` meaning "that object has condition ``type`` = True"."""
        if isinstance(predicate, tuple):
            check = self._condition_check(*predicate)
        elif _arity(predicate) >= 1:
            check = lambda: predicate(self)  # noqa: E731
        else:
            check = predicate
        return self.loop.wait_for(check, parse_duration(timeout))

    def _condition_check(self, kind: Any, name: str, type_: str, namespace: str | None = "default"
                         ) -> Callable[[], bool]:
        from kbatch.api.errors import NotFound

        ns = namespace if kind.api_info.namespaced else None

        def check() -> bool:
            try:
                obj = self.client.get(kind, name, ns)
            except NotFound:
                return False
            conditions = getattr(getattr(obj, "status", None), "conditions", None) or ()
            return any(c.type == type_ and c.status == "True" for c in conditions)

        return check

    async def arun_until_idle(self) -> int:
        return await self.loop.arun_until_idle()

    async def aadvance(self, duration: float | str) -> None:
        await self.loop.aadvance(parse_duration(duration))

    async def run(self) -> None:
        """Serve forever on the control plane's clock (``kbatch serve --clock real``)."""
        import anyio

        async with anyio.create_task_group() as tg:
            tg.start_soon(self.loop.run)
            for runnable in self.manager.runnables:
                tg.start_soon(runnable)

    def stop(self) -> None:
        self.loop.stop()

    def close(self) -> None:
        self.loop.stop()
        self.manager.shutdown()
        self.cache.stop()
        self.trace.close()
        if self.event_expiry is not None:
            self.event_expiry.close()
        self.master_endpoints.close()

    def __repr__(self) -> str:
        return (f"ControlPlane(seed={self.seed}, now={self.now().isoformat()}, "
                f"controllers={self.enabled})")


def _arity(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 0
    return sum(1 for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                                        p.POSITIONAL_OR_KEYWORD))
