"""The HTTP watch of a worker (:mod:`kbatch.controllers.kueue.multikueue.watch_stream`) against a
scripted API server (httpx's ``MockTransport``): the list reported as ``ADDED``, events in order, a
``BOOKMARK`` moving the resourceVersion, a clean ending resumed from the last resourceVersion, a
``410 Gone`` relisted with what changed meanwhile (a deletion included), a transport failure ending
the watch once (``on_lost``), and a refused watch failing the connection. The protocol is
kubernetes.io/docs/reference/using-api/api-concepts ("Efficient detection of changes"); upstream
Kueue's consumer is ``multikueuecluster.go`` (``establishWatch``, ``handleWatchEvent``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.meta import Resource
from kbatch.controllers.kueue.multikueue.inbox import RemoteInbox
from kbatch.controllers.kueue.multikueue.remote import ConnectionFailed, WatchEvent
from kbatch.controllers.kueue.multikueue.watch_stream import WatchStream

SELECTOR = "kueue.x-k8s.io/multikueue-origin=multikueue"


def _wl(name: str, rv: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default", "resourceVersion": rv}, "spec": {}}


def _event(kind: str, obj: dict[str, Any]) -> bytes:
    return (json.dumps({"type": kind, "object": obj}) + "\n").encode()


class Script:
    """Answers list and watch requests from queues of canned answers; records the requests."""

    def __init__(self, lists: list[Any], watches: list[Any]) -> None:
        self.lists, self.watches = lists, watches
        self.requests: list[dict[str, str]] = []
        self.done = threading.Event()  # set when the scripted watches are used up

    def __call__(self, request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        self.requests.append(params)
        queue = self.watches if params.get("watch") == "true" else self.lists
        if not queue:
            self.done.set()
            raise httpx.ConnectError("connection refused", request=request)
        answer = queue.pop(0)
        if isinstance(answer, httpx.Response):
            return answer
        if params.get("watch") == "true":
            return httpx.Response(200, content=_lines(answer))
        return httpx.Response(200, json=answer)


def _lines(chunks: list[bytes]) -> Iterator[bytes]:
    yield from chunks


def _name_rv(obj: Resource | None) -> tuple[str, str] | None:
    return None if obj is None else (obj.metadata.name or "", obj.metadata.resource_version or "")


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.events: list[tuple[str, tuple[str, str] | None, tuple[str, str] | None]] = []  # type, new, old
        self.lost = 0

    def change(self, event: WatchEvent) -> None:
        self.seen.append(_name_rv(event.obj) or ("", ""))
        self.events.append((event.type, _name_rv(event.obj), _name_rv(event.old)))

    def on_lost(self, _: object) -> None:
        self.lost += 1


def _run(script: Script) -> tuple[Recorder, RemoteInbox, list[dict[str, str]]]:
    http = httpx.Client(base_url="http://worker", transport=httpx.MockTransport(script))
    inbox = RemoteInbox()
    rec = Recorder()
    stream = WatchStream(http, Workload, SELECTOR, inbox, rec.change, rec.on_lost)
    stream.start()
    assert stream._thread is not None
    stream._thread.join(timeout=30)  # the script ends with a refused connection: the reader stops
    assert not stream._thread.is_alive()
    inbox.step()
    return rec, inbox, script.requests


def test_list_then_events_in_order_resumed_after_a_clean_end() -> None:
    script = Script(
        lists=[{"metadata": {"resourceVersion": "10"}, "items": [_wl("a", "9")]}],
        watches=[
            [_event("ADDED", _wl("b", "11")), _event("MODIFIED", _wl("b", "12")),
             _event("BOOKMARK", {"metadata": {"resourceVersion": "15"}})],
            [_event("DELETED", _wl("a", "16"))],
        ],
    )
    rec, _, requests = _run(script)
    assert rec.seen == [("a", "9"), ("b", "11"), ("b", "12"), ("a", "16")]
    assert rec.events == [  # typed, a change carrying the state it replaced
        ("ADDED", ("a", "9"), None),
        ("ADDED", ("b", "11"), None),
        ("MODIFIED", ("b", "12"), ("b", "11")),
        ("DELETED", ("a", "16"), None),
    ]
    watches = [r for r in requests if r.get("watch") == "true"]
    assert [w["resourceVersion"] for w in watches] == ["10", "15", "16"]  # resumed, no relist
    assert all(w["labelSelector"] == SELECTOR and w["allowWatchBookmarks"] == "true" for w in watches)
    assert rec.lost == 1  # the third watch was refused: the watch ends, once


def test_gone_relists_and_reports_what_changed_meanwhile() -> None:
    gone = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410,
            "message": "too old resource version: 10 (20)"}
    script = Script(
        lists=[
            {"metadata": {"resourceVersion": "10"}, "items": [_wl("a", "9"), _wl("b", "8")]},
            {"metadata": {"resourceVersion": "30"}, "items": [_wl("b", "25"), _wl("c", "26")]},
            {"metadata": {"resourceVersion": "40"}, "items": [_wl("b", "25"), _wl("c", "26")]},
        ],
        watches=[
            [_event("ERROR", gone)],
            [],  # a clean end at once
            httpx.Response(410, json=gone),  # the next watch is refused as gone: relist, watch again
            [_event("MODIFIED", _wl("c", "41"))],
        ],
    )
    rec, _, requests = _run(script)
    # first list: a and b; the relist: a deleted (reported with its last state), b changed, c new;
    # the second relist: nothing changed; then c's event
    assert rec.seen == [("a", "9"), ("b", "8"), ("a", "9"), ("b", "25"), ("c", "26"), ("c", "41")]
    assert [(t, old) for t, _, old in rec.events] == [
        ("ADDED", None), ("ADDED", None),
        ("DELETED", None), ("MODIFIED", ("b", "8")), ("ADDED", None),
        ("MODIFIED", ("c", "26")),
    ]
    watches = [r["resourceVersion"] for r in requests if r.get("watch") == "true"]
    assert watches[:4] == ["10", "30", "30", "40"]


def test_the_type_follows_what_was_known_as_an_informers_does() -> None:
    """client-go ``processDeltas``: an object not known is added, a known one updated, whatever the
    event's own type says."""
    script = Script(
        lists=[{"metadata": {"resourceVersion": "1"}, "items": [_wl("a", "1")]}],
        watches=[[_event("ADDED", _wl("a", "2")), _event("MODIFIED", _wl("b", "3"))]],
    )
    rec, _, _ = _run(script)
    assert rec.events[1:] == [("MODIFIED", ("a", "2"), ("a", "1")), ("ADDED", ("b", "3"), None)]


