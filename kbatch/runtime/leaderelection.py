"""Leader election on a ``coordination.k8s.io/v1`` Lease: which process runs the controllers.

Several ``kbatch serve`` processes on one etcd all serve the API; only the one holding the Lease
``kube-system/kube-controller-manager`` runs the controllers, as with kube-controller-manager's
``--leader-elect``. The semantics are client-go's ``tools/leaderelection`` (``leaderelection.go``,
``resourcelock/leaselock.go``), with kube-controller-manager's defaults (``--leader-elect-lease-duration``
15 s, ``--leader-elect-renew-deadline`` 10 s, ``--leader-elect-retry-period`` 2 s):

1. **try to acquire or renew** (:meth:`LeaderElector.try_acquire_or_renew`): read the Lease; create it
   if there is none. A record that changed since the last read is *observed* now (the local clock,
   never the holder's ``renewTime``, so clocks need not agree). Another holder's lease is respected
   until ``leaseDuration`` has passed since it was last observed to change. Otherwise write our
   record (``holderIdentity``, ``leaseDurationSeconds``, ``acquireTime`` kept while we hold it,
   ``renewTime`` = now, ``leaseTransitions`` + 1 on a change of holder) as an update guarded by the
   read's resourceVersion: of two candidates, one gets 409 Conflict and stays a follower.
2. **acquire**: try every ``retryPeriod`` (jittered by up to ``JITTER_FACTOR``) until it succeeds.
3. **renew**: while leading, try every ``retryPeriod``; when no try succeeded for ``renewDeadline``,
   leadership is lost. Since ``renewDeadline < leaseDuration``, the old leader has stopped before any
   other candidate may take the Lease (15 s after it last saw it change).
4. **release** on a clean shutdown: an update with an empty holder and a 1 s lease, so a successor
   starts at once instead of waiting out the lease (``ReleaseOnCancel``).

The elector runs on its own thread with its own API client, so a busy control loop never delays a
renewal; its callbacks are handed to the asyncio loop with ``call_soon_threadsafe``.
:func:`run_while_leading` is the gate: it runs the control plane's loop while this process leads
and cancels it when leadership is lost; after a loss the process campaigns again (upstream's
kube-controller-manager exits and is restarted instead; ``kbatch serve`` keeps serving the API).
As client-go warns, leader election is not fencing: a leader that stalls past the lease (a paused
process) may finish the reconcile it was in when it wakes, before it notices the loss.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

import anyio

from kbatch.api.coordination_v1 import Lease, LeaseSpec
from kbatch.api.errors import AlreadyExists, Conflict, NotFound, StatusError
from kbatch.api.frozen import edit
from kbatch.runtime.clock import Clock
from kbatch.store.errors import StoreError

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack is Python 3.12+

__all__ = [
    "JITTER_FACTOR",
    "LeaderElectionConfig",
    "LeaderElector",
    "LeaseRecord",
    "LeaseTiming",
    "control_plane_elector",
    "next_record",
    "run_while_leading",
]

log = logging.getLogger("kbatch.runtime.leaderelection")

JITTER_FACTOR = 1.2
"""client-go's ``JitterFactor``: an acquire attempt waits ``retryPeriod * (1 + rand * 1.2)``."""


class LeaseTiming(TypedDict, total=False):
    """The durations of :class:`LeaderElectionConfig` (seconds) that a caller may override."""

    lease_duration: float
    renew_deadline: float
    retry_period: float


@dataclass(frozen=True, slots=True)
class LeaderElectionConfig:
    """kube-controller-manager's defaults (``componentbaseconfig.LeaderElectionConfiguration``)."""

    identity: str
    namespace: str = "kube-system"
    name: str = "kube-controller-manager"
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0

    def __post_init__(self) -> None:
        # client-go NewLeaderElector's checks
        if not self.identity:
            raise ValueError("leader election requires a non-empty identity")
        if self.lease_duration <= self.renew_deadline:
            raise ValueError("leaseDuration must be greater than renewDeadline")
        if self.renew_deadline <= JITTER_FACTOR * self.retry_period:
            raise ValueError("renewDeadline must be greater than retryPeriod*JitterFactor")
        if min(self.lease_duration, self.renew_deadline, self.retry_period) <= 0:
            raise ValueError("leaseDuration, renewDeadline and retryPeriod must be positive")


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    """client-go's ``LeaderElectionRecord``, as a Lease spec holds it."""

    holder: str
    lease_duration: int
    acquire_time: datetime | None
    renew_time: datetime | None
    transitions: int

    @classmethod
    def of(cls, lease: Lease) -> LeaseRecord:
        spec = lease.spec
        return cls(spec.holder_identity or "", spec.lease_duration_seconds or 0, spec.acquire_time,
                   spec.renew_time, spec.lease_transitions or 0)

    def spec(self) -> LeaseSpec:
        return LeaseSpec(holder_identity=self.holder or None, lease_duration_seconds=self.lease_duration,
                         acquire_time=self.acquire_time, renew_time=self.renew_time,
                         lease_transitions=self.transitions)


