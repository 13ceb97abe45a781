"""Every way a watch on ``kbatch serve`` ends also ends its HTTP response properly: the last chunk of
the chunked body (``0\\r\\n\\r\\n``) is sent, so clients see a clean end of stream (kube-apiserver's watch
server returns from ``ServeHTTP`` and net/http writes it). Checked byte by byte on a raw socket, with
the official Python client, and with kubectl ``get -w --request-timeout``."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from kbatch.server.process import ServeProcess

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config, watch  # noqa: E402

JOBS = "/apis/batch/v1/namespaces/default/jobs"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
TIMEOUT = 30
KUBECTL = shutil.which("kubectl")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    proc = ServeProcess(tmp_path_factory.mktemp("watch-end-state"), controllers="job").start()
    try:
        yield proc
    finally:
        assert proc.stop() == 0, "".join(proc.output)


def _job(name: str) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"suspend": True, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}


def _configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


class RawWatch:
    """One keep-alive connection: a watch request, its chunked body read as bytes."""

    def __init__(self, url: str, path: str) -> None:
        parts = urlsplit(url)
        self.host = parts.netloc
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
        self.buffer = b""
        self.request(path)

    def request(self, path: str) -> None:
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())

    def _read(self) -> bool:
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def _take_line(self) -> bytes | None:
        while b"\r\n" not in self.buffer:
            if not self._read():
                return None
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def response(self) -> tuple[list[dict[str, Any]], bool]:
        """(the events of one response, whether its body ended with the last chunk)."""
        while b"\r\n\r\n" not in self.buffer:
            if not self._read():
                return [], False
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head.lower(), head
        body = b""
        while True:
            size_line = self._take_line()
            if size_line is None:  # the connection closed at a chunk boundary: "ended prematurely"
                return _decode(body), False
            size = int(size_line.split(b";")[0], 16)
            while len(self.buffer) < size + 2:
                if not self._read():
                    return _decode(body), False
            chunk, self.buffer = self.buffer[:size], self.buffer[size + 2:]
            if size == 0:
                return _decode(body), True
            body += chunk

    def close(self) -> None:
        self.sock.close()


def _decode(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.splitlines() if line.strip()]


def test_timeout_with_events_ends_with_the_last_chunk_and_keeps_the_connection(server: ServeProcess) -> None:
    httpx.post(server.url + JOBS, json=_job("timeout-a"), timeout=TIMEOUT).raise_for_status()
    raw = RawWatch(server.url, f"{JOBS}?watch=1&timeoutSeconds=1")
    events, ended = raw.response()
    assert ended and [e["type"] for e in events][:1] == ["ADDED"]
    raw.request(f"{JOBS}?watch=1&timeoutSeconds=1&labelSelector=none%3Dyes")  # same connection, reused
    events, ended = raw.response()
    assert ended and events == []
    raw.close()


def test_expired_version_is_an_error_event_then_the_last_chunk(server: ServeProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        old = http.get(JOBS).json()["metadata"]["resourceVersion"]
        http.post(JOBS, json=_job("expired-a")).raise_for_status()
        http.post(JOBS, json=_job("expired-b")).raise_for_status()
        http.post("/apis/kbatch.dev/v1alpha1/actions/compact", json={}).raise_for_status()
    raw = RawWatch(server.url, f"{JOBS}?watch=1&resourceVersion={old}")
    events, ended = raw.response()
    assert ended and [(e["type"], e["object"]["code"]) for e in events] == [("ERROR", 410)]
    raw.close()


def test_a_vanished_client_leaves_the_server_serving_watches(server: ServeProcess) -> None:
    gone = RawWatch(server.url, f"{JOBS}?watch=1")
    gone.close()
    httpx.post(server.url + JOBS, json=_job("after-vanish"), timeout=TIMEOUT).raise_for_status()
    raw = RawWatch(server.url, f"{JOBS}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dafter-vanish")
    events, ended = raw.response()
    assert ended and [e["object"]["metadata"]["name"] for e in events] == ["after-vanish"]
    raw.close()


def test_server_shutdown_ends_every_open_watch_with_the_last_chunk(tmp_path: Path) -> None:
    proc = ServeProcess(tmp_path / "state", controllers="job").start()
    # A ConfigMap, which no running controller writes: a Job would race the job controller's
    # Suspended condition, adding a MODIFIED event or not depending on timing.
    httpx.post(proc.url + CONFIGMAPS, json=_configmap("shutdown-a"), timeout=TIMEOUT).raise_for_status()
    busy = RawWatch(proc.url, f"{CONFIGMAPS}?watch=1&fieldSelector=metadata.name%3Dshutdown-a")
    idle = RawWatch(proc.url, "/api/v1/nodes?watch=1")
    while b'"ADDED"' not in busy.buffer:  # the busy stream has delivered its event before the signal
        assert busy._read()
    # The idle watch is open once its 200 came: a request still unread in the socket at the signal is
    # no open watch (the server may close that connection unanswered, as any server that stops).
    while b"\r\n\r\n" not in idle.buffer:
        assert idle._read()
    assert proc.stop() == 0, "".join(proc.output)
    events, ended = busy.response()
    assert ended and [e["type"] for e in events] == ["ADDED"]
    assert idle.response() == ([], True)
    busy.close()
    idle.close()


def test_an_internal_error_mid_stream_is_an_error_event_then_the_last_chunk() -> None:
    backend = ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))

    class Broken:
        def __init__(self, inner: Any) -> None:
            self.inner, self.calls = inner, 0

        def poll(self) -> list[dict[str, Any]]:
            self.calls += 1
            if self.calls > 1:
                raise RuntimeError("boom")
            return [{"type": "ADDED", "object": {"kind": "Job", "metadata": {"resourceVersion": "1"}}}]

        def set_notify(self, fn: Any) -> None:
            self.inner.set_notify(fn)

        def close(self) -> None:
            self.inner.close()

    real_watch = backend.watch
    backend.watch = lambda *a, **k: Broken(real_watch(*a, **k))  # type: ignore[method-assign]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if not sent:
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays until the response ends
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": JOBS, "query_string": b"watch=1&timeoutSeconds=5",
             "headers": []}
    asyncio.run(KbatchApp(backend)(scope, receive, send))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body", "http.response.body"]
    assert sent[0]["status"] == 200 and sent[-1]["more_body"] is False
    error = json.loads(sent[-1]["body"])
    assert error["type"] == "ERROR" and error["object"]["reason"] == "InternalError"


@pytest.fixture(scope="module")
def batch(server: ServeProcess) -> Any:
    return client.BatchV1Api(config.new_client_from_config(config_file=str(server.kubeconfig)))


def test_python_client_watch_that_delivered_events_ends_cleanly_at_its_timeout(server: ServeProcess,
                                                                              batch: Any) -> None:
    batch.create_namespaced_job("default", _job("py-a"))
    seen = []
    for event in watch.Watch().stream(batch.list_namespaced_job, "default", timeout_seconds=2):
        seen.append((event["type"], event["object"].metadata.name))
        if ("ADDED", "py-b") not in seen and len(seen) == 1:
            batch.create_namespaced_job("default", _job("py-b"))  # an event while the watch is open
    assert ("ADDED", "py-a") in seen and ("ADDED", "py-b") in seen  # and no ProtocolError was raised
    for _ in range(3):  # again on the pooled keep-alive connections
        assert list(watch.Watch().stream(batch.list_namespaced_job, "default", timeout_seconds=1))


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_get_watch_with_request_timeout_ends_cleanly(server: ServeProcess) -> None:
    httpx.post(server.url + JOBS, json=_job("kubectl-a"), timeout=TIMEOUT).raise_for_status()
    for timeout in ("2s", "1"):
        out = subprocess.run([KUBECTL, "get", "jobs", "-w", "--request-timeout", timeout], env=server.env(),
                             capture_output=True, text=True, timeout=TIMEOUT)
        assert out.returncode == 0 and out.stderr == "", out.stderr
        assert "kubectl-a" in out.stdout and out.stdout.splitlines()[0].split()[:2] == ["NAME", "STATUS"]
