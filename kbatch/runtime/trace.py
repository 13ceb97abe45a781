"""The trace: every committed change as one canonical, diff-friendly line, and a digest of them all.

The trace watches the whole store (one watch over every key, from the revision it was created at)
and turns each committed write into a :class:`TraceRecord`::

    {"diff":{"spec":{"parallelism":2}},"kind":"Job.batch","name":"train","ns":"default",
     "rev":42,"t":"2025-01-01T00:00:05.000000Z","verb":"update"}

``diff`` is a JSON merge patch (RFC 7386) from the previous version of the object to this one:
the whole object for a create, ``null`` for a delete; ``metadata.resourceVersion`` is left out
(``rev`` says it). If compaction ever overtakes the trace's watch (it only can when the loop is not
run for more than the store's backlog of writes), a ``gap`` record says so and the trace resumes.

Reconcile failures are recorded too (``verb: "reconcile-error"``, the controller
as ``kind``), so back-off is visible in the same stream. Lines are JSON with sorted keys and no
spaces, so ``digest()`` is byte-for-byte stable across runs, processes and ``PYTHONHASHSEED`` values.
A line is the text ``json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
gives, built by a faster encoder (``trace_json.py``).

The digest chains the lines: ``d(0) = sha256(b"")``, ``d(n) = sha256(d(n-1) + line(n) + "\n")`` (hex of
the last), so its state is 32 bytes a saved control plane carries along (a continued CLI session
continues the same digest). The trace holds nothing per object: a change's previous version comes
with the watch event (``prev_kv``). It keeps its newest :data:`RETAINED` lines for ``lines()`` and
``records`` (compressed in blocks: ``trace_window.py``) and hands every line once to whoever
:meth:`Trace.drain`-s them (the CLI appends them to its trace file).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kbatch.api.base import format_micro_time
from kbatch.runtime import trace_json
from kbatch.runtime.clock import Clock
from kbatch.runtime.controller import ReconcileRecord
from kbatch.runtime.trace_window import UNBOUNDED, Window
from kbatch.store.kv import pending_batches

__all__ = ["NullTrace", "Trace", "TraceRecord", "chain", "merge_diff"]

_MISSING = object()


def merge_diff(old: Any, new: Any) -> Any:
    """The RFC 7386 merge patch that turns ``old`` into ``new`` (``None`` marks a removed key)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    out: dict[str, Any] = {}
    for key in old:
        if key not in new:
            out[key] = None
    for key, value in new.items():
        before = old.get(key, _MISSING)
        if before is _MISSING:
            out[key] = value
        elif before != value:
            out[key] = merge_diff(before, value)
    return out


@dataclass(frozen=True, slots=True)
class TraceRecord:
    rev: int
    t: str
    verb: str  # create | update | delete | reconcile-error
    kind: str
    ns: str
    name: str
    diff: Any

    def line(self) -> str:
        return self.encoded().decode()

    def encoded(self) -> bytes:
        """The line's UTF-8 bytes (what the digest chains)."""
        return trace_json.encode(
            {"rev": self.rev, "t": self.t, "verb": self.verb, "kind": self.kind, "ns": self.ns,
             "name": self.name, "diff": self.diff})


