"""What a controller factory receives: everything a controller may use, passed explicitly.

A factory ``setup(ctx)`` declares its controller with ``ctx.build()`` (named after the catalog
entry) and reads through ``ctx.cache``, writes through ``ctx.client`` (whose writes are requested by
``ctx.user``, the catalog entry's identity: :mod:`kbatch.apiserver.identities`), takes time from
``ctx.clock``,
randomness from ``ctx.rng`` (its own stream, derived from the control-plane seed and the controller
name, so enabling another controller never changes this one's draws) and records Events with
``ctx.recorder``. ``ctx.options`` carries per-controller settings (e.g. pod GC's threshold),
``ctx.features`` the feature gates in force, ``ctx.registry`` the served kinds and
``ctx.composition`` the composed families (scheduler plugins, job integrations).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kbatch.api.features import FeatureGates
from kbatch.api.registry import Registry
from kbatch.apiserver.acting_client import ActingClient
from kbatch.apiserver.client import Client
from kbatch.apiserver.identities import UserInfo
from kbatch.apiserver.requester import LOCAL_ADMIN
from kbatch.families import Composition, builtin
from kbatch.runtime.builder import Builder
from kbatch.runtime.cache import Cache
from kbatch.runtime.clock import Clock
from kbatch.runtime.manager import Manager
from kbatch.runtime.metrics import MetricsRegistry
from kbatch.runtime.published import Published
from kbatch.runtime.recorder import Recorder
from kbatch.runtime.timers import TimerQueue

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ControllerContext"]


def _no_wake() -> None:
    """A context without a loop to wake (tests that build one by hand)."""


@dataclass
class ControllerContext:
    name: str
    client: Client
    cache: Cache
    clock: Clock
    rng: random.Random
    # core/v1's, or an EventsV1Recorder for a component declaring ControllerSpec.events
    recorder: Recorder
    manager: Manager
    timers: TimerQueue
    server: APIServer | None = None  # the in-process API server, for controllers that wrap its internals (GC)
    options: dict[str, Any] = field(default_factory=dict)
    metrics: MetricsRegistry = field(default_factory=MetricsRegistry)  # the control plane's (cp.metrics)
    composition: Composition = field(default_factory=builtin)
    features: FeatureGates = field(default_factory=lambda: builtin().feature_gates())
    registry: Registry = field(default_factory=lambda: builtin().registry())
    user: UserInfo = LOCAL_ADMIN  # who this controller's writes through ``client`` are requested by
    # wakes the control plane's loop from another thread (a remote watch's reader; Loop.wake_threadsafe)
    wake_threadsafe: Callable[[], None] = field(default=_no_wake)
    # what controllers publish for the API server's read-only views (cp.published): Kueue's queue
    # manager, which its visibility API reads as upstream's visibility server holds its pointer
    published: Published = field(default_factory=Published)

    def client_as(self, user: UserInfo) -> Client:
        """A client whose writes are ``user``'s (the kubelet's per-node ``system:node:<name>``); the
        shared client when there is no in-process API server to act on."""
        return ActingClient(self.server, user) if self.server is not None else self.client

    def build(self, name: str | None = None) -> Builder:
        """A controller builder named after this catalog entry (or ``name``)."""
        return self.manager.build(name or self.name)
