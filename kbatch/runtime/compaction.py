"""Periodic store compaction, as kube-apiserver does it (``storage/etcd3/compact.go``).

Every ``interval`` (5 minutes, kube-apiserver's ``--etcd-compaction-interval`` default) of the
control plane's clock, the compactor compacts the store to the revision it recorded at the
*previous* tick and records the current one: history is kept for at least one interval, so memory
stays bounded in long simulations while every watcher that is less than an interval behind keeps
its stream. In-process watchers (informers, the trace) are drained at every instant the loop
settles, so they are never that far behind; a remote watcher (``kbatch serve``) lagging by more
gets 410 Gone and relists, as against a real API server.

The loop calls the compactor once per ``run_until_idle`` (not per round); on a virtual clock a jump
over several ticks behaves as the ticks would have, since nothing is written during a jump.
"""

from __future__ import annotations

from typing import Any

from kbatch.runtime.clock import Clock

__all__ = ["COMPACTION_INTERVAL", "Compactor"]

COMPACTION_INTERVAL = 300.0


class Compactor:
    def __init__(self, store: Any, clock: Clock, interval: float = COMPACTION_INTERVAL) -> None:
        if interval <= 0:
            raise ValueError(f"compaction interval must be positive, got {interval}")
        self.store = store
        self.clock = clock
        self.interval = interval
        self.next_at = clock.now() + interval
        self.recorded: int | None = None  # the revision seen at the previous tick
        self.compactions = 0

    def __call__(self) -> None:
        now = self.clock.now()
        if now < self.next_at:
            return
        ticks = int((now - self.next_at) // self.interval) + 1
        self.next_at += ticks * self.interval
        current = self.store.revision
        # the first tick compacts to the previous record; any later one (same jump) to `current`
        target = current if ticks > 1 else self.recorded
        self.recorded = current
        if target is not None and target > self.store.compact_revision:
            self.store.compact(target)
            self.compactions += 1
