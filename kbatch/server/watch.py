"""Watch streams over HTTP: newline-delimited JSON events on a chunked 200 response.

As kube-apiserver (k8s.io/apiserver ``pkg/endpoints/handlers/watch.go``; api-concepts "Efficient
detection of changes"): events ``{"type", "object"}``; with ``allowWatchBookmarks`` an idle stream
gets ``BOOKMARK`` events carrying only ``metadata.resourceVersion``; a too-old ``resourceVersion``
yields one ``ERROR`` event whose object is a 410 ``Expired`` Status, then the stream ends;
``timeoutSeconds`` ends the stream cleanly. Every ending (timeout, 410, server shutdown, an internal
error, reported as an ``ERROR`` event) sends the last chunk of the chunked body; a client that went
away gets nothing more (:class:`_Response`). Streaming lists (``sendInitialEvents``, KEP-3157) are
rejected with 422 so clients fall back to list+watch (:mod:`kbatch.server.list_options`); so no
bookmark here carries ``k8s.io/initial-events-end`` (the store's watch adds it only when asked for
``send_initial_events``, as ``cacher.go`` setInitialEventsEndBookmarkIfRequested does).

Each stream is its own coroutine woken by the backend's notify hook: a slow client only blocks its
own ``send`` (events wait in its own watcher), and a vanished client is noticed through
``http.disconnect`` and its watcher closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from kbatch.api.errors import Expired, StatusError
from kbatch.api.wire_zeros import with_wire_zeros
from kbatch.server.backend import Backend, WatchOptions
from kbatch.server.handlers import encode_event
from kbatch.server.http import Request
from kbatch.server.list_options import validate_watch_request
from kbatch.server.routing import ResourcePath
from kbatch.server.table import build_table, sent_at, table_accepted

__all__ = ["BOOKMARK_INTERVAL", "DEFAULT_TIMEOUT", "EncodedEvents", "Shutdown", "serve_watch"]

log = logging.getLogger("kbatch.server")

BOOKMARK_INTERVAL = 10.0  # seconds of idleness before a bookmark (upstream: about a minute)
DEFAULT_TIMEOUT = 1800.0  # upstream's --min-request-timeout


class Shutdown:
    """Server shutdown as watch streams see it: a flag plus the wakers of open streams."""

    def __init__(self) -> None:
        self.closing = False
        self._wakers: set[Callable[[], None]] = set()

    def add(self, fn: Callable[[], None]) -> None:
        self._wakers.add(fn)

    def discard(self, fn: Callable[[], None]) -> None:
        self._wakers.discard(fn)

    def begin(self) -> None:
        self.closing = True
        for fn in list(self._wakers):
            fn()


class EncodedEvents:
    """Each change encoded once for all the plain-JSON watchers that receive it (a Table row holds
    an age relative to now, so Table watchers encode their own). Bounded, oldest out."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._lines: dict[tuple[Any, ...], bytes] = {}

    def line(self, event: dict[str, Any], transform: Transform, table: bool) -> bytes:
        obj = event.get("object") or {}
        meta = obj.get("metadata") or {}
        rv = meta.get("resourceVersion")
        if table or not rv or event.get("type") in ("ERROR", "BOOKMARK"):
            return encode_event(transform(event))
        key = (event["type"], obj.get("kind"), rv, meta.get("namespace"), meta.get("name"))
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = encode_event({**event, "object": with_wire_zeros(obj)})
            if len(self._lines) > self.size:
                del self._lines[next(iter(self._lines))]
        return line


Transform = Callable[[dict[str, Any]], dict[str, Any]]


def _rv(obj: dict[str, Any] | None, default: str = "") -> str:
    return ((obj or {}).get("metadata") or {}).get("resourceVersion", default)


def _transform(backend: Backend, req: Request, rp: ResourcePath) -> Transform:
    if not table_accepted(req.headers.get("accept", "")):
        return lambda event: event
    printer = rp.spec.table_printer
    include = req.param("includeObject") or "Metadata"
    opened = backend.now()

    def to_table(event: dict[str, Any]) -> dict[str, Any]:
        obj = event.get("object") or {}
        if event.get("type") in ("ERROR", "BOOKMARK"):
            return event
        if include == "Object":  # as a plain watch event carries it (EncodedEvents.line)
            obj = with_wire_zeros(obj)
        table = build_table([obj], printer, sent_at(backend, obj, opened),
                            include_object=include,  # type: ignore[arg-type]
                            list_metadata={"resourceVersion": _rv(obj)})
        return {"type": event["type"], "object": table}

    return to_table