def _strip_rv(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "resourceVersion" in meta:
        obj = dict(obj)
        obj["metadata"] = {k: v for k, v in meta.items() if k != "resourceVersion"}
    return obj


def _kind_of(obj: dict[str, Any]) -> str:
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rpartition("/")[0]
    kind = str(obj.get("kind", "?"))
    return f"{kind}.{group}" if group else kind


def chain(lines: Iterable[str], start: bytes = hashlib.sha256(b"").digest()) -> bytes:
    """The trace digest's state after ``lines`` (module docstring), from ``start``."""
    state = start
    for line in lines:
        state = _link(state, line.encode())
    return state


def _link(state: bytes, line: bytes) -> bytes:
    return hashlib.sha256(state + line + b"\n").digest()


RETAINED = 100_000  # newest lines a trace keeps in memory (the digest covers every line)


class Trace:
    """Follows a store (``kbatch.store.KV``) and records each change; ``pump()`` is a loop source."""

    def __init__(self, kv: Any, clock: Clock, *, keep_records: bool = True, retained: int = RETAINED) -> None:
        self.clock = clock
        self.keep_records = keep_records
        self._lines = Window(retained if keep_records else 0)
        self._undrained = Window(UNBOUNDED)
        self.draining = False  # set by a consumer of drain() (the CLI): lines are kept until drained
        self._digest = hashlib.sha256(b"").digest()
        self._count = 0
        self._kv = kv
        self._notify: Any = None
        self._pending = True  # set by the watch's notify: a round with no write costs no poll
        self._watcher = self._watch(kv.revision + 1)

    def _watch(self, start: int) -> Any:
        watcher = self._kv.watch(b"\0", b"\0", start_revision=start, prev_kv=True)
        watcher.set_notify(self._changed)
        return watcher

    def _changed(self) -> None:
        """The watch's notify (``Watcher.set_notify``: it never stays silent while events wait, a
        cancellation included): poll at the next round, and wake whoever asked (:meth:`set_notify`)."""
        self._pending = True
        if self._notify is not None:
            self._notify()

    def pump(self) -> int:
        if not self._pending:
            return 0
        self._pending = False
        handled = 0
        try:
            for events in pending_batches(self._watcher):
                t = self._now()
                for event in events:
                    self._record_event(event, t)
                handled += len(events)
        except Exception as err:  # the store cancelled the watch (compaction overtook it)
            if type(err).__name__ not in ("CompactedError", "WatchCancelledError"):
                raise
            return handled + self._resync()
        return handled

    _stamp: tuple[float, str] = (float("nan"), "")  # (clock.now(), its text): one format per instant

    def _now(self) -> str:
        now = self.clock.now()
        if self._stamp[0] != now:
            self._stamp = (now, format_micro_time(self.clock.now_datetime()))
        return self._stamp[1]

    def _record_event(self, event: Any, t: str) -> None:
        kv, before = event.kv, event.prev_kv
        prev = _parsed(before.key, before.value) if before is not None else None
        if event.type.value == "DELETE":
            obj = prev or {}
            self._add(TraceRecord(kv.mod_revision, t, "delete", _kind_of(obj), _ns(obj), _name(obj, kv.key),
                                  None))
            return
        obj = _parsed(kv.key, kv.value)
        verb = "create" if prev is None else "update"
        diff = obj if prev is None else merge_diff(prev, obj)
        self._add(TraceRecord(kv.mod_revision, t, verb, _kind_of(obj), _ns(obj), _name(obj, kv.key), diff))

    def set_notify(self, fn: Any) -> None:
        """Wake ``fn`` when a change is committed (the real-clock loop wakes on any write)."""
        self._notify = fn
        if fn is not None and self._pending:
            fn()  # writes may be waiting already (as the watch's own set_notify would say)

    def _resync(self) -> int:
        """History we had not read was compacted away: record the gap, then follow from now on."""
        kv = self._kv
        self._watcher.close()
        rev = kv.revision
        self._add(TraceRecord(rev, self._now(), "gap", "", "", "", {"compactRevision": kv.compact_revision}))
        self._watcher = self._watch(rev + 1)
        return 1

    def note_reconcile(self, record: ReconcileRecord) -> None:
        """Record a reconcile failure (a ``ReconcileRecord`` observer)."""
        retry_in = None if record.retry_in is None else trace_json.exact(record.retry_in)
        diff = {"error": record.error, "outcome": record.outcome, "retryIn": retry_in}
        self._add(TraceRecord(self._kv.revision, self._now(), "reconcile-error", record.controller,
                              record.request.namespace, record.request.name, diff))

    def _add(self, record: TraceRecord) -> None:
        line = record.encoded()
        self._digest = _link(self._digest, line)
        self._count += 1
        self._lines.append(line)
        if self.draining:
            self._undrained.append(line)

    def __len__(self) -> int:
        return self._count

    def __getstate__(self) -> dict[str, Any]:
        """A saved trace keeps its digest, count and undrained lines, not its window of recent lines
        (whoever keeps the lines has drained them: the CLI's trace file)."""
        state = dict(self.__dict__)
        state["_lines"] = self._lines.empty_copy()
        return state

    def lines(self) -> list[str]:
        """The newest lines (at most :data:`RETAINED`; none with ``keep_records=False``)."""
        return self._lines.lines()

    @property
    def records(self) -> list[TraceRecord]:
        return [TraceRecord(**json.loads(line)) for line in self._lines.lines()]

    def drain(self) -> Window:
        """Every line recorded since the last drain (only while :attr:`draining` is set), kept
        compressed: ``.text()`` gives them block by block, ``.lines()`` as a list."""
        out, self._undrained = self._undrained, Window(UNBOUNDED)
        return out

    def digest(self) -> str:
        """The chained sha256 (hex) of every line recorded so far (module docstring)."""
        return self._digest.hex()

    def digest_state(self) -> bytes:
        return self._digest

    def continue_from(self, state: bytes) -> None:
        """Chain on from another trace's :meth:`digest_state` (a restarted control plane)."""
        self._digest = state

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines())

    def close(self) -> None:
        self._watcher.close()


class NullTrace:
    """The trace of ``ControlPlane(trace=False)``: no store watch, nothing decoded or hashed.

    ``digest()`` and ``lines()`` raise, so a run that asked for no trace cannot be mistaken for
    one whose trace is empty."""

    records: list[TraceRecord] = []
    draining = False  # (nothing is kept, so there is nothing to drain)

    def pump(self) -> int:
        return 0

    def set_notify(self, fn: Any) -> None:
        return None

    def note_reconcile(self, record: ReconcileRecord) -> None:
        return None

    def __len__(self) -> int:
        return 0

    def lines(self) -> list[str]:
        raise RuntimeError("the trace is disabled (ControlPlane(trace=False))")

    def digest(self) -> str:
        raise RuntimeError("the trace is disabled (ControlPlane(trace=False))")

    def digest_state(self) -> bytes:
        return b""

    def continue_from(self, state: bytes) -> None:
        return None

    def drain(self) -> Window:
        return Window(0)

    def text(self) -> str:
        raise RuntimeError("the trace is disabled (ControlPlane(trace=False))")

    def close(self) -> None:
        return None


def _parsed(key: bytes, value: bytes) -> dict[str, Any]:
    try:
        return _strip_rv(trace_json.parse(value))
    except ValueError:
        return {"kind": "?", "metadata": {"name": key.decode(errors="replace")},
                "sha256": hashlib.sha256(value).hexdigest()}


def _ns(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "")


def _name(obj: dict[str, Any], key: bytes) -> str:
    return str((obj.get("metadata") or {}).get("name") or key.decode(errors="replace"))