def test_an_error_event_other_than_gone_is_logged_and_the_stream_goes_on() -> None:
    failure = {"kind": "Status", "status": "Failure", "code": 500, "message": "internal error"}
    script = Script(
        lists=[{"metadata": {"resourceVersion": "1"}, "items": []}],
        watches=[[_event("ERROR", failure), _event("ADDED", _wl("a", "2"))]],
    )
    rec, _, _ = _run(script)
    assert rec.seen == [("a", "2")]


@pytest.mark.parametrize("answer", [
    httpx.Response(403, json={"kind": "Status", "code": 403, "message": "forbidden"}),
    None,  # nothing listens
])
def test_a_refused_list_or_watch_fails_the_connection(answer: httpx.Response | None) -> None:
    lists: list[Any] = [{"metadata": {"resourceVersion": "1"}, "items": []}]
    script = Script(lists=lists if answer is not None else [], watches=[answer] if answer is not None else [])
    http = httpx.Client(base_url="http://worker", transport=httpx.MockTransport(script))
    stream = WatchStream(http, Workload, SELECTOR, RemoteInbox(), lambda _: None, lambda _: None)
    with pytest.raises(ConnectionFailed):
        stream.start()
    assert stream._thread is None


def test_stop_ends_the_reader_without_reporting_a_loss() -> None:
    release = threading.Event()

    def slow() -> Iterator[bytes]:
        yield _event("ADDED", _wl("a", "2"))
        release.wait(30)

    script = Script(lists=[{"metadata": {"resourceVersion": "1"}, "items": []}],
                    watches=[httpx.Response(200, content=slow())])
    http = httpx.Client(base_url="http://worker", transport=httpx.MockTransport(script))
    inbox = RemoteInbox()
    rec = Recorder()
    stream = WatchStream(http, Workload, SELECTOR, inbox, rec.change, rec.on_lost)
    stream.start()
    stream.stop()
    release.set()
    assert stream._thread is not None
    stream._thread.join(timeout=30)
    inbox.step()
    assert rec.lost == 0


