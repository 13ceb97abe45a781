"""Watch streams over real HTTP: events, bookmarks, 410 as an ERROR event, slow and vanished clients."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from kbatch.server.process import ServeProcess

PODS = "/api/v1/namespaces/default/pods"
TIMEOUT = 30


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    proc = ServeProcess(tmp_path_factory.mktemp("watch-state"), controllers="garbage-collector").start()
    try:
        yield proc
    finally:
        assert proc.stop() == 0, "".join(proc.output)


def _pod(name: str, note: str = "") -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"w": "1"}, "annotations": {"note": note}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _events(http: httpx.Client, params: dict, count: int) -> list[dict]:
    out: list[dict] = []
    with http.stream("GET", PODS, params={"watch": "1", "timeoutSeconds": "10", **params}) as resp:
        assert resp.status_code == 200
        for line in resp.iter_lines():
            if line:
                out.append(json.loads(line))
                if len(out) >= count:
                    break
    return out


def test_watch_from_a_version_sees_every_change_in_order(server: ServeProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        rv = http.get(PODS).json()["metadata"]["resourceVersion"]
        http.post(PODS, json=_pod("a")).raise_for_status()
        http.patch(f"{PODS}/a", content=json.dumps({"metadata": {"labels": {"x": "1"}}}),
                   headers={"Content-Type": "application/merge-patch+json"}).raise_for_status()
        http.delete(f"{PODS}/a").raise_for_status()
        events = _events(http, {"resourceVersion": rv, "labelSelector": "w=1"}, 3)
        assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
        versions = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
        assert versions == sorted(versions)


def test_watch_without_version_starts_with_the_current_state(server: ServeProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        http.post(PODS, json=_pod("present")).raise_for_status()
        events = _events(http, {"fieldSelector": "metadata.name=present"}, 1)
        assert events[0]["type"] == "ADDED" and events[0]["object"]["metadata"]["name"] == "present"


def test_table_watch_rows(server: ServeProcess) -> None:
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    with httpx.Client(base_url=server.url, timeout=TIMEOUT, headers={"Accept": accept}) as http:
        http.post(PODS, json=_pod("tabled")).raise_for_status()
        event = _events(http, {"fieldSelector": "metadata.name=tabled"}, 1)[0]
        assert event["object"]["kind"] == "Table" and event["object"]["rows"][0]["cells"][0] == "tabled"


def test_too_old_version_is_an_error_event_with_410(server: ServeProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        old = http.get(PODS).json()["metadata"]["resourceVersion"]
        http.post(PODS, json=_pod("newer")).raise_for_status()
        http.post(PODS, json=_pod("newest")).raise_for_status()  # the change right after `old` compacted too
        http.post("/apis/kbatch.dev/v1alpha1/actions/compact", json={}).raise_for_status()
        events = _events(http, {"resourceVersion": old}, 1)
        assert events[0]["type"] == "ERROR"
        assert events[0]["object"]["code"] == 410 and events[0]["object"]["reason"] == "Expired"


def test_bookmark_before_an_idle_stream_times_out(server: ServeProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        rv = http.get(PODS).json()["metadata"]["resourceVersion"]
        http.post(PODS, json=_pod("marked")).raise_for_status()
        with http.stream("GET", PODS, params={"watch": "1", "resourceVersion": rv,
                                              "allowWatchBookmarks": "true",
                                              "timeoutSeconds": "2"}) as resp:
            kinds = [json.loads(line)["type"] for line in resp.iter_lines() if line]
        assert kinds[0] == "ADDED" and kinds[-1] == "BOOKMARK"


def _raw_watch(url: str) -> socket.socket:
    """A watch whose client never reads: the server's writes back up once the socket buffers fill."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(f"GET {PODS}?watch=1 HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode())
    return sock


def test_slow_and_vanished_watchers_do_not_stall_others(server: ServeProcess) -> None:
    stuck = _raw_watch(server.url)
    gone = _raw_watch(server.url)
    gone.close()
    big = "x" * 20_000
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        rv = http.get(PODS).json()["metadata"]["resourceVersion"]
        http.post(PODS, json=_pod("busy")).raise_for_status()
        for i in range(150):  # ~3 MB of events: far beyond what the stuck socket can buffer
            http.patch(f"{PODS}/busy",
                       content=json.dumps({"metadata": {"annotations": {"note": f"{i}{big}"}}}),
                       headers={"Content-Type": "application/merge-patch+json"}).raise_for_status()
        events = _events(http, {"resourceVersion": rv, "fieldSelector": "metadata.name=busy"}, 151)
        assert len(events) == 151
        assert http.get("/healthz").text == "ok"
    stuck.close()


def test_streaming_list_is_rejected(server: ServeProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        resp = http.get(PODS, params={"watch": "1", "sendInitialEvents": "true",
                                      "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true"})
        assert resp.status_code == 422 and resp.json()["reason"] == "Invalid"


_ = Path
