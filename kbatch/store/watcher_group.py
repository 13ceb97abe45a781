"""Synced watchers, grouped by what they watch (etcd ``server/storage/mvcc/watcher_group.go``).

Watchers with the same ``(start, end, prev_kv)`` share one ``WatcherGroup``: a write is matched and
turned into an ``Event`` once per group, appended to the group's log, and each watcher keeps only a
cursor into that log. ``GroupIndex`` finds the groups a key falls in: a dict for single-key groups
(etcd's ``keyWatchers``), a dict per watched prefix length for prefix groups (the usual watch: one
per resource type or namespace), and a scan for any other range (etcd keeps ranges in an interval
tree; arbitrary non-prefix range watches are rare).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.store.kv import Event, KeyValue, prefix_end
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

    def all_read(self) -> bool:
        """Whether every member has read every event in the log."""
        head = self.head
        return all(w.cursor == head for w in self.members.values())

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
    """Finds the groups whose range contains a key: single-key groups by a dict lookup of the key,
    prefix groups (``end == prefix_end(start)``, the common watch) by a dict lookup of the key's
    first ``n`` bytes for each distinct watched prefix length ``n``, other ranges by a scan."""

    __slots__ = ("by_head", "by_spec", "exact", "prefix_lengths", "prefixes", "ranges", "shortest",
                 "trim_every")

    def __init__(self, trim_every: int = TRIM_EVERY) -> None:
        self.trim_every = trim_every
        self.by_spec: dict[GroupSpec, WatcherGroup] = {}
        self.exact: dict[bytes, list[WatcherGroup]] = {}
        self.prefixes: dict[bytes, list[WatcherGroup]] = {}
        self.prefix_lengths: dict[int, int] = {}  # prefix length -> number of prefix groups with it
        self.ranges: list[WatcherGroup] = []
        # Every watched prefix is at least ``shortest`` bytes long, so a key can only be in the
        # prefix groups filed under its first ``shortest`` bytes: ``by_head`` maps that head to
        # prefix length -> prefix -> groups (one dict lookup skips the other resources' lengths).
        self.shortest = 0
        self.by_head: dict[bytes, dict[int, dict[bytes, list[WatcherGroup]]]] = {}

    def _changed(self) -> None:
        """Refile the prefix groups by head (groups come and go rarely: per watched range)."""
        self.shortest = shortest = min(self.prefix_lengths, default=0)
        by_head: dict[bytes, dict[int, dict[bytes, list[WatcherGroup]]]] = {}
        for n in self.prefix_lengths:  # lengths in the order they were first watched, as before
            for prefix, groups in self.prefixes.items():
                if len(prefix) == n:
                    by_head.setdefault(prefix[:shortest], {}).setdefault(n, {})[prefix] = groups
        self.by_head = by_head

    @staticmethod
    def _kind(start: bytes, end: bytes | None) -> str:
        if end is None:
            return "range"
        if end == start + b"\0":
            return "exact"
        return "prefix" if end == prefix_end(start) else "range"

    def get_or_create(self, spec: GroupSpec) -> WatcherGroup:
        g = self.by_spec.get(spec)
        if g is None:
            g = self.by_spec[spec] = WatcherGroup(spec, self.trim_every)
            kind = self._kind(g.start, g.end)
            if kind == "exact":
                self.exact.setdefault(g.start, []).append(g)
            elif kind == "prefix":
                self.prefixes.setdefault(g.start, []).append(g)
                n = len(g.start)
                self.prefix_lengths[n] = self.prefix_lengths.get(n, 0) + 1
            else:
                self.ranges.append(g)
            self._changed()
        return g

    def remove(self, g: WatcherGroup) -> None:
        del self.by_spec[g.spec]
        self._remove(g)
        self._changed()

    def _remove(self, g: WatcherGroup) -> None:
        kind = self._kind(g.start, g.end)
        if kind == "range":
            self.ranges.remove(g)
            return
        buckets = self.exact if kind == "exact" else self.prefixes
        same = buckets[g.start]
        same.remove(g)
        if not same:
            del buckets[g.start]
        if kind == "prefix":
            n = len(g.start)
            self.prefix_lengths[n] -= 1
            if not self.prefix_lengths[n]:
                del self.prefix_lengths[n]

    def matching(self, key: bytes) -> list[WatcherGroup]:
        """Every group whose range contains ``key`` (each once: a group is filed under one kind)."""
        exact = self.exact.get(key)
        found = list(exact) if exact else []
        lengths = self.by_head.get(key[: self.shortest]) if self.by_head else None
        if lengths is not None:
            for n, by_prefix in lengths.items():
                groups = by_prefix.get(key[:n])
                if groups:
                    found.extend(groups)
        for g in self.ranges:
            if g.start <= key and (g.end is None or key < g.end):
                found.append(g)
        return found

    def fan_out(self, changes: list[KeyValue], prevs: list[KeyValue | None]) -> list[WatcherGroup]:
        """Append one event per (write, matching group); return the groups touched, in order."""
        if len(changes) == 1:  # the usual transaction: the matching groups are the touched ones
            kv, prev = changes[0], prevs[0]
            found = self.matching(kv.key)
            for g in found:
                g.log.append(make_event(kv, prev if g.prev_kv else None))
            return found
        touched: dict[int, WatcherGroup] = {}
        matching = self.matching
        for kv, prev in zip(changes, prevs, strict=True):
            for g in matching(kv.key):
                g.log.append(make_event(kv, prev if g.prev_kv else None))
                touched[id(g)] = g
        return list(touched.values())
