"""One streaming watch of a worker's objects over HTTP: list, then watch from the list's
resourceVersion, resumed where it stopped.

The Kubernetes watch protocol (``GET …?watch=true&resourceVersion=RV&allowWatchBookmarks=true``, one
JSON event ``{"type", "object"}`` per line; kubernetes.io/docs/reference/using-api/api-concepts
"Efficient detection of changes", kubernetes/apimachinery ``pkg/watch``), spoken by ``kbatch serve``
and by real API servers alike. Upstream Kueue's remote client
(kubernetes-sigs/kueue v0.19.2 ``multikueuecluster.go``: ``establishWatch``, ``consumeWatch``,
``handleWatchEvent``) opens a controller-runtime watch on the labelled objects with bookmarks,
queues the manager's Workload of each ``ADDED``/``MODIFIED``/``DELETED`` object, logs ``ERROR`` events
and, when the stream ends, marks the worker disconnected (``watchEndedCh``) so the cluster reconciler
reconnects it with back-off.

Here, as client-go's reflector does (``tools/cache/reflector.go``): the stream is opened before the
worker counts as connected (a refusal is :class:`~.remote.ConnectionFailed`); the objects listed first
are reported as ``ADDED`` (what a watch without a resourceVersion sends); a ``BOOKMARK`` or an event
moves the resourceVersion on; a stream the server ends cleanly (``timeoutSeconds``) or that stays
silent past the read timeout is resumed from that resourceVersion without a gap (a second later
when it brought no event at all); a ``410 Gone``
(``ERROR`` event or response) relists and reports what changed meanwhile, objects gone included,
then watches from the new list. Only a transport failure or another error response ends the watch
(``on_lost``), as a dropped stream does upstream. Each change is reported as a
:class:`~.remote.WatchEvent` typed against the objects known so far, as an informer types what its
reflector brings (client-go ``tools/cache/controller.go`` ``processDeltas``: a known object's change is
an update carrying the old state, an unknown one's an add); upstream's queue watchers are such
informer handlers (``startQueueWatchers``). Events are posted to the manager's
:class:`~.inbox.RemoteInbox`; the reader is a daemon thread, stopped by :meth:`WatchStream.stop`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from kbatch.api.meta import Resource
from kbatch.api.rest_paths import resource_path
from kbatch.controllers.kueue.multikueue.remote import ADDED, DELETED, MODIFIED, ConnectionFailed, WatchEvent

if TYPE_CHECKING:
    import httpx

    from kbatch.controllers.kueue.multikueue.inbox import RemoteInbox

__all__ = ["READ_TIMEOUT", "WATCH_TIMEOUT", "Gone", "WatchStream"]

log = logging.getLogger("kbatch.kueue.multikueue")
WATCH_TIMEOUT = 300  # timeoutSeconds asked of the server (client-go: minWatchTimeout 5m, jittered)
READ_TIMEOUT = 120.0  # silence longer than this (bookmarks come every minute or less) resumes the stream
EMPTY_STREAM_PAUSE = 1.0  # before reopening a stream that ended without an event (client-go backs off too)
Key = tuple[str, str]


class Gone(Exception):
    """The resourceVersion is too old (HTTP 410, reason ``Expired``/``Gone``): relist."""


def _rv(obj: Resource) -> str:
    return obj.metadata.resource_version or ""


def _key(obj: Resource) -> Key:
    return (obj.metadata.namespace or "", obj.metadata.name or "")


class WatchStream:
    """The watch of one kind's objects carrying ``selector`` on one worker."""

    def __init__(
        self,
        http: httpx.Client,
        kind: type[Resource],
        selector: str,
        inbox: RemoteInbox,
        on_event: Callable[[WatchEvent], None],
        on_lost: Callable[[object], None],
    ) -> None:
        self.http, self.kind, self.selector, self.inbox = http, kind, selector, inbox
        self.on_event, self.on_lost = on_event, on_lost
        self.path = resource_path(kind.api_info, None)
        self.known: dict[Key, Resource] = {}
        self.rv = ""
        self._response: httpx.Response | None = None
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    # -- on the manager's thread -------------------------------------------------------------------
    def start(self) -> None:
        """List, open the stream, report the listed objects, and start reading; raises
        :class:`ConnectionFailed` when the worker cannot be listed or watched."""
        try:
            self._relist()
            self._response = self._open()
        except Gone as err:  # the list's own resourceVersion already compacted: count it as a failure
            raise ConnectionFailed(f"watch {self.path}: {err}") from None
        self._thread = threading.Thread(target=self._run, name=f"multikueue-watch{self.path}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        response = self._response
        if response is not None:
            with contextlib.suppress(Exception):
                response.close()

    # -- HTTP --------------------------------------------------------------------------------------
    def _request(self, params: dict[str, str], *, stream: bool) -> httpx.Response:
        import httpx

        request = self.http.build_request("GET", self.path, params={"labelSelector": self.selector, **params})
        if stream:
            request.extensions["timeout"] = httpx.Timeout(10.0, read=READ_TIMEOUT).as_dict()
        try:
            response = self.http.send(request, stream=stream)
        except httpx.HTTPError as err:
            raise ConnectionFailed(f"GET {self.http.base_url}{self.path}: {err}") from None
        if response.status_code == 410:
            response.close()
            raise Gone(response.text)
        if response.status_code >= 400:
            if stream:
                response.read()
                response.close()
            raise ConnectionFailed(f"GET {self.http.base_url}{self.path}: HTTP {response.status_code} "
                                   f"{response.text.strip()}")
        return response

    def _open(self) -> httpx.Response:
        params = {"watch": "true", "resourceVersion": self.rv, "allowWatchBookmarks": "true",
                  "timeoutSeconds": str(WATCH_TIMEOUT)}
        return self._request(params, stream=True)

    def _relist(self) -> None:
        """List and report every difference from what was known (the first list: every object)."""
        body = self._request({}, stream=False).json()
        info = self.kind.api_info
        listed = {}
        for item in body.get("items") or ():
            obj = self.kind.from_dict({"apiVersion": info.api_version, "kind": info.kind, **item})
            listed[_key(obj)] = obj
        for key in sorted(listed.keys() | self.known.keys()):
            old, new = self.known.get(key), listed.get(key)
            if new is None:
                assert old is not None  # the key is known, or listed
                self._post(WatchEvent(DELETED, old))  # deleted while the stream was down
            elif old is None:
                self._post(WatchEvent(ADDED, new))
            elif _rv(old) != _rv(new):
                self._post(WatchEvent(MODIFIED, new, old))
        self.known = listed
        self.rv = str((body.get("metadata") or {}).get("resourceVersion") or "")

    def _post(self, event: WatchEvent) -> None:
        self.inbox.post(self.on_event, event)

    # -- on the reader thread ----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stopped.is_set():
                response = self._response
                assert response is not None
                try:
                    events = self._consume(response)
                except Gone:
                    self._relist()
                    events = 1
                finally:
                    with contextlib.suppress(Exception):
                        response.close()
                # a server ending every stream at once is not asked again in a tight loop
                if (not events and self._stopped.wait(EMPTY_STREAM_PAUSE)) or self._stopped.is_set():
                    return
                self._response = self._reopen()
        except Exception as err:
            if not self._stopped.is_set():
                log.info("watch %s ended: %s", self.path, err)
                self.inbox.post(self.on_lost, self)

    def _reopen(self) -> httpx.Response:
        try:
            return self._open()
        except Gone:
            self._relist()
            return self._open()

    def _consume(self, response: httpx.Response) -> int:
        """Read events until the stream ends (a read timeout is an ending like the server's own);
        how many came."""
        import httpx

        count = 0
        with contextlib.suppress(httpx.ReadTimeout):
            for event in _events(response.iter_lines()):
                if self._stopped.is_set():
                    break
                count += 1
                self._handle(event)
        return count

    def _handle(self, event: dict[str, Any]) -> None:
        kind, obj = event.get("type"), event.get("object") or {}
        if kind == "BOOKMARK":
            self.rv = str((obj.get("metadata") or {}).get("resourceVersion") or self.rv)
            return
        if kind == "ERROR":
            if obj.get("code") == 410:
                raise Gone(obj.get("message") or "resource version too old")
            log.info("watch %s: error event %s", self.path, obj.get("message"))  # upstream logs it
            return
        info = self.kind.api_info
        resource = self.kind.from_dict({"apiVersion": info.api_version, "kind": info.kind, **obj})
        self.rv = resource.metadata.resource_version or self.rv
        key = _key(resource)
        if kind == "DELETED":
            self.known.pop(key, None)
            self._post(WatchEvent(DELETED, resource))
            return
        old, self.known[key] = self.known.get(key), resource
        self._post(WatchEvent(ADDED, resource) if old is None else WatchEvent(MODIFIED, resource, old))


def _events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.strip():
            event = json.loads(line)
            if isinstance(event, dict):
                yield event
