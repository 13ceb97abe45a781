"""The base work queue: fair, stingy, re-add while processing (client-go ``util/workqueue/queue.go``).

Three collections hold every item the queue knows::

    queue       FIFO order of items waiting to be handed out
    dirty       items that need processing (everything in ``queue``, plus items re-added while
                being processed)
    processing  items handed out by ``get`` and not yet ``done``

Invariant (checked by :meth:`Queue.check_invariants`): every item in ``queue`` is in ``dirty`` and
not in ``processing``; ``queue`` holds no duplicates; an item that is dirty but not in ``queue`` is
being processed. Consequences, the guarantees client-go documents:

* *fair*: items are handed out in the order they were first added;
* *stingy*: an item is never handed out twice at once, and adding an item that is already waiting
  does nothing (duplicate adds collapse);
* an item added while it is processed is marked dirty and queued again by ``done``;
* after ``shutdown`` adds are ignored and ``get`` returns ``None`` once the queue is empty.

kbatch runs one loop, so ``get`` never blocks: it returns ``None`` when nothing is ready.
The sets are for membership only; order always comes from the deque.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["Queue"]

T = TypeVar("T", bound=Hashable)


class Queue(Generic[T]):
    def __init__(self, name: str = "") -> None:
        self.name = name
        self._queue: deque[T] = deque()
        self._dirty: set[T] = set()
        self._processing: set[T] = set()
        self._shutting_down = False

    def add(self, item: T) -> None:
        """Mark ``item`` as needing processing (no-op if it already waits or after shutdown)."""
        if self._shutting_down or item in self._dirty:
            return
        self._dirty.add(item)
        if item in self._processing:
            return  # re-queued by done()
        self._queue.append(item)

    def get(self) -> T | None:
        """Hand out the oldest waiting item, or ``None`` if nothing is waiting."""
        if not self._queue:
            return None
        item = self._queue.popleft()
        self._processing.add(item)
        self._dirty.discard(item)
        return item

    def done(self, item: T) -> None:
        """Processing of ``item`` finished; queue it again if it was re-added meanwhile."""
        self._processing.discard(item)
        if item in self._dirty:
            self._queue.append(item)

    def __len__(self) -> int:
        """Items waiting to be handed out (client-go ``Len``)."""
        return len(self._queue)

    def is_processing(self, item: T) -> bool:
        return item in self._processing

    def is_dirty(self, item: T) -> bool:
        return item in self._dirty

    @property
    def processing_count(self) -> int:
        return len(self._processing)

    def shutdown(self) -> None:
        self._shutting_down = True

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if the three-collection invariant is broken."""
        queued = list(self._queue)
        assert len(queued) == len(set(queued)), f"duplicate items in queue: {queued}"
        for item in queued:
            assert item in self._dirty, f"{item!r} queued but not dirty"
            assert item not in self._processing, f"{item!r} queued while processing"
        waiting = set(queued)
        for item in self._dirty:
            assert item in waiting or item in self._processing, f"{item!r} dirty but lost"