def next_record(old: LeaseRecord | None, observed_at: float, now: float, wall: datetime,
                config: LeaderElectionConfig) -> LeaseRecord | None:
    """The record to write on a try to acquire or renew, or ``None`` when another holder's lease is
    still valid (step 1 of the module docstring). ``observed_at`` is when ``old`` was last seen to
    change, on the local clock."""
    duration = round(config.lease_duration)
    ours = old is not None and old.holder == config.identity
    if old is not None and old.holder and not ours and observed_at + old.lease_duration > now:
        return None
    if old is None:
        return LeaseRecord(config.identity, duration, wall, wall, 0)
    if ours:
        return LeaseRecord(config.identity, duration, old.acquire_time, wall, old.transitions)
    return LeaseRecord(config.identity, duration, wall, wall, old.transitions + 1)


class LeaderElector:
    """One candidate. ``client`` is an API client the elector's thread alone uses."""

    def __init__(self, client: Any, clock: Clock, config: LeaderElectionConfig,
                 rng: random.Random | None = None) -> None:
        self.client = client
        self.clock = clock
        self.config = config
        self.rng = rng if rng is not None else random.Random(config.identity)
        self.observed: LeaseRecord | None = None
        self.observed_at = 0.0  # local clock time the observed record last changed
        self._version: str | None = None  # resourceVersion of the observed Lease
        self.transitions_seen = 0

    @property
    def is_leader(self) -> bool:
        return self.observed is not None and self.observed.holder == self.config.identity

    def try_acquire_or_renew(self) -> bool:
        """One try (client-go ``tryAcquireOrRenew``); ``False`` on any API or store failure."""
        cfg = self.config
        now, wall = self.clock.now(), self.clock.now_datetime()
        try:
            lease = self.client.get(Lease, cfg.name, cfg.namespace)
        except NotFound:
            return self._write(None, next_record(None, now, now, wall, cfg), now)
        except (StatusError, StoreError) as err:
            log.info("leader election: cannot read lease %s/%s: %s", cfg.namespace, cfg.name, err)
            return False
        old = LeaseRecord.of(lease)
        if old != self.observed or lease.metadata.resource_version != self._version:
            self.observed, self.observed_at = old, now
            self._version = lease.metadata.resource_version
        record = next_record(old, self.observed_at, now, wall, cfg)
        if record is None:
            return False
        return self._write(lease, record, now)

    def _write(self, lease: Lease | None, record: LeaseRecord | None, now: float) -> bool:
        assert record is not None
        cfg = self.config
        try:
            if lease is None:
                fresh = Lease.model_validate({"metadata": {"name": cfg.name, "namespace": cfg.namespace}})
                fresh.spec = record.spec()
                written = self.client.create(fresh)
            else:
                lease = edit(lease)
                lease.spec = record.spec()
                written = self.client.update(lease)
        except (AlreadyExists, Conflict):
            return False  # another candidate wrote first
        except (StatusError, StoreError) as err:
            log.info("leader election: cannot write lease %s/%s: %s", cfg.namespace, cfg.name, err)
            return False
        self.observed, self.observed_at = record, now
        self._version = written.metadata.resource_version
        return True

    def release(self) -> bool:
        """Give the Lease up (client-go ``release``): empty holder, 1 s lease."""
        if not self.is_leader:
            return True
        assert self.observed is not None
        wall = self.clock.now_datetime()
        record = LeaseRecord("", 1, wall, wall, self.observed.transitions)
        try:
            lease = self.client.get(Lease, self.config.name, self.config.namespace)
            if LeaseRecord.of(lease).holder != self.config.identity:
                return False
            lease = edit(lease)
            lease.spec = record.spec()
            self.client.update(lease)
        except (StatusError, StoreError) as err:
            log.info("leader election: cannot release the lease: %s", err)
            return False
        self.observed = record
        return True

    # -- the thread ----------------------------------------------------------------------------------
    def run(self, stop: threading.Event, on_started: Callable[[], None],
            on_stopped: Callable[[], None]) -> None:
        """Campaign, lead, and campaign again after a loss, until ``stop`` is set; then release."""
        cfg = self.config
        while not stop.is_set():
            if not self.try_acquire_or_renew():  # acquire: jittered retries
                stop.wait(cfg.retry_period * (1 + self.rng.random() * JITTER_FACTOR))
                continue
            log.info("leader election: %s became the leader of %s/%s", cfg.identity, cfg.namespace, cfg.name)
            on_started()
            self._renew(stop)
            log.info("leader election: %s stopped leading", cfg.identity)
            on_stopped()
        self.release()

    def _renew(self, stop: threading.Event) -> None:
        """Renew every retry period; return when ``stop`` is set or no renewal succeeded for the
        renew deadline (client-go ``renew``)."""
        cfg = self.config
        last = self.clock.now()
        while not stop.wait(cfg.retry_period):
            if self.try_acquire_or_renew():
                last = self.clock.now()
            elif not self.is_leader or self.clock.now() - last >= cfg.renew_deadline:
                return


