"""Remote events handed to the manager's loop thread.

A worker reached over HTTP is watched by reader threads (:mod:`.watch_stream`), but MultiKueue's
controllers run on the manager's single loop thread, as every kbatch controller does. A reader posts
``(callback, argument)`` here; the manager's loop drains the inbox at every round (a
:class:`~kbatch.runtime.manager.Stepper`) and runs the callbacks there, in arrival order. Posting also
wakes a real-clock loop that is asleep until its next timer (``wake_threadsafe``); a virtual-clock
manager picks the events up at its next round. Upstream's counterpart is the buffered channels the
remote client's watch goroutines send on (``wlUpdateCh``, ``watchEndedCh`` in
kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/multikueuecluster.go``).

Registered on the manager only when the first HTTP worker connects: a manager with in-process
workers (deterministic, on the manager's clock) or none pays nothing per round.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["INBOX", "RemoteInbox", "Revivable"]

INBOX = "kueue-multikueue-remote-events"


def _no_wake() -> None:
    """A loop that is not running on a real clock needs no waking."""


class Revivable(Protocol):
    def revive(self) -> None:
        """After a restore: the watches this object held are gone; tell their owner."""
        ...


class RemoteInbox:
    """A thread-safe queue of callbacks, drained on the loop thread (``deque`` appends and pops are
    atomic in CPython)."""

    name = INBOX

    def __init__(self, wake: Callable[[], None] = _no_wake) -> None:
        self._items: deque[tuple[Callable[[Any], None], Any]] = deque()
        self._wake = wake
        self._watchers: list[Revivable] = []
        self._restored = False

    def post(self, callback: Callable[[Any], None], argument: Any) -> None:
        """From any thread."""
        self._items.append((callback, argument))
        self._wake()

    def register(self, watcher: Revivable) -> None:
        """A restored manager's HTTP watches are gone (threads do not survive a saved image): at the
        first round after a restore each registered watcher is revived."""
        self._watchers.append(watcher)

    def unregister(self, watcher: Revivable) -> None:
        self._watchers = [w for w in self._watchers if w is not watcher]

    def step(self) -> int:
        """On the loop thread: run what arrived, in order; how many ran."""
        done = 0
        if self._restored:
            self._restored = False
            for watcher in self._watchers:
                watcher.revive()
                done += 1
        items = self._items
        while items:
            callback, argument = items.popleft()
            callback(argument)
            done += 1
        return done

    def __getstate__(self) -> dict[str, Any]:
        """Events in flight belong to watches that a saved image does not keep."""
        return {"_items": deque(), "_wake": self._wake, "_watchers": self._watchers, "_restored": True}
