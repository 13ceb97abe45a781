"""Synced watchers, grouped by what they watch (etcd ``server/storage/mvcc/watcher_group.go``).

Watchers with the same ``(start, end, prev_kv)`` share one ``WatcherGroup``: a write is matched and
turned into an ``Event`` once per group, appended to the group's log, and each watcher keeps only a
cursor into that log. ``GroupIndex`` finds the groups a key falls in: a dict for single-key groups
(etcd's ``keyWatchers``) and a list scanned per write for range groups (etcd uses an interval tree;
the number of *distinct* watched ranges is small in practice, e.g. one prefix per resource type).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.store.kv import Event, KeyValue
from kbatch.store.records import make_event

if TYPE_CHECKING:
    from kbatch.store.watcher import MemoryWatcher

__all__ = ["GroupIndex", "GroupSpec", "WatcherGroup"]

GroupSpec = tuple[bytes, "bytes | None", bool]
"""``(start, end, prev_kv)``: ``end is None`` is unbounded."""

TRIM_EVERY = 1024
"""Most appends between two trims of a group's log (a trim costs one pass over the group's watchers);
fewer when the store's ``max_backlog`` is smaller, so that the bound is checked in time."""


class WatcherGroup:
    """Events for one watched range since the slowest member's cursor.

    ``log[i]`` has absolute position ``base + i``; a member's ``cursor`` is the absolute position of
    its next event, so ``cursor - base`` indexes ``log``. ``idle`` lists members that asked to be
    notified and have nothing pending: the next append wakes them all.
    """

    __slots__ = ("base", "end", "idle", "log", "members", "prev_kv", "start", "trim_at", "trim_every")

    def __init__(self, spec: GroupSpec, trim_every: int) -> None:
        self.start, self.end, self.prev_kv = spec
        self.log: list[Event] = []
        self.base = 0
        self.members: dict[int, MemoryWatcher] = {}
        self.idle: list[MemoryWatcher] = []
        self.trim_every = trim_every
        self.trim_at = trim_every

    @property
    def spec(self) -> GroupSpec:
        return (self.start, self.end, self.prev_kv)

    @property
    def head(self) -> int:
        """Absolute position after the last event."""
        return self.base + len(self.log)

    def wake(self) -> None:
        """Notify every idle member (called once per committed transaction that touched the group)."""
        idle, self.idle = self.idle, []
        for w in idle:
            fn = w.notify_fn
            if w.idle and w.group is self and fn is not None:
                w.idle = False
                fn()

    def trim(self, max_backlog: int) -> list[MemoryWatcher]:
        """Drop log entries every member has read. Members more than ``max_backlog`` events behind
        are removed and returned: the caller moves them to the unsynced set."""
        head = self.head
        evicted = [w for w in self.members.values() if head - w.cursor > max_backlog]
        for w in evicted:
            del self.members[w.id]
        low = min((w.cursor for w in self.members.values()), default=head)
        del self.log[: low - self.base]
        self.base = low
        self.trim_at = len(self.log) + self.trim_every
        return evicted


class GroupIndex:
    """Finds the groups whose range contains a key."""

    __slots__ = ("by_spec", "exact", "ranges", "trim_every")

    def __init__(self, trim_every: int = TRIM_EVERY) -> None:
        self.trim_every = trim_every
        self.by_spec: dict[GroupSpec, WatcherGroup] = {}
        self.exact: dict[bytes, list[WatcherGroup]] = {}
        self.ranges: list[WatcherGroup] = []

    def get_or_create(self, spec: GroupSpec) -> WatcherGroup:
        g = self.by_spec.get(spec)
        if g is None:
            g = self.by_spec[spec] = WatcherGroup(spec, self.trim_every)
            start, end, _ = spec
            if end is not None and end == start + b"\0":
                self.exact.setdefault(start, []).append(g)
            else:
                self.ranges.append(g)
        return g

    def remove(self, g: WatcherGroup) -> None:
        del self.by_spec[g.spec]
        same = self.exact.get(g.start)
        if same is not None and g in same:
            same.remove(g)
            if not same:
                del self.exact[g.start]
        elif g in self.ranges:
            self.ranges.remove(g)

    def fan_out(self, changes: list[KeyValue], prevs: list[KeyValue | None]) -> list[WatcherGroup]:
        """Append one event per (write, matching group); return the groups touched, in order."""
        touched: dict[int, WatcherGroup] = {}
        exact, ranges = self.exact, self.ranges
        for kv, prev in zip(changes, prevs, strict=True):
            key = kv.key
            for g in exact.get(key, ()):
                g.log.append(make_event(kv, prev if g.prev_kv else None))
                touched[id(g)] = g
            for g in ranges:
                end = g.end
                if g.start <= key and (end is None or key < end):
                    g.log.append(make_event(kv, prev if g.prev_kv else None))
                    touched[id(g)] = g
        return list(touched.values())
