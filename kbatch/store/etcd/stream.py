"""One etcd Watch stream shared by every watcher of a store (etcd ``api/v3rpc/watch.go``).

etcd multiplexes watches over one bidirectional gRPC stream: the client sends ``create_request`` /
``cancel_request`` messages, the server answers each create with a ``created`` response naming the
new ``watch_id`` (in the order the creates were sent) and then streams ``WatchResponse`` messages
tagged with that id: events, periodic progress notifications (no events, not created nor canceled),
or a cancellation (``compact_revision`` set when the start revision was compacted).

:class:`WatchStream` owns that stream and one daemon thread that reads it. Each response goes to the
:class:`Sink` registered for its ``watch_id``; when the stream ends (etcd down or restarted) every
sink is told ``on_broken()`` and forgotten, and the next ``create`` opens a new stream. Sinks are
called on the reader thread, one response at a time, in stream order; they must not block (in
particular they must not call :meth:`WatchStream.create`, whose answer that thread delivers).

The requested progress broadcast (``watch_id`` -1) is ignored: before etcd 3.4.24/3.5.8 it could
overtake events still queued for the stream (etcd-io/etcd#15220); the periodic per-watch progress
notifications are ordered with the events and are the ones used.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Iterator
from typing import Any, Protocol

import grpc
from pyetcd import etcdrpc

from kbatch.store.errors import StoreError, UnavailableError
from kbatch.store.etcd.rpc import Connection

__all__ = ["Sink", "WatchStream"]


class Sink(Protocol):
    def on_response(self, response: Any) -> None: ...

    def on_broken(self) -> None: ...


class _Create:
    __slots__ = ("abandoned", "done", "error", "revision", "sink", "watch_id")

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.done = threading.Event()
        self.watch_id = -1
        self.revision = 0
        self.error: StoreError | None = None
        self.abandoned = False


def _requests(q: queue.SimpleQueue[Any]) -> Iterator[Any]:
    while True:
        item = q.get()
        if item is None:
            return
        yield item


_READER_EXIT_TIMEOUT = 5.0  # seconds a closing stream waits for its reader (a cancelled call ends at once)


class WatchStream:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._requests: queue.SimpleQueue[Any] | None = None
        self._call: Any = None
        self._pending: deque[_Create] = deque()
        self._sinks: dict[int, Sink] = {}
        self._closed = False
        self._reader: threading.Thread | None = None

    def create(self, request: Any, sink: Sink) -> tuple[int, int]:
        """Register ``sink`` for a new watch; returns ``(watch_id, header revision)`` once etcd has
        created it. ``UnavailableError`` when etcd does not answer within the connection's timeout."""
        create = _Create(sink)
        with self._lock:
            if self._closed:
                raise UnavailableError("the etcd store is closed")
            if self._requests is None:
                self._open()
            assert self._requests is not None
            self._pending.append(create)
            self._requests.put(etcdrpc.WatchRequest(create_request=request))
        if not create.done.wait(self._conn.timeout):
            with self._lock:
                create.abandoned = True
            raise UnavailableError(f"etcd did not answer a watch request within {self._conn.timeout}s")
        if create.error is not None:
            raise create.error
        return create.watch_id, create.revision

    def cancel(self, watch_id: int) -> None:
        """Stop delivering ``watch_id`` (at once) and ask etcd to cancel it."""
        with self._lock:
            self._sinks.pop(watch_id, None)
            if self._requests is not None:
                self._requests.put(etcdrpc.WatchRequest(
                    cancel_request=etcdrpc.WatchCancelRequest(watch_id=watch_id)))

    def close(self) -> None:
        """Cancel the stream and wait (a bounded while) for its reader to end. The reader holds the
        call's lock while it takes a response; a daemon thread still reading when the interpreter
        exits is frozen, holding it, and the call's ``__del__`` (gRPC's ``_Rendezvous``, run by the
        last garbage collection) then waits for that lock forever: ``kbatch serve --etcd-servers``
        once hung after printing "stopped"."""
        with self._lock:
            self._closed = True
            call, self._call = self._call, None
            reader, self._reader = self._reader, None
            if self._requests is not None:
                self._requests.put(None)
        if call is not None:
            call.cancel()
        if reader is not None and reader is not threading.current_thread():
            reader.join(_READER_EXIT_TIMEOUT)

    # -- the reader thread ------------------------------------------------------------------------
    def _open(self) -> None:
        q: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._requests = q
        self._call = call = self._conn.watch.Watch(_requests(q))
        self._reader = threading.Thread(target=self._read, args=(call, q), name="kbatch-etcd-watch",
                                        daemon=True)
        self._reader.start()

    def _read(self, call: Any, q: queue.SimpleQueue[Any]) -> None:
        reason = "the watch stream ended"
        try:
            for response in call:
                self._dispatch(response)
        except grpc.RpcError as err:
            reason = f"the watch stream failed: {err.details() if hasattr(err, 'details') else err}"
        finally:
            with self._lock:
                if self._requests is q:
                    self._requests = None
                    self._call = None
                sinks, self._sinks = self._sinks, {}
                pending = list(self._pending)
                self._pending.clear()
            q.put(None)
            for create in pending:
                create.error = UnavailableError(f"etcd is unavailable: {reason}")
                create.done.set()
            for sink in sinks.values():
                sink.on_broken()

    def _dispatch(self, response: Any) -> None:
        if response.created:
            self._created(response)
            return
        watch_id = response.watch_id
        if watch_id < 0:
            return  # a requested progress broadcast: not ordered with events before etcd 3.4.24
        with self._lock:
            sink = self._sinks.pop(watch_id, None) if response.canceled else self._sinks.get(watch_id)
        if sink is not None:
            sink.on_response(response)

    def _created(self, response: Any) -> None:
        with self._lock:
            create = self._pending.popleft() if self._pending else None
            if create is None:
                return
            if response.canceled:
                create.error = StoreError(f"etcd refused the watch: {response.cancel_reason}")
            elif create.abandoned:
                if self._requests is not None:
                    self._requests.put(etcdrpc.WatchRequest(
                        cancel_request=etcdrpc.WatchCancelRequest(watch_id=response.watch_id)))
            else:
                self._sinks[response.watch_id] = create.sink
                create.watch_id = response.watch_id
                create.revision = response.header.revision
        create.done.set()
