"""What a controller factory receives: everything a controller may use, passed explicitly.

A factory ``setup(ctx)`` declares its controller with ``ctx.build()`` (named after the catalog
entry) and reads through ``ctx.cache``, writes through ``ctx.client``, takes time from ``ctx.clock``,
randomness from ``ctx.rng`` (its own stream, derived from the control-plane seed and the controller
name, so enabling another controller never changes this one's draws) and records Events with
``ctx.recorder``. ``ctx.options`` carries per-controller settings (e.g. pod GC's threshold).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from kbatch.runtime.builder import Builder
from kbatch.runtime.cache import Cache
from kbatch.runtime.clock import Clock
from kbatch.runtime.events import EventRecorder
from kbatch.runtime.manager import Manager
from kbatch.runtime.metrics import MetricsRegistry
from kbatch.runtime.timers import TimerQueue

__all__ = ["ControllerContext"]


@dataclass
class ControllerContext:
    name: str
    client: Any  # kbatch.apiserver.client.Client
    cache: Cache
    clock: Clock
    rng: random.Random
    recorder: EventRecorder
    manager: Manager
    timers: TimerQueue
    server: Any = None  # the in-process API server, for controllers that wrap its internals (GC)
    options: dict[str, Any] = field(default_factory=dict)
    metrics: MetricsRegistry = field(default_factory=MetricsRegistry)  # the control plane's (cp.metrics)

    def build(self, name: str | None = None) -> Builder:
        """A controller builder named after this catalog entry (or ``name``)."""
        return self.manager.build(name or self.name)