async def serve_watch(backend: Backend, req: Request, rp: ResourcePath, send: Any, receive: Any,
                      shutdown: Shutdown | None = None, encoded: EncodedEvents | None = None) -> None:
    """Answer a watch request. Errors before the stream starts propagate (a plain ``Status``
    response); once the 200 is sent, every ending goes through :class:`_Response` (see there)."""
    validate_watch_request(req)
    opts = WatchOptions(label_selector=req.param("labelSelector"), field_selector=req.param("fieldSelector"),
                        resource_version=req.param("resourceVersion") or None,
                        allow_bookmarks=req.flag("allowWatchBookmarks"))
    transform = _transform(backend, req, rp)
    table = table_accepted(req.headers.get("accept", ""))
    timeout = float(req.int_param("timeoutSeconds") or DEFAULT_TIMEOUT)
    try:
        stream = backend.watch(rp.spec.info, rp.namespace, opts)
    except Expired as err:
        stream = None
        expired: StatusError | None = err
    else:
        expired = None
    response = _Response(send)
    await response.start()
    if expired is not None:
        await response.end(encode_event({"type": "ERROR", "object": expired.status.to_dict()}))
        return
    try:
        await _pump(stream, transform, response, receive, timeout, rp, bookmarks=opts.allow_bookmarks,
                    shutdown=shutdown or Shutdown(), table=table, encoded=encoded or EncodedEvents(),
                    start_rv="" if opts.resource_version in (None, "0") else str(opts.resource_version))
    except Exception as err:  # a bug while streaming: tell the client in the stream, keep serving
        log.exception("internal error in the watch of %s", req.path)
        await response.end(encode_event({"type": "ERROR", "object": _internal(err)}))
        return
    await response.end()


class _Response:
    """The chunked 200 of one watch, ended exactly once, always with the terminating chunk while the
    client is there (``http.response.body`` with ``more_body: False``; the server writes ``0\\r\\n\\r\\n``):
    at ``timeoutSeconds``, after a 410 ``ERROR`` event, at server shutdown, and after an internal
    error (reported as an ``ERROR`` event, as kube-apiserver's watch server reports its errors). A
    client that disconnected gets nothing more."""

    def __init__(self, send: Any) -> None:
        self._send = send
        self.gone = False
        self.ended = False

    async def start(self) -> None:
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-cache, private")]
        await self._send({"type": "http.response.start", "status": 200, "headers": headers})

    async def events(self, body: bytes) -> None:
        await self._send({"type": "http.response.body", "body": body, "more_body": True})

    async def end(self, body: bytes = b"") -> None:
        if self.ended or self.gone:
            return
        self.ended = True
        with contextlib.suppress(OSError):
            await self._send({"type": "http.response.body", "body": body, "more_body": False})


def _internal(err: Exception) -> dict[str, Any]:
    from kbatch.api.errors import InternalError

    return InternalError(f"an error on the server ({type(err).__name__}) has prevented the watch from "
                         "continuing").status.to_dict()


def _bookmark(rp: ResourcePath, rv: str) -> bytes:
    info = rp.spec.info
    return encode_event({"type": "BOOKMARK", "object": {"kind": info.kind, "apiVersion": info.api_version,
                                                         "metadata": {"resourceVersion": rv}}})


async def _pump(stream: Any, transform: Transform, response: _Response, receive: Any,
                timeout: float, rp: ResourcePath, *, bookmarks: bool, shutdown: Shutdown,
                table: bool, encoded: EncodedEvents, start_rv: str) -> None:
    """Send events until the stream ends: ``timeoutSeconds`` passed, an ``ERROR`` event was sent, the
    server is shutting down, or the client went away (``response.gone``). The caller ends the
    response."""
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()
    stream.set_notify(wake.set)
    shutdown.add(wake.set)

    async def disconnect() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        response.gone = True
        wake.set()

    watcher = asyncio.create_task(disconnect())
    deadline = loop.time() + timeout
    last_rv = start_rv  # what a bookmark carries until the first event
    try:
        while not response.gone and not shutdown.closing:
            wake.clear()
            try:
                events = stream.poll()
            except StatusError as err:
                events = [{"type": "ERROR", "object": err.status.to_dict()}]
            if events:
                last_rv = _rv(events[-1].get("object"), last_rv)
                await response.events(b"".join(encoded.line(e, transform, table) for e in events))
                if any(e.get("type") == "ERROR" for e in events):
                    break
                continue
            remaining = deadline - loop.time()
            if remaining <= 0:
                if bookmarks and last_rv:  # a last bookmark lets the client resume where it was
                    await response.events(_bookmark(rp, last_rv))
                break
            try:
                await asyncio.wait_for(wake.wait(), min(remaining, BOOKMARK_INTERVAL))
            except TimeoutError:
                if bookmarks and last_rv and deadline - loop.time() > 0:
                    await response.events(_bookmark(rp, last_rv))
    except OSError:
        response.gone = True  # the client went away mid-write
    finally:
        shutdown.discard(wake.set)
        stream.set_notify(None)
        stream.close()
        watcher.cancel()