async def run_while_leading(run: Callable[[], Awaitable[None]], elector: LeaderElector, *,
                            restart_delay: float | None = None) -> None:
    """Run ``run()`` (the control plane's loop) exactly while ``elector`` leads; cancel it when
    leadership is lost and start it again when it is regained. A ``run()`` that fails (e.g. the store
    became unreachable mid-round) is logged and started again after ``restart_delay`` (the retry
    period) if this process still leads. Cancelling this coroutine stops campaigning and releases
    the Lease."""
    loop = asyncio.get_running_loop()
    leading = anyio.Event()
    lost = anyio.Event()
    state = {"leading": False}

    def started() -> None:
        state["leading"] = True
        leading.set()

    def stopped() -> None:
        state["leading"] = False
        lost.set()

    stop = threading.Event()
    thread = threading.Thread(
        target=elector.run, name="kbatch-leader-election", daemon=True,
        args=(stop, lambda: loop.call_soon_threadsafe(started), lambda: loop.call_soon_threadsafe(stopped)))
    thread.start()
    delay = elector.config.retry_period if restart_delay is None else restart_delay
    try:
        while True:
            await leading.wait()
            leading = anyio.Event()
            if not state["leading"]:
                continue
            lost = anyio.Event()
            await _lead(run, lost, delay, state)
    finally:
        stop.set()
        with anyio.CancelScope(shield=True):  # let the elector release the Lease before we return
            await anyio.to_thread.run_sync(thread.join, 30)


async def _lead(run: Callable[[], Awaitable[None]], lost: anyio.Event, delay: float,
                state: dict[str, bool]) -> None:
    """Run ``run`` until ``lost`` is set; restart it after a failure while still leading."""
    async with anyio.create_task_group() as tg:
        async def watch_loss() -> None:
            await lost.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(watch_loss)
        while state["leading"]:
            try:
                await run()
                break
            except Exception:  # the loop failed (the store went away mid-round): start it again
                log.exception("the control loop failed; restarting it in %.1fs while leading", delay)
                await anyio.sleep(delay)
        tg.cancel_scope.cancel()


def control_plane_elector(control_plane: Any, identity: str, **timing: Unpack[LeaseTiming]) -> LeaderElector:
    """An elector for ``control_plane``'s store, through an API server instance of its own (the
    elector's thread is its only user), on the control plane's clock. ``timing`` overrides
    ``lease_duration``, ``renew_deadline`` and ``retry_period``."""
    from kbatch.apiserver import APIServer

    server = APIServer(control_plane.store, control_plane.registry, now=control_plane.clock.now_datetime,
                       rng=random.Random(identity), bootstrap=False)
    config = LeaderElectionConfig(identity=identity, **timing)
    return LeaderElector(server.client(), control_plane.clock, config)
